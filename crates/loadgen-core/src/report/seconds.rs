//! A report of a run's one-second windows, added up: what a live view
//! shows while the run goes, and what is left of a distributed run's
//! worker that was lost before its end. A window carries less than a
//! recorder (no bytes, connections, status codes beyond their class,
//! connection phases, queueing delays), so those figures read as zero or
//! empty; its requests are counted exactly as the run's final report
//! counts them ([`Window::succeeded`]). A scenario run's windows carry
//! each step's durations, and only those: its steps' counts, checks and
//! iterations are the finished report's.

use super::scenario::{ScenarioReport, StepHistograms, StepReport};
use super::{
    rfc3339, ByteCounts, ErrorCounts, ReportHistograms, RequestCounts, RunConfig, SpreadStats,
    StatusCounts, TimeStats,
};
use crate::error_kind::ErrorKind;
use crate::histogram;
use crate::histogram_codec::encode;
use crate::interval::{IntervalRow, StepWindow, Window};
use crate::Report;
use std::collections::BTreeMap;
use std::time::SystemTime;

/// When the seconds of a report were measured.
#[derive(Clone, Copy, Debug)]
pub struct SecondsClock {
    pub started_at: SystemTime,
    pub ended_at: SystemTime,
    /// From the start of the measured part to the end of the last second.
    pub elapsed_s: f64,
}

impl Report {
    /// The report of `total`, the seconds of a run configured as `config`
    /// added up, whose rows are `intervals`. Every request a second holds
    /// ended in it, so `started` and `done` are the requests that ended;
    /// the per-client spread is not in a second and is left to the caller
    /// (zero here).
    pub fn of_seconds(
        config: RunConfig,
        total: &Window,
        intervals: Vec<IntervalRow>,
        clock: SecondsClock,
    ) -> Report {
        let class = |c: usize| total.status_classes[c];
        let kind = |k: ErrorKind| total.error_kinds[k as usize];
        let succeeded = total.succeeded(config.is_websocket());
        let failed_status = total.responses - succeeded;
        let done = total.responses + total.errors;
        let seconds = clock.elapsed_s;
        let per_second = |n: u64| {
            if seconds > 0.0 {
                n as f64 / seconds
            } else {
                0.0
            }
        };
        let empty = encode(&histogram::new());
        let scenario = (!total.steps.is_empty()).then(|| ScenarioReport {
            steps: total.steps.iter().map(step_durations).collect(),
            ..ScenarioReport::default()
        });
        Report {
            loadgen_version: env!("CARGO_PKG_VERSION").to_string(),
            started_at: rfc3339(clock.started_at),
            ended_at: rfc3339(clock.ended_at),
            config,
            application_protocol: None,
            elapsed_s: seconds,
            interrupted: false,
            requests: RequestCounts {
                total: done,
                started: done,
                done,
                succeeded,
                failed: failed_status + total.errors,
                errored: total.errors,
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
                // As the final report: a status outside 100-599 is a 5xx.
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
            req_per_s: per_second(total.responses),
            throughput_bytes_per_s: 0.0,
            request_time: TimeStats::of(&total.request_time),
            request_time_raw: TimeStats::of(&total.request_time_raw),
            queue_delay: TimeStats::default(),
            started_late: 0,
            connect_time: TimeStats::of(&total.connect_time),
            dns_time: TimeStats::default(),
            tcp_connect_time: TimeStats::default(),
            tls_handshake_time: TimeStats::default(),
            first_byte_time: TimeStats::of(&total.first_byte_time),
            per_client_req_per_s: SpreadStats::default(),
            tls: None,
            quic: None,
            intervals,
            histograms: Some(ReportHistograms {
                request_time: encode(&total.request_time),
                request_time_raw: encode(&total.request_time_raw),
                connect_time: encode(&total.connect_time),
                dns_time: empty.clone(),
                tcp_connect_time: empty.clone(),
                tls_handshake_time: empty.clone(),
                first_byte_time: encode(&total.first_byte_time),
                queue_delay: empty,
                upgrade_time: None,
            }),
            scenario,
            websocket: None,
            grpc: None,
            // The server's sampler reports at the end of the run.
            server: None,
        }
    }
}

/// A step as its seconds hold it: its durations, which count the step's
/// responses; its requests, statuses and errors read as zero.
fn step_durations(step: &StepWindow) -> StepReport {
    StepReport {
        name: step.name.clone(),
        requests: RequestCounts::default(),
        status_codes: StatusCounts::default(),
        errors: ErrorCounts::default(),
        duration: TimeStats::of(&step.duration),
        duration_raw: TimeStats::of(&step.duration_raw),
        redirects: 0,
        extraction_failures: 0,
        histograms: Some(StepHistograms {
            duration: encode(&step.duration),
            duration_raw: encode(&step.duration_raw),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn config(uri: &str) -> RunConfig {
        RunConfig {
            uris: vec![uri.to_string()],
            method: "GET".into(),
            clients: 1,
            threads: 1,
            max_concurrent_streams: 1,
            mode: "requests".into(),
            requests: Some(1),
            duration_s: None,
            warm_up_s: None,
            load_model: "closed".into(),
            rate_per_s: None,
            rps_per_client: None,
            segment: None,
            load_profile: Vec::new(),
            wake_coalescing_us: None,
        }
    }

    fn window(statuses: &[u16], resets: u64) -> Window {
        let mut window = Window::default();
        for status in statuses {
            let time = Duration::from_micros(100);
            window.record_response(*status, time, time);
        }
        window.record_errors(ErrorKind::Reset, resets);
        window
    }

    fn clock() -> SecondsClock {
        SecondsClock {
            started_at: SystemTime::UNIX_EPOCH,
            ended_at: SystemTime::UNIX_EPOCH + Duration::from_secs(2),
            elapsed_s: 2.0,
        }
    }

    #[test]
    fn an_http_run_fails_1xx_4xx_5xx_and_invalid_statuses() {
        let total = window(&[200, 204, 301, 101, 404, 503, 999], 2);
        let report = Report::of_seconds(config("http://h/"), &total, Vec::new(), clock());
        let r = report.requests;
        assert_eq!(
            (r.done, r.succeeded, r.failed_status, r.errored, r.failed),
            (9, 3, 4, 2, 6)
        );
        assert_eq!(report.responses(), 7);
        assert_eq!(report.req_per_s, 3.5);
        assert_eq!(report.status_codes.class_5xx, 2);
    }

    #[test]
    fn a_websocket_runs_messages_succeed() {
        let total = window(&[101, 101, 101], 1);
        for uri in ["ws://h/ws", "WSS://h/ws"] {
            let report = Report::of_seconds(config(uri), &total, Vec::new(), clock());
            let r = report.requests;
            assert_eq!((r.succeeded, r.failed_status, r.failed), (3, 0, 1), "{uri}");
        }
    }
}
