//! The library entry point: what the CLI, `demo`, a worker, a scenario
//! runner or an FFI caller call to run a plan.
//!
//! [`Run::prepare`] does everything that can fail before the first request
//! (requests, protocols, TLS and QUIC configuration, the host's address,
//! the `--log-file`), once; [`Run::execute`] runs it, reporting each second
//! to an [`Observer`] on the calling thread, stopping early when its
//! [`CancelHandle`] is cancelled, and starting at a given wall-clock time
//! when asked (coordinated starts across machines).

use crate::interval::Interval;
use crate::plan::Plan;
use crate::protocols::{Protocols, RunProtocols};
use crate::request::{self, requests_of};
use crate::request_log::LogFile;
use crate::runner::{self, RunResult};
use crate::transport::{Connector, SetupError};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::SystemTime;
use tokio::sync::Notify;

/// A plan readied to run: nothing left to check.
pub struct Run<'p> {
    pub(crate) plan: &'p Plan,
    pub(crate) protocols: RunProtocols,
    pub(crate) connector: Connector,
    pub(crate) log_file: Option<LogFile>,
}

/// Why a plan cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrepareError {
    /// The plan asks for something that cannot be done (a cipher that does
    /// not exist, a file that cannot be written): the caller's mistake.
    Invalid(String),
    /// The target cannot be reached (its name does not resolve).
    Unreachable(String),
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrepareError::Invalid(message) | PrepareError::Unreachable(message) => {
                f.write_str(message)
            }
        }
    }
}

impl std::error::Error for PrepareError {}

/// What a run reports while it goes on, on the thread that runs it.
pub trait Observer {
    /// One second of the measured part, once every worker thread has closed it.
    fn interval(&mut self, _interval: &Interval) {}
    /// h2load's progress, in steps of 10%: by requests done in count mode,
    /// by time in duration mode.
    fn progress(&mut self, _percent: u32) {}
}

/// Stops a run from another thread: no request starts after it, and the
/// run ends as a timed run ends (requests in flight stay started, not done).
#[derive(Clone, Debug, Default)]
pub struct CancelHandle(Arc<Cancellation>);

#[derive(Debug, Default)]
struct Cancellation {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancelHandle {
    pub fn new() -> Self {
        CancelHandle::default()
    }

    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Completes once [`CancelHandle::cancel`] has been called.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.0.notify.notified();
            let mut notified = std::pin::pin!(notified);
            // Registered before the check, so a cancel in between is not missed.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// How to run a prepared plan.
#[derive(Default)]
pub struct RunOptions<'o> {
    pub observer: Option<&'o mut dyn Observer>,
    pub cancel: Option<CancelHandle>,
    /// Start at this wall-clock time instead of at once (all machines of
    /// a distributed run given the same time, in their own clocks).
    pub start_at: Option<SystemTime>,
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
        runner::execute(self, options)
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
