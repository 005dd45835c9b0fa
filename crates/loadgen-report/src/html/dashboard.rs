//! The live dashboard's page (`--dashboard`): the report's own charts of a
//! run while it goes, drawn again each second from the seconds merged so
//! far, the thresholds' state, and at the end the finished report to
//! download.
//!
//! Every part is drawn here, by the report's sections; the page's one
//! script ([`SCRIPT`], served beside it) only puts each part in its place
//! as server-sent events bring them. The page thus shows exactly what the
//! report would, and fetches nothing but its own server's.

use super::page::{cell, document_with, escape, name_cell, Table};
use super::summary::ms;
use super::{details, latency, outcomes, scenario, timeline, RunInput, ThresholdRow};
use crate::live::LiveRun;
use serde_json::{Map, Value};

/// The report's policy ([`super::page::POLICY`]), opened to the page's own
/// origin for its script and its event stream, and to nothing else.
pub const POLICY: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'";

/// Where the page finds its script, relative to the page.
pub const SCRIPT_PATH: &str = "dashboard.js";

/// Puts each part an event brings in its place; stops listening at the
/// end, when the server closes the stream (an `EventSource` would
/// otherwise reconnect).
pub const SCRIPT: &str = r#""use strict";
const events = new EventSource("events");
function show(parts) {
  for (const [id, html] of Object.entries(parts)) {
    const part = document.getElementById(id);
    if (part) part.innerHTML = html;
  }
}
events.addEventListener("view", (e) => show(JSON.parse(e.data)));
events.addEventListener("end", (e) => {
  show(JSON.parse(e.data));
  events.close();
});
"#;

/// The page's parts, each redrawn whole by every update.
const PARTS: [(&str, &str); 7] = [
    ("state", ""),
    ("now", "Now"),
    ("thresholds", "Thresholds"),
    ("scenario", ""),
    ("latency", ""),
    ("time", ""),
    ("outcomes", ""),
];

/// The page as first served, before any second: its parts empty.
pub fn page(title: &str) -> String {
    let mut body = format!(
        "<h1>{}</h1>\n<p class=\"lead\" id=\"state\">Waiting for the first second of the \
         run.</p>\n<div id=\"end\"></div>\n",
        escape(title)
    );
    for (id, _) in &PARTS[1..] {
        body.push_str(&format!("<div id=\"{id}\"></div>\n"));
    }
    let head = format!("<script src=\"{SCRIPT_PATH}\" defer></script>");
    document_with(title, &body, POLICY, &head)
}

/// Every part drawn from the seconds so far, by id, as an update's JSON.
/// `thresholds`: their state now; `finished`: the run is over and its
/// report can be had.
pub fn view(live: &LiveRun, thresholds: &[ThresholdRow], finished: bool) -> Value {
    let report = live.so_far();
    let rows = live.rows();
    let state = match (finished, rows.len()) {
        (true, _) => format!(
            "The run is over after {:.1}s; the charts show its {} seconds.",
            report.elapsed_s,
            rows.len()
        ),
        (false, 0) => "Waiting for the first second of the run.".to_string(),
        (false, 1) => "Live: the first second merged, redrawn each second.".to_string(),
        (false, n) => format!("Live: {n} seconds merged, redrawn each second."),
    };
    let run = RunInput {
        label: "run".to_string(),
        report,
        thresholds: thresholds.to_vec(),
        workers: Vec::new(),
    };
    let runs = std::slice::from_ref(&run);
    let mut parts = Map::new();
    parts.insert("state".into(), Value::String(escape(&state)));
    parts.insert("now".into(), Value::String(now(live)));
    parts.insert(
        "thresholds".into(),
        Value::String(threshold_part(thresholds, finished)),
    );
    parts.insert(
        "scenario".into(),
        Value::String(scenario::live_section(&run.report)),
    );
    parts.insert("latency".into(), Value::String(latency::section(runs)));
    parts.insert("time".into(), Value::String(timeline::section(runs)));
    parts.insert("outcomes".into(), Value::String(outcome_part(runs)));
    if finished {
        parts.insert("end".into(), Value::String(downloads()));
    }
    Value::Object(parts)
}

/// The last second's figures, each cell naming its `intervals` field.
fn now(live: &LiveRun) -> String {
    let rows = live.rows();
    let Some(row) = rows.last() else {
        return String::new();
    };
    let i = rows.len() - 1;
    let field = |name: &str| format!("intervals.{i}.{name}");
    let figures = [
        ("starts at (s)", "start_s", format!("{:.0}", row.start_s)),
        ("responses", "requests", row.requests.to_string()),
        ("errors", "errors", row.errors.to_string()),
        (
            "responses per second",
            "req_per_s",
            format!("{:.2}", row.req_per_s),
        ),
        ("request time p50", "p50_us", ms(row.p50_us)),
        ("request time p99", "p99_us", ms(row.p99_us)),
    ];
    let table = Table {
        class: "now",
        head: vec![String::new(), format!("second {} of the run", i + 1)],
        rows: figures
            .iter()
            .map(|(label, name, text)| vec![name_cell(label), cell(&field(name), text)])
            .collect(),
    };
    format!(
        "<h2 id=\"now-title\">The last second</h2>{}",
        table.render()
    )
}

fn threshold_part(thresholds: &[ThresholdRow], finished: bool) -> String {
    if thresholds.is_empty() {
        return String::new();
    }
    let note = if finished {
        "The verdicts of the finished report."
    } else {
        "Read from the seconds merged so far; the report's verdict at the end is the one \
         that counts."
    };
    format!(
        "<h2 id=\"thresholds-title\">Thresholds</h2><p class=\"note\">{note}</p>{}",
        details::thresholds(thresholds)
    )
}

/// The outcomes over time: the totals by status code are the report's
/// alone, which the seconds do not split by code.
fn outcome_part(runs: &[RunInput]) -> String {
    let (statuses, errors) = outcomes::over_time(runs);
    if statuses.series.is_empty() {
        return String::new();
    }
    format!(
        "<h2 id=\"outcomes-title\">Status codes and errors</h2>{}{}",
        statuses.render(),
        errors.render()
    )
}

fn downloads() -> String {
    "<p class=\"note\">The finished report: \
     <a href=\"report.html\" download=\"loadgen-report.html\">report.html</a> \
     (the --html page) and <a href=\"report.json\" download=\"loadgen-report.json\">\
     report.json</a>.</p>"
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_is_the_reports_opened_to_its_own_origin() {
        assert!(POLICY.starts_with(super::super::page::POLICY));
        let page = page("t");
        assert!(page.contains(POLICY));
        assert!(page.contains("src=\"dashboard.js\""));
    }
}
