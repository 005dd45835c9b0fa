//! h2load's per-client req/s spread of several reports. A report keeps the
//! statistics of its clients' rates, not the rates, so the merged spread is
//! rebuilt from each report's statistics and its number of clients
//! (`config.clients`, one rate per client):
//!
//! - `min` and `max`: the smallest and largest of all: exact;
//! - `mean`: the means weighted by the number of clients: exact;
//! - `stdev`: the population deviation of all rates, pooled from each
//!   report's mean and deviation (E\[x²\] = σ² + μ² per report): exact up to
//!   floating-point rounding;
//! - `within_stdev_pct`: which rates lie within the merged mean ± stdev
//!   cannot be told from the reports' figures; it is their shares weighted
//!   by clients: an approximation, exact only when every report has the
//!   same mean and deviation.

use loadgen_core::report::SpreadStats;

/// `parts`: each report's number of clients and spread.
pub fn merge(parts: &[(usize, SpreadStats)]) -> SpreadStats {
    let parts: Vec<(f64, &SpreadStats)> = parts
        .iter()
        .filter(|(clients, _)| *clients > 0)
        .map(|(clients, s)| (*clients as f64, s))
        .collect();
    let clients: f64 = parts.iter().map(|(n, _)| n).sum();
    if parts.is_empty() {
        return SpreadStats::default();
    }
    // Weights that add up to one keep every weighted figure within the
    // range of the values, so that none overflows to infinity, which a
    // JSON report cannot hold.
    let weighted = |value: &dyn Fn(&SpreadStats) -> f64| -> f64 {
        parts
            .iter()
            .map(|(n, s)| n / clients * value(s))
            .sum::<f64>()
    };
    let mean = weighted(&|s| s.mean);
    // Squares of rates near f64::MAX overflow: pooled on a scale of the
    // largest figure, then scaled back.
    let scale = parts
        .iter()
        .map(|(_, s)| s.stdev.abs().max(s.mean.abs()))
        .fold(0.0, f64::max);
    let stdev = if scale > 0.0 {
        let scaled_mean = mean / scale;
        let mean_of_squares = weighted(&|s| (s.stdev / scale).powi(2) + (s.mean / scale).powi(2));
        // Rounding can take a zero variance a hair below zero.
        scale
            * (mean_of_squares - scaled_mean * scaled_mean)
                .max(0.0)
                .sqrt()
    } else {
        0.0
    };
    SpreadStats {
        min: parts
            .iter()
            .map(|(_, s)| s.min)
            .fold(f64::INFINITY, f64::min),
        max: parts
            .iter()
            .map(|(_, s)| s.max)
            .fold(f64::NEG_INFINITY, f64::max),
        mean,
        stdev,
        within_stdev_pct: weighted(&|s| s.within_stdev_pct),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn matches_the_spread_of_all_rates() {
        let first = [100.0, 120.0, 90.0];
        let second = [300.0, 310.0, 250.0, 280.0, 400.0];
        let all: Vec<f64> = first.iter().chain(&second).copied().collect();
        let merged = merge(&[
            (first.len(), SpreadStats::of(&first)),
            (second.len(), SpreadStats::of(&second)),
        ]);
        let truth = SpreadStats::of(&all);
        assert_eq!((merged.min, merged.max), (truth.min, truth.max));
        assert!(close(merged.mean, truth.mean), "{merged:?} {truth:?}");
        assert!(close(merged.stdev, truth.stdev), "{merged:?} {truth:?}");
    }

    #[test]
    fn equal_reports_keep_their_share_within_one_deviation() {
        let rates = [10.0, 20.0, 30.0, 40.0];
        let one = SpreadStats::of(&rates);
        let merged = merge(&[(4, one), (4, one)]);
        let truth = SpreadStats::of(&[rates, rates].concat());
        assert!(close(merged.within_stdev_pct, truth.within_stdev_pct));
        assert!(close(merged.stdev, truth.stdev));
        assert_eq!(merge(&[]), SpreadStats::default());
    }

    /// A report altered to hold rates near f64::MAX still merges into
    /// finite figures, which its JSON can hold (found by the merge_input
    /// fuzz target: a deviation of 1e306 squared to infinity, written as
    /// null, and the merged report no longer read).
    #[test]
    fn rates_near_the_largest_float_stay_finite() {
        let huge = SpreadStats {
            min: 1.0,
            max: 1e306,
            mean: 1e306,
            stdev: 1e306,
            within_stdev_pct: 100.0,
        };
        let merged = merge(&[(4, huge), (4, huge)]);
        for figure in [merged.min, merged.max, merged.mean, merged.stdev] {
            assert!(figure.is_finite(), "{merged:?}");
        }
        assert!(close(merged.mean, 1e306), "{merged:?}");
        assert!(close(merged.stdev, 1e306), "{merged:?}");
    }
}
