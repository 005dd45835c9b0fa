//! `loadgen run FILE`: the examples run as written against the built-in
//! target, a bad file is one line and exit 2 before anything is sent, a
//! failed threshold exits 99, and `-o` reports of two runs merge.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

fn scenario_run(file: &Path, target: &TestTarget, extra: &[&str]) -> std::process::Output {
    let base = format!("BASE_URL={}", target.http(""));
    let tls = format!("TLS_URL={}", target.https(""));
    let mut cmd = loadgen();
    cmd.arg("run")
        .arg(file)
        .args(["--env", &base, "--env", &tls])
        .args(extra);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_no_panic(&output);
    output
}

fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not one JSON object: {e}\n{}", describe(output)))
}

/// Every check passed every time, and some ran.
fn assert_checks_pass(report: &Value) {
    let checks = field(report, "/scenario/checks").as_array().unwrap();
    assert!(!checks.is_empty(), "{report:#}");
    for check in checks {
        assert_eq!(check["fails"], 0, "{check}\n{report:#}");
        assert!(check["passes"].as_u64().unwrap() > 0, "{check}");
    }
}

#[test]
fn every_example_flow_passes_its_checks() {
    let target = TestTarget::start();
    for name in [
        "html-check.yaml",
        "login-logout.yaml",
        "jwt-correlation.yaml",
        "cookie-redirects.yaml",
        "protocol-matrix.yaml",
        "stages.yaml",
    ] {
        // The flow, not the load profile: a few iterations each.
        let output = scenario_run(
            &example(name),
            &target,
            &["--iterations", "6", "--vus", "2", "--json"],
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{name}\n{}",
            describe(&output)
        );
        let report = json_of(&output);
        // The overrides stand for each scenario's own executor.
        for scenario in field(&report, "/scenario/scenarios").as_array().unwrap() {
            assert_eq!(
                scenario["executor"], "shared-iterations",
                "{name}: {scenario}"
            );
            assert_eq!(scenario["iterations"]["completed"], 6, "{name}: {scenario}");
        }
        assert_checks_pass(&report);
        if name == "login-logout.yaml" {
            // The steps' methods, each once.
            assert_eq!(report["config"]["method"], "GET,POST", "{name}");
        }
    }
}

#[test]
fn the_protocol_matrix_runs_over_each_protocol() {
    let target = TestTarget::start();
    for (protocol, expected) in [("h1", "http/1.1"), ("h2", "h2"), ("h3", "h3")] {
        let output = scenario_run(
            &example("protocol-matrix.yaml"),
            &target,
            &[
                "--env",
                &format!("BASE_URL={}", target.https("")),
                "--env",
                &format!("PROTOCOL={protocol}"),
                "--json",
            ],
        );
        assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
        let report = json_of(&output);
        assert_protocol(&report, expected);
        assert_num(&report, "/scenario/iterations/completed", 50);
        assert_checks_pass(&report);
    }
}

#[test]
fn a_bad_file_is_one_line_naming_the_place_and_nothing_is_sent() {
    let target = TestTarget::start();
    let dir = TempDir::new("scenario-errors");
    for (text, mentions) in [
        (
            "defaults: {base_url: 'http://127.0.0.1:1'}\nscenarios:\n  a:\n    executor: per-vu-iterations\n    steps:\n      - name: x\n        url: /\n        methd: GET\n",
            "bad.yaml:8:9",
        ),
        (
            "defaults: {base_url: 'http://127.0.0.1:1'}\nscenarios:\n  a:\n    executor: per-vu-iterations\n    steps:\n      - name: x\n        url: /?t={{token}}\n",
            "token",
        ),
        (
            "defaults: {base_url: 'http://127.0.0.1:1'}\nscenarios:\n  a:\n    executor: per-vu-iterations\n    steps:\n      - name: x\n        url: /\n        extract:\n          - {type: dom, selector: 'a[', as: v}\n",
            "selector",
        ),
        (
            "defaults: {base_url: 'http://127.0.0.1:1'}\nscenarios:\n  a:\n    executor: per-vu-iterations\n    steps:\n      - name: x\n        url: /\n        checks:\n          json_path_exists: ['$.[']\n",
            "json_path_exists",
        ),
    ] {
        let file = dir.write("bad.yaml", text);
        let output = scenario_run(&file, &target, &[]);
        assert_error(&output, 2, &[mentions]);
        assert!(stderr(&output).contains("bad.yaml:"), "{}", describe(&output));
    }
    let missing = scenario_run(&dir.path().join("missing.yaml"), &target, &[]);
    assert_error(&missing, 2, &["missing.yaml"]);
    assert_eq!(target.stats().total, 0, "nothing was sent");
}

