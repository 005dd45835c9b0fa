//! The open model on one worker thread: requests fall due at times fixed by
//! the rate curve, whatever the server does. Any client of the thread with a
//! free slot takes the next due request; while every slot is busy, due
//! requests wait and their queueing delay shows in the measurements.

use super::keep_waker;
use crate::precise_timer::PreciseTimer;
use crate::profile::Profile;
use crate::segment::Stripe;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::poll_fn;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// How late the pacer may wake for a due request. Each wake-up of an idle
/// thread costs several µs of CPU; this bounds them to 10,000 a second while
/// adding at most 100 µs to a request's queueing delay (tokio's timer alone
/// would add up to 1 ms).
pub const WAKE_GRID: Duration = Duration::from_micros(100);

pub enum Take {
    /// A request due at this time; it may be late.
    Due(Instant),
    /// The next request is not due yet.
    NotYet,
    /// No request will fall due any more.
    Exhausted,
}

pub struct Arrivals<'a> {
    profile: &'a Profile,
    spacing: Spacing<'a>,
    start: Instant,
    /// Index of the next request to hand out.
    next: Cell<u64>,
    /// The thread's share of `-n`, if the run counts requests.
    quota: Option<u64>,
    first_client: usize,
    /// Idle clients waiting for a request, each once, in the order they came.
    waiting: RefCell<VecDeque<usize>>,
    wakers: RefCell<Vec<Option<Waker>>>,
    pacer: RefCell<Option<Waker>>,
}

/// Which of the run's arrivals are this thread's.
enum Spacing<'a> {
    /// A part of the rate: the thread's i-th arrival at `(i + offset) / share`
    /// of the curve's area, threads staggered by a fraction of one arrival
    /// so that they do not fire together.
    Share { share: f64, offset: f64 },
    /// A segment of a run split between machines: the arrivals its stripe
    /// owns (the whole run's k-th falls due at area k), dealt to the
    /// machine's threads in turn.
    Striped {
        stripe: &'a Stripe,
        thread: u64,
        threads: u64,
    },
}

impl<'a> Arrivals<'a> {
    pub fn new(
        profile: &'a Profile,
        share: f64,
        offset: f64,
        start: Instant,
        quota: Option<u64>,
        clients: std::ops::Range<usize>,
    ) -> Self {
        Self::spaced(
            profile,
            Spacing::Share { share, offset },
            start,
            quota,
            clients,
        )
    }

    /// The arrivals of thread `thread` of `threads` on a machine that runs
    /// the segment `stripe` of the run; `quota` is the segment's part of
    /// `-n` in count mode.
    pub fn striped(
        profile: &'a Profile,
        stripe: &'a Stripe,
        thread: usize,
        threads: usize,
        start: Instant,
        quota: Option<u64>,
        clients: std::ops::Range<usize>,
    ) -> Self {
        let (thread, threads) = (thread as u64, threads as u64);
        // The thread's part of the segment's quota: every threads-th arrival.
        let quota = quota.map(|q| (q + threads - 1 - thread) / threads);
        let spacing = Spacing::Striped {
            stripe,
            thread,
            threads,
        };
        Self::spaced(profile, spacing, start, quota, clients)
    }

    fn spaced(
        profile: &'a Profile,
        spacing: Spacing<'a>,
        start: Instant,
        quota: Option<u64>,
        clients: std::ops::Range<usize>,
    ) -> Self {
        Arrivals {
            profile,
            spacing,
            start,
            next: Cell::new(0),
            quota,
            first_client: clients.start,
            waiting: RefCell::new(VecDeque::with_capacity(clients.len())),
            wakers: RefCell::new(vec![None; clients.len()]),
            pacer: RefCell::new(None),
        }
    }

    /// When request `index` of this thread falls due.
    fn due_time(&self, index: u64) -> Option<Instant> {
        if self.quota.is_some_and(|q| index >= q) {
            return None;
        }
        let area = match self.spacing {
            Spacing::Share { share, .. } if share <= 0.0 => return None,
            Spacing::Share { share, offset } => (index as f64 + offset) / share,
            Spacing::Striped {
                stripe,
                thread,
                threads,
            } => stripe.nth(index * threads + thread) as f64,
        };
        let seconds = self.profile.time_of_area(area)?;
        Some(self.start + Duration::from_secs_f64(seconds))
    }

    pub fn take(&self, now: Instant) -> Take {
        let index = self.next.get();
        match self.due_time(index) {
            None => Take::Exhausted,
            Some(due) if due <= now => {
                self.next.set(index + 1);
                Take::Due(due)
            }
            Some(_) => Take::NotYet,
        }
    }

    pub fn exhausted(&self) -> bool {
        self.due_time(self.next.get()).is_none()
    }

    /// Requests handed out so far.
    pub fn taken(&self) -> u64 {
        self.next.get()
    }

