//! Run control every command that runs shares: the pass/fail criteria
//! (`--threshold`) and how a stop signal ends a run (`--stop-grace`).

use clap::Args;
use loadgen_core::duration::HumanDuration;
use std::time::Duration;

/// How long requests in flight may finish after a stop signal.
const STOP_GRACE: Duration = Duration::from_secs(1);

#[derive(Args, Debug, Clone, Default)]
pub struct Thresholds {
    /// Pass/fail criterion on the report, e.g. 'p99<250ms', 'errors<1%', 'rps>10000' (repeatable); exit 99 when one fails.
    #[arg(long = "threshold", value_name = "EXPR")]
    pub thresholds: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct StopGrace {
    /// After Ctrl-C (SIGINT), SIGTERM or SIGHUP: how long requests in flight may still finish
    /// before the report is printed. Signals that arrive together (as a process group's do)
    /// are one stop; another signal a second or more later exits at once.
    #[arg(long = "stop-grace", value_name = "DURATION", default_value_t = HumanDuration(STOP_GRACE))]
    pub stop_grace: HumanDuration,
}

impl StopGrace {
    pub fn get(&self) -> Duration {
        self.stop_grace.0
    }
}
