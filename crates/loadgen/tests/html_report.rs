//! The HTML report in a real browser: a run's page loads from its file with
//! nothing on the console and no network request, every chart is drawn,
//! and the figures it shows are the JSON report's; two reports compared
//! show both runs and the diff against the first. `.hgrm` files read back
//! with the Python `hdrhistogram` package.
//!
//! The pages' screenshots are kept in `target/test-artifacts`; with
//! `LOADGEN_DOCS_SCREENSHOTS=DIR` the tests also save one picture per chart
//! in DIR, as docs/reports.md shows them.

mod browser;
mod common;

use browser::{charts, load, screenshot, table, Page};
use common::*;
use serde_json::Value;
use std::path::Path;

/// Every chart of a single run's page.
const CHARTS: [&str; 8] = [
    "Request time by percentile",
    "Responses and errors per second",
    "Request time per second: p50 and p99",
    "Responses per second by status class",
    "Errors per second by kind",
    "Responses by status code, in total",
    "Errors by kind, in total",
    "Connection phases by percentile",
];

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("the report was written");
    serde_json::from_str(&text).expect("a JSON report")
}

fn assert_offline_and_quiet(page: &Page) {
    assert!(page.console.is_empty(), "console: {:#?}", page.console);
    assert!(page.requests.is_empty(), "requests: {:#?}", page.requests);
}

/// A figure as the page shows it equals the report's field: latencies in
/// milliseconds to the microsecond, other numbers to the decimals shown.
fn assert_shows(report: &Value, field: &str, text: &str) {
    let pointer = format!("/{}", field.replace('.', "/"));
    let expected = report
        .pointer(&pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("the report has {field}"));
    if let Some(ms) = text.strip_suffix(" ms") {
        let us = (ms.parse::<f64>().expect("milliseconds") * 1000.0).round();
        assert_eq!(us, expected, "{field}: shown {text}");
        return;
    }
    let shown: f64 = text
        .parse()
        .unwrap_or_else(|_| panic!("{field}: '{text}' is a number"));
    let decimals = text.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    let tolerance = 0.5 * 10f64.powi(-decimals) + 1e-9;
    assert!(
        (shown - expected).abs() <= tolerance,
        "{field}: shown {text}, report {expected}"
    );
}

fn assert_charts_drawn(page: &Page, titles: &[&str]) -> Vec<browser::Chart> {
    let drawn = charts(&page.dom);
    for title in titles {
        let chart = drawn
            .iter()
            .find(|c| c.title == *title)
            .unwrap_or_else(|| panic!("the page has the chart '{title}'"));
        assert!(!chart.paths.is_empty(), "'{title}' draws something");
        for d in &chart.paths {
            assert!(
                d.starts_with('M') && d.len() > 4 && !d.contains("NaN"),
                "'{title}' has a real path: {d}"
            );
        }
        assert!(!chart.legend.is_empty(), "'{title}' has a legend");
    }
    drawn
}

#[test]
fn a_runs_page_loads_offline_with_every_chart_and_the_reports_figures() {
    let target = TestTarget::start();
    let dir = TempDir::new("html");
    let (json, html) = (dir.path().join("run.json"), dir.path().join("run.html"));
    let ok = target.http("/");
    let failing = target.http("/?status=503");
    let output = run(&[
        "-q",
        "--rate",
        "300",
        "--stages",
        "1s:500,1s:500,1s:200",
        "--warm-up-time",
        "0.5s",
        "-D",
        "3s",
        "-c",
        "8",
        "-o",
        path_str(&json),
        "--html",
        path_str(&html),
        &ok,
        &failing,
    ]);
    assert!(output.status.success(), "{}", describe(&output));
    let report = read_json(&json);

    let page = load(&html);
    assert_offline_and_quiet(&page);
    let drawn = assert_charts_drawn(&page, &CHARTS);
    assert_eq!(drawn.len(), CHARTS.len(), "no other chart");

    let rows = table(&page.dom, "summary");
    let cells: Vec<&(String, String)> = rows.iter().flatten().collect();
    assert!(cells.len() >= 12, "the summary shows the run's figures");
    for (field, text) in cells {
        assert_shows(&report, field, text);
    }

    let artifacts = browser::artifacts();
    screenshot(&html, &artifacts.join("report.png"), 1000, 5200);
    browser::save_charts_for_docs(&page.dom, "run", &[]);
}

