//! `loadgen convert`: a HAR recorded by headless Chromium clicking through
//! the built-in target's login and logout replays with fresh CSRF and
//! logout tokens (the target counts a login and a logout per iteration);
//! a recording made now with Playwright does too; Firefox's variant of the
//! format converts, assets left out; a curl command line is one step; a
//! malformed HAR is one line and exit 2.

mod common;

use common::*;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/convert")
        .join(name)
}

/// `loadgen convert ARGS -o DIR/flow.yaml`: the file written.
fn convert(dir: &TempDir, args: &[&str]) -> (PathBuf, String) {
    let out = dir.path().join("flow.yaml");
    let mut cmd = loadgen();
    cmd.arg("convert").args(args).arg("-o").arg(&out);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    assert!(output.stderr.is_empty(), "{}", describe(&output));
    let text = std::fs::read_to_string(&out).expect("the scenario file was written");
    (out, text)
}

/// Runs the scenario against `target` with `iterations` iterations over
/// `vus` users and returns its JSON report, every check passed.
fn replay(file: &Path, target: &TestTarget, vus: u32, iterations: u32) -> Value {
    let mut cmd = loadgen();
    cmd.arg("run")
        .arg(file)
        .args(["--env", &format!("BASE_URL={}", target.http(""))])
        .args([
            "--vus",
            &vus.to_string(),
            "--iterations",
            &iterations.to_string(),
        ])
        .arg("--json");
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not one JSON object: {e}\n{}", describe(&output)));
    let checks = field(&report, "/scenario/checks").as_array().unwrap();
    assert!(!checks.is_empty(), "{report:#}");
    for check in checks {
        assert_eq!(check["fails"], 0, "{check}\n{report:#}");
        assert!(check["passes"].as_u64().unwrap() > 0, "{check}");
    }
    let scenario = &field(&report, "/scenario/scenarios").as_array().unwrap()[0];
    assert_eq!(
        scenario["iterations"]["completed"], iterations,
        "{scenario}"
    );
    report
}

/// The converted login and logout: three steps, the CSRF token and the
/// logout token taken from the pages that carried them, no cookie or
/// browser header, and a replay the target counts.
fn assert_login_flow_replays(file: &Path, text: &str) {
    let steps: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- name: "))
        .collect();
    assert_eq!(
        steps,
        ["GET /app/login", "POST /app/login", "GET /app/logout"],
        "{text}"
    );
    for wanted in [
        "selector: \"input[name=\\\"csrf\\\"]\"",
        "csrf: \"{{csrf}}\"",
        "type: regex",
        "url: \"/app/logout?token={{token}}\"",
        "status_in:",
    ] {
        assert!(text.contains(wanted), "no {wanted} in\n{text}");
    }
    for unwanted in ["ookie", "sec-", "user-agent", "host:", "accept-encoding"] {
        assert!(
            !text.to_ascii_lowercase().contains(unwanted),
            "{unwanted} in\n{text}"
        );
    }
    let target = TestTarget::start();
    let before = target.stats();
    replay(file, &target, 2, 6);
    let counted = stats_delta(before, target.stats());
    assert_eq!(
        (counted.logins, counted.logouts, counted.failed_logins),
        (6, 6, 0),
        "one login and one logout per iteration"
    );
}

#[test]
fn a_chromium_recording_replays_with_fresh_tokens() {
    let dir = TempDir::new("convert-chromium");
    let har = fixture("chromium-login.har");
    let (file, text) = convert(&dir, &[path_str(&har)]);
    assert_login_flow_replays(&file, &text);
}

