//! `loadgen sweep` against the built-in target: points and runs, JSON Lines
//! rows and CSV points, the page, usage errors, the knee search against
//! a target of known capacity (`max_rate`), and 503s shown beside errors
//! with a warning for objectives that do not count them.

mod browser;
mod common;

use common::*;
use loadgen_target::TargetConfig;
use serde_json::Value;
use std::sync::{Mutex, MutexGuard};

/// The sweeps of this file run one at a time: each loads the machine, and
/// the knee search reads latencies that another sweep's load would skew.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static SWEEPS: Mutex<()> = Mutex::new(());
    SWEEPS.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn clients_swept_with_runs_give_a_row_per_run_and_a_point_per_value() {
    let _alone = one_at_a_time();
    let target = TestTarget::start();
    let dir = TempDir::new("sweep");
    let (rows, page) = (dir.path().join("rows.jsonl"), dir.path().join("sweep.html"));
    let uri = target.http("/");
    let output = run(&[
        "sweep",
        "-q",
        "--clients",
        "2,4,6,8",
        "--runs",
        "3",
        "-n",
        "400",
        "-o",
        path_str(&rows),
        "--html",
        path_str(&page),
        &uri,
    ]);
    assert!(output.status.success(), "{}", describe(&output));

    let text = std::fs::read_to_string(&rows).expect("rows written");
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(rows.len(), 12);
    for (i, row) in rows.iter().enumerate() {
        let clients = [2, 4, 6, 8][i / 3];
        assert_eq!(row["sweep"]["point"], i / 3);
        assert_eq!(row["sweep"]["run"], i % 3);
        assert_eq!(row["sweep"]["dimension"], "clients");
        assert_num(row, "/config/clients", clients);
        assert_all_ok(row, 400, BODY_LEN);
        assert!(
            row.get("histograms").is_none(),
            "rows omit histograms by default"
        );
    }

    let table = stdout(&output);
    let points: Vec<&str> = table
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with("req/s: "))
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(points, ["2", "4", "6", "8"], "{table}");
    assert!(table.starts_with("sweep over -c (clients): 4 points, 3 run(s) each"));

    let html = std::fs::read_to_string(&page).expect("page written");
    assert_eq!(html.matches("<svg class=\"chart\"").count(), 2);
    assert_eq!(html.matches("<td class=\"name\">-c ").count(), 4);
    let charts = browser::charts(&html);
    assert!(
        charts.iter().all(|c| !c.paths.is_empty()),
        "every chart draws"
    );
    browser::save_charts_for_docs(&html, "sweep", &[]);
}

#[test]
fn a_batch_sweep_writes_csv_points() {
    let _alone = one_at_a_time();
    let target = TestTarget::start();
    let dir = TempDir::new("sweep-csv");
    let csv = dir.path().join("points.csv");
    let uri = target.http("/");
    let output = run(&[
        "sweep",
        "-q",
        "--batch",
        "-c",
        "8",
        "--runs",
        "2",
        "-n",
        "200",
        "-o",
        path_str(&csv),
        &uri,
    ]);
    assert!(output.status.success(), "{}", describe(&output));
    let text = std::fs::read_to_string(&csv).expect("points written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(lines[0]
        .starts_with("clients,runs,req_per_s_median,req_per_s_min,req_per_s_max,req_per_s_p95,"));
    let firsts: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(firsts, ["2", "4", "6", "8"]);
    assert!(lines[1..].iter().all(|l| l.split(',').nth(1) == Some("2")));
}

