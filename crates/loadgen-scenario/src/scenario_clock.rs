//! A scenario's time on one worker thread: it begins at its `startTime`,
//! starts iterations until its executor's time is up, and cuts off what
//! still runs `gracefulStop` later. A cancelled run (a signal, a
//! controller's cancel) stops starting iterations at once and cuts off
//! after the run's stop grace.

use loadgen_core::precise_timer::PreciseTimer;
use loadgen_core::CancelHandle;
use std::future::{poll_fn, Future};
use std::time::{Duration, Instant};

pub struct ScenarioClock<'c> {
    pub begin: Instant,
    /// No iteration starts from here on.
    pub end: Instant,
    /// Iterations still running are cut off here.
    pub hard_stop: Instant,
    cancel: &'c CancelHandle,
    stop_grace: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Everything ended by itself.
    Finished,
    /// What was still running was cut off.
    Cut,
}

impl<'c> ScenarioClock<'c> {
    pub fn new(
        begin: Instant,
        length: Duration,
        graceful_stop: Duration,
        cancel: &'c CancelHandle,
        stop_grace: Duration,
    ) -> ScenarioClock<'c> {
        let end = begin + length;
        ScenarioClock {
            begin,
            end,
            hard_stop: end + graceful_stop,
            cancel,
            stop_grace,
        }
    }

    /// Whether an iteration may no longer start at `now`.
    pub fn starts_no_more(&self, now: Instant) -> bool {
        self.cancel.is_cancelled() || now >= self.end
    }

    /// The run was cancelled: nothing starts any more.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Seconds since the scenario began.
    pub fn since_begin(&self, now: Instant) -> f64 {
        now.saturating_duration_since(self.begin).as_secs_f64()
    }

    /// Sleeps until `at` to the microsecond (an arrival's intended start:
    /// tokio's timer would wake up to a millisecond late, and the corrected
    /// latency would count that), or until the run is cancelled.
    pub async fn sleep_precisely_until(&self, timer: &mut PreciseTimer, at: Instant) {
        let at = at.min(self.end);
        tokio::select! {
            () = poll_fn(|cx| timer.poll_until(cx, at)) => {}
            () = self.cancel.cancelled() => {}
        }
    }

    /// Sleeps until `at`, or until the scenario stops starting iterations.
    pub async fn sleep_until(&self, at: Instant) {
        tokio::select! {
            () = tokio::time::sleep_until(at.min(self.end).into()) => {}
            () = self.cancel.cancelled() => {}
        }
    }

    /// Waits for the scenario's begin (its `startTime`).
    pub async fn wait_for_begin(&self) {
        tokio::select! {
            () = tokio::time::sleep_until(self.begin.into()) => {}
            () = self.cancel.cancelled() => {}
        }
    }

    /// Runs `work` until it ends or the hard stop cuts it off.
    pub async fn until_hard_stop<F: Future<Output = ()>>(&self, work: F) -> Ending {
        let cancelled = async {
            self.cancel.cancelled().await;
            tokio::time::sleep(self.stop_grace).await;
        };
        tokio::select! {
            () = work => Ending::Finished,
            () = tokio::time::sleep_until(self.hard_stop.into()) => Ending::Cut,
            () = cancelled => Ending::Cut,
        }
    }
}