#[test]
fn two_reports_are_overlaid_and_diffed_against_the_first() {
    let target = TestTarget::start();
    let dir = TempDir::new("compare");
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let fast = target.http("/");
    let slow = target.http("/?delay=1ms");
    for (path, uri) in [(&a, &fast), (&b, &slow)] {
        let output = run(&["-q", "-n", "1000", "-c", "4", "-o", path_str(path), uri]);
        assert!(output.status.success(), "{}", describe(&output));
    }
    let html = dir.path().join("compare.html");
    let output = run(&["report", path_str(&a), path_str(&b), "-o", path_str(&html)]);
    assert!(output.status.success(), "{}", describe(&output));
    let (report_a, report_b) = (read_json(&a), read_json(&b));

    let page = load(&html);
    assert_offline_and_quiet(&page);
    let drawn = assert_charts_drawn(&page, &CHARTS[..4]);
    for title in [
        "Request time by percentile",
        "Responses and errors per second",
    ] {
        let chart = drawn.iter().find(|c| c.title == title).unwrap();
        for label in ["a: ", "b: "] {
            assert!(
                chart.legend.iter().any(|l| l.starts_with(label)),
                "'{title}' shows {label}: {:?}",
                chart.legend
            );
        }
    }

    let rows = table(&page.dom, "diff");
    let fields: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.first())
        .map(|c| c.0.as_str())
        .collect();
    assert_eq!(
        fields,
        [
            "req_per_s",
            "request_time.p50_us",
            "request_time.p99_us",
            "request_time.p99_9_us",
            "requests.errored"
        ]
    );
    for row in rows.iter().filter(|r| !r.is_empty()) {
        let [(field, baseline), (_, other)] = &row[..] else {
            panic!("a diff row holds the baseline's and the other run's figure: {row:?}");
        };
        assert_shows(&report_a, field, baseline);
        assert_shows(&report_b, field, other);
    }
    // The delayed run is slower at the median, and the table says so.
    let p50 = |r: &Value| num(r, "/request_time/p50_us") as f64;
    let percent = (p50(&report_b) - p50(&report_a)) / p50(&report_a) * 100.0;
    let change = format!("data-change=\"request_time.p50_us\">{percent:+.1}% (worse)</td>");
    assert!(page.dom.contains(&change), "the p50 change reads {change}");
    screenshot(&html, &browser::artifacts().join("compare.png"), 1000, 5200);
    browser::save_charts_for_docs(&page.dom, "compare", &[]);

    // The same two as one merged run, on the page `merge --html` writes.
    let (merged, page) = (
        dir.path().join("merged.json"),
        dir.path().join("merged.html"),
    );
    let output = run(&[
        "merge",
        "--force",
        "-o",
        path_str(&merged),
        "--html",
        path_str(&page),
        path_str(&a),
        path_str(&b),
    ]);
    assert!(output.status.success(), "{}", describe(&output));
    let dom = std::fs::read_to_string(&page).expect("the merged page");
    let merged = read_json(&merged);
    assert_eq!(charts(&dom).len(), CHARTS.len());
    for (field, text) in table(&dom, "summary").iter().flatten() {
        assert_shows(&merged, field, text);
    }
}

/// A ramping scenario of a login flow: its stages, steps and checks.
fn scenario_file(dir: &TempDir, base: &str) -> std::path::PathBuf {
    dir.write(
        "login.yaml",
        format!(
            r#"defaults:
  base_url: {base}
scenarios:
  login:
    executor: ramping-vus
    startVUs: 1
    stages:
      - {{duration: 500ms, target: 2}}
      - {{duration: 500ms, target: 2}}
    gracefulRampDown: 1s
    steps:
      - name: login page
        url: /app/login
        checks:
          status_in: [200]
        extract:
          - type: dom
            selector: 'form#login input[name="csrf"]'
            attribute: value
            as: csrf
      - name: log in
        url: /app/login
        form:
          username: user{{{{vu}}}}
          password: secret
          csrf: '{{{{csrf}}}}'
        checks:
          status_in: [200]
          # Only the first virtual user is user1: a check that fails for the other.
          body_includes: ['Welcome, user1<']
"#
        ),
    )
}

