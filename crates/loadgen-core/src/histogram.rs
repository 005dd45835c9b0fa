//! The one histogram shape every measured time uses: microseconds from 1
//! to one hour, three significant digits. Histograms of that shape add up
//! exactly, across threads, intervals and (from serialized reports) runs.

use hdrhistogram::Histogram;
use std::time::Duration;

/// The largest value kept: one hour in microseconds.
pub const HIGHEST_US: u64 = 3_600_000_000;

/// An empty histogram. It starts with counts for the first 2 ms only
/// (16 KiB) and grows as larger values arrive, never beyond [`HIGHEST_US`]
/// since [`record`] clamps to it: a histogram that covers the whole hour at
/// once is 184 KiB of zeroes, written when it is made, and a run keeps a
/// dozen of them per thread.
pub fn new() -> Histogram<u64> {
    let mut histogram =
        Histogram::new_with_bounds(1, 2, 3).expect("static histogram bounds are valid");
    histogram.auto(true);
    histogram
}

/// Request times up to this (65.5 ms) fit in a histogram of
/// [`for_request_times`] from the start.
pub const REQUEST_TIMES_SIZED_US: u64 = 1 << 16;

/// An empty histogram for request, step and iteration times, its counts
/// made for values up to [`REQUEST_TIMES_SIZED_US`] (56 KiB) and grown
/// beyond as [`new`]'s are. Grown on demand from 2 ms instead, the couple
/// of dozen of them a scenario's thread keeps grew by 8 KiB each at every
/// doubling of the largest time: a stall in the middle of a long run grew
/// its memory by up to a megabyte then (docs/reliability.md, "Soak"),
/// where sized once they reach their size as the run starts.
pub fn for_request_times() -> Histogram<u64> {
    let mut histogram = Histogram::new_with_bounds(1, REQUEST_TIMES_SIZED_US, 3)
        .expect("static histogram bounds are valid");
    histogram.auto(true);
    histogram
}

/// Records `us` microseconds, clamped to [`HIGHEST_US`]; the histogram
/// grows to hold it (a handful of times per run, as the maximum rises).
pub fn record(histogram: &mut Histogram<u64>, us: u64) {
    let us = us.min(HIGHEST_US);
    if histogram.record(us).is_err() {
        histogram.saturating_record(us);
    }
}

/// A duration in whole microseconds, clamped to [`HIGHEST_US`].
pub fn micros(d: Duration) -> u64 {
    d.as_micros().min(u128::from(HIGHEST_US)) as u64
}
