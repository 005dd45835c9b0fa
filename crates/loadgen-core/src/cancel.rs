//! Stopping a run from another thread (a signal handler, a controller, an
//! FFI caller): every worker thread waits on the same handle beside its
//! clients.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::Notify;

/// Stops a run from another thread: no request starts after it; requests
/// in flight get the run's stop grace (`RunOptions::stop_grace`) to end,
/// and those still in flight then stay started, not done, as at the end of
/// a timed run.
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