#[test]
fn a_scenario_runs_page_has_its_steps_checks_and_stages() {
    let target = TestTarget::start();
    let dir = TempDir::new("scenario-html");
    let file = scenario_file(&dir, &target.http(""));
    let (json, html) = (dir.path().join("run.json"), dir.path().join("run.html"));
    let output = run(&[
        "run",
        path_str(&file),
        "-o",
        path_str(&json),
        "--html",
        path_str(&html),
    ]);
    assert!(output.status.success(), "{}", describe(&output));
    let report = read_json(&json);
    let scenario = &report["scenario"];

    let page = load(&html);
    assert_offline_and_quiet(&page);
    let mut titles = CHARTS.to_vec();
    titles.push("Step duration by percentile");
    let drawn = assert_charts_drawn(&page, &titles);
    let steps_chart = drawn
        .iter()
        .find(|c| c.title == "Step duration by percentile")
        .unwrap();
    assert_eq!(steps_chart.legend, ["login page", "log in"]);
    // The second stage of the ramping-vus executor is marked on the time charts.
    assert!(
        page.dom.contains("stage 2: to 2 VUs"),
        "the stages are marked"
    );

    for (field, text) in table(&page.dom, "summary").iter().flatten() {
        assert_shows(&report, field, text);
    }
    let steps: Vec<_> = table(&page.dom, "steps")
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect();
    assert_eq!(steps.len(), 2, "one row per step");
    for (row, step) in steps.iter().zip(scenario["steps"].as_array().unwrap()) {
        for (field, text) in row {
            assert_shows(step, field, text);
        }
    }
    let iterations = table(&page.dom, "iterations");
    let all = iterations.iter().rfind(|r| !r.is_empty()).unwrap();
    for (field, text) in all {
        assert_shows(scenario, field, text);
    }

    let checks = scenario["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 3);
    let rows: Vec<_> = table(&page.dom, "checks")
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect();
    assert_eq!(rows.len(), checks.len(), "one row per check");
    for (row, check) in rows.iter().zip(checks) {
        for (field, text) in row {
            assert_shows(check, field, text);
        }
        let (passes, fails) = (num(check, "/passes"), num(check, "/fails"));
        let rate = passes as f64 / (passes + fails) as f64 * 100.0;
        let class = if fails == 0 { "pass" } else { "fail" };
        let cell = format!("<td class=\"{class}\" data-field=\"rate\">{rate:.2}%</td>");
        assert!(page.dom.contains(&cell), "the page shows {cell}");
    }
    let welcome = &checks[2];
    assert!(
        num(welcome, "/passes") > 0 && num(welcome, "/fails") > 0,
        "the check passes for one user and fails for the other: {welcome}"
    );
    let artifacts = browser::artifacts();
    screenshot(&html, &artifacts.join("scenario.png"), 1000, 6400);
    browser::save_charts_for_docs(&page.dom, "scenario", &["Step duration by percentile"]);
}

const READ_HGRM: &str = r##"
import json, math, sys
from hdrh.histogram import HdrHistogram

report = json.load(open(sys.argv[1]))
h = HdrHistogram.decode(report["histograms"]["request_time"])
recorded = [(v.value_iterated_to, v.count_at_value_iterated_to) for v in h.get_recorded_iterator()]
lines = open(sys.argv[2]).read().splitlines()
assert lines[0].split() == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"], lines[0]
rows = [l.split() for l in lines[2:] if l.strip() and not l.startswith("#")]
total = h.get_total_count()
for row in rows:
    value_us, percentile, count = round(float(row[0]) * 1000), float(row[1]), int(row[2])
    # What the package reads in the histogram agrees with each row: the
    # row's count of samples at or below its value, and its percentile.
    at_or_below = sum(n for v, n in recorded if v <= value_us)
    assert at_or_below == count, (row, at_or_below)
    assert count / total >= percentile - 1e-9, row
assert int(rows[-1][2]) == total and float(rows[-1][1]) == 1.0
max_line = [l for l in lines if l.startswith("#[Max")][0]
assert round(float(max_line.split("=")[1].split(",")[0]) * 1000) == h.get_max_value()
# Read as a distribution, the rows give the report's percentiles: each lies
# above the last row that holds fewer than a share q of the samples and at
# or below the first row that holds that share (rows are samples of the
# distribution, five per halving of the distance to 100%).
for q, field in [(0.5, "p50_us"), (0.75, "p75_us"), (0.9, "p90_us"), (0.99, "p99_us"), (1.0, "max_us")]:
    rank = max(1, math.ceil(q * total))
    value = report["request_time"][field]
    below = [r for r in rows if int(r[2]) < rank]
    first = next(r for r in rows if int(r[2]) >= rank)
    assert value <= round(float(first[0]) * 1000), (q, first, value)
    assert not below or round(float(below[-1][0]) * 1000) < value, (q, below[-1], value)
print("ok", total)
"##;

#[test]
fn percentiles_files_read_back_with_hdrhistogram() {
    let target = TestTarget::start();
    let dir = TempDir::new("hgrm");
    let (json, hgrm) = (dir.path().join("run.json"), dir.path().join("run.hgrm"));
    let uri = target.http("/?delay=200us");
    let output = run(&[
        "-q",
        "-n",
        "3000",
        "-c",
        "8",
        "-o",
        path_str(&json),
        "--percentiles-file",
        path_str(&hgrm),
        &uri,
    ]);
    assert!(output.status.success(), "{}", describe(&output));
    let script = dir.write("read_hgrm.py", READ_HGRM);
    let mut cmd = std::process::Command::new(python());
    cmd.arg(&script).arg(&json).arg(&hgrm);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert!(output.status.success(), "{}", describe(&output));
    assert_eq!(stdout(&output).trim(), "ok 3000");
}

#[test]
fn loadgen_report_says_what_is_wrong_with_its_files() {
    let dir = TempDir::new("report-errors");
    let text = dir.write("notes.txt", "not a report\n");
    let missing = dir.path().join("missing.json");
    let page = dir.path().join("page.html");
    let nowhere = dir.path().join("missing/page.html");
    let cases: [(&[&str], &str); 4] = [
        (
            &["report", path_str(&missing), "-o", path_str(&page)],
            "cannot read",
        ),
        (
            &["report", path_str(&text), "-o", path_str(&page)],
            "is not a loadgen JSON report",
        ),
        (&["report", path_str(&text), "-o", path_str(&nowhere)], "-o"),
        (&["report", path_str(&text)], "--output"),
    ];
    for (args, message) in cases {
        let output = run(args);
        assert_error(&output, 2, &[message]);
        assert!(
            !stderr(&output).contains("merge"),
            "nothing is merged: {}",
            describe(&output)
        );
    }
    assert!(!page.exists(), "no page for a bad report");
}

/// The checks above would see a page that fetched or complained.
#[test]
fn the_browser_checks_see_requests_and_console_messages() {
    let dir = TempDir::new("control");
    let port = closed_port();
    let page = dir.write(
        "control.html",
        format!(
            "<!DOCTYPE html><html><body><svg><path d=\"M1,2 Lx\"/></svg>\
             <img src=\"http://127.0.0.1:{port}/x.png\"></body></html>"
        ),
    );
    let loaded = load(&page);
    assert!(
        loaded.console.iter().any(|l| l.contains("attribute d")),
        "console: {:?}",
        loaded.console
    );
    assert!(
        loaded
            .requests
            .iter()
            .any(|u| u.contains(&format!(":{port}/x.png"))),
        "requests: {:?}",
        loaded.requests
    );
}
