//! A run by count (`-n`) ends when every request has: against a server
//! that stopped answering, with nothing to bound a request, it waits for
//! ever, silent. After [`QUIET_LIMIT`] in which no request ended, that is
//! said once, with the flag that bounds the wait. A run with a request,
//! connection or inactivity timeout, or a duration, ends by itself.

use loadgen_core::interval::Interval;
use loadgen_core::plan::{Mode, Plan};
use std::time::Duration;

/// How long no request may end before the run says it is waiting.
pub const QUIET_LIMIT: Duration = Duration::from_secs(10);

/// Counts the seconds in which no request ended.
pub struct Waiting {
    quiet_for: Duration,
    said: bool,
}

impl Waiting {
    /// A watch for `plan`'s run, if one of its requests can wait without end.
    pub fn of(plan: &Plan) -> Option<Waiting> {
        let t = &plan.timeouts;
        let bounded = t.request.is_some()
            || t.connection_inactivity.is_some()
            || t.connection_active.is_some();
        let by_count = matches!(plan.mode, Mode::Requests(_));
        (by_count && !bounded).then_some(Waiting {
            quiet_for: Duration::ZERO,
            said: false,
        })
    }

    /// Adds one second of the run; returns the line to say, once per run.
    pub fn interval(&mut self, interval: &Interval) -> Option<String> {
        let w = &interval.window;
        if w.responses + w.errors > 0 {
            self.quiet_for = Duration::ZERO;
            return None;
        }
        self.quiet_for += interval.length;
        if self.said || self.quiet_for < QUIET_LIMIT {
            return None;
        }
        self.said = true;
        Some(format!(
            "no request has ended for {}s: requests are waiting for the server, and nothing bounds \
             how long; --request-timeout DURATION ends each after DURATION, Ctrl-C stops the run \
             and prints its report",
            self.quiet_for.as_secs()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::interval::Window;
    use loadgen_core::PlanInput;
    use std::time::SystemTime;

    fn plan(mode: Mode, request_timeout: Option<Duration>) -> Plan {
        let mut input = PlanInput {
            uris: vec!["http://127.0.0.1:1/".into()],
            mode,
            ..PlanInput::default()
        };
        input.timeouts.request = request_timeout;
        input.build().unwrap()
    }

    fn second(index: u32, responses: u64) -> Interval {
        let mut window = Window::default();
        for _ in 0..responses {
            window.record_response(200, Duration::from_millis(1), Duration::from_millis(1));
        }
        Interval {
            index,
            offset: Duration::from_secs(index.into()),
            started_at: SystemTime::now(),
            length: Duration::from_secs(1),
            window,
        }
    }

    #[test]
    fn said_once_after_ten_quiet_seconds() {
        let mut waiting = Waiting::of(&plan(Mode::Requests(4), None)).unwrap();
        assert!(waiting.interval(&second(0, 3)).is_none());
        let said: Vec<u32> = (1..30)
            .filter(|i| waiting.interval(&second(*i, 0)).is_some())
            .collect();
        assert_eq!(said, [10]);
    }

    #[test]
    fn a_request_that_ends_starts_the_count_again() {
        let mut waiting = Waiting::of(&plan(Mode::Requests(4), None)).unwrap();
        for i in 0..9 {
            assert!(waiting.interval(&second(i, 0)).is_none());
        }
        assert!(waiting.interval(&second(9, 1)).is_none());
        for i in 10..19 {
            assert!(waiting.interval(&second(i, 0)).is_none());
        }
        assert!(waiting.interval(&second(19, 0)).is_some());
    }

    #[test]
    fn not_watched_when_something_bounds_the_wait() {
        let timed = plan(Mode::Requests(4), Some(Duration::from_secs(30)));
        assert!(Waiting::of(&timed).is_none());
        let by_duration = Mode::Duration {
            duration: Duration::from_secs(60),
            warm_up: Duration::ZERO,
        };
        assert!(Waiting::of(&plan(by_duration, None)).is_none());
    }
}
