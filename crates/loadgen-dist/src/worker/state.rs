//! What every call to the worker shares: its token, allowed targets and
//! bounds, and its one run slot with the [`Stopper`] of the run in it.

use crate::allow::AllowList;
use crate::bounds::Bounds;
use crate::token::Token;
use loadgen_core::CancelHandle;
use std::sync::{Arc, Mutex, OnceLock};

/// What every call shares.
pub struct State {
    pub token: Token,
    pub allow: AllowList,
    pub bounds: Bounds,
    /// The run under way, if any: one at a time.
    pub current: Mutex<Option<Stopper>>,
}

/// Stops a run, remembering the first reason it was stopped for.
#[derive(Clone)]
pub struct Stopper {
    pub(super) cancel: CancelHandle,
    reason: Arc<OnceLock<&'static str>>,
}

impl Stopper {
    pub(super) fn new() -> Stopper {
        Stopper {
            cancel: CancelHandle::new(),
            reason: Arc::new(OnceLock::new()),
        }
    }

    pub fn stop(&self, reason: &'static str) {
        let _ = self.reason.set(reason);
        self.cancel.cancel();
    }

    /// How the run ended, for the worker's log line.
    pub(super) fn ending(&self) -> &'static str {
        self.reason.get().copied().unwrap_or("completed")
    }
}
