//! What a scenario run adds to its report: each step's figures (a step is
//! one request and the redirects it follows), each check's passes and
//! failures, iterations and virtual users. Steps and checks are keyed by
//! name, so the reports of several machines add up by name.

use super::{ErrorCounts, RequestCounts, StatusCounts, TimeStats};
use crate::histogram_codec;
use crate::recorder::Recorder;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReport {
    /// Each scenario of the file, in the file's order.
    pub scenarios: Vec<ExecutorReport>,
    /// All scenarios together.
    pub iterations: IterationCounts,
    /// From an iteration's intended start (its arrival under an
    /// arrival-rate executor) to the end of its last step.
    pub iteration_duration: TimeStats,
    /// The most virtual users that existed at once, all scenarios together.
    pub vus_max: u64,
    /// Each step, in the order the file names them.
    pub steps: Vec<StepReport>,
    /// Each check of each step, in the file's order.
    pub checks: Vec<CheckCounts>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histograms: Option<ScenarioHistograms>,
}

/// One scenario: its executor and what its iterations did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecutorReport {
    pub name: String,
    /// k6's executor name: `constant-vus`, `constant-arrival-rate`, ...
    pub executor: String,
    pub iterations: IterationCounts,
    pub vus_max: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IterationCounts {
    /// Ran every step.
    pub completed: u64,
    /// Ended early by a step that could not go on: a failed check marked
    /// `abort_on_failure`, a request error, a template whose variable no
    /// extractor set.
    pub aborted: u64,
    /// Cut off by the end of the scenario (after `gracefulStop`) or a ramp-down.
    pub interrupted: u64,
    /// Arrival-rate executors: due iterations that found no free virtual
    /// user (`maxVUs` reached). Never queued, never run.
    pub dropped: u64,
}

impl IterationCounts {
    pub fn add(&mut self, other: &IterationCounts) {
        self.completed += other.completed;
        self.aborted += other.aborted;
        self.interrupted += other.interrupted;
        self.dropped += other.dropped;
    }

    /// Iterations that started.
    pub fn started(&self) -> u64 {
        self.completed + self.aborted + self.interrupted
    }
}

/// One step, over every iteration that reached it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    pub name: String,
    /// As a run's requests: each started step ends exactly once.
    pub requests: RequestCounts,
    /// The status each step ended with (after redirects).
    pub status_codes: StatusCounts,
    pub errors: ErrorCounts,
    /// From the step's intended start to its last response, redirects
    /// included: corrected for coordinated omission under arrival-rate
    /// executors; the same as raw otherwise.
    pub duration: TimeStats,
    /// From the step's first send to its last response.
    pub duration_raw: TimeStats,
    /// Redirects followed.
    pub redirects: u64,
    /// Extractors that found nothing.
    pub extraction_failures: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histograms: Option<StepHistograms>,
}

impl StepReport {
    /// The step's figures as its recorder holds them.
    pub fn of(name: &str, r: &Recorder, redirects: u64, extraction_failures: u64) -> StepReport {
        let o = &r.outcomes;
        StepReport {
            name: name.to_string(),
            requests: RequestCounts {
                total: o.started + o.not_started,
                started: o.started,
                done: o.done(),
                succeeded: o.status_success,
                failed: o.failed(),
                errored: o.errored(),
                timeout: o.timeout,
                failed_status: o.status_failure,
                errored_not_started: o.not_started,
                unsent_at_end: 0,
            },
            status_codes: StatusCounts::new(r),
            errors: ErrorCounts::new(r),
            duration: TimeStats::of(&r.request_time()),
            duration_raw: TimeStats::of(&r.request_time_raw()),
            redirects,
            extraction_failures,
            histograms: None,
        }
    }

    pub fn with_histograms(mut self, r: &Recorder) -> StepReport {
        self.histograms = Some(StepHistograms {
            duration: histogram_codec::encode(&r.request_time()),
            duration_raw: histogram_codec::encode(&r.request_time_raw()),
        });
        self
    }
}

/// One check: how often it held.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckCounts {
    pub step: String,
    /// The check as written, e.g. `status_in [200]`, `body_includes "Welcome"`.
    pub name: String,
    pub passes: u64,
    pub fails: u64,
}

impl CheckCounts {
    /// Share of evaluations that passed, 0 to 1; 1 when never evaluated.
    pub fn rate(&self) -> f64 {
        let total = self.passes + self.fails;
        if total == 0 {
            1.0
        } else {
            self.passes as f64 / total as f64
        }
    }
}

/// A step's histograms, encoded as the report's ([`histogram_codec`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepHistograms {
    pub duration: String,
    pub duration_raw: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioHistograms {
    pub iteration_duration: String,
}

impl ScenarioHistograms {
    pub fn of(iteration_duration: &Histogram<u64>) -> ScenarioHistograms {
        ScenarioHistograms {
            iteration_duration: histogram_codec::encode(iteration_duration),
        }
    }
}
