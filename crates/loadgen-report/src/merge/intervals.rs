//! The reports' one-second rows, lined up on the wall clock and added.
//!
//! Each report counts its rows from its own `started_at`, so a row is first
//! placed on the wall clock (`started_at` + `start_s`) and then given to the
//! whole wall-clock second nearest its start: for a full one-second row,
//! the second that holds the larger part of it. Rows of one report start
//! one second apart, so each goes to a second of its own; rows of different
//! reports given the same second are added into one row. Reports started at
//! the same moment (a coordinated start) line up row for row.
//!
//! A row is never split: when reports did not start on the same fraction of
//! a second, a row's samples all count in the second it was given, though
//! the part of its window after the half second belongs to the next one
//! (the histograms cannot tell which samples came when). A last row shorter
//! than a second is placed by its start too. Seconds in which no report has
//! a row have no row.

use super::counts::Adder;
use super::histograms::RowHistograms;
use super::wall_clock::{later, nearest_second, seconds};
use super::MergeError;
use loadgen_core::interval::{IntervalHistograms, IntervalRow, RunCounters};
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

/// One report's row on the wall clock; its histograms, checked when it was
/// placed, stay encoded until its second is added up, so that a merge of
/// long reports holds one second's histograms decoded at a time, not every
/// row's (a 30-minute run of two workers: 3,600 rows).
#[derive(Clone, Debug)]
pub struct PlacedRow<'a> {
    pub start: SystemTime,
    pub end: SystemTime,
    pub requests: u64,
    pub errors: u64,
    pub req_per_s: f64,
    pub status_codes: BTreeMap<String, u64>,
    pub error_kinds: BTreeMap<String, u64>,
    /// Each adds up, the gauges too: the rows are of the same second.
    pub counters: RunCounters,
    pub protocol: Option<String>,
    pub histograms: Vec<&'a IntervalHistograms>,
}

/// [`RunCounters::NAMES`] as an overflow's message names them (a test
/// keeps the two lists the same).
const COUNTERS: [&str; 7] = [
    "intervals[].bytes_received",
    "intervals[].bytes_sent",
    "intervals[].connections",
    "intervals[].started_late",
    "intervals[].unsent_at_end",
    "intervals[].vus",
    "intervals[].dropped_iterations",
];

/// The rows of the report named `name`, which started at `started_at`.
pub fn place<'a>(
    name: &str,
    rows: &'a [IntervalRow],
    started_at: SystemTime,
) -> Result<Vec<PlacedRow<'a>>, MergeError> {
    let invalid = |why: String| MergeError::Invalid {
        name: name.to_string(),
        why,
    };
    rows.iter()
        .enumerate()
        .map(|(index, row)| {
            let offset = seconds(row.start_s)
                .map_err(|why| invalid(format!("intervals[{index}].start_s: {why}")))?;
            let length = seconds(row.duration_s)
                .map_err(|why| invalid(format!("intervals[{index}].duration_s: {why}")))?;
            let start = later(started_at, offset)
                .map_err(|why| invalid(format!("intervals[{index}].start_s: {why}")))?;
            let end = later(start, length)
                .map_err(|why| invalid(format!("intervals[{index}].duration_s: {why}")))?;
            Ok(PlacedRow {
                start,
                end,
                requests: row.requests,
                errors: row.errors,
                req_per_s: row.req_per_s,
                status_codes: row.status_codes.clone(),
                error_kinds: row.error_kinds.clone(),
                counters: row.counters,
                protocol: row.protocol.clone(),
                histograms: vec![RowHistograms::check(name, index, row)?],
            })
        })
        .collect()
}

/// The rows of all reports added up per wall-clock second, in time order,
/// their start counted from `merged_start` (the earliest report's start).
///
/// A merged row starts with the earliest of its rows and lasts until the
/// latest of them ends. Its `requests`, `errors`, counts by status class
/// and error kind, and histograms (and so its
/// percentiles) are the sums of its rows': exact. Its `req_per_s` is the sum
/// of its rows' rates, each over its own window: the rate at which the
/// reports' loads ran together that second, exact when their rows cover the
/// same window; it is not `requests / duration_s` when they do not.
pub fn align(
    rows: Vec<PlacedRow<'_>>,
    merged_start: SystemTime,
    adder: &mut Adder,
) -> Result<Vec<IntervalRow>, MergeError> {
    let mut by_second: BTreeMap<u64, PlacedRow> = BTreeMap::new();
    for row in rows {
        match by_second.entry(nearest_second(row.start)) {
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(row);
            }
            std::collections::btree_map::Entry::Occupied(mut slot) => {
                let sum = slot.get_mut();
                sum.start = sum.start.min(row.start);
                sum.end = sum.end.max(row.end);
                adder.add("intervals[].requests", &mut sum.requests, row.requests);
                adder.add("intervals[].errors", &mut sum.errors, row.errors);
                sum.req_per_s += row.req_per_s;
                add_counts(&mut sum.status_codes, &row.status_codes);
                add_counts(&mut sum.error_kinds, &row.error_kinds);
                for ((field, mine), theirs) in COUNTERS
                    .into_iter()
                    .zip(sum.counters.fields_mut())
                    .zip(row.counters.fields())
                {
                    adder.add(field, mine, theirs);
                }
                if sum.protocol != row.protocol {
                    sum.protocol = None;
                }
                sum.histograms.extend(row.histograms);
            }
        }
    }
    by_second
        .into_values()
        .map(|row| merged_row(row, merged_start))
        .collect()
}

fn merged_row(row: PlacedRow<'_>, merged_start: SystemTime) -> Result<IntervalRow, MergeError> {
    let since = |t: SystemTime| t.duration_since(merged_start).unwrap_or(Duration::ZERO);
    let histograms = RowHistograms::sum(&row.histograms)?;
    let [corrected, raw, _, _] = histograms.parts();
    Ok(IntervalRow {
        start_s: since(row.start).as_secs_f64(),
        duration_s: since(row.end)
            .saturating_sub(since(row.start))
            .as_secs_f64(),
        requests: row.requests,
        errors: row.errors,
        req_per_s: row.req_per_s,
        p50_us: corrected.value_at_quantile(0.5),
        p99_us: corrected.value_at_quantile(0.99),
        p50_raw_us: raw.value_at_quantile(0.5),
        p99_raw_us: raw.value_at_quantile(0.99),
        status_codes: row.status_codes,
        error_kinds: row.error_kinds,
        counters: row.counters,
        // Reports over different protocols share no one name.
        protocol: row.protocol,
        histograms: Some(histograms.encode()),
        // One server's use is no part of another's: a merge keeps none.
        server: None,
        // A report's rows have no steps or checks (its `scenario` has them).
        steps: Vec::new(),
        checks: Vec::new(),
    })
}

fn add_counts(sum: &mut BTreeMap<String, u64>, counts: &BTreeMap<String, u64>) {
    for (key, n) in counts {
        *sum.entry(key.clone()).or_default() += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overflow_names_the_rows_field() {
        for (message, name) in COUNTERS.into_iter().zip(RunCounters::NAMES) {
            assert_eq!(message, format!("intervals[].{name}"));
        }
    }
}