    /// Requests due by `at` that no client has taken: the queue at that moment.
    pub fn backlog(&self, at: Instant) -> u64 {
        let seconds = at.saturating_duration_since(self.start).as_secs_f64();
        let area = self.profile.area_until(seconds);
        let mut count = match self.spacing {
            Spacing::Share { share, offset } => {
                let due = share * area - offset;
                if due < 0.0 {
                    0
                } else {
                    due.floor() as u64 + 1
                }
            }
            Spacing::Striped {
                stripe,
                thread,
                threads,
            } => {
                // The whole run's arrivals due by then, the segment's of
                // them, and every threads-th of those.
                let due_in_run = area.floor() as u64 + 1;
                let owned = stripe.count_below(due_in_run);
                (owned + threads - 1 - thread) / threads
            }
        };
        if let Some(quota) = self.quota {
            count = count.min(quota);
        }
        count.saturating_sub(self.next.get())
    }

    /// Registers an idle client to be woken when a request falls due.
    pub fn wait(&self, client: usize, waker: &Waker) {
        let local = client - self.first_client;
        let mut wakers = self.wakers.borrow_mut();
        match &mut wakers[local] {
            Some(existing) => existing.clone_from(waker),
            slot => {
                *slot = Some(waker.clone());
                self.waiting.borrow_mut().push_back(local);
                if let Some(pacer) = self.pacer.borrow().as_ref() {
                    pacer.wake_by_ref();
                }
            }
        }
    }

    fn wake_next(&self) -> bool {
        let Some(local) = self.waiting.borrow_mut().pop_front() else {
            return false;
        };
        if let Some(waker) = self.wakers.borrow_mut()[local].take() {
            waker.wake();
        }
        true
    }

    /// When to wake for a request due at `due`: the next tick of a
    /// [`WAKE_GRID`] grid from the start, so that requests due close together
    /// share one wake-up.
    fn wake_time(&self, due: Instant) -> Instant {
        let since = due.saturating_duration_since(self.start).as_nanos();
        let grid = WAKE_GRID.as_nanos();
        let ticks = since.div_ceil(grid);
        self.start + Duration::from_nanos((ticks * grid) as u64)
    }

    /// Wakes one idle client per request that falls due. Runs until dropped.
    pub async fn pace(&self) {
        let mut timer = PreciseTimer::new();
        poll_fn(|cx| self.poll_pace(cx, &mut timer)).await
    }

    fn poll_pace(&self, cx: &mut Context<'_>, timer: &mut PreciseTimer) -> Poll<()> {
        keep_waker(&mut self.pacer.borrow_mut(), cx.waker());
        loop {
            if self.waiting.borrow().is_empty() {
                return Poll::Pending;
            }
            let now = Instant::now();
            let next = self.next.get();
            let Some(due) = self.due_time(next) else {
                // Nothing more will come: let every waiting client see that.
                while self.wake_next() {}
                return Poll::Pending;
            };
            if due <= now {
                let mut index = next;
                while self.due_time(index).is_some_and(|d| d <= now) && self.wake_next() {
                    index += 1;
                }
                // Check again once the woken clients have run: one may not take its request.
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            if timer.poll_until(cx, self.wake_time(due)).is_pending() {
                return Poll::Pending;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_times_follow_the_rate_and_share() {
        let profile = Profile::constant(1000.0);
        let start = Instant::now();
        // Half of the clients: 500 per second on this thread, 2 ms apart.
        let a = Arrivals::new(&profile, 0.5, 0.0, start, Some(3), 0..1);
        assert_eq!(a.due_time(0), Some(start));
        assert_eq!(a.due_time(1), Some(start + Duration::from_millis(2)));
        assert_eq!(a.due_time(3), None);
        assert!(matches!(a.take(start), Take::Due(t) if t == start));
        assert!(matches!(a.take(start), Take::NotYet));
        assert!(matches!(
            a.take(start + Duration::from_secs(1)),
            Take::Due(_)
        ));
        assert!(matches!(
            a.take(start + Duration::from_secs(1)),
            Take::Due(_)
        ));
        assert!(matches!(
            a.take(start + Duration::from_secs(1)),
            Take::Exhausted
        ));
        assert!(a.exhausted());
        assert_eq!(a.taken(), 3);
        assert_eq!(a.backlog(start + Duration::from_secs(10)), 0);
    }

    #[test]
    fn backlog_counts_due_requests_not_taken() {
        let profile = Profile::constant(100.0);
        let start = Instant::now();
        let a = Arrivals::new(&profile, 1.0, 0.0, start, None, 0..1);
        // Due at 0, 10, 20, ..., 100 ms: eleven by 100 ms.
        assert_eq!(a.backlog(start + Duration::from_millis(100)), 11);
        assert!(matches!(
            a.take(start + Duration::from_millis(100)),
            Take::Due(_)
        ));
        assert_eq!(a.backlog(start + Duration::from_millis(100)), 10);
    }

    #[test]
    fn a_client_waits_once() {
        let profile = Profile::constant(10.0);
        let a = Arrivals::new(&profile, 1.0, 0.0, Instant::now(), None, 5..8);
        a.wait(6, Waker::noop());
        a.wait(6, Waker::noop());
        a.wait(7, Waker::noop());
        assert_eq!(a.waiting.borrow().len(), 2);
        assert!(a.wake_next());
        a.wait(6, Waker::noop());
        assert_eq!(
            a.waiting.borrow().iter().copied().collect::<Vec<_>>(),
            [2, 1]
        );
    }
}
