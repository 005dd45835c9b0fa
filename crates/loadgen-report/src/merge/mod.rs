//! `loadgen merge`: reports written with `-o FILE.json` by processes or
//! machines that loaded one target (at once, or one after the other) added
//! up into one [`Report`], exactly wherever the reports allow it:
//!
//! - counts (requests, status codes, errors, bytes, connections, started
//!   late, QUIC datagrams and losses) add up ([`counts`]);
//! - every time distribution is the sum of the reports' histograms, and its
//!   time stats are computed from that sum as a run computes its own
//!   ([`histograms`]): the percentiles are those of all the samples;
//! - the elapsed time runs from the earliest start to the latest end on the
//!   wall clock ([`wall_clock`]), and req/s and throughput are the summed
//!   counts over it;
//! - the one-second rows are lined up on wall-clock seconds ([`intervals`]);
//! - the per-client req/s spread is rebuilt from each report's figures,
//!   exact but for `within_stdev_pct` ([`spread`]);
//! - the configuration is the union of the reports' ([`config`]);
//! - a scenario run's steps, checks and iterations add up by name
//!   ([`scenario`]).
//!
//! [`hdr_log`] merges `--hdr-log` interval logs the same way.

mod config;
mod counts;
mod error;
mod grpc;
pub mod hdr_log;
mod histograms;
mod intervals;
mod scenario;
mod spread;
mod wall_clock;
mod websocket;

#[cfg(test)]
mod tests;

pub use error::MergeError;
pub use wall_clock::parse_rfc3339;

use histograms::RunHistograms;
use loadgen_core::report::rfc3339;
use loadgen_core::Report;
use std::path::Path;
use wall_clock::Span;

/// One report to merge, and the name its errors show (its file name).
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub report: Report,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MergeOptions {
    /// Merge reports of different tests (other URIs, method, protocol,
    /// mode, load model or `-m`) instead of refusing them.
    pub force: bool,
}

/// The report in the JSON file at `path` (as `-o FILE.json` writes it).
pub fn read_report(path: &Path) -> Result<Source, MergeError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| MergeError::Read {
        name: name.clone(),
        error,
    })?;
    parse_report(name, &text)
}

/// The report in `text`, a JSON document, named `name` in errors.
pub fn parse_report(name: String, text: &str) -> Result<Source, MergeError> {
    match serde_json::from_str::<Report>(text) {
        Ok(report) => Ok(Source { name, report }),
        Err(e) => Err(MergeError::NotAReport {
            why: format!("is not a loadgen JSON report (as -o FILE.json writes): {e}"),
            name,
        }),
    }
}

/// The reports of `sources` added up into one, or the first reason they
/// cannot be: a report without histograms or with histograms that disagree
/// with its figures, an unreadable timestamp, or (unless `options.force`)
/// reports of different tests.
pub fn merge(sources: &[Source], options: MergeOptions) -> Result<Report, MergeError> {
    if sources.is_empty() {
        return Err(MergeError::NoInput);
    }
    let mut histograms = RunHistograms::empty();
    let mut rows = Vec::new();
    let mut spans = Vec::with_capacity(sources.len());
    for Source { name, report } in sources {
        histograms.add(&RunHistograms::of(name, report)?);
        let span =
            Span::of(&report.started_at, report.elapsed_s).map_err(|why| MergeError::Invalid {
                name: name.clone(),
                why,
            })?;
        rows.extend(intervals::place(name, &report.intervals, span.start)?);
        spans.push(span);
    }
    config::check_same_test(sources, options.force)?;

    let reports: Vec<&Report> = sources.iter().map(|s| &s.report).collect();
    let start = spans
        .iter()
        .map(|s| s.start)
        .min()
        .expect("one report at least");
    let end = spans
        .iter()
        .map(|s| s.end)
        .max()
        .expect("one report at least");
    let elapsed_s = end.duration_since(start).unwrap_or_default().as_secs_f64();
    let per_second = |count: u64| {
        if elapsed_s > 0.0 {
            count as f64 / elapsed_s
        } else {
            0.0
        }
    };
    let configs: Vec<_> = reports.iter().map(|r| &r.config).collect();
    let mut adder = counts::Adder::default();
    let requests = counts::requests(reports.iter().map(|r| &r.requests), &mut adder);
    let bytes = counts::bytes(&reports, &mut adder);
    let status_codes = counts::status_codes(reports.iter().map(|r| &r.status_codes), &mut adder);
    let errors = counts::errors(reports.iter().map(|r| &r.errors), &mut adder);
    let quic = counts::quic(&reports, &mut adder);
    let connections = adder.total("connections", reports.iter().map(|r| r.connections));
    let started_late = adder.total("started_late", reports.iter().map(|r| r.started_late));
    let config = config::union(&configs, &mut adder);
    let intervals = intervals::align(rows, start, &mut adder)?;
    let scenario = scenario::merge(sources, &mut adder)?;
    let websocket = websocket::merge(sources, &mut adder)?;
    let grpc = grpc::merge(sources, &mut adder);
    adder.finish()?;
    let [request_time, request_time_raw, connect_time, dns_time, tcp_connect_time, tls_handshake_time, first_byte_time, queue_delay] =
        histograms.time_stats();
    let spreads: Vec<_> = reports
        .iter()
        .map(|r| (r.config.clients, r.per_client_req_per_s))
        .collect();
    Ok(Report {
        loadgen_version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: rfc3339(start),
        ended_at: rfc3339(end),
        config,
        application_protocol: config::protocols(
            reports.iter().map(|r| r.application_protocol.as_ref()),
        ),
        elapsed_s,
        // One interrupted part leaves the whole short of what was asked.
        interrupted: reports.iter().any(|r| r.interrupted),
        // As a run: responses of any status per second.
        req_per_s: per_second(requests.succeeded.saturating_add(requests.failed_status)),
        throughput_bytes_per_s: per_second(bytes.total),
        requests,
        status_codes,
        errors,
        bytes,
        connections,
        request_time,
        request_time_raw,
        queue_delay,
        started_late,
        connect_time,
        dns_time,
        tcp_connect_time,
        tls_handshake_time,
        first_byte_time,
        per_client_req_per_s: spread::merge(&spreads),
        // The first connection's TLS details, as a run keeps them.
        tls: reports.iter().find_map(|r| r.tls.clone()),
        quic,
        intervals,
        histograms: Some(histograms::ReportHistograms {
            upgrade_time: websocket.as_ref().map(|(_, h)| h.clone()),
            ..histograms.encode()
        }),
        scenario,
        websocket: websocket.map(|(stats, _)| stats),
        grpc,
        server: None,
    })
}
