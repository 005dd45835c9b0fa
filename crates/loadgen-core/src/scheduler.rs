//! When requests start. The closed model lives here: a client starts its
//! next request as soon as it has a free slot, until its share of `-n` is
//! used or the run stops. Drivers pull tickets; they never decide timing.

use std::cell::Cell;
use std::task::{Context, Poll};

/// Where a worker thread is in the run; set by the runner, read by clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Requests go out but are not recorded.
    WarmUp,
    Measuring,
    /// No new request starts.
    Stopped,
}

/// Permission to start one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    /// Index into the run's paths.
    pub path: usize,
    /// False for requests started during warm-up.
    pub recorded: bool,
}

/// One client's schedule.
pub struct Schedule<'a> {
    /// Requests left in count mode; `None` in duration mode.
    remaining: Option<u64>,
    next_path: usize,
    path_count: usize,
    issued: u64,
    phase: &'a Cell<Phase>,
}

impl<'a> Schedule<'a> {
    pub fn new(requests: Option<u64>, path_count: usize, phase: &'a Cell<Phase>) -> Self {
        Schedule {
            remaining: requests,
            next_path: 0,
            path_count: path_count.max(1),
            issued: 0,
            phase,
        }
    }

    /// The next request to start, if any. Ready at once in the closed model.
    pub fn poll_ticket(&mut self, _cx: &mut Context<'_>) -> Poll<Option<Ticket>> {
        Poll::Ready(self.next_ticket())
    }

    fn next_ticket(&mut self) -> Option<Ticket> {
        let phase = self.phase.get();
        if phase == Phase::Stopped {
            return None;
        }
        if let Some(remaining) = &mut self.remaining {
            *remaining = remaining.checked_sub(1)?;
        }
        self.issued += 1;
        let path = self.next_path;
        self.next_path = (self.next_path + 1) % self.path_count;
        Some(Ticket {
            path,
            recorded: phase == Phase::Measuring,
        })
    }

    /// Whether another ticket may still come.
    pub fn has_more(&self) -> bool {
        self.phase.get() != Phase::Stopped && self.remaining != Some(0)
    }

    /// Tickets handed out so far.
    pub fn issued(&self) -> u64 {
        self.issued
    }

    /// Gives up on the requests not yet started (count mode); returns how many.
    pub fn abandon(&mut self) -> u64 {
        self.remaining.replace(0).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(schedule: &mut Schedule) -> Vec<Ticket> {
        std::iter::from_fn(|| schedule.next_ticket()).collect()
    }

    #[test]
    fn count_mode_cycles_paths_and_stops() {
        let phase = Cell::new(Phase::Measuring);
        let mut s = Schedule::new(Some(5), 2, &phase);
        let paths: Vec<usize> = drain(&mut s).iter().map(|t| t.path).collect();
        assert_eq!(paths, [0, 1, 0, 1, 0]);
        assert!(!s.has_more());
    }

    #[test]
    fn warm_up_tickets_are_not_recorded_and_stop_ends_duration_mode() {
        let phase = Cell::new(Phase::WarmUp);
        let mut s = Schedule::new(None, 1, &phase);
        assert!(!s.next_ticket().unwrap().recorded);
        phase.set(Phase::Measuring);
        assert!(s.next_ticket().unwrap().recorded);
        phase.set(Phase::Stopped);
        assert_eq!(s.next_ticket(), None);
        assert!(!s.has_more());
    }

    #[test]
    fn abandon_returns_unstarted() {
        let phase = Cell::new(Phase::Measuring);
        let mut s = Schedule::new(Some(10), 1, &phase);
        s.next_ticket();
        assert_eq!(s.abandon(), 9);
        assert_eq!(s.next_ticket(), None);
    }
}
