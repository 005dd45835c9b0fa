//! The library entry point: what the CLI, `demo`, a worker, a scenario
//! runner or an FFI caller call to run a plan.
//!
//! [`Run::prepare`] does everything that can fail before the first request
//! (requests, protocols, TLS and QUIC configuration, the host's address,
//! the `--log-file`), once; [`Run::execute`] runs it, reporting each second
//! to an [`Observer`] on the calling thread, stopping early when its
//! [`CancelHandle`] is cancelled, and starting at a given wall-clock time
//! when asked (coordinated starts across machines).

use crate::cancel::CancelHandle;
use crate::plan::Plan;
use crate::plan_error::PlanError;
use crate::protocols::{Protocols, RunProtocols};
use crate::request::{self, requests_of};
use crate::request_log::LogFile;
use crate::runner::{self, Observer, RunResult};
use crate::transport::{Connector, SetupError};
use std::fmt;
use std::time::{Duration, SystemTime};

/// A plan readied to run: nothing left to check.
pub struct Run<'p> {
    plan: &'p Plan,
    protocols: RunProtocols,
    connector: Connector,
    log_file: Option<LogFile>,
}

/// Why a plan cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrepareError {
    /// The plan asks for something that cannot be done (a cipher that does
    /// not exist, a file that cannot be written): the caller's mistake.
    Invalid(PlanError),
    /// The target cannot be reached (its name does not resolve).
    Unreachable(String),
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrepareError::Invalid(error) => error.fmt(f),
            PrepareError::Unreachable(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for PrepareError {}

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
        let requests = requests_of(plan);
        request::validate(&requests, plan.endpoint.scheme.as_str())
            .map_err(PrepareError::Invalid)?;
        let protocols = protocols
            .for_run(plan, &requests)
            .map_err(PrepareError::Invalid)?;
        let connector = Connector::new(plan, protocols.carrier()).map_err(|e| match e {
            SetupError::Config(message) => PrepareError::Invalid(message),
            SetupError::Unresolved(message) => PrepareError::Unreachable(message),
        })?;
        let log_file = plan
            .log_file
            .as_deref()
            .map(LogFile::create)
            .transpose()
            .map_err(PrepareError::Invalid)?;
        Ok(Run {
            plan,
            protocols,
            connector,
            log_file,
        })
    }

    /// Runs the plan to its end (or its cancellation).
    pub fn execute(self, options: RunOptions<'_>) -> Result<RunResult, String> {
        runner::execute(
            runner::Parts {
                plan: self.plan,
                protocols: &self.protocols,
                connector: &self.connector,
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
