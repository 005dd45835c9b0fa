//! The per-worker table of a plan run: each worker's requests, rate,
//! latencies and errors.

use super::cells::{aligned, clock_cell, signed_ms};
use crate::controller::outcome::{Outcome, WorkerEnd};
use loadgen_report::units::duration_us;
use serde::Serialize;
use serde_json::{Map, Value};

/// One row of the table's JSON form (`workers` in the JSON report).
#[derive(Serialize)]
struct Row<'a> {
    url: &'a str,
    segment: &'a str,
    /// `reported` or `lost`.
    state: &'static str,
    lost_reason: Option<&'a str>,
    requests: Option<u64>,
    req_per_s: Option<f64>,
    p50_us: Option<u64>,
    p99_us: Option<u64>,
    errors: Option<u64>,
    clock_offset_us: i64,
    clock_round_trip_us: u64,
    start_skew_us: Option<i64>,
}

/// The table under the text report.
pub fn text(outcome: &Outcome) -> String {
    let mut rows = vec![[
        "worker",
        "segment",
        "requests",
        "req/s",
        "p50",
        "p99",
        "errors",
        "clock offset",
        "start skew",
    ]
    .map(String::from)
    .to_vec()];
    for w in &outcome.workers {
        let offset = clock_cell(&w.offset);
        rows.push(match &w.end {
            WorkerEnd::Reported {
                report,
                start_skew_us,
            } => vec![
                w.url.clone(),
                w.segment.clone(),
                report.requests.done.to_string(),
                format!("{:.2}", report.req_per_s),
                duration_us(report.request_time.p50_us as f64),
                duration_us(report.request_time.p99_us as f64),
                report.requests.errored.to_string(),
                offset,
                signed_ms(*start_skew_us),
            ],
            WorkerEnd::Lost { why, .. } => {
                vec![w.url.clone(), w.segment.clone(), format!("lost: {why}")]
            }
        });
    }
    format!("\nworkers:\n{}", aligned(&rows, 2))
}

/// The table's JSON: `workers`, a row per worker.
pub fn json(outcome: &Outcome) -> Map<String, Value> {
    let rows: Vec<Row> = outcome
        .workers
        .iter()
        .map(|w| {
            let (report, skew, why) = w.end.parts();
            Row {
                url: &w.url,
                segment: &w.segment,
                state: if report.is_some() { "reported" } else { "lost" },
                lost_reason: why,
                requests: report.map(|r| r.requests.done),
                req_per_s: report.map(|r| r.req_per_s),
                p50_us: report.map(|r| r.request_time.p50_us),
                p99_us: report.map(|r| r.request_time.p99_us),
                errors: report.map(|r| r.requests.errored),
                clock_offset_us: w.offset.offset_us,
                clock_round_trip_us: w.offset.round_trip.as_micros() as u64,
                start_skew_us: skew,
            }
        })
        .collect();
    let mut keys = Map::new();
    keys.insert(
        "workers".into(),
        serde_json::to_value(rows).expect("rows serialize"),
    );
    keys
}