/// Headless Chromium (Debian's) driven by Playwright for Python, both
/// installed by scripts/test, records the flow here and now.
#[test]
fn a_recording_made_with_playwright_replays() {
    let python = python();
    let has_playwright = std::process::Command::new(&python)
        .args(["-c", "import playwright.sync_api"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_playwright,
        "Playwright for Python is needed in the test venv ({python}): scripts/test installs it"
    );
    let target = TestTarget::start();
    let dir = TempDir::new("convert-playwright");
    let har = dir.path().join("login.har");
    let mut record = std::process::Command::new(&python);
    record
        .arg(fixture("record_login.py"))
        .arg(target.http(""))
        .arg(&har)
        .arg(browser_path());
    let output = run_bounded(record, RUN_LIMIT);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let recorded = target.stats();
    assert_eq!(
        (recorded.logins, recorded.logouts),
        (1, 1),
        "the browser logged in and out"
    );
    let (file, text) = convert(&dir, &[path_str(&har)]);
    assert_login_flow_replays(&file, &text);
}

fn browser_path() -> PathBuf {
    for dir in std::env::var("PATH").unwrap_or_default().split(':') {
        let path = Path::new(dir).join("chromium");
        if path.is_file() {
            return path;
        }
    }
    panic!("headless Chromium is needed for this test: scripts/test installs Debian's chromium");
}

#[test]
fn a_firefox_recording_converts_without_its_assets() {
    let dir = TempDir::new("convert-firefox");
    let har = fixture("firefox-api.har");
    let (file, text) = convert(&dir, &[path_str(&har)]);
    let steps: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- name: "))
        .collect();
    assert_eq!(
        steps,
        ["GET /echo/client", "POST /api/token", "GET /api/me"],
        "{text}"
    );
    for wanted in [
        "path: $.token",
        "authorization: \"Bearer {{bearer_token}}\"",
        "referer: \"{{env.BASE_URL}}/echo/client\"",
        "think_time: 496ms",
        "think_time: 300ms",
    ] {
        assert!(text.contains(wanted), "no {wanted} in\n{text}");
    }
    let target = TestTarget::start();
    let before = target.stats();
    replay(&file, &target, 1, 3);
    let counted = stats_delta(before, target.stats());
    assert_eq!((counted.token_grants, counted.api_authorized), (3, 3));

    let (_, with_assets) = convert(&dir, &[path_str(&har), "--include-assets"]);
    assert!(with_assets.contains("/static/logo.png"), "{with_assets}");
    assert!(with_assets.contains("/static/app.js?v=3"), "{with_assets}");
}

#[test]
fn a_curl_command_line_is_one_step() {
    let target = TestTarget::start();
    let dir = TempDir::new("convert-curl");
    let command = format!(
        "curl '{}' \\\n  -H 'Content-Type: application/json' -H 'Accept-Encoding: gzip' \\\n  --data-raw '{{\"username\":\"carol\",\"password\":\"secret\"}}' --compressed\n",
        target.http("/api/token")
    );
    let out = dir.path().join("flow.yaml");
    let mut cmd = loadgen();
    cmd.args(["convert", "--from", "curl", "-", "-o"])
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start loadgen convert");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(command.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("username: carol"), "{text}");
    assert!(!text.contains("ccept-encoding"), "{text}");
    let before = target.stats();
    let mut run = loadgen();
    run.arg("run")
        .arg(&out)
        .args(["--env", &format!("BASE_URL={}", target.http(""))]);
    let ran = run_bounded(run, RUN_LIMIT);
    assert_eq!(ran.status.code(), Some(0), "{}", describe(&ran));
    assert_eq!(stats_delta(before, target.stats()).token_grants, 1);
}

#[test]
fn a_malformed_har_is_one_line_and_exit_2() {
    let dir = TempDir::new("convert-bad");
    for (name, text, mention) in [
        ("truncated.har", "{\"log\": {\"entries\": [", "not a HAR file"),
        ("no-log.har", "{\"entries\": []}", "missing field `log`"),
        (
            "bad-time.har",
            "{\"log\": {\"entries\": [{\"startedDateTime\": \"yesterday\", \"time\": 1, \"request\": {\"method\": \"GET\", \"url\": \"http://h/\", \"headers\": []}, \"response\": {\"status\": 200, \"headers\": []}}]}}",
            "startedDateTime 'yesterday'",
        ),
        ("empty-log.har", "{\"log\": {\"entries\": []}}", "no HTTP request"),
    ] {
        let path = dir.write(name, text);
        let output = run(&["convert", path_str(&path)]);
        assert_error(&output, 2, &[mention]);
        assert!(stderr(&output).contains(name), "{}", describe(&output));
        assert!(output.stdout.is_empty(), "{}", describe(&output));
    }
    let output: Output = run(&["convert", "/nonexistent/recording.har"]);
    assert_error(&output, 2, &["cannot read it"]);
}
