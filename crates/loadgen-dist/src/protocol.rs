//! The worker's API on the wire: its paths, the JSON bodies, and the events
//! of a run's response, one JSON object per line (JSON Lines). Times are
//! microseconds since the Unix epoch on the clock of the machine that
//! sends them. docs/distributed.md describes each field.

pub use crate::scenario_job::ScenarioJob;
use loadgen_core::interval::IntervalRow;
use loadgen_core::{PlanInput, Report};
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime};

/// `GET`: the worker's wall clock, [`ClockReply`].
pub const CLOCK_PATH: &str = "/v1/clock";
/// `POST` a [`RunRequest`]: a stream of [`Event`]s.
pub const RUN_PATH: &str = "/v1/run";
/// `POST` a [`ScenarioRunRequest`]: a stream of [`Event`]s, as for a plan.
pub const RUN_SCENARIO_PATH: &str = "/v1/run-scenario";
/// `POST` (no body): stops the run under way, [`CancelReply`].
pub const CANCEL_PATH: &str = "/v1/cancel";
/// The content type of a run's stream of events.
pub const EVENTS_CONTENT_TYPE: &str = "application/x-ndjson";

/// How often a run's stream says something, `alive` when nothing else:
/// a controller that hears nothing for [`SILENCE_LIMIT`] gives the worker up.
pub const ALIVE_EVERY: Duration = Duration::from_secs(1);
pub const SILENCE_LIMIT: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockReply {
    pub time_us: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRequest {
    /// The plan, with its `segment` when it is one part of a split run.
    pub plan: PlanInput,
    /// When to start, on the worker's clock.
    pub start_at_us: u64,
    /// After a cancel (a call to [`CANCEL_PATH`], or the controller gone),
    /// how long requests in flight may still finish; no new one starts.
    #[serde(default)]
    pub stop_grace_ms: u64,
}

/// A scenario file's segment to run, starting at a given time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScenarioRunRequest {
    pub scenario: ScenarioJob,
    /// When to start, on the worker's clock.
    pub start_at_us: u64,
    /// As [`RunRequest::stop_grace_ms`]: how long running iterations may
    /// go on after a cancel.
    #[serde(default)]
    pub stop_grace_ms: u64,
}

/// One line of a run's stream.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The plan is valid and the run waits for its start time.
    Accepted {
        start_at_us: u64,
        segment: Option<String>,
    },
    /// Nothing else to say this second.
    Alive { time_us: u64 },
    /// One second of the measured part, with its histograms, as it closed.
    /// Boxed: a row is many times wider than the other events.
    Interval { index: u32, row: Box<IntervalRow> },
    /// The run's report with its histograms; the last line. Its
    /// `intervals` are left empty: they are the `interval` events sent
    /// before it. The measured part started at `measured_start_us` (the
    /// report's `started_at`, to the microsecond).
    Report {
        measured_start_us: u64,
        report: Box<Report>,
    },
    /// The run could not be made; the last line.
    Failed { error: String },
}

/// The body of every refusal (4xx, 5xx): one line that says why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorReply {
    pub error: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelReply {
    /// Whether a run was under way (and is now stopping).
    pub cancelled: bool,
}

pub fn micros_since_epoch(time: SystemTime) -> u64 {
    let since = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_micros()).unwrap_or(u64::MAX)
}

pub fn time_of_micros(micros: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_micros(micros)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_tagged_lines() {
        let line = serde_json::to_string(&Event::Alive { time_us: 7 }).unwrap();
        assert_eq!(line, r#"{"event":"alive","time_us":7}"#);
        let read: Event = serde_json::from_str(r#"{"event":"failed","error":"x"}"#).unwrap();
        assert!(matches!(read, Event::Failed { error } if error == "x"));
    }

    #[test]
    fn a_run_request_may_leave_plan_fields_out() {
        let text = r#"{"plan":{"uris":["http://127.0.0.1:1/"]},"start_at_us":5}"#;
        let request: RunRequest = serde_json::from_str(text).unwrap();
        assert_eq!(request.plan.clients, 1);
        assert_eq!((request.start_at_us, request.stop_grace_ms), (5, 0));
    }

    #[test]
    fn micros_round_trip() {
        let t = time_of_micros(1_795_314_876_123_456);
        assert_eq!(micros_since_epoch(t), 1_795_314_876_123_456);
    }
}