#[test]
fn a_failed_threshold_exits_99_with_the_report() {
    let target = TestTarget::start();
    let dir = TempDir::new("scenario-thresholds");
    let file = dir.write(
        "t.yaml",
        "defaults: {base_url: '{{env.BASE_URL}}'}\nenv: {BASE_URL: x}\n\
         scenarios:\n  a:\n    executor: per-vu-iterations\n    iterations: 5\n    steps:\n\
         \x20     - {name: missing, url: /app/nothing, checks: {status_in: [200]}}\n\
         thresholds:\n  checks: ['rate>0.99']\n  'http_req_duration{step:missing}': ['p(99)<10000']\n",
    );
    let output = scenario_run(&file, &target, &[]);
    assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
    let text = stdout(&output);
    assert!(text.contains("✗ checks: rate>0.99"), "{text}");
    assert!(text.contains("✓ http_req_duration{step:missing}"), "{text}");
}

#[test]
fn reports_of_two_runs_merge_step_by_step() {
    let target = TestTarget::start();
    let dir = TempDir::new("scenario-merge");
    let mut parts = Vec::new();
    for (i, vus) in ["2", "3"].iter().enumerate() {
        let path = dir.path().join(format!("part{i}.json"));
        let output = scenario_run(
            &example("login-logout.yaml"),
            &target,
            &["--vus", vus, "--iterations", "9", "-o", path_str(&path)],
        );
        assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
        parts.push(path);
    }
    let one: Vec<Value> = parts
        .iter()
        .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
        .collect();
    let mut cmd = loadgen();
    cmd.args(["merge", "--json"]).args(&parts);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let merged = json_of(&output);
    assert_num(&merged, "/scenario/iterations/completed", 18);
    assert_eq!(target.stats().logins, 18);
    let steps = field(&merged, "/scenario/steps").as_array().unwrap();
    assert_eq!(steps.len(), 3);
    for (i, step) in steps.iter().enumerate() {
        let sum: u64 = one
            .iter()
            .map(|r| {
                r["scenario"]["steps"][i]["duration"]["count"]
                    .as_u64()
                    .unwrap()
            })
            .sum();
        assert_eq!(step["duration"]["count"].as_u64(), Some(sum), "{step}");
        assert_eq!(step["requests"]["succeeded"], 18, "{step}");
    }
    for check in field(&merged, "/scenario/checks").as_array().unwrap() {
        assert_eq!(
            (check["passes"].as_u64(), check["fails"].as_u64()),
            (Some(18), Some(0))
        );
    }
    // A plain run's report is not a part of a scenario run.
    let plain = dir.path().join("plain.json");
    let output = run(&[
        "-n",
        "4",
        "-c",
        "1",
        "-o",
        path_str(&plain),
        &target.http("/"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let mut cmd = loadgen();
    cmd.args(["merge"]).arg(&parts[0]).arg(&plain);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_error(&output, 2, &["scenario"]);
}

#[test]
fn the_hdr_log_has_each_steps_latency_under_its_tag() {
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    use hdrhistogram::serialization::Deserializer;
    use std::collections::BTreeMap;

    let target = TestTarget::start();
    let dir = TempDir::new("scenario-hdr-log");
    let log = dir.path().join("run.hlog");
    let output = scenario_run(
        &example("login-logout.yaml"),
        &target,
        &[
            "--vus",
            "2",
            "--iterations",
            "20",
            "--json",
            "--hdr-log",
            path_str(&log),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let report = json_of(&output);
    let text = std::fs::read(&log).expect("the log was written");
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut deserializer = Deserializer::new();
    for entry in IntervalLogIterator::new(&text) {
        if let LogEntry::Interval(interval) = entry.expect("a valid interval log entry") {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(interval.encoded_histogram())
                .expect("base64 histogram");
            let h: hdrhistogram::Histogram<u64> = deserializer
                .deserialize(&mut bytes.as_slice())
                .expect("a V2 histogram");
            let tag = interval
                .tag()
                .map(|t| t.as_str().to_string())
                .unwrap_or_default();
            *counts.entry(tag).or_default() += h.len();
        }
    }
    for (i, tag) in ["step:login_page", "step:log_in", "step:log_out"]
        .iter()
        .enumerate()
    {
        let count = report["scenario"]["steps"][i]["duration"]["count"]
            .as_u64()
            .unwrap();
        assert_eq!(counts.get(*tag), Some(&count), "{tag}: {counts:?}");
        assert_eq!(
            counts.get(&format!("{tag}:raw")),
            Some(&count),
            "{tag}: {counts:?}"
        );
    }
    assert_eq!(
        counts.get("request"),
        Some(&num(&report, "/request_time/count"))
    );
}
