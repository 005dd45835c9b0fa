//! One timer per connection (or schedule) for whichever of its deadlines
//! comes first, re-armed only when that deadline comes sooner or the timer
//! fires before it.

use crate::plan::Timeouts;
use std::future::Future;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
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
                // A deadline that moved later (a request timeout as each
                // request goes out) is left to the timer armed for the
                // earlier one, which re-arms when it fires: one early
                // wake-up per timeout period instead of a timer-wheel
                // update per request.
                if self.armed_for.is_none_or(|armed| armed > deadline) {
                    timer.as_mut().reset(deadline);
                    self.armed_for = Some(deadline);
                }
                timer
            }
            None => {
                self.armed_for = Some(deadline);
                self.timer
                    .insert(Box::pin(tokio::time::sleep_until(deadline)))
            }
        };
        loop {
            ready!(timer.as_mut().poll(cx));
            if self.armed_for >= Some(deadline) {
                return Poll::Ready(());
            }
            timer.as_mut().reset(deadline);
            self.armed_for = Some(deadline);
        }
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

#[cfg(test)]
mod tests {
    use super::DeadlineTimer;
    use std::future::poll_fn;
    use std::task::Poll;
    use std::time::Duration;
    use tokio::time::{advance, Instant};

    /// Polls once: whether the deadline `after` the start has passed.
    async fn passed(timer: &mut DeadlineTimer, start: Instant, after: u64) -> bool {
        let deadline = (start + Duration::from_millis(after)).into_std();
        poll_fn(|cx| Poll::Ready(timer.poll(cx, [Some(deadline)]).is_ready())).await
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_moved_later_holds_when_the_earlier_timer_fires() {
        let start = Instant::now();
        let mut timer = DeadlineTimer::default();
        assert!(!passed(&mut timer, start, 10).await);
        advance(Duration::from_millis(5)).await;
        assert!(!passed(&mut timer, start, 50).await);
        // Past the first deadline: the timer fired for it and is re-armed.
        advance(Duration::from_millis(20)).await;
        assert!(!passed(&mut timer, start, 50).await);
        advance(Duration::from_millis(30)).await;
        assert!(passed(&mut timer, start, 50).await);
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_moved_sooner_re_arms_at_once() {
        let start = Instant::now();
        let mut timer = DeadlineTimer::default();
        assert!(!passed(&mut timer, start, 100).await);
        assert!(!passed(&mut timer, start, 10).await);
        advance(Duration::from_millis(11)).await;
        assert!(passed(&mut timer, start, 10).await);
    }
}
