//! What a distributed run ends with: each worker's part (its report and
//! start skew, or why it was lost), the merged report, and the per-worker
//! table in text and JSON.

use super::clock::Offset;
use loadgen_core::Report;
use loadgen_report::units::duration_us;
use serde::Serialize;
use std::fmt::Write;

/// How a worker's part ended.
#[derive(Clone, Debug)]
pub enum WorkerEnd {
    /// Its report, on the controller's clock, and how late its measured
    /// part started: when it started (on the controller's clock) minus when
    /// it was meant to.
    Reported {
        report: Box<Report>,
        start_skew_us: i64,
    },
    /// It died, went silent or failed; its data is left out.
    Lost { why: String },
}

#[derive(Clone, Debug)]
pub struct WorkerResult {
    pub url: String,
    pub segment: String,
    pub offset: Offset,
    pub end: WorkerEnd,
}

pub struct Outcome {
    pub workers: Vec<WorkerResult>,
    /// The merge of the reports of the workers that reported; `None` when
    /// none did.
    pub report: Option<Report>,
}

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

impl Outcome {
    /// Each worker's report, in the table's order; `None` for one lost.
    pub fn worker_reports(&self) -> Vec<Option<&Report>> {
        self.workers
            .iter()
            .map(|w| match &w.end {
                WorkerEnd::Reported { report, .. } => Some(report.as_ref()),
                WorkerEnd::Lost { .. } => None,
            })
            .collect()
    }

    pub fn lost(&self) -> impl Iterator<Item = &WorkerResult> {
        self.workers
            .iter()
            .filter(|w| matches!(w.end, WorkerEnd::Lost { .. }))
    }

    /// Whether the workers ran a scenario: their table then shows
    /// iterations and checks ([`super::scenario_table`]).
    pub fn is_scenario(&self) -> bool {
        self.workers.iter().any(
            |w| matches!(&w.end, WorkerEnd::Reported { report, .. } if report.scenario.is_some()),
        )
    }

    /// What the table adds to the JSON report: its `workers` array (and,
    /// for a scenario, the checks by worker).
    pub fn table_json(&self) -> serde_json::Map<String, serde_json::Value> {
        if self.is_scenario() {
            return super::scenario_table::json(self);
        }
        let mut keys = serde_json::Map::new();
        keys.insert("workers".into(), self.rows_json());
        keys
    }

    fn rows_json(&self) -> serde_json::Value {
        let rows: Vec<Row> = self
            .workers
            .iter()
            .map(|w| {
                let (report, skew, why) = match &w.end {
                    WorkerEnd::Reported {
                        report,
                        start_skew_us,
                    } => (Some(report), Some(*start_skew_us), None),
                    WorkerEnd::Lost { why } => (None, None, Some(why.as_str())),
                };
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
        serde_json::to_value(rows).expect("rows serialize")
    }

    /// The per-worker table under the text report.
    pub fn table_text(&self) -> String {
        if self.is_scenario() {
            return super::scenario_table::text(self);
        }
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
        for w in &self.workers {
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
                WorkerEnd::Lost { why } => {
                    vec![w.url.clone(), w.segment.clone(), format!("lost: {why}")]
                }
            });
        }
        format!("\nworkers:\n{}", aligned(&rows, 2))
    }
}

/// `offset ±half the round trip`, as the tables show a worker's clock.
pub(super) fn clock_cell(offset: &Offset) -> String {
    format!(
        "{} ±{}",
        signed_ms(offset.offset_us),
        duration_us(offset.round_trip.as_micros() as f64 / 2.0)
    )
}

/// Rows as aligned columns, two spaces in: the first `left` columns
/// aligned left, the others right. A shorter row (a lost worker's reason)
/// spans the columns after its last cell.
pub(super) fn aligned(rows: &[Vec<String>], left: usize) -> String {
    let columns = rows[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter(|r| r.len() == columns)
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| match c {
                _ if c < left => format!("{cell:<w$}", w = widths[c]),
                _ if row.len() < columns => cell.clone(),
                _ => format!("{cell:>w$}", w = widths[c]),
            })
            .collect();
        let _ = writeln!(out, "  {}", cells.join("  ").trim_end());
    }
    out
}

/// `+1.234ms`, `-0.020ms`: microseconds as signed milliseconds.
pub(super) fn signed_ms(us: i64) -> String {
    let sign = if us < 0 { '-' } else { '+' };
    format!("{sign}{:.3}ms", us.unsigned_abs() as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_milliseconds() {
        assert_eq!(signed_ms(1234), "+1.234ms");
        assert_eq!(signed_ms(-20), "-0.020ms");
        assert_eq!(signed_ms(0), "+0.000ms");
    }
}
