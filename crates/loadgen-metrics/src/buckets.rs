//! The classic histogram every latency is exported as: one fixed set of
//! upper bounds, ten per decade (Renard's R10 series, each about 26% above
//! the one before) from 100 µs to 80 s, then `+Inf`. Fixed so that
//! dashboards and recording rules can rely on them across runs and
//! versions.
//!
//! A value is counted against a bound from the HDR histogram it was
//! recorded in (microseconds, three significant digits): it is at or under
//! the bound when the lowest value of its HDR bucket is. The counts are
//! therefore exact to HDR's precision (0.1%), the total count is exact, and
//! a quantile read from the buckets is exact to the bucket it falls in.

use hdrhistogram::Histogram;

const MANTISSAS: [u64; 10] = [100, 125, 160, 200, 250, 320, 400, 500, 630, 800];
const DECADES: u32 = 6;

/// The upper bounds in microseconds, ascending, without `+Inf`.
pub fn bounds_us() -> &'static [u64] {
    static BOUNDS: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    BOUNDS.get_or_init(|| {
        (0..DECADES)
            .flat_map(|decade| MANTISSAS.iter().map(move |m| m * 10u64.pow(decade)))
            .collect()
    })
}

/// `bound_us` in seconds as the `le` label writes it: the shortest
/// decimal, so `0.000125`, `0.5`, `1`, `80`.
pub fn le_label(bound_us: u64) -> String {
    let whole = bound_us / 1_000_000;
    let fraction = bound_us % 1_000_000;
    if fraction == 0 {
        return whole.to_string();
    }
    let digits = format!("{fraction:06}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// Counts per bucket (not cumulative: the last is above every bound), the
/// sum of the values in seconds and their count.
#[derive(Clone, Debug, PartialEq)]
pub struct Classic {
    pub counts: Vec<u64>,
    pub sum_seconds: f64,
    pub count: u64,
}

impl Default for Classic {
    fn default() -> Self {
        Classic {
            counts: vec![0; bounds_us().len() + 1],
            sum_seconds: 0.0,
            count: 0,
        }
    }
}

impl Classic {
    /// Adds every value of `histogram` (microseconds).
    pub fn add(&mut self, histogram: &Histogram<u64>) {
        let bounds = bounds_us();
        for value in histogram.iter_recorded() {
            let recorded = value.value_iterated_to();
            let n = value.count_at_value();
            let lowest = histogram.lowest_equivalent(recorded);
            let bucket = bounds.partition_point(|bound| *bound < lowest);
            self.counts[bucket] += n;
            self.count += n;
            self.sum_seconds += histogram.median_equivalent(recorded) as f64 * n as f64 / 1e6;
        }
    }

    /// The counts as Prometheus writes them: each bound's count of values
    /// at or under it, `+Inf`'s last.
    pub fn cumulative(&self) -> Vec<u64> {
        self.counts
            .iter()
            .scan(0, |total, n| {
                *total += n;
                Some(*total)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_ten_per_decade_from_100us_to_80s() {
        let bounds = bounds_us();
        assert_eq!(bounds.len(), 60);
        assert_eq!(bounds[0], 100);
        assert_eq!(*bounds.last().unwrap(), 80_000_000);
        assert!(bounds.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(le_label(125), "0.000125");
        assert_eq!(le_label(500_000), "0.5");
        assert_eq!(le_label(1_000_000), "1");
        assert_eq!(le_label(32_000_000), "32");
    }

    #[test]
    fn values_fall_at_or_under_their_bound() {
        let mut h = Histogram::<u64>::new(3).unwrap();
        h.record(100).unwrap(); // on the first bound
        h.record(101).unwrap(); // just above it
        h.record(5_000).unwrap();
        h.record(100_000_000).unwrap(); // above every bound
        let mut classic = Classic::default();
        classic.add(&h);
        let bounds = bounds_us();
        assert_eq!(classic.counts[0], 1);
        assert_eq!(classic.counts[1], 1);
        let at_5ms = bounds.iter().position(|b| *b == 5_000).unwrap();
        assert_eq!(classic.counts[at_5ms], 1);
        assert_eq!(classic.counts[bounds.len()], 1);
        assert_eq!(classic.count, 4);
        assert_eq!(*classic.cumulative().last().unwrap(), 4);
        assert!((classic.sum_seconds - 100.005201).abs() < 0.1);
    }
}
