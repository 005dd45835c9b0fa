//! A distributed run's workers: each one's part (its segment, figures,
//! clock offset and start skew, or why it was lost) and, when the page is
//! drawn as the run ends, each worker's req/s second by second.

use super::chart::{Axis, LineChart, Series, Unit};
use super::page::{cell, escape, name_cell, text_cell, Table};
use super::summary::ms;
use super::timeline::steps;
use super::RunInput;
use loadgen_core::interval::IntervalRow;
use loadgen_core::Report;
use serde::Deserialize;

/// One worker of a distributed run: a row of the report's `workers` array,
/// and its one-second rows when the worker's report is at hand.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct WorkerPart {
    pub url: String,
    pub segment: String,
    /// `reported` or `lost`.
    pub state: String,
    #[serde(default)]
    pub lost_reason: Option<String>,
    #[serde(default)]
    pub requests: Option<u64>,
    #[serde(default)]
    pub req_per_s: Option<f64>,
    #[serde(default)]
    pub p50_us: Option<u64>,
    #[serde(default)]
    pub p99_us: Option<u64>,
    #[serde(default)]
    pub errors: Option<u64>,
    #[serde(default)]
    pub clock_offset_us: i64,
    #[serde(default)]
    pub clock_round_trip_us: u64,
    #[serde(default)]
    pub start_skew_us: Option<i64>,
    /// Not in the JSON report's rows, which carry no time series.
    #[serde(skip)]
    pub intervals: Vec<IntervalRow>,
}

impl WorkerPart {
    /// The `workers` array of a JSON report; empty when it has none.
    pub fn read_all(document: &serde_json::Value) -> Vec<WorkerPart> {
        document
            .get("workers")
            .map(Self::read_rows)
            .unwrap_or_default()
    }

    /// The rows of a `workers` array; empty when they are not such rows.
    pub fn read_rows(rows: &serde_json::Value) -> Vec<WorkerPart> {
        serde_json::from_value(rows.clone()).unwrap_or_default()
    }

    /// What the worker's own report adds as the run ends: its seconds, and
    /// the req/s, p50 and p99 a row leaves out (a scenario's rows show
    /// iterations and checks instead).
    pub fn fill_from(&mut self, report: &Report) {
        self.intervals = report.intervals.clone();
        self.req_per_s.get_or_insert(report.req_per_s);
        self.p50_us.get_or_insert(report.request_time.p50_us);
        self.p99_us.get_or_insert(report.request_time.p99_us);
    }
}

fn signed_ms(us: i64) -> String {
    format!("{:+.3} ms", us as f64 / 1000.0)
}

fn table(workers: &[WorkerPart]) -> String {
    let optional = |v: Option<String>| v.unwrap_or_else(|| "—".to_string());
    let rows = workers
        .iter()
        .map(|w| {
            let state = match &w.lost_reason {
                Some(why) => format!("lost: {why}"),
                None => w.state.clone(),
            };
            vec![
                name_cell(&w.url),
                text_cell(&w.segment),
                text_cell(&state),
                cell("requests", &optional(w.requests.map(|n| n.to_string()))),
                cell(
                    "req_per_s",
                    &optional(w.req_per_s.map(|r| format!("{r:.2}"))),
                ),
                cell("p50_us", &optional(w.p50_us.map(ms))),
                cell("p99_us", &optional(w.p99_us.map(ms))),
                cell("errors", &optional(w.errors.map(|n| n.to_string()))),
                cell("clock_offset_us", &signed_ms(w.clock_offset_us)),
                cell("start_skew_us", &optional(w.start_skew_us.map(signed_ms))),
            ]
        })
        .collect();
    Table {
        class: "workers",
        head: [
            "worker",
            "segment",
            "state",
            "requests",
            "req/s",
            "p50",
            "p99",
            "errors",
            "clock offset",
            "start skew",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
    .render()
}

fn rates(workers: &[WorkerPart]) -> Option<String> {
    let mut chart = LineChart::new(
        "Responses per second, per worker",
        Axis::new("seconds since measuring began", Unit::Seconds),
        Axis::new("responses per second", Unit::PerSecond),
    );
    for (i, w) in workers.iter().enumerate() {
        if !w.intervals.is_empty() {
            chart
                .series
                .push(Series::new(&w.url, i, steps(&w.intervals, |r| r.req_per_s)));
        }
    }
    (!chart.series.is_empty()).then(|| chart.render())
}

/// Nothing for runs that were not distributed.
pub fn section(runs: &[RunInput]) -> String {
    let distributed: Vec<&RunInput> = runs.iter().filter(|r| !r.workers.is_empty()).collect();
    if distributed.is_empty() {
        return String::new();
    }
    let mut html = String::from(
        "<h2 id=\"workers\">Workers</h2>\n<p class=\"note\">Each worker ran its segment of \
         the plan; the report above is their exact merge. Clock offset: the worker's clock \
         against this machine's, measured before the start; start skew: how late its \
         measured part began.</p>",
    );
    for run in distributed {
        if runs.len() > 1 {
            html.push_str(&format!("<h3>{}</h3>", escape(&run.label)));
        }
        html.push_str(&table(&run.workers));
        html.extend(rates(&run.workers));
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{render, RunInput};
    use loadgen_core::Report;
    use serde_json::json;

    #[test]
    fn a_distributed_run_gets_its_workers_table_and_rates() {
        let text = include_str!("../../tests/data/report.json");
        let report: Report = serde_json::from_str(text).unwrap();
        let document = json!({"workers": [
            {"url": "http://10.0.0.1:7070", "segment": "0:1/2", "state": "reported",
             "lost_reason": null, "requests": 100, "req_per_s": 50.0, "p50_us": 1200,
             "p99_us": 4100, "errors": 0, "clock_offset_us": -150,
             "clock_round_trip_us": 300, "start_skew_us": 20},
            {"url": "http://10.0.0.2:7070", "segment": "1/2:1", "state": "lost",
             "lost_reason": "went silent", "requests": null, "req_per_s": null,
             "p50_us": null, "p99_us": null, "errors": null, "clock_offset_us": 80,
             "clock_round_trip_us": 250, "start_skew_us": null}
        ]});
        let mut workers = WorkerPart::read_all(&document);
        assert_eq!(workers.len(), 2);
        assert_eq!(workers[1].lost_reason.as_deref(), Some("went silent"));
        let page = |workers: Vec<WorkerPart>| {
            render(&[RunInput {
                label: "run".into(),
                report: report.clone(),
                thresholds: Vec::new(),
                workers,
            }])
        };
        let without_rows = page(workers.clone());
        assert!(without_rows.contains("<table class=\"workers\">"));
        assert!(without_rows.contains("lost: went silent"));
        assert!(without_rows.contains("<td data-field=\"p99_us\">4.100 ms</td>"));
        assert!(without_rows.contains("<td data-field=\"clock_offset_us\">-0.150 ms</td>"));
        assert!(!without_rows.contains("per worker"));

        workers[0].intervals = report.intervals.clone();
        let with_rows = page(workers);
        assert!(with_rows.contains("Responses per second, per worker"));

        let alone = render(&[RunInput {
            label: "run".into(),
            report,
            thresholds: Vec::new(),
            workers: Vec::new(),
        }]);
        assert!(!alone.contains("id=\"workers\""));
    }
}
