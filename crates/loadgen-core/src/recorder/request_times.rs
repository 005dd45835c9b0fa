//! Request times, recorded once per response instead of four times.
//!
//! A response's time goes into the open window's histograms only; a
//! window's times are added to the run's when it closes, once a second.
//! And while every response in a window has its corrected time equal to
//! its raw time, as in the closed model, where a request is intended for
//! the moment it is sent, only the raw histogram is recorded: the
//! corrected one is the same and is filled from it when the window closes.
//! An HDR record is about 95 instructions, a twentieth of an HTTP/1.1
//! request's user time (docs/performance.md, "Request times recorded
//! once"), and adding a window's histogram once a second costs nothing per
//! request.

use crate::histogram::{self, record};
use crate::interval::Window;
use hdrhistogram::Histogram;

#[derive(Clone, Debug)]
pub(crate) struct RequestTimes {
    /// The corrected times of the windows already closed.
    closed_corrected: Histogram<u64>,
    /// The raw times of the windows already closed.
    closed_raw: Histogram<u64>,
}

impl Default for RequestTimes {
    fn default() -> Self {
        RequestTimes {
            closed_corrected: histogram::for_request_times(),
            closed_raw: histogram::for_request_times(),
        }
    }
}

/// An open window whose corrected histogram is empty has had every
/// response's corrected time equal to its raw time: only the recorder
/// records into it, and only once a time differs.
fn corrected_is_raw(open: &Window) -> bool {
    open.request_time.is_empty()
}

impl RequestTimes {
    /// One response's times, in whole microseconds, into `open`.
    pub(crate) fn record(open: &mut Window, corrected_us: u64, raw_us: u64) {
        if !corrected_is_raw(open) {
            record(&mut open.request_time, corrected_us);
        } else if corrected_us != raw_us {
            add(&mut open.request_time, &open.request_time_raw);
            record(&mut open.request_time, corrected_us);
        }
        record(&mut open.request_time_raw, raw_us);
    }

    /// `open` is closing: its corrected histogram is made whole, and its
    /// times are added to the run's.
    pub(crate) fn close(&mut self, open: &mut Window) {
        if corrected_is_raw(open) {
            add(&mut open.request_time, &open.request_time_raw);
        }
        add(&mut self.closed_corrected, &open.request_time);
        add(&mut self.closed_raw, &open.request_time_raw);
    }

    /// The run's corrected times so far, `open` included.
    pub(crate) fn corrected(&self, open: &Window) -> Histogram<u64> {
        let mut all = self.closed_corrected.clone();
        if corrected_is_raw(open) {
            add(&mut all, &open.request_time_raw);
        } else {
            add(&mut all, &open.request_time);
        }
        all
    }

    /// The run's raw times so far, `open` included.
    pub(crate) fn raw(&self, open: &Window) -> Histogram<u64> {
        let mut all = self.closed_raw.clone();
        add(&mut all, &open.request_time_raw);
        all
    }

    /// Adds times recorded elsewhere (another thread's) to the run's.
    pub(crate) fn add_closed(&mut self, corrected: &Histogram<u64>, raw: &Histogram<u64>) {
        add(&mut self.closed_corrected, corrected);
        add(&mut self.closed_raw, raw);
    }
}

fn add(to: &mut Histogram<u64>, from: &Histogram<u64>) {
    // Every request-time histogram has the same bounds, so adding cannot fail.
    to.add(from).expect("histograms share bounds");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(h: &Histogram<u64>) -> Vec<(u64, u64)> {
        h.iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    }

    #[test]
    fn a_closed_model_window_records_raw_times_and_closes_with_both() {
        let mut times = RequestTimes::default();
        let mut open = Window::default();
        for us in [100, 200, 200] {
            RequestTimes::record(&mut open, us, us);
        }
        assert_eq!(
            open.request_time.len(),
            0,
            "only the raw times are recorded"
        );
        assert_eq!(values(&times.corrected(&open)), values(&times.raw(&open)));
        times.close(&mut open);
        assert_eq!(values(&open.request_time), vec![(100, 1), (200, 2)]);
        assert_eq!(values(&open.request_time_raw), vec![(100, 1), (200, 2)]);
        let next = Window::default();
        assert_eq!(values(&times.corrected(&next)), vec![(100, 1), (200, 2)]);
        assert_eq!(times.raw(&next).len(), 3);
    }

    #[test]
    fn a_corrected_time_apart_from_the_raw_one_keeps_the_earlier_ones() {
        let mut times = RequestTimes::default();
        let mut open = Window::default();
        RequestTimes::record(&mut open, 100, 100);
        RequestTimes::record(&mut open, 900, 300);
        RequestTimes::record(&mut open, 50, 50);
        assert_eq!(
            values(&times.corrected(&open)),
            vec![(50, 1), (100, 1), (900, 1)]
        );
        assert_eq!(values(&times.raw(&open)), vec![(50, 1), (100, 1), (300, 1)]);
        times.close(&mut open);
        assert_eq!(
            values(&open.request_time),
            vec![(50, 1), (100, 1), (900, 1)]
        );
        // The next window starts out taking raw times only again.
        let mut next = Window::default();
        RequestTimes::record(&mut next, 70, 70);
        assert_eq!(next.request_time.len(), 0);
        assert_eq!(times.corrected(&next).len(), 4);
        times.close(&mut next);
        assert_eq!(values(&next.request_time), vec![(70, 1)]);
    }
}
