//! A cap on the requests served per second, for testing clients against a
//! server of known capacity: requests are answered one interval apart, in
//! the order they arrive, as by a server that can do no more. Below the cap
//! nothing waits; above it a queue builds and every response is later than
//! the one before.

use std::sync::Mutex;
use std::time::{Duration, Instant};

pub(crate) struct Capacity {
    interval: Duration,
    /// The earliest time the next request may be answered.
    next: Mutex<Instant>,
}

impl Capacity {
    /// `per_second` must be finite and greater than zero.
    pub(crate) fn new(per_second: f64) -> Capacity {
        Capacity {
            interval: Duration::from_secs_f64(1.0 / per_second),
            next: Mutex::new(Instant::now()),
        }
    }

    /// This request's turn: when the one before it was answered, plus one
    /// interval (or now, when the server is idle).
    fn take_turn(&self) -> Instant {
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        let turn = (*next).max(Instant::now());
        *next = turn + self.interval;
        turn
    }

    /// Waits for this request's turn.
    pub(crate) async fn wait(&self) {
        let turn = self.take_turn();
        tokio::time::sleep_until(turn.into()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_are_an_interval_apart() {
        let capacity = Capacity::new(100.0);
        let first = capacity.take_turn();
        let turns: Vec<Instant> = (0..5).map(|_| capacity.take_turn()).collect();
        assert_eq!(turns[0] - first, Duration::from_millis(10));
        assert_eq!(turns[4] - first, Duration::from_millis(50));
    }
}
