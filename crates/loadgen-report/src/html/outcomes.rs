//! How requests ended: responses by status class and errors by kind, per
//! second and in total.

use super::chart::{Axis, BarChart, LineChart, Series, Unit};
use super::timeline::{per_second, steps};
use super::RunInput;
use loadgen_core::error_kind::ErrorKind;
use loadgen_core::interval::IntervalRow;
use loadgen_core::Report;
use std::collections::BTreeSet;

const CLASSES: [&str; 6] = ["1xx", "2xx", "3xx", "4xx", "5xx", "other"];

/// Whether the rows count by class and kind (reports written before they
/// did have only the totals).
fn rows_split(rows: &[IntervalRow]) -> bool {
    rows.iter()
        .any(|r| !r.status_codes.is_empty() || !r.error_kinds.is_empty())
}

pub(super) fn over_time(runs: &[RunInput]) -> (LineChart, LineChart) {
    let axis = || Axis::new("seconds since measuring began", Unit::Seconds);
    let mut statuses = LineChart::new(
        "Responses per second by status class",
        axis(),
        Axis::new("responses per second", Unit::PerSecond),
    );
    let mut errors = LineChart::new(
        "Errors per second by kind",
        axis(),
        Axis::new("errors per second", Unit::PerSecond),
    );
    let many = runs.len() > 1;
    let mut colour = 0;
    for run in runs {
        let rows = &run.report.intervals;
        if rows.is_empty() {
            continue;
        }
        let name = |what: &str| {
            if many {
                format!("{}: {what}", run.label)
            } else {
                what.to_string()
            }
        };
        if !rows_split(rows) {
            statuses.series.push(Series::new(
                &name("responses"),
                colour,
                steps(rows, |r| r.req_per_s),
            ));
            errors.series.push(Series::new(
                &name("errors"),
                colour,
                steps(rows, |r| per_second(r.errors, r)),
            ));
            colour += 1;
            continue;
        }
        let classes: BTreeSet<&str> = rows
            .iter()
            .flat_map(|r| r.status_codes.keys().map(String::as_str))
            .collect();
        for class in CLASSES.iter().filter(|c| classes.contains(*c)) {
            let points = steps(rows, |r| {
                per_second(*r.status_codes.get(*class).unwrap_or(&0), r)
            });
            statuses
                .series
                .push(Series::new(&name(class), colour, points));
            colour += 1;
        }
        let kinds: Vec<&str> = ErrorKind::ALL
            .iter()
            .map(|k| k.name())
            .filter(|k| rows.iter().any(|r| r.error_kinds.contains_key(*k)))
            .collect();
        if kinds.is_empty() {
            // No error at all: the flat line says so.
            errors.series.push(Series::new(
                &name("errors (none)"),
                colour,
                steps(rows, |_| 0.0),
            ));
            colour += 1;
        }
        for kind in kinds {
            let points = steps(rows, |r| {
                per_second(*r.error_kinds.get(kind).unwrap_or(&0), r)
            });
            errors.series.push(Series::new(&name(kind), colour, points));
            colour += 1;
        }
    }
    (statuses, errors)
}

fn error_count(report: &Report, kind: ErrorKind) -> u64 {
    let e = &report.errors;
    match kind {
        ErrorKind::Connect => e.connect,
        ErrorKind::Tls => e.tls,
        ErrorKind::Timeout => e.timeout,
        ErrorKind::Protocol => e.protocol,
        ErrorKind::Reset => e.reset,
        ErrorKind::Other => e.other,
    }
}

fn totals(runs: &[RunInput]) -> (BarChart, BarChart) {
    let codes: BTreeSet<&String> = runs
        .iter()
        .flat_map(|r| r.report.status_codes.by_code.keys())
        .collect();
    let codes: Vec<String> = if codes.is_empty() {
        vec!["none".to_string()]
    } else {
        codes.into_iter().cloned().collect()
    };
    let statuses = BarChart {
        title: "Responses by status code, in total".to_string(),
        x_label: "status code".to_string(),
        y: Axis::new("responses", Unit::Count),
        series: runs
            .iter()
            .map(|run| {
                let by_code = &run.report.status_codes.by_code;
                let values = codes
                    .iter()
                    .map(|c| *by_code.get(c).unwrap_or(&0) as f64)
                    .collect();
                (run.label.clone(), values)
            })
            .collect(),
        categories: codes,
    };
    let errors = BarChart {
        title: "Errors by kind, in total".to_string(),
        x_label: "error kind".to_string(),
        y: Axis::new("requests", Unit::Count),
        categories: ErrorKind::ALL
            .iter()
            .map(|k| k.name().to_string())
            .collect(),
        series: runs
            .iter()
            .map(|run| {
                let values = ErrorKind::ALL
                    .iter()
                    .map(|k| error_count(&run.report, *k) as f64)
                    .collect();
                (run.label.clone(), values)
            })
            .collect(),
    };
    (statuses, errors)
}

pub fn section(runs: &[RunInput]) -> String {
    let mut html = String::from(
        "<h2 id=\"outcomes\">Status codes and errors</h2>\n<p class=\"note\">Errors are \
         requests that ended without a response (connect, TLS, timeout, protocol, reset); \
         4xx and 5xx responses are responses.</p>",
    );
    let (statuses, errors) = over_time(runs);
    if !statuses.series.is_empty() {
        html.push_str(&statuses.render());
        html.push_str(&errors.render());
    }
    let (status_totals, error_totals) = totals(runs);
    html.push_str(&status_totals.render());
    html.push_str(&error_totals.render());
    for run in runs {
        for (kind, message) in &run.report.errors.first_message {
            html.push_str(&format!(
                "<p class=\"note\">{}: first {kind} error: {}</p>",
                super::page::escape(&run.label),
                super::page::escape(message)
            ));
        }
    }
    html
}
