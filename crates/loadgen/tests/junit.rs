//! `-o results.xml` (`--format junit`): every file is valid against the
//! Ant/Jenkins JUnit schema (`junit/JUnit.xsd`, checked with `xmlschema`)
//! and read back with `junitparser`, as a CI server reads it: a case per
//! threshold and per check of each step, a failure carrying the value the
//! run observed.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

/// The file's suites as `junit/read_junit.py` prints them, after it has
/// validated the file against the schema.
fn read_junit(file: &Path) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/junit/read_junit.py");
    let mut cmd = std::process::Command::new(python());
    cmd.arg(&script).arg(file);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert!(output.status.success(), "{}", describe(&output));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON: {e}\n{}", describe(&output)))
}

fn json_of(output: &std::process::Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not one JSON object: {e}\n{}", describe(output)))
}

fn one_suite(suites: Vec<Value>) -> Value {
    assert_eq!(suites.len(), 1, "{suites:#?}");
    suites.into_iter().next().unwrap()
}

/// (classname, name, outcome, message) of each case.
fn cases(suite: &Value) -> Vec<(String, String, String, String)> {
    let cases = suite["cases"].as_array().expect("cases");
    cases
        .iter()
        .map(|case| {
            let results = case["results"].as_array().expect("results");
            assert!(results.len() <= 1, "{case}");
            let (outcome, message) = match results.first() {
                Some(r) => (
                    r["outcome"].as_str().unwrap(),
                    r["message"].as_str().unwrap(),
                ),
                None => ("passed", ""),
            };
            (
                case["classname"].as_str().unwrap().to_string(),
                case["name"].as_str().unwrap().to_string(),
                outcome.to_string(),
                message.to_string(),
            )
        })
        .collect()
}

fn owned(case: (&str, &str, &str, &str)) -> (String, String, String, String) {
    (
        case.0.to_string(),
        case.1.to_string(),
        case.2.to_string(),
        case.3.to_string(),
    )
}

#[test]
fn a_benchmarks_thresholds_are_cases_and_the_failed_one_says_what_was_observed() {
    let t = TestTarget::start();
    let xml = t.dir.path().join("results.xml");
    let output = run(&[
        "--json",
        "-n",
        "200",
        "-c",
        "2",
        "--threshold",
        "errors<1%",
        "--threshold",
        "p50<1us",
        "-o",
        path_str(&xml),
        &t.http("/"),
    ]);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
    let report = json_of(&output);
    let observed = text(&report, "/thresholds/1/actual");

    let suite = one_suite(read_junit(&xml));
    assert_eq!(
        cases(&suite),
        [
            owned(("thresholds", "errors<1%", "passed", "")),
            owned((
                "thresholds",
                "p50<1us",
                "failure",
                &format!("observed {observed}")
            )),
        ]
    );
    assert_eq!(
        (suite["tests"].as_u64(), suite["failures"].as_u64()),
        (Some(2), Some(1))
    );
    let failure = &suite["cases"][1]["results"][0]["text"];
    let detail = failure.as_str().unwrap();
    assert!(
        detail.starts_with(&format!("p50<1us not met: observed {observed} (")),
        "{detail}"
    );
    assert_eq!(suite["name"], format!("loadgen {}", t.http("/")));
    let started = text(&report, "/started_at");
    assert_eq!(suite["timestamp"], started[..19]);
    let properties = suite["properties"].as_array().unwrap();
    assert!(properties.contains(&serde_json::json!(["requests.succeeded", "200"])));
    let out = suite["system_out"].as_str().unwrap();
    assert!(out.contains("errors<1%  pass  (0.00%)"), "{out}");
}

#[test]
fn a_scenarios_checks_are_cases_classed_by_step() {
    let target = TestTarget::start();
    let file = target.dir.write(
        "login.yaml",
        format!(
            r#"defaults:
  base_url: {}
scenarios:
  login:
    executor: per-vu-iterations
    vus: 2
    iterations: 3
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
thresholds:
  checks: ['rate==1']
"#,
            target.http("")
        ),
    );
    let xml = target.dir.path().join("results.out");
    let mut cmd = loadgen();
    cmd.arg("run")
        .arg(&file)
        .args(["--json", "--format", "junit", "-o", path_str(&xml)]);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
    let report = json_of(&output);
    let checks = field(&report, "/scenario/checks").as_array().unwrap();
    let body_check = &checks[2];
    assert_eq!(body_check["step"], "log in", "{report:#}");
    let (passes, fails) = (
        body_check["passes"].as_u64().unwrap(),
        body_check["fails"].as_u64().unwrap(),
    );
    assert_eq!((passes, fails), (3, 3), "{body_check}");
    let rate = text(&report, "/thresholds/0/actual");

    let suite = one_suite(read_junit(&xml));
    assert_eq!(
        cases(&suite),
        [
            owned((
                "thresholds",
                "checks: rate==1",
                "failure",
                &format!("observed {rate}")
            )),
            owned(("checks.login page", "status_in [200]", "passed", "")),
            owned(("checks.log in", "status_in [200]", "passed", "")),
            owned((
                "checks.log in",
                "body_includes \"Welcome, user1<\"",
                "failure",
                "3 of 6 failed"
            )),
        ]
    );
    let detail = suite["cases"][3]["results"][0]["text"].as_str().unwrap();
    assert!(
        detail.ends_with("3 passed, 3 failed (50.00% passed)"),
        "{detail}"
    );
}

#[test]
fn a_run_without_criteria_is_one_case_failed_when_nothing_answered() {
    let t = TestTarget::start();
    let xml = t.dir.path().join("answered.xml");
    let output = run(&["-q", "-n", "20", "-o", path_str(&xml), &t.http("/")]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let suite = one_suite(read_junit(&xml));
    assert_eq!(cases(&suite), [owned(("run", "responses", "passed", ""))]);

    let xml = t.dir.path().join("unanswered.xml");
    let closed = format!("http://127.0.0.1:{}/", closed_port());
    let output = run(&["-q", "-n", "4", "-o", path_str(&xml), &closed]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let suite = one_suite(read_junit(&xml));
    let found = cases(&suite);
    assert_eq!(
        (found[0].0.as_str(), found[0].2.as_str()),
        ("run", "failure")
    );
    assert!(
        found[0].3.starts_with("no request got a response ("),
        "{found:?}"
    );
}

#[test]
fn a_sweep_refuses_a_junit_file() {
    let t = TestTarget::start();
    let xml = t.dir.path().join("sweep.xml");
    let output = run(&[
        "sweep",
        "-c",
        "1,2",
        "-n",
        "10",
        "-o",
        path_str(&xml),
        &t.http("/"),
    ]);
    assert_error(&output, 2, &["-o: a sweep writes JSON Lines"]);
    assert!(!xml.exists());
}
