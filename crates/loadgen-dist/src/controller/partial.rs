//! What a lost worker leaves: the seconds it streamed before the loss.
//! Each came with its histograms and its counts by status class and error
//! kind, so they add up to a report of that part of its run, which is
//! merged with the others' and marked partial: the requests the target
//! served for it up to its loss are not silently missing.
//!
//! A second carries less than a report: no bytes, no connections, no
//! status codes beyond their class, no connection phases. Those figures of
//! the part are zero, and its `started` are the requests that ended.

use super::live::window_of;
use loadgen_core::error_kind::ErrorKind;
use loadgen_core::histogram_codec::encode;
use loadgen_core::interval::{IntervalRow, Window};
use loadgen_core::report::{
    rfc3339, ByteCounts, ErrorCounts, ReportHistograms, RequestCounts, RunConfig, SpreadStats,
    StatusCounts, TimeStats,
};
use loadgen_core::{histogram, Report};
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

/// The report of `rows`, a lost worker's seconds of a plan's run
/// configured as `config`, whose measured part was to start at `started`
/// (the controller's clock). `None` without a second.
pub fn report_of_seconds(
    config: RunConfig,
    rows: Vec<IntervalRow>,
    started: SystemTime,
) -> Result<Option<Report>, String> {
    if rows.is_empty() {
        return Ok(None);
    }
    let mut total = Window::default();
    for row in &rows {
        total.merge(&window_of(row)?);
    }
    let elapsed_s = rows
        .iter()
        .map(|r| r.start_s + r.duration_s)
        .fold(0.0, f64::max);
    let class = |c: usize| total.status_classes[c];
    let kind = |k: ErrorKind| total.error_kinds[k as usize];
    let succeeded = class(2) + class(3);
    let failed_status = total.responses - succeeded;
    let done = total.responses + total.errors;
    let per_second = |n: u64| {
        if elapsed_s > 0.0 {
            n as f64 / elapsed_s
        } else {
            0.0
        }
    };
    // Each client's rate is not in a second's row: the part's mean for all.
    let client_rate = per_second(total.responses) / config.clients.max(1) as f64;
    let empty = histogram::new();
    Ok(Some(Report {
        loadgen_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: rfc3339(started),
        ended_at: rfc3339(started + Duration::from_secs_f64(elapsed_s)),
        config,
        application_protocol: None,
        elapsed_s,
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
        per_client_req_per_s: SpreadStats {
            min: client_rate,
            max: client_rate,
            mean: client_rate,
            stdev: 0.0,
            within_stdev_pct: 100.0,
        },
        tls: None,
        quic: None,
        intervals: rows,
        histograms: Some(ReportHistograms {
            request_time: encode(&total.request_time),
            request_time_raw: encode(&total.request_time_raw),
            connect_time: encode(&total.connect_time),
            dns_time: encode(&empty),
            tcp_connect_time: encode(&empty),
            tls_handshake_time: encode(&empty),
            first_byte_time: encode(&total.first_byte_time),
            queue_delay: encode(&empty),
            upgrade_time: None,
        }),
        scenario: None,
        websocket: None,
        grpc: None,
        server: None,
    }))
}
