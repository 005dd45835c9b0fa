//! Randomness for templates, think times and feeders: `fastrand`'s
//! per-thread generator, seeded from the OS. Not for secrets.

/// A number from 0 to `bound - 1`.
pub fn below(bound: u64) -> u64 {
    fastrand::u64(..bound.max(1))
}

/// A duration chosen evenly between `min` and `max`.
pub fn between(min: std::time::Duration, max: std::time::Duration) -> std::time::Duration {
    if max <= min {
        return min;
    }
    let span = (max - min).as_nanos() as u64;
    min + std::time::Duration::from_nanos(fastrand::u64(..=span))
}
