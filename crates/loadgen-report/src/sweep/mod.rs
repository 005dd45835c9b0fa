//! A sweep: the same benchmark run at several loads (clients, streams per
//! connection or open-model rates), each point repeated, and what is made
//! of it: the figures of each point over its runs (median, min, max, 95th
//! percentile), the terminal table, CSV rows as h2load-benchmarks charts
//! them, and the search for the highest rate that meets service-level
//! objectives ([`knee`]).

pub mod knee;
mod table;

pub use table::{csv, text};

use loadgen_core::Report;

/// What a sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// `-c`.
    Clients,
    /// `-m`.
    Streams,
    /// `--rate`, the open model's requests per second.
    Rate,
}

impl Dimension {
    /// The name of the swept value in rows, tables and columns.
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Clients => "clients",
            Dimension::Streams => "max_concurrent_streams",
            Dimension::Rate => "rate_per_s",
        }
    }

    /// The flag that sets it.
    pub fn flag(self) -> &'static str {
        match self {
            Dimension::Clients => "-c",
            Dimension::Streams => "-m",
            Dimension::Rate => "--rate",
        }
    }
}

/// One run of a sweep.
#[derive(Clone, Debug)]
pub struct SweepRun {
    /// The point's index, from 0, in the order the values were given.
    pub point: usize,
    /// The run's index within its point, from 0.
    pub run: usize,
    /// The swept value.
    pub value: f64,
    pub report: Report,
}

/// The spread of one figure over a point's runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Nearest rank: the smallest value at least 95% of the runs do not
    /// exceed (the max for fewer than 20 runs).
    pub p95: f64,
}

impl Spread {
    pub fn of(values: &[f64]) -> Spread {
        let mut sorted: Vec<f64> = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        if n == 0 {
            return Spread {
                median: 0.0,
                min: 0.0,
                max: 0.0,
                p95: 0.0,
            };
        }
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        let rank = (0.95 * n as f64).ceil() as usize;
        Spread {
            median,
            min: sorted[0],
            max: sorted[n - 1],
            p95: sorted[rank.clamp(1, n) - 1],
        }
    }
}

/// One point of a sweep, over its runs.
#[derive(Clone, Debug, PartialEq)]
pub struct PointSummary {
    pub value: f64,
    pub runs: usize,
    pub req_per_s: Spread,
    pub p50_us: Spread,
    pub p99_us: Spread,
    /// `requests.errored` of each run: transport errors and timeouts.
    pub errors: Spread,
    /// `requests.failed` of each run: 4xx/5xx responses and errors, as
    /// h2load counts them and the `failed` objective reads them.
    pub failed: Spread,
    /// Responses per second that succeeded (2xx/3xx): `req_per_s` counts
    /// every response, a server shedding load with 503s included.
    pub succeeded_per_s: Spread,
}

/// Reads one figure of a run's report.
pub type Read = fn(&Report) -> f64;

/// The figures this module spreads, each read from a run's report; CSV
/// columns in this order (the later ones were added last, so that the
/// earlier columns keep their places).
pub const FIGURES: [(&str, Read); 6] = [
    ("req_per_s", |r| r.req_per_s),
    ("p50_us", |r| r.request_time.p50_us as f64),
    ("p99_us", |r| r.request_time.p99_us as f64),
    ("errors", |r| r.requests.errored as f64),
    ("failed", |r| r.requests.failed as f64),
    ("succeeded_req_per_s", succeeded_per_s),
];

/// The share of `req_per_s` that succeeded.
pub fn succeeded_per_s(report: &Report) -> f64 {
    match report.responses() {
        0 => 0.0,
        responses => report.req_per_s * report.requests.succeeded as f64 / responses as f64,
    }
}

/// One summary per point, in point order.
pub fn summarize(runs: &[SweepRun]) -> Vec<PointSummary> {
    let points = runs.iter().map(|r| r.point + 1).max().unwrap_or(0);
    (0..points)
        .filter_map(|point| {
            let of_point: Vec<&SweepRun> = runs.iter().filter(|r| r.point == point).collect();
            let first = of_point.first()?;
            let spread = |figure: Read| {
                Spread::of(
                    &of_point
                        .iter()
                        .map(|r| figure(&r.report))
                        .collect::<Vec<_>>(),
                )
            };
            Some(PointSummary {
                value: first.value,
                runs: of_point.len(),
                req_per_s: spread(FIGURES[0].1),
                p50_us: spread(FIGURES[1].1),
                p99_us: spread(FIGURES[2].1),
                errors: spread(FIGURES[3].1),
                failed: spread(FIGURES[4].1),
                succeeded_per_s: spread(FIGURES[5].1),
            })
        })
        .collect()
}

/// h2load-benchmarks' points: a quarter, half, three quarters and all of
/// `clients`, each at least one.
pub fn quarters(clients: usize) -> Vec<usize> {
    let mut points: Vec<usize> = [1, 2, 3, 4]
        .iter()
        .map(|q| (clients * q / 4).max(1))
        .collect();
    points.dedup();
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_over_runs() {
        let s = Spread::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.min, s.max, s.p95), (2.0, 1.0, 3.0, 3.0));
        let even = Spread::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(even.median, 2.5);
        let twenty: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(Spread::of(&twenty).p95, 19.0);
    }

    #[test]
    fn quarters_of_the_clients() {
        assert_eq!(quarters(100), [25, 50, 75, 100]);
        assert_eq!(quarters(2), [1, 2]);
        assert_eq!(quarters(1), [1]);
    }
}
