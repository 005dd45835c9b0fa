//! A run while it goes: the merged seconds so far, added up, as the live
//! dashboard shows them. Fed once per second, never per request.

use loadgen_core::error_kind::ErrorKind;
use loadgen_core::histogram_codec;
use loadgen_core::interval::{Interval, IntervalRow, Window};
use loadgen_core::report::{
    rfc3339, ByteCounts, ErrorCounts, ReportHistograms, RequestCounts, RunConfig, SpreadStats,
    StatusCounts, TimeStats,
};
use loadgen_core::Report;
use std::collections::BTreeMap;
use std::time::SystemTime;

/// The seconds of a run so far.
#[derive(Clone, Debug)]
pub struct LiveRun {
    config: RunConfig,
    started_at: SystemTime,
    rows: Vec<IntervalRow>,
    total: Window,
    elapsed_s: f64,
}

impl LiveRun {
    pub fn new(config: RunConfig, started_at: SystemTime) -> LiveRun {
        LiveRun {
            config,
            started_at,
            rows: Vec::new(),
            total: Window::default(),
            elapsed_s: 0.0,
        }
    }

    /// Adds one merged second.
    pub fn add(&mut self, interval: &Interval) {
        self.rows.push(IntervalRow::summary(interval));
        self.total.merge(&interval.window);
        self.elapsed_s = (interval.offset + interval.length).as_secs_f64();
    }

    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// The seconds so far, as the JSON report's `intervals` will hold them.
    pub fn rows(&self) -> &[IntervalRow] {
        &self.rows
    }

    /// A report of what the seconds hold: their rows, the request time
    /// and its histograms, responses by class and errors by kind. What
    /// only the end knows (bytes, connections, TLS, per-client rates, codes
    /// one by one) reads as zero or empty here: the dashboard draws only
    /// the charts and thresholds that read the seconds.
    pub fn so_far(&self) -> Report {
        let w = &self.total;
        let class = |i: usize| w.status_classes[i];
        let succeeded = class(2) + class(3);
        let failed_status = class(4) + class(5) + class(0);
        let kind = |k: ErrorKind| w.error_kinds[k as usize];
        let per_second = |count: u64| {
            if self.elapsed_s > 0.0 {
                count as f64 / self.elapsed_s
            } else {
                0.0
            }
        };
        let empty = histogram_codec::encode(&loadgen_core::histogram::new());
        Report {
            loadgen_version: env!("CARGO_PKG_VERSION").to_string(),
            started_at: rfc3339(self.started_at),
            ended_at: rfc3339(SystemTime::now()),
            config: self.config.clone(),
            application_protocol: None,
            elapsed_s: self.elapsed_s,
            interrupted: false,
            requests: RequestCounts {
                total: w.responses + w.errors,
                started: w.responses + w.errors,
                done: w.responses + w.errors,
                succeeded,
                failed: failed_status + w.errors,
                errored: w.errors,
                timeout: kind(ErrorKind::Timeout),
                failed_status,
                errored_not_started: 0,
                unsent_at_end: 0,
            },
            status_codes: StatusCounts {
                class_1xx: class(1),
                class_2xx: class(2),
                class_3xx: class(3),
                class_4xx: class(4),
                class_5xx: class(5) + class(0),
                by_code: BTreeMap::new(),
            },
            errors: ErrorCounts {
                connect: kind(ErrorKind::Connect),
                tls: kind(ErrorKind::Tls),
                timeout: kind(ErrorKind::Timeout),
                protocol: kind(ErrorKind::Protocol),
                reset: kind(ErrorKind::Reset),
                other: kind(ErrorKind::Other),
                between_requests: 0,
                first_message: BTreeMap::new(),
            },
            bytes: ByteCounts {
                total: 0,
                headers: 0,
                headers_uncompressed: 0,
                data: 0,
                header_compression_savings_pct: 0.0,
                sent: 0,
            },
            connections: 0,
            req_per_s: per_second(w.responses),
            throughput_bytes_per_s: 0.0,
            request_time: TimeStats::of(&w.request_time),
            request_time_raw: TimeStats::of(&w.request_time_raw),
            queue_delay: TimeStats::default(),
            started_late: 0,
            connect_time: TimeStats::of(&w.connect_time),
            dns_time: TimeStats::default(),
            tcp_connect_time: TimeStats::default(),
            tls_handshake_time: TimeStats::default(),
            first_byte_time: TimeStats::of(&w.first_byte_time),
            per_client_req_per_s: SpreadStats::default(),
            tls: None,
            quic: None,
            intervals: self.rows.clone(),
            histograms: Some(ReportHistograms {
                request_time: histogram_codec::encode(&w.request_time),
                request_time_raw: histogram_codec::encode(&w.request_time_raw),
                connect_time: histogram_codec::encode(&w.connect_time),
                dns_time: empty.clone(),
                tcp_connect_time: empty.clone(),
                tls_handshake_time: empty.clone(),
                first_byte_time: histogram_codec::encode(&w.first_byte_time),
                queue_delay: empty,
                upgrade_time: None,
            }),
            scenario: None,
            websocket: None,
            grpc: None,
            // The server's sampler reports at the end; the live view has no share of it.
            server: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn second(index: u32, statuses: &[u16], errors: u64) -> Interval {
        let mut window = Window::default();
        for (i, status) in statuses.iter().enumerate() {
            // Under 2048 µs a histogram of three significant digits is exact.
            let time = Duration::from_micros(100 * (i as u64 + 1));
            window.record_response(*status, time, time);
        }
        window.record_errors(ErrorKind::Reset, errors);
        Interval {
            index,
            offset: Duration::from_secs(index.into()),
            started_at: SystemTime::UNIX_EPOCH,
            length: Duration::from_secs(1),
            window,
        }
    }

    fn config() -> RunConfig {
        let text = include_str!("../tests/data/report.json");
        let report: Report = serde_json::from_str(text).unwrap();
        report.config
    }

    #[test]
    fn the_seconds_add_up_as_the_report_counts_them() {
        let mut live = LiveRun::new(config(), SystemTime::UNIX_EPOCH);
        live.add(&second(0, &[200, 200, 503], 1));
        live.add(&second(1, &[200, 404], 2));
        assert_eq!(live.rows().len(), 2);
        assert_eq!(live.rows()[1].requests, 2);
        let report = live.so_far();
        let r = report.requests;
        assert_eq!(
            (r.done, r.succeeded, r.failed_status, r.errored, r.failed),
            (8, 3, 2, 3, 5)
        );
        assert_eq!(report.elapsed_s, 2.0);
        assert_eq!(report.req_per_s, 2.5);
        assert_eq!(report.request_time.count, 5);
        assert_eq!(report.request_time.max_us, 300);
        assert_eq!(report.errors.reset, 3);
        assert_eq!(
            (report.status_codes.class_4xx, report.status_codes.class_5xx),
            (1, 1)
        );
    }
}