#[test]
fn a_sweep_says_what_is_wrong_with_its_flags() {
    let uri = "http://127.0.0.1:1/";
    let cases: [(&[&str], &str); 9] = [
        (&["sweep", "-n", "10", uri], "say what to sweep"),
        (
            &["sweep", "-c", "2,4", "-m", "1,2", "-n", "10", uri],
            "-m: a sweep varies one thing",
        ),
        (
            &["sweep", "--rate", "10:30", "-D", "1s", uri],
            "--rate: '10:30' is not LOW:HIGH:STEP",
        ),
        (
            &["sweep", "-c", "2,2.5", "-n", "10", uri],
            "-c: 2.5 is not a whole number",
        ),
        (
            &["sweep", "-c", "2,x", "-n", "10", uri],
            "-c: 'x' is not a number",
        ),
        (
            &["sweep", "-c", "2,4", "--slo", "p99<1ms", "-n", "10", uri],
            "--slo",
        ),
        (
            &["sweep", "-c", "2,4", "-n", "10", "-o", "r.json", uri],
            "-o: a sweep writes JSON Lines",
        ),
        (
            &["sweep", "--batch", "-c", "2,4", "-n", "10", uri],
            "--batch: sweeps the quarters of -c",
        ),
        (
            &["sweep", "-c", "2,4", "--runs", "0", "-n", "10", uri],
            "--runs: at least one",
        ),
    ];
    for (args, message) in cases {
        let output = run(args);
        assert_error(&output, 2, &[message]);
    }
}

#[test]
fn the_knee_search_finds_a_capped_targets_capacity() {
    let _alone = one_at_a_time();
    const CAPACITY: f64 = 400.0;
    let target = TestTarget::start_with(TargetConfig {
        max_rate: Some(CAPACITY),
        ..TargetConfig::default()
    });
    let dir = TempDir::new("knee");
    let rows = dir.path().join("probes.jsonl");
    let page = dir.path().join("knee.html");
    let uri = target.http("/");
    let output = run(&[
        "sweep",
        "-q",
        "--rate",
        "100:1600",
        "--slo",
        "p99<100ms",
        "--slo",
        "errors<0.1%",
        "-D",
        "1.5s",
        "--warm-up-time",
        "0.5s",
        "-c",
        "16",
        "-o",
        path_str(&rows),
        "--html",
        path_str(&page),
        &uri,
    ]);
    assert!(output.status.success(), "{}", describe(&output));
    let text = stdout(&output);
    let knee_line = text
        .lines()
        .find(|l| l.starts_with("knee: "))
        .unwrap_or_else(|| panic!("a knee line: {text}"));
    let knee: f64 = knee_line
        .trim_start_matches("knee: ")
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a rate in {knee_line}\n{}", describe(&output)));
    assert!(
        (knee - CAPACITY).abs() <= CAPACITY * 0.1,
        "the knee {knee} is within 10% of the capacity {CAPACITY}\n{text}"
    );
    let html = std::fs::read_to_string(&page).expect("page written");
    assert!(html.contains("<table class=\"probes\">"));
    browser::save_charts_for_docs(&html, "knee", &[]);
    let probes = std::fs::read_to_string(&rows).expect("probes written");
    for line in probes.lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            row["thresholds"].as_array().map(Vec::len),
            Some(2),
            "each probe is judged"
        );
    }
}

/// The figures of a sweep's table, by column name, for each point's row.
/// Cells are two spaces apart at least; a cell holds single spaces only.
fn table_rows(table: &str) -> Vec<Vec<(String, String)>> {
    let cells = |line: &str| -> Vec<String> {
        line.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut lines = table.lines().skip(1);
    let names = cells(lines.next().expect("a header row"));
    lines
        .take_while(|l| !l.starts_with("req/s: "))
        .map(|row| names.iter().cloned().zip(cells(row)).collect())
        .collect()
}

fn cell<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    &row.iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no column {name}: {row:?}"))
        .1
}

