//! A run while it goes: the merged seconds so far, added up, as the live
//! dashboard shows them. Fed once per second, never per request.

use loadgen_core::interval::{Interval, IntervalRow, Window};
use loadgen_core::report::seconds::SecondsClock;
use loadgen_core::report::RunConfig;
use loadgen_core::Report;
use std::time::SystemTime;

/// The seconds of a run so far.
#[derive(Clone, Debug)]
pub struct LiveRun {
    config: RunConfig,
    started_at: SystemTime,
    rows: Vec<IntervalRow>,
    total: Window,
    elapsed_s: f64,
}

impl LiveRun {
    pub fn new(config: RunConfig, started_at: SystemTime) -> LiveRun {
        LiveRun {
            config,
            started_at,
            rows: Vec::new(),
            total: Window::default(),
            elapsed_s: 0.0,
        }
    }

    /// Adds one merged second.
    pub fn add(&mut self, interval: &Interval) {
        self.rows.push(IntervalRow::summary(interval));
        self.total.merge(&interval.window);
        self.elapsed_s = (interval.offset + interval.length).as_secs_f64();
    }

    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// The seconds so far, as the JSON report's `intervals` will hold them.
    pub fn rows(&self) -> &[IntervalRow] {
        &self.rows
    }

    /// A report of what the seconds hold: their rows, the request time
    /// and its histograms, responses by class and errors by kind, counted
    /// as the final report will count them. What only the end knows
    /// (bytes, connections, TLS, per-client rates, codes one by one) reads
    /// as zero or empty here: the dashboard draws only the charts and
    /// thresholds that read the seconds.
    pub fn so_far(&self) -> Report {
        let clock = SecondsClock {
            started_at: self.started_at,
            ended_at: SystemTime::now(),
            elapsed_s: self.elapsed_s,
        };
        Report::of_seconds(self.config.clone(), &self.total, self.rows.clone(), clock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::error_kind::ErrorKind;
    use std::time::Duration;

    fn second(index: u32, statuses: &[u16], errors: u64) -> Interval {
        let mut window = Window::default();
        for (i, status) in statuses.iter().enumerate() {
            // Under 2048 µs a histogram of three significant digits is exact.
            let time = Duration::from_micros(100 * (i as u64 + 1));
            window.record_response(*status, time, time);
        }
        window.record_errors(ErrorKind::Reset, errors);
        Interval {
            index,
            offset: Duration::from_secs(index.into()),
            started_at: SystemTime::UNIX_EPOCH,
            length: Duration::from_secs(1),
            window,
        }
    }

    fn config() -> RunConfig {
        let text = include_str!("../tests/data/report.json");
        let report: Report = serde_json::from_str(text).unwrap();
        report.config
    }

    #[test]
    fn the_seconds_add_up_as_the_report_counts_them() {
        let mut live = LiveRun::new(config(), SystemTime::UNIX_EPOCH);
        live.add(&second(0, &[200, 200, 503], 1));
        live.add(&second(1, &[200, 404], 2));
        assert_eq!(live.rows().len(), 2);
        assert_eq!(live.rows()[1].requests, 2);
        let report = live.so_far();
        let r = report.requests;
        assert_eq!(
            (r.done, r.succeeded, r.failed_status, r.errored, r.failed),
            (8, 3, 2, 3, 5)
        );
        assert_eq!(report.elapsed_s, 2.0);
        assert_eq!(report.req_per_s, 2.5);
        assert_eq!(report.request_time.count, 5);
        assert_eq!(report.request_time.max_us, 300);
        assert_eq!(report.errors.reset, 3);
        assert_eq!(
            (report.status_codes.class_4xx, report.status_codes.class_5xx),
            (1, 1)
        );
    }
}
