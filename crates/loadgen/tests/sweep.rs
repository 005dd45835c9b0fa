//! `loadgen sweep` against the built-in target: points and runs, JSON Lines
//! rows and CSV points, the page, usage errors, and the knee search against
//! a target of known capacity (`max_rate`).

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
