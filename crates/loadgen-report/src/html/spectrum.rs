//! Percentile spectra: a distribution drawn as HdrHistogram's plotter
//! draws it, value against percentile on a log axis of "nines" (0%, 90%,
//! 99%, 99.9%, …), read from a report's histograms, or from its
//! percentiles when it carries none.

use hdrhistogram::Histogram;
use loadgen_core::histogram_codec;
use loadgen_core::report::{ReportHistograms, TimeStats};
use loadgen_core::Report;

/// Points per halving of the distance to 100%, as HdrHistogram's
/// percentile output uses by default.
pub const TICKS_PER_HALF_DISTANCE: u32 = 5;

/// One of the report's distributions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    RequestTime,
    RequestTimeRaw,
    Dns,
    TcpConnect,
    TlsHandshake,
    Connect,
    FirstByte,
}

impl Measure {
    pub fn name(self) -> &'static str {
        match self {
            Measure::RequestTime => "request time",
            Measure::RequestTimeRaw => "request time, raw",
            Measure::Dns => "DNS lookup",
            Measure::TcpConnect => "TCP connect",
            Measure::TlsHandshake => "TLS handshake",
            Measure::Connect => "connect (all phases)",
            Measure::FirstByte => "first byte",
        }
    }

    pub fn stats(self, report: &Report) -> &TimeStats {
        match self {
            Measure::RequestTime => &report.request_time,
            Measure::RequestTimeRaw => &report.request_time_raw,
            Measure::Dns => &report.dns_time,
            Measure::TcpConnect => &report.tcp_connect_time,
            Measure::TlsHandshake => &report.tls_handshake_time,
            Measure::Connect => &report.connect_time,
            Measure::FirstByte => &report.first_byte_time,
        }
    }

    fn encoded(self, h: &ReportHistograms) -> &str {
        match self {
            Measure::RequestTime => &h.request_time,
            Measure::RequestTimeRaw => &h.request_time_raw,
            Measure::Dns => &h.dns_time,
            Measure::TcpConnect => &h.tcp_connect_time,
            Measure::TlsHandshake => &h.tls_handshake_time,
            Measure::Connect => &h.connect_time,
            Measure::FirstByte => &h.first_byte_time,
        }
    }

    /// The measure's histogram, when the report carries a readable one.
    pub fn histogram(self, report: &Report) -> Option<Histogram<u64>> {
        let encoded = report.histograms.as_ref()?;
        histogram_codec::decode(self.encoded(encoded)).ok()
    }
}

/// How far right a spectrum of `count` samples reaches: the nines its
/// rarest sample stands for, at least one (90%).
pub fn reach(count: u64) -> f64 {
    (count.max(10) as f64).log10().ceil()
}

/// `q` (0 to 1) on the nines axis, `limit` standing for 100%.
pub fn nines(q: f64, limit: f64) -> f64 {
    if q >= 1.0 {
        limit
    } else {
        (-(1.0 - q).log10()).min(limit)
    }
}

/// The spectrum of `measure` in `report`: (nines, µs) points, from the
/// histogram when there is one, else from the report's percentiles.
pub fn curve(report: &Report, measure: Measure, limit: f64) -> Vec<(f64, f64)> {
    match measure.histogram(report) {
        Some(h) => histogram_curve(&h, limit),
        None => stats_curve(measure.stats(report), limit),
    }
}

pub fn histogram_curve(h: &Histogram<u64>, limit: f64) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    let mut points = vec![(0.0, h.min() as f64)];
    for v in h.iter_quantiles(TICKS_PER_HALF_DISTANCE) {
        points.push((
            nines(v.quantile_iterated_to(), limit),
            v.value_iterated_to() as f64,
        ));
    }
    points
}

pub fn stats_curve(t: &TimeStats, limit: f64) -> Vec<(f64, f64)> {
    if t.count == 0 {
        return Vec::new();
    }
    [
        (0.0, t.min_us),
        (0.5, t.p50_us),
        (0.75, t.p75_us),
        (0.9, t.p90_us),
        (0.95, t.p95_us),
        (0.99, t.p99_us),
        (0.999, t.p99_9_us),
        (1.0, t.max_us),
    ]
    .into_iter()
    .map(|(q, us)| (nines(q, limit), us as f64))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_land_on_their_nines() {
        assert_eq!(nines(0.0, 4.0), 0.0);
        assert!((nines(0.99, 4.0) - 2.0).abs() < 1e-9);
        assert_eq!(nines(1.0, 4.0), 4.0);
        assert_eq!(nines(0.999_999, 4.0), 4.0);
        assert_eq!(reach(2000), 4.0);
        assert_eq!(reach(3), 1.0);
    }

    #[test]
    fn a_histogram_curve_rises_to_its_max() {
        let mut h = loadgen_core::histogram::new();
        for v in 1..=1000u64 {
            h.record(v).unwrap();
        }
        let points = histogram_curve(&h, reach(h.len()));
        assert_eq!(points.first(), Some(&(0.0, 1.0)));
        let last = points.last().unwrap();
        assert_eq!(*last, (3.0, 1000.0));
        assert!(points
            .windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
    }
}