#[test]
fn a_knee_search_blind_to_503s_shows_them_and_warns_naming_the_codes() {
    let _alone = one_at_a_time();
    let target = TestTarget::start();
    let dir = TempDir::new("knee-503");
    let rows = dir.path().join("probes.jsonl");
    // Every other request is answered 503, fast: only `failed` sees them.
    let (ok, unavailable) = (target.http("/"), target.http("/?status=503"));
    let knee = |slo: &str, rows: &std::path::Path| {
        run(&[
            "sweep",
            "-q",
            "--rate",
            "50:100",
            "--slo",
            slo,
            "-D",
            "1s",
            "--warm-up-time",
            "0.2s",
            "-c",
            "2",
            "-o",
            path_str(rows),
            &ok,
            &unavailable,
        ])
    };

    let output = knee("errors<0.5%", &rows);
    assert!(output.status.success(), "{}", describe(&output));
    let warnings: Vec<String> = stderr(&output)
        .lines()
        .filter(|l| l.contains("warning"))
        .map(str::to_string)
        .collect();
    assert_eq!(warnings.len(), 1, "one warning\n{}", describe(&output));
    let warning = &warnings[0];
    assert!(
        warning.starts_with("loadgen: warning: at --rate 50.0, "),
        "{warning}"
    );
    assert!(
        warning.contains("% of the responses were 4xx/5xx (503: "),
        "{warning}"
    );
    assert!(
        warning.contains("which errors<0.5% do not count"),
        "{warning}"
    );
    let text = stdout(&output);
    assert!(
        text.contains("knee: above the range: 100 req/s still met errors<0.5%"),
        "{text}"
    );
    let points = table_rows(&text);
    assert_eq!(points.len(), 2, "{text}");
    for point in &points {
        assert_eq!(cell(point, "errors"), "0", "{text}");
        let failed: f64 = cell(point, "failed").parse().unwrap();
        let succeeded: f64 = cell(point, "succeeded req/s").parse().unwrap();
        let all: f64 = cell(point, "req/s")
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(failed > 0.0, "{text}");
        assert!(succeeded > 0.0 && succeeded < all, "{text}");
    }
    for line in std::fs::read_to_string(&rows).unwrap().lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let (succeeded, failed) = (
            num(&row, "/requests/succeeded"),
            num(&row, "/requests/failed_status"),
        );
        assert!(failed > 0 && succeeded > 0, "{row:#}");
        let expected =
            row["req_per_s"].as_f64().unwrap() * succeeded as f64 / (succeeded + failed) as f64;
        let shown = row["sweep"]["succeeded_req_per_s"].as_f64().unwrap();
        assert!((shown - expected).abs() < 1e-9, "{shown} {expected}");
    }

    // An objective that counts them: no warning, and no rate meets it.
    let output = knee("failed<0.5%", &dir.path().join("failed.jsonl"));
    assert!(output.status.success(), "{}", describe(&output));
    assert!(
        !stderr(&output).contains("warning"),
        "{}",
        describe(&output)
    );
    assert!(
        stdout(&output).contains("knee: below the range: even 50 req/s missed failed<0.5%"),
        "{}",
        describe(&output)
    );
}

#[test]
fn csv_points_carry_failed_and_succeeded_req_per_s() {
    let _alone = one_at_a_time();
    let target = TestTarget::start();
    let dir = TempDir::new("sweep-503");
    let csv = dir.path().join("points.csv");
    let output = run(&[
        "sweep",
        "-q",
        "-c",
        "1,2",
        "-n",
        "200",
        "-o",
        path_str(&csv),
        &target.http("/"),
        &target.http("/?status=503"),
    ]);
    assert!(output.status.success(), "{}", describe(&output));
    let text = std::fs::read_to_string(&csv).expect("points written");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("no {name} in {header:?}"))
    };
    let (failed, succeeded, all, errors) = (
        column("failed_median"),
        column("succeeded_req_per_s_median"),
        column("req_per_s_median"),
        column("errors_median"),
    );
    for line in lines {
        let cells: Vec<f64> = line.split(',').map(|c| c.parse().unwrap()).collect();
        // Each client sends to the two URIs in turn: half of 200 are 503s.
        assert_eq!(cells[failed], 100.0, "{text}");
        assert_eq!(cells[errors], 0.0, "{text}");
        let share = cells[succeeded] / cells[all];
        assert!((share - 0.5).abs() < 1e-9, "{text}");
    }
}
