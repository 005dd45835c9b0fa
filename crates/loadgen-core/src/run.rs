//! The library entry point: what the CLI, `demo`, a worker, a scenario
//! runner or an FFI caller call to run a plan.
//!
//! [`Run::prepare`] does everything that can fail before the first request
//! (requests, protocols, TLS and QUIC configuration, the host's address:
//! [`Connections::prepare`]; the `--log-file`), once; [`Run::execute`] runs it, reporting each second
//! to an [`Observer`] on the calling thread, stopping early when its
//! [`CancelHandle`] is cancelled, and starting at a given wall-clock time
//! when asked (coordinated starts across machines).

use crate::cancel::CancelHandle;
use crate::connections::Connections;
use crate::connections::PrepareError;
use crate::plan::Plan;
use crate::protocols::Protocols;
use crate::request_log::LogFile;
use crate::runner::{self, Observer, RunResult};
use std::time::{Duration, SystemTime};

/// A plan readied to run: nothing left to check.
pub struct Run<'p> {
    plan: &'p Plan,
    connections: Connections,
    log_file: Option<LogFile>,
}

/// How to run a prepared plan.
#[derive(Default)]
pub struct RunOptions<'o> {
    pub observer: Option<&'o mut dyn Observer>,
    pub cancel: Option<CancelHandle>,
    /// Start at this wall-clock time instead of at once (all machines of
    /// a distributed run given the same time, in their own clocks).
    pub start_at: Option<SystemTime>,
    /// Keep each second's histograms in its interval row (encoded, for an
    /// exact merge later), not only its percentiles.
    pub interval_histograms: bool,
    /// After a cancel, how long requests in flight may go on to finish
    /// (no new one starts); zero ends the run at once, as `-D` ends.
    pub stop_grace: Duration,
}

impl<'p> Run<'p> {
    /// Checks and builds everything `plan` needs before its first request.
    pub fn prepare(plan: &'p Plan, protocols: &Protocols) -> Result<Run<'p>, PrepareError> {
        let connections = Connections::prepare(plan, protocols)?;
        let log_file = plan
            .log_file
            .as_deref()
            .map(LogFile::create)
            .transpose()
            .map_err(PrepareError::Invalid)?;
        Ok(Run {
            plan,
            connections,
            log_file,
        })
    }

    /// Runs the plan to its end (or its cancellation).
    pub fn execute(self, options: RunOptions<'_>) -> Result<RunResult, String> {
        runner::execute(
            runner::Parts {
                plan: self.plan,
                connections: &self.connections,
                log_file: self.log_file,
            },
            options.observer,
            options.cancel.unwrap_or_default(),
            options.start_at,
            options.interval_histograms,
            options.stop_grace,
        )
    }
}

/// Prepares and runs `plan` with the standard protocols.
pub fn run(plan: &Plan, observer: Option<&mut dyn Observer>) -> Result<RunResult, String> {
    Run::prepare(plan, &Protocols::standard())
        .map_err(|e| e.to_string())?
        .execute(RunOptions {
            observer,
            ..RunOptions::default()
        })
}
