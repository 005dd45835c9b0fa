//! `--percentiles-file`: a histogram as HdrHistogram's percentile
//! distribution text (`.hgrm`), the output of Java's
//! `outputPercentileDistribution`, which HdrHistogram's plotters and the
//! gnuplot scripts around wrk2 read. Values are written in milliseconds
//! (the histogram's microseconds divided by 1000), as those tools expect.

use hdrhistogram::Histogram;
use std::fmt::Write;

/// Microseconds per written unit.
const SCALE: f64 = 1000.0;
const TICKS_PER_HALF_DISTANCE: u32 = 5;

/// The distribution of `h` (values in µs) as `.hgrm` text.
pub fn render(h: &Histogram<u64>) -> String {
    let digits = usize::from(h.sigfig());
    let mut out = format!(
        "{:>12} {:>14} {:>10} {:>14}\n\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    );
    let mut total = 0u64;
    if !h.is_empty() {
        for v in h.iter_quantiles(TICKS_PER_HALF_DISTANCE) {
            total += v.count_since_last_iteration();
            let value = v.value_iterated_to() as f64 / SCALE;
            let q = v.quantile_iterated_to();
            if q < 1.0 {
                let _ = writeln!(
                    out,
                    "{value:>12.digits$} {q:>2.12} {total:>10} {:>14.2}",
                    1.0 / (1.0 - q)
                );
            } else {
                let _ = writeln!(out, "{value:>12.digits$} {q:>2.12} {total:>10}");
            }
        }
    }
    let (mean, stdev, max) = if h.is_empty() {
        (0.0, 0.0, 0.0)
    } else {
        (h.mean() / SCALE, h.stdev() / SCALE, h.max() as f64 / SCALE)
    };
    let _ = writeln!(
        out,
        "#[Mean    = {mean:>12.digits$}, StdDeviation   = {stdev:>12.digits$}]"
    );
    let _ = writeln!(
        out,
        "#[Max     = {max:>12.digits$}, Total count    = {:>12}]",
        h.len()
    );
    let _ = writeln!(
        out,
        "#[Buckets = {:>12}, SubBuckets     = {:>12}]",
        h.buckets(),
        sub_buckets(h.sigfig())
    );
    out
}

/// HdrHistogram's sub-bucket count: the power of two that resolves
/// 2 × 10^digits values at unit precision (2048 for three digits).
fn sub_buckets(significant_digits: u8) -> u64 {
    let single_unit = 2 * 10u64.pow(u32::from(significant_digits));
    single_unit.next_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_hdrhistograms() {
        let mut h = loadgen_core::histogram::new();
        for v in 1..=1000u64 {
            h.record(v * 10).unwrap();
        }
        let text = render(&h);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "       Value     Percentile TotalCount 1/(1-Percentile)"
        );
        assert_eq!(lines[1], "");
        assert_eq!(
            lines[2],
            "       0.010 0.000000000000          1           1.00"
        );
        let last = lines[lines.len() - 4];
        assert_eq!(last, "      10.007 1.000000000000       1000");
        assert!(lines[lines.len() - 2]
            .starts_with("#[Max     =       10.007, Total count    =         1000]"));
        assert!(lines[lines.len() - 1].ends_with("SubBuckets     =         2048]"));
    }
}
