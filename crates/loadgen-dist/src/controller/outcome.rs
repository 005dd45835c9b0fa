//! What a distributed run ends with: each worker's part (its report and
//! start skew, or why it was lost) and the merged report.

use super::clock::Offset;
use loadgen_core::Report;

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

impl WorkerEnd {
    /// Its report and start skew, or why it was lost: what a table's row shows.
    pub fn parts(&self) -> (Option<&Report>, Option<i64>, Option<&str>) {
        match self {
            WorkerEnd::Reported {
                report,
                start_skew_us,
            } => (Some(report), Some(*start_skew_us), None),
            WorkerEnd::Lost { why } => (None, None, Some(why.as_str())),
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
    /// The merge of the reports of the workers that reported; `None` when
    /// none did.
    pub report: Option<Report>,
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
    /// iterations and checks.
    pub fn is_scenario(&self) -> bool {
        self.workers.iter().any(
            |w| matches!(&w.end, WorkerEnd::Reported { report, .. } if report.scenario.is_some()),
        )
    }
}
