//! `--threshold`: a violated threshold makes the run exit 99, met ones leave
//! it at 0, and bad syntax is a usage error (exit 2) with one line.

mod common;

use common::*;

fn thresholds_of(report: &serde_json::Value) -> &Vec<serde_json::Value> {
    field(report, "/thresholds")
        .as_array()
        .unwrap_or_else(|| panic!("thresholds is not an array:\n{report:#}"))
}

#[test]
fn met_thresholds_exit_0() {
    let t = TestTarget::start();
    let (report, output) = run_json(&[
        "-n",
        "200",
        "-c",
        "4",
        "--threshold",
        "errors<1%",
        "--threshold",
        "p99 < 10s",
        "--threshold",
        "failed<=0",
        "--threshold",
        "rps>1",
        &t.http("/"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    assert_num(&report, "/requests/succeeded", 200);
    let results = thresholds_of(&report);
    let expressions: Vec<&str> = results
        .iter()
        .map(|r| r["expression"].as_str().unwrap())
        .collect();
    assert_eq!(expressions, ["errors<1%", "p99<10s", "failed<=0", "rps>1"]);
    for result in results {
        assert_eq!(result["passed"], true, "{result}");
        assert!(result["value"].is_number(), "{result}");
    }
    assert_eq!(results[0]["actual"], "0.00%");
    assert_eq!(results[0]["unit"], "%");
}

#[test]
fn violated_threshold_exits_99_and_says_which() {
    let t = TestTarget::start();
    let output = run(&[
        "-q",
        "-n",
        "100",
        "--threshold",
        "p50<1us",
        "--threshold",
        "errors<1%",
        "--threshold",
        "rps>100000000",
        &t.http("/"),
    ]);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
    let text = stdout(&output);
    let block = text
        .split("\nthresholds:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no thresholds block\n{}", describe(&output)));
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!(lines.len(), 3, "{block}");
    assert!(lines[0].starts_with("  p50<1us ") && lines[0].contains(" FAIL  (p50 = "));
    assert!(lines[1].starts_with("  errors<1% ") && lines[1].contains(" pass  (errors = 0.00%)"));
    assert!(lines[2].starts_with("  rps>100000000 ") && lines[2].contains(" FAIL  (rps = "));
}

#[test]
fn json_and_files_carry_the_results() {
    let t = TestTarget::start();
    let json = t.dir.path().join("run.json");
    let csv = t.dir.path().join("runs.csv");
    for (file, format) in [(&json, "json"), (&csv, "csv")] {
        let (report, output) = run_json(&[
            "-n",
            "10",
            "--threshold",
            "rps>100000000",
            "--threshold",
            "max<60s",
            "-o",
            path_str(file),
            "--format",
            format,
            &t.http("/"),
        ]);
        assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
        let results = thresholds_of(&report);
        assert_eq!(results.len(), 2);
        assert_eq!(results[0]["passed"], false);
        assert_eq!(results[0]["unit"], "req/s");
        assert_eq!(results[1]["passed"], true);
        assert_eq!(results[1]["unit"], "us");
    }
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(thresholds_of(&written).len(), 2);

    // The last column; other cells may hold quoted commas, this one cannot.
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].ends_with(",thresholds"), "{}", lines[0]);
    let row = lines[1].rsplit(',').next().unwrap();
    assert_eq!(row, "rps>100000000=fail max<60s=pass");
}

#[test]
fn without_thresholds_the_field_is_empty() {
    let t = TestTarget::start();
    let report = run_json_ok(&["-n", "5", &t.http("/")]);
    assert!(thresholds_of(&report).is_empty());
}

#[test]
fn a_raw_latency_threshold_reads_the_raw_request_time() {
    let t = TestTarget::start();
    let (report, output) = run_json(&["-n", "20", "--threshold", "p99_raw<60s", &t.http("/")]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let result = &thresholds_of(&report)[0];
    assert_eq!(result["passed"], true, "{result}");
    assert_eq!(
        result["value"].as_f64(),
        field(&report, "/request_time_raw/p99_us").as_f64(),
        "{report:#}"
    );
}

#[test]
fn nothing_answered_with_thresholds_failing_exits_99() {
    let output = run(&[
        "-q",
        "-n",
        "2",
        "--threshold",
        "errors<1%",
        &format!("http://127.0.0.1:{}/", closed_port()),
    ]);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
    assert!(stdout(&output).contains("errors<1%         FAIL  (errors = 100.00%)"));
}

#[test]
fn bad_syntax_is_a_usage_error() {
    let nowhere = format!("http://127.0.0.1:{}/", closed_port());
    for (expression, mention) in [
        ("p99<250", "unit"),
        ("p98<1s", "p98"),
        ("p99=1s", "p99=1s"),
        ("errors<lots", "lots"),
        ("rps>fast", "fast"),
    ] {
        let output = run(&[
            "-n",
            "1",
            "--threshold",
            "p99<1s",
            "--threshold",
            expression,
            &nowhere,
        ]);
        assert_error(&output, 2, &[mention]);
        assert!(
            stderr(&output).contains("--threshold"),
            "{}",
            describe(&output)
        );
    }
}
