//! Wake-up coalescing: how long a worker thread with nothing to do, but
//! requests in flight, sleeps on a timer before it waits on its sockets.
//!
//! On loopback the receiver's TCP processing, and the wake-up of a thread
//! asleep in `epoll_wait` on that socket, run inside the sender's system
//! call. A client that answers each response at once and then sleeps in
//! `epoll_wait` again makes the server pay a cross-CPU wake-up (on a virtual
//! machine, an exit to the hypervisor) for nearly every batch of responses
//! it writes, and hands it requests in small batches: against one nginx
//! worker on HTTP/2 that cost nginx about a quarter more CPU per request
//! than under h2load (docs/performance.md, "Wake-up coalescing").
//!
//! So, when multiplexed connections are in use, a thread about to park
//! first sleeps for a short window on a timer, off the sockets' wait
//! queues: the responses that arrive meanwhile wake nobody, and are read and
//! answered in one batch, as a network card's interrupt coalescing does.
//! The window is at most a fixed fraction of the thread's mean response
//! time (by Little's law: requests in flight ÷ completions per second), so
//! it adds at most that fraction to any response time measured; below a
//! floor it is not worth a timer, and is zero.

use std::cell::Cell;
use std::time::Duration;

/// The window is at most this fraction of the mean response time.
const FRACTION_OF_RESPONSE_TIME: u32 = 64;
/// Shorter windows are not taken: a timer costs more than it saves.
const SHORTEST: Duration = Duration::from_micros(5);
/// How often a thread works its window out again.
pub const RECKONED_EVERY: Duration = Duration::from_millis(10);

thread_local! {
    static WINDOW: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// The runtime's park hook: sleeps for this thread's window, if any.
pub fn before_park() {
    let window = WINDOW.get();
    if !window.is_zero() {
        std::thread::sleep(window);
    }
}

/// Sets this thread's window; zero turns coalescing off.
pub fn set_window(window: Duration) {
    if !window.is_zero() && WINDOW.get().is_zero() {
        // Linux rounds a sleeping thread's timers up by its timer slack,
        // 50 µs by default: more than the window itself. Set as the window
        // turns on, which happens a few times a run.
        #[cfg(target_os = "linux")]
        // SAFETY: PR_SET_TIMERSLACK takes a number of nanoseconds and
        // changes nothing but this thread's timer slack.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong, 0, 0, 0);
        }
    }
    WINDOW.set(window);
}

/// The window for a thread that had `in_flight` requests outstanding and
/// completed `completed` of them in `elapsed`, at most `longest`.
pub fn window_for(
    in_flight: u64,
    completed: u64,
    elapsed: Duration,
    longest: Duration,
) -> Duration {
    if completed == 0 || in_flight == 0 || longest.is_zero() {
        return Duration::ZERO;
    }
    let mean_response_nanos = elapsed.as_nanos() * u128::from(in_flight) / u128::from(completed);
    let window = Duration::from_nanos(
        (mean_response_nanos / u128::from(FRACTION_OF_RESPONSE_TIME)).min(u64::MAX as u128) as u64,
    )
    .min(longest);
    if window < SHORTEST {
        Duration::ZERO
    } else {
        window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONGEST: Duration = Duration::from_micros(20);

    #[test]
    fn the_window_is_a_fraction_of_the_mean_response_time() {
        // 160 in flight, 1,000 completions in 10 ms: 1.6 ms each on average.
        let window = window_for(
            160,
            1_000,
            Duration::from_millis(10),
            Duration::from_millis(1),
        );
        assert_eq!(window, Duration::from_nanos(1_600_000 / 64));
        assert_eq!(
            window_for(160, 1_000, Duration::from_millis(10), LONGEST),
            LONGEST
        );
    }

    #[test]
    fn short_response_times_get_no_window() {
        // 10 in flight, 1,000 completions in 10 ms: 100 µs each, 1.6 µs of window.
        assert_eq!(
            window_for(10, 1_000, Duration::from_millis(10), LONGEST),
            Duration::ZERO
        );
    }

    #[test]
    fn nothing_completed_or_nothing_in_flight_gets_no_window() {
        assert_eq!(
            window_for(160, 0, Duration::from_millis(10), LONGEST),
            Duration::ZERO
        );
        assert_eq!(
            window_for(0, 1_000, Duration::from_millis(10), LONGEST),
            Duration::ZERO
        );
        assert_eq!(
            window_for(160, 1_000, Duration::from_millis(10), Duration::ZERO),
            Duration::ZERO
        );
    }

    #[test]
    fn the_window_belongs_to_its_thread() {
        set_window(Duration::from_micros(20));
        assert_eq!(WINDOW.get(), Duration::from_micros(20));
        std::thread::spawn(|| assert_eq!(WINDOW.get(), Duration::ZERO))
            .join()
            .unwrap();
        set_window(Duration::ZERO);
        assert_eq!(WINDOW.get(), Duration::ZERO);
    }
}
