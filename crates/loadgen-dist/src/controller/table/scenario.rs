//! The per-worker table of a scenario run: each worker's iterations, and
//! each check's passes on each worker with whether the workers agree (as
//! loadgen-rs shows a distributed script's checks). Workers that ran the
//! same flow against the same server should pass a check at the same
//! rate; a check that passes everywhere but on one worker points at that
//! worker (its network, its data), not at the server.

use super::cells::{aligned, clock_cell, signed_ms};
use crate::controller::outcome::{Outcome, WorkerEnd, WorkerResult};
use loadgen_core::report::scenario::{CheckCounts, ScenarioReport};
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// One check across the workers.
struct CheckRow {
    step: String,
    name: String,
    /// Each worker's (passes, fails), `None` for a lost one.
    counts: Vec<Option<(u64, u64)>>,
}

impl CheckRow {
    /// The workers that evaluated the check pass it at one rate (all of
    /// them 100%, say). Compared as fractions, exactly.
    fn agree(&self) -> bool {
        let evaluated: Vec<(u64, u64)> = self
            .counts
            .iter()
            .flatten()
            .map(|&(passes, fails)| (passes, passes + fails))
            .filter(|&(_, total)| total > 0)
            .collect();
        evaluated.windows(2).all(|pair| {
            let ((a, a_total), (b, b_total)) = (pair[0], pair[1]);
            u128::from(a) * u128::from(b_total) == u128::from(b) * u128::from(a_total)
        })
    }
}

fn section(worker: &WorkerResult) -> Option<&ScenarioReport> {
    match &worker.end {
        WorkerEnd::Reported { report, .. } => report.scenario.as_ref(),
        WorkerEnd::Lost { .. } => None,
    }
}

/// Every check any worker reported, in the order they first appear.
fn check_rows(outcome: &Outcome) -> Vec<CheckRow> {
    let mut rows: Vec<CheckRow> = Vec::new();
    for worker in &outcome.workers {
        for check in section(worker).map_or(&[][..], |s| &s.checks) {
            if !rows
                .iter()
                .any(|r| r.step == check.step && r.name == check.name)
            {
                rows.push(CheckRow {
                    step: check.step.clone(),
                    name: check.name.clone(),
                    counts: Vec::new(),
                });
            }
        }
    }
    for row in &mut rows {
        row.counts = outcome
            .workers
            .iter()
            .map(|worker| {
                section(worker).map(|s| {
                    let found = s
                        .checks
                        .iter()
                        .find(|c| c.step == row.step && c.name == row.name);
                    found.map_or((0, 0), |c: &CheckCounts| (c.passes, c.fails))
                })
            })
            .collect();
    }
    rows
}

/// The table under the k6-like summary.
pub fn text(outcome: &Outcome) -> String {
    let mut rows = vec![[
        "#",
        "worker",
        "segment",
        "vus",
        "iterations",
        "aborted",
        "dropped",
        "requests",
        "errors",
        "clock offset",
        "start skew",
    ]
    .map(String::from)
    .to_vec()];
    for (index, w) in outcome.workers.iter().enumerate() {
        let head = vec![index.to_string(), w.url.clone(), w.segment.clone()];
        rows.push(match (&w.end, section(w)) {
            (
                WorkerEnd::Reported {
                    report,
                    start_skew_us,
                },
                Some(s),
            ) => {
                let mut row = head;
                row.extend([
                    s.vus_max.to_string(),
                    s.iterations.completed.to_string(),
                    s.iterations.aborted.to_string(),
                    s.iterations.dropped.to_string(),
                    report.requests.done.to_string(),
                    report.requests.errored.to_string(),
                    clock_cell(&w.offset),
                    signed_ms(*start_skew_us),
                ]);
                row
            }
            (WorkerEnd::Lost { why, .. }, _) => {
                let mut row = head;
                row.push(format!("lost: {why}"));
                row
            }
            (WorkerEnd::Reported { .. }, None) => {
                let mut row = head;
                row.push("reported no scenario section".into());
                row
            }
        });
    }
    let mut out = format!("\nworkers:\n{}", aligned(&rows, 3));

    let checks = check_rows(outcome);
    if checks.is_empty() {
        return out;
    }
    let mut header = vec!["check".to_string()];
    header.extend((0..outcome.workers.len()).map(|i| format!("#{i}")));
    header.push("workers".into());
    let mut table = vec![header];
    for check in &checks {
        let mut row = vec![format!("{}: {}", check.step, check.name)];
        row.extend(check.counts.iter().map(|counts| match counts {
            Some((passes, fails)) => format!("{passes}/{}", passes + fails),
            None => "-".into(),
        }));
        row.push(if check.agree() { "PASS" } else { "FAIL" }.into());
        table.push(row);
    }
    out.push_str("\nchecks by worker (passes/evaluated):\n");
    out.push_str(&aligned(&table, 1));
    let disagreeing = checks.iter().filter(|c| !c.agree()).count();
    let _ = if disagreeing == 0 {
        writeln!(out, "  workers agree on every check: PASS")
    } else {
        writeln!(
            out,
            "  workers disagree on {disagreeing} of {} checks: FAIL",
            checks.len()
        )
    };
    out
}

/// The table's JSON: `workers` (a row per worker, with its iterations and
/// checks), `worker_checks` (each check's passes and fails per worker and
/// whether they agree) and `workers_agree`.
pub fn json(outcome: &Outcome) -> Map<String, Value> {
    let workers: Vec<Value> = outcome
        .workers
        .iter()
        .map(|w| {
            let (report, skew, why) = w.end.parts();
            let scenario = section(w);
            json!({
                "url": w.url,
                "segment": w.segment,
                "state": if report.is_some() { "reported" } else { "lost" },
                "lost_reason": why,
                "vus_max": scenario.map(|s| s.vus_max),
                "iterations": scenario.map(|s| s.iterations),
                "requests": report.map(|r| r.requests.done),
                "errors": report.map(|r| r.requests.errored),
                "checks": scenario.map(|s| &s.checks),
                "clock_offset_us": w.offset.offset_us,
                "clock_round_trip_us": w.offset.round_trip.as_micros() as u64,
                "start_skew_us": skew,
            })
        })
        .collect();
    let checks = check_rows(outcome);
    let worker_checks: Vec<Value> = checks
        .iter()
        .map(|c| {
            json!({
                "step": c.step,
                "name": c.name,
                "passes": c.counts.iter().map(|n| n.map(|(p, _)| p)).collect::<Vec<_>>(),
                "fails": c.counts.iter().map(|n| n.map(|(_, f)| f)).collect::<Vec<_>>(),
                "agree": c.agree(),
            })
        })
        .collect();
    let mut keys = Map::new();
    keys.insert("workers".into(), Value::Array(workers));
    keys.insert("worker_checks".into(), Value::Array(worker_checks));
    keys.insert(
        "workers_agree".into(),
        Value::Bool(checks.iter().all(CheckRow::agree)),
    );
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(counts: &[Option<(u64, u64)>]) -> CheckRow {
        CheckRow {
            step: "s".into(),
            name: "c".into(),
            counts: counts.to_vec(),
        }
    }

    #[test]
    fn workers_agree_when_their_pass_rates_are_equal() {
        assert!(row(&[Some((50, 0)), Some((49, 0))]).agree());
        assert!(row(&[Some((1, 1)), Some((3, 3)), None]).agree());
        // A worker that never evaluated the check does not disagree.
        assert!(row(&[Some((5, 0)), Some((0, 0))]).agree());
        assert!(!row(&[Some((50, 0)), Some((49, 1))]).agree());
    }
}
