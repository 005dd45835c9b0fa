//! What a lost worker leaves: the seconds it streamed before the loss.
//! Each came with its histograms and its counts by status class and error
//! kind, so they add up to a report of that part of its run, which is
//! merged with the others' and marked partial: the requests the target
//! served for it up to its loss are not silently missing.
//!
//! A second carries less than a report: no bytes, no connections, no
//! status codes beyond their class, no connection phases. Those figures of
//! the part are zero, and its `started` are the requests that ended.

use super::live::window_of;
use loadgen_core::interval::{IntervalRow, Window};
use loadgen_core::report::seconds::SecondsClock;
use loadgen_core::report::{RunConfig, SpreadStats};
use loadgen_core::Report;
use std::time::{Duration, SystemTime};

/// The report of `rows`, a lost worker's seconds of a plan's run
/// configured as `config`, whose measured part was to start at `started`
/// (the controller's clock). `None` without a second.
pub fn report_of_seconds(
    config: RunConfig,
    rows: Vec<IntervalRow>,
    started: SystemTime,
) -> Result<Option<Report>, String> {
    if rows.is_empty() {
        return Ok(None);
    }
    let mut total = Window::default();
    for row in &rows {
        total.merge(&window_of(row)?);
    }
    let elapsed_s = rows
        .iter()
        .map(|r| r.start_s + r.duration_s)
        .fold(0.0, f64::max);
    let clock = SecondsClock {
        started_at: started,
        ended_at: started + Duration::from_secs_f64(elapsed_s),
        elapsed_s,
    };
    let clients = config.clients.max(1) as f64;
    let mut report = Report::of_seconds(config, &total, rows, clock);
    // Each client's rate is not in a second's row: the part's mean for all.
    let client_rate = report.req_per_s / clients;
    report.per_client_req_per_s = SpreadStats {
        min: client_rate,
        max: client_rate,
        mean: client_rate,
        stdev: 0.0,
        within_stdev_pct: 100.0,
    };
    Ok(Some(report))
}
