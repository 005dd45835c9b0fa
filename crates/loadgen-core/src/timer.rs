//! One timer per connection (or schedule) for whichever of its deadlines
//! comes first, re-armed only when that deadline moves.

use crate::plan::Timeouts;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::time::Sleep;

#[derive(Default)]
pub struct DeadlineTimer {
    timer: Option<Pin<Box<Sleep>>>,
    armed_for: Option<tokio::time::Instant>,
}

impl DeadlineTimer {
    /// Arms the timer for the earliest of `deadlines`; `Ready` once it has
    /// passed, `Pending` (with a wake-up arranged) before, or when there is none.
    pub fn poll(
        &mut self,
        cx: &mut Context<'_>,
        deadlines: impl IntoIterator<Item = Option<Instant>>,
    ) -> Poll<()> {
        let Some(deadline) = deadlines.into_iter().flatten().min() else {
            return Poll::Pending;
        };
        let deadline = tokio::time::Instant::from_std(deadline);
        let timer = match &mut self.timer {
            Some(timer) => {
                if self.armed_for != Some(deadline) {
                    timer.as_mut().reset(deadline);
                }
                timer
            }
            None => self
                .timer
                .insert(Box::pin(tokio::time::sleep_until(deadline))),
        };
        self.armed_for = Some(deadline);
        timer.as_mut().poll(cx)
    }
}

/// h2load's `-N` (only while requests are in flight) and `-T`, for one connection.
pub fn connection_deadlines(
    timeouts: &Timeouts,
    busy: bool,
    last_activity: Instant,
    connected: Instant,
) -> [Option<Instant>; 2] {
    [
        timeouts
            .connection_inactivity
            .filter(|_| busy)
            .map(|t| last_activity + t),
        timeouts.connection_active.map(|t| connected + t),
    ]
}

/// Whether any of `deadlines` has passed by `now`.
pub fn any_passed(deadlines: impl IntoIterator<Item = Option<Instant>>, now: Instant) -> bool {
    deadlines.into_iter().flatten().any(|d| d <= now)
}
