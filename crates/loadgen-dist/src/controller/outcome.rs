//! What a distributed run ends with: each worker's part (its report and
//! start skew, or why it was lost) and the merged report.

use super::clock::Offset;
use loadgen_core::report::rfc3339;
use loadgen_core::Report;
use serde::Serialize;
use std::time::SystemTime;

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
    /// It died, went silent or failed, at `lost_at` (the controller's
    /// clock), after streaming `seconds_received` seconds of its run.
    /// `part` is the report of those seconds (a plan's run; a scenario's
    /// seconds carry no steps, and its part is `None`), merged with the
    /// others' reports.
    Lost {
        why: String,
        lost_at: SystemTime,
        seconds_received: usize,
        part: Option<Box<Report>>,
    },
}

impl WorkerEnd {
    /// Its report and start skew, or why it was lost: what a table's row shows.
    pub fn parts(&self) -> (Option<&Report>, Option<i64>, Option<&str>) {
        match self {
            WorkerEnd::Reported {
                report,
                start_skew_us,
            } => (Some(report), Some(*start_skew_us), None),
            WorkerEnd::Lost { why, .. } => (None, None, Some(why.as_str())),
        }
    }
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
    /// The merge of the reports of the workers that reported and of the
    /// parts of those lost; `None` when there is none.
    pub report: Option<Report>,
}

/// A lost worker whose seconds up to its loss are in the merged report:
/// one item of the report's `partial` array.
#[derive(Clone, Debug, Serialize)]
pub struct PartialPart {
    /// Its index in `--workers`, from 0.
    pub worker: usize,
    pub address: String,
    pub segment: String,
    /// Its seconds received: the first `seconds_received` of the measured
    /// part.
    pub seconds_received: usize,
    /// Whether they are in the merged report (a plan's run; a scenario's
    /// seconds carry no steps, and are not).
    pub merged: bool,
    /// Requests that ended in the seconds merged.
    pub requests: u64,
    /// When the controller lost it, on its clock (RFC 3339).
    pub lost_at: String,
    pub reason: String,
}

impl Outcome {
    /// Each worker's report, in the table's order: for one lost, the
    /// report of its seconds up to the loss, if any.
    pub fn worker_reports(&self) -> Vec<Option<&Report>> {
        self.workers
            .iter()
            .map(|w| match &w.end {
                WorkerEnd::Reported { report, .. } => Some(report.as_ref()),
                WorkerEnd::Lost { part, .. } => part.as_deref(),
            })
            .collect()
    }

    /// How many workers reported a run that was interrupted: stopped on
    /// their machine (a signal), or asked to stop by this controller.
    pub fn interrupted(&self) -> usize {
        self.workers
            .iter()
            .filter(|w| matches!(&w.end, WorkerEnd::Reported { report, .. } if report.interrupted))
            .count()
    }

    /// The lost workers, each with what of it the merged report holds.
    pub fn partial(&self) -> Vec<PartialPart> {
        self.workers
            .iter()
            .enumerate()
            .filter_map(|(index, w)| match &w.end {
                WorkerEnd::Lost {
                    why,
                    lost_at,
                    seconds_received,
                    part,
                } => Some(PartialPart {
                    worker: index,
                    address: w.url.clone(),
                    segment: w.segment.clone(),
                    seconds_received: *seconds_received,
                    merged: part.is_some(),
                    requests: part.as_ref().map_or(0, |p| p.requests.done),
                    lost_at: rfc3339(*lost_at),
                    reason: why.clone(),
                }),
                WorkerEnd::Reported { .. } => None,
            })
            .collect()
    }

    pub fn lost(&self) -> impl Iterator<Item = &WorkerResult> {
        self.workers
            .iter()
            .filter(|w| matches!(w.end, WorkerEnd::Lost { .. }))
    }

    /// Whether the workers ran a scenario: their table then shows
    /// iterations and checks.
    pub fn is_scenario(&self) -> bool {
        self.workers.iter().any(
            |w| matches!(&w.end, WorkerEnd::Reported { report, .. } if report.scenario.is_some()),
        )
    }
}
