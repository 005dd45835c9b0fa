//! Stalls: spans of time during which the target holds every response, so a
//! client's coordinated-omission correction can be tested against a server
//! that stops answering for a known time.
//!
//! A stall is either periodic (`--stall-every`/`--stall-for`, windows counted
//! from server start) or a one-off started now (`/__stall?for=`,
//! [`Target::stall_for`](crate::Target::stall_for)). The state is one atomic
//! deadline plus the fixed period, so a request that arrives outside any
//! stall pays one atomic load (and a clock read once a stall has happened).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Periodic windows: stalled while `(t mod every) < length`, with `t` the
/// time since the server started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Period {
    every: u64,
    length: u64,
}

impl Period {
    /// `length` must be shorter than `every`, and both non-zero: a server
    /// that never answers, or never stalls, is a configuration mistake.
    pub(crate) fn new(every: Duration, length: Duration) -> Result<Period, String> {
        if every.is_zero() || length.is_zero() {
            return Err("the stall period and length must be greater than zero".into());
        }
        if length >= every {
            return Err(format!(
                "a stall of {length:?} every {every:?} would never end: the length must be shorter than the period"
            ));
        }
        Ok(Period {
            every: nanos(every),
            length: nanos(length),
        })
    }

    /// The end of the window `t` lies in (nanoseconds since start), if any.
    fn window_end(&self, t: u64) -> Option<u64> {
        let into = t % self.every;
        (into < self.length).then(|| t - into + self.length)
    }
}

pub(crate) struct Stall {
    start: Instant,
    /// End of the latest one-off stall in nanoseconds since `start`; 0 = none yet.
    until: AtomicU64,
    period: Option<Period>,
}

impl Stall {
    pub(crate) fn new(period: Option<Period>) -> Stall {
        Stall {
            start: Instant::now(),
            until: AtomicU64::new(0),
            period,
        }
    }

    /// Starts a one-off stall of `length` now (extending one in progress,
    /// never shortening it) and returns when the server answers again.
    pub(crate) fn stall_for(&self, length: Duration) -> Instant {
        let now = self.since_start(Instant::now());
        let end = now.saturating_add(nanos(length));
        self.until.fetch_max(end, Ordering::AcqRel);
        self.instant(self.end_of(now).unwrap_or(now))
    }

    /// The moment the stall covering `now` ends, following one stall into
    /// the next when they touch; `None` when not stalled.
    pub(crate) fn stalled_until(&self, now: Instant) -> Option<Instant> {
        self.end_of(self.since_start(now)).map(|t| self.instant(t))
    }

    /// Waits while the server is stalled. Re-checks after waking, since the
    /// stall may have been extended meanwhile.
    pub(crate) async fn wait(&self) {
        if self.period.is_none() && self.until.load(Ordering::Acquire) == 0 {
            return;
        }
        while let Some(end) = self.stalled_until(Instant::now()) {
            tokio::time::sleep_until(end.into()).await;
        }
    }

    fn end_of(&self, t: u64) -> Option<u64> {
        let mut end = None;
        let mut at = t;
        // Each step moves past a window that started at or before `at`; the
        // one-off deadline and the periodic windows alternate at most once
        // per period, and a periodic window never touches the next one.
        loop {
            let until = self.until.load(Ordering::Acquire);
            let one_off = (at < until).then_some(until);
            let periodic = self.period.and_then(|p| p.window_end(at));
            match one_off.max(periodic) {
                Some(next) if next > at => {
                    end = Some(next);
                    at = next;
                }
                _ => return end,
            }
        }
    }

    fn since_start(&self, now: Instant) -> u64 {
        nanos(now.saturating_duration_since(self.start))
    }

    fn instant(&self, t: u64) -> Instant {
        self.start + Duration::from_nanos(t)
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn periodic_windows_start_at_server_start() {
        let p = Period::new(ms(5000), ms(1000)).unwrap();
        assert_eq!(p.window_end(0), Some(1000 * MS));
        assert_eq!(p.window_end(999 * MS), Some(1000 * MS));
        assert_eq!(p.window_end(1000 * MS), None);
        assert_eq!(p.window_end(4999 * MS), None);
        assert_eq!(p.window_end(5000 * MS), Some(6000 * MS));
        assert_eq!(p.window_end(5500 * MS), Some(6000 * MS));
    }

    #[test]
    fn periods_that_never_end_or_never_stall_are_rejected() {
        assert!(Period::new(ms(1000), ms(1000)).is_err());
        assert!(Period::new(ms(1000), ms(2000)).is_err());
        assert!(Period::new(ms(0), ms(0)).is_err());
        assert!(Period::new(ms(1000), ms(0)).is_err());
    }

    #[test]
    fn not_stalled_without_any_stall() {
        let s = Stall::new(None);
        assert_eq!(s.end_of(0), None);
        assert_eq!(s.end_of(10 * MS), None);
    }

    #[test]
    fn one_off_stalls_extend_and_never_shorten() {
        let s = Stall::new(None);
        s.until.store(60_000 * MS, Ordering::Release);
        assert_eq!(s.end_of(100 * MS), Some(60_000 * MS));
        assert_eq!(s.end_of(60_000 * MS), None);
        // A shorter stall started now leaves the longer one in place.
        assert_eq!(s.stall_for(ms(1)), s.start + ms(60_000));
        assert_eq!(s.until.load(Ordering::Acquire), 60_000 * MS);
    }

    #[test]
    fn a_one_off_stall_running_into_a_window_lasts_to_its_end() {
        let s = Stall::new(Some(Period::new(ms(1000), ms(200)).unwrap()));
        s.until.store(1100 * MS, Ordering::Release);
        // Inside the one-off stall, which reaches into [1000, 1200).
        assert_eq!(s.end_of(500 * MS), Some(1200 * MS));
        assert_eq!(s.end_of(1200 * MS), None);
        // A one-off stall that covers a window and ends after it.
        s.until.store(1500 * MS, Ordering::Release);
        assert_eq!(s.end_of(1100 * MS), Some(1500 * MS));
        assert_eq!(s.end_of(1500 * MS), None);
        assert_eq!(s.end_of(2000 * MS), Some(2200 * MS));
    }

    #[tokio::test]
    async fn wait_returns_after_the_stall() {
        let s = Stall::new(None);
        let end = s.stall_for(ms(50));
        assert_eq!(s.stalled_until(Instant::now()), Some(end));
        s.wait().await;
        assert!(Instant::now() >= end);
        assert_eq!(s.stalled_until(Instant::now()), None);
    }
}
