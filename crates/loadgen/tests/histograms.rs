//! The report's encoded histograms: always in a `-o` JSON file, in `--json`
//! and JSON Lines only with `--histograms`, never in CSV; and they decode to
//! the histograms the report's figures were read from.

mod common;

use common::*;
use hdrhistogram::Histogram;
use loadgen_core::histogram_codec::decode;
use serde_json::Value;

/// The histogram at `pointer`, decoded.
fn histogram_at(report: &Value, pointer: &str) -> Histogram<u64> {
    let text = text(report, pointer);
    decode(text).unwrap_or_else(|e| panic!("{pointer} does not decode: {e}"))
}

fn has_histograms(report: &Value) -> bool {
    report.get("histograms").is_some()
}

fn rows_with_histograms(report: &Value) -> usize {
    field(report, "/intervals")
        .as_array()
        .expect("intervals is an array")
        .iter()
        .filter(|row| row.get("histograms").is_some())
        .count()
}

#[test]
fn json_file_histograms_match_the_report() {
    let t = TestTarget::start();
    let file = t.dir.path().join("run.json");
    let ok = t.http("/");
    let output = run(&[
        "-q",
        "-n",
        "600",
        "-c",
        "4",
        "-o",
        path_str(&file),
        &ok,
        "/?status=503",
    ]);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    assert!(!stdout(&output).contains("HISTF"), "{}", describe(&output));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();

    let request_time = histogram_at(&report, "/histograms/request_time");
    let responses = num(&report, "/requests/succeeded") + num(&report, "/requests/failed_status");
    assert_eq!(responses, 600, "{report:#}");
    assert_eq!(request_time.len(), responses);
    let max_us = num(&report, "/request_time/max_us");
    assert!(
        request_time.equivalent(request_time.max(), max_us),
        "decoded max {} against request_time.max_us {max_us}",
        request_time.max()
    );
    assert_eq!(
        request_time.value_at_quantile(0.99),
        num(&report, "/request_time/p99_us")
    );
    let raw = histogram_at(&report, "/histograms/request_time_raw");
    assert_eq!(raw.len(), responses);
    let connect = histogram_at(&report, "/histograms/connect_time");
    assert_eq!(connect.len(), num(&report, "/connections"));
    for name in [
        "dns_time",
        "tcp_connect_time",
        "tls_handshake_time",
        "first_byte_time",
        "queue_delay",
    ] {
        let decoded = histogram_at(&report, &format!("/histograms/{name}"));
        assert_eq!(
            decoded.len(),
            num(&report, &format!("/{name}/count")),
            "{name}"
        );
    }

    // The seconds add up to the whole run.
    let rows = field(&report, "/intervals").as_array().unwrap();
    assert!(!rows.is_empty());
    let mut seconds = Histogram::<u64>::new(3).unwrap();
    for (i, row) in rows.iter().enumerate() {
        let second = histogram_at(row, "/histograms/request_time");
        assert_eq!(second.len(), num(row, "/requests"), "interval {i}");
        seconds.add(second).unwrap();
    }
    assert_eq!(seconds.len(), request_time.len());
    for q in [0.5, 0.9, 0.99, 1.0] {
        assert_eq!(
            seconds.value_at_quantile(q),
            request_time.value_at_quantile(q)
        );
    }
}

#[test]
fn stdout_json_has_histograms_only_with_the_flag() {
    let t = TestTarget::start();
    let url = t.http("/");
    let plain = run_json_ok(&["-n", "50", &url]);
    assert!(!has_histograms(&plain), "{plain:#}");
    assert_eq!(rows_with_histograms(&plain), 0, "{plain:#}");

    let with = run_json_ok(&["-n", "50", "--histograms", &url]);
    assert_eq!(histogram_at(&with, "/histograms/request_time").len(), 50);
    let rows = field(&with, "/intervals").as_array().unwrap().len();
    assert_eq!(rows_with_histograms(&with), rows);
    // The rest of the report is the same document.
    let keys = |r: &Value| -> Vec<String> { r.as_object().unwrap().keys().cloned().collect() };
    let mut expected = keys(&plain);
    expected.insert(expected.len() - 1, "histograms".to_string());
    assert_eq!(keys(&with), expected);
}

#[test]
fn json_lines_follow_the_flag_and_csv_never_has_them() {
    let t = TestTarget::start();
    let url = t.http("/");
    let dir = t.dir.path();
    let jsonl = dir.join("runs.jsonl");
    let plain_csv = dir.join("plain.csv");
    let flagged_csv = dir.join("flagged.csv");
    for args in [
        vec!["-o", path_str(&jsonl)],
        vec!["--histograms", "-o", path_str(&jsonl)],
        vec!["-o", path_str(&plain_csv)],
        vec!["--json", "--histograms", "-o", path_str(&flagged_csv)],
    ] {
        let mut full = vec!["-q", "-n", "20"];
        full.extend_from_slice(&args);
        full.push(&url);
        let output = run(&full);
        assert_no_panic(&output);
        assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    }

    let text = std::fs::read_to_string(&jsonl).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(!has_histograms(&lines[0]));
    assert_eq!(
        histogram_at(&lines[1], "/histograms/request_time").len(),
        20
    );

    let plain = std::fs::read_to_string(&plain_csv).unwrap();
    let flagged = std::fs::read_to_string(&flagged_csv).unwrap();
    for csv in [&plain, &flagged] {
        assert_eq!(csv.lines().count(), 2, "{csv}");
        assert!(
            !csv.contains("histograms") && !csv.contains("HISTF"),
            "{csv}"
        );
    }
    assert_eq!(plain.lines().next(), flagged.lines().next());
}

#[test]
fn the_flag_without_json_is_a_usage_error() {
    let nowhere = format!("http://127.0.0.1:{}/", closed_port());
    let dir = TempDir::new("histograms-usage");
    let json = dir.path().join("run.json");
    let csv = dir.path().join("runs.csv");
    for args in [
        vec!["--histograms"],
        vec!["--histograms", "-o", path_str(&json)],
        vec!["--histograms", "-o", path_str(&csv)],
    ] {
        let mut full = vec!["-n", "1"];
        full.extend_from_slice(&args);
        full.push(&nowhere);
        let output = run(&full);
        assert_error(&output, 2, &["--histograms"]);
    }
    assert!(!json.exists() && !csv.exists());
}
