//! `--dashboard` in a real browser: headless Chromium (Debian's), driven by
//! Playwright from the test venv, watches a 5 s run's live page. Each
//! second it shows is the JSON report's, it fetches nothing but its own
//! server's, its console stays quiet, and at the end it offers the very
//! report the run wrote.
//!
//! With `LOADGEN_DOCS_SCREENSHOTS=DIR` the page is pictured mid-run as
//! `DIR/dashboard.png`, as docs/reports.md shows it.

mod common;

use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/dashboard")
        .join(name)
}

fn chromium() -> PathBuf {
    for dir in std::env::var("PATH").unwrap_or_default().split(':') {
        let path = std::path::Path::new(dir).join("chromium");
        if path.is_file() {
            return path;
        }
    }
    panic!("headless Chromium is needed for this test: scripts/test installs Debian's chromium");
}

/// Starts loadgen with `args` and reads the dashboard's address from its
/// stderr; the rest of stderr is drained and returned at the end.
fn start(args: &[&str]) -> (Child, String, mpsc::Receiver<String>) {
    let mut child = loadgen()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start loadgen");
    let stderr = child.stderr.take().expect("piped stderr");
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let first = received
        .recv_timeout(Duration::from_secs(30))
        .expect("loadgen says where its dashboard is");
    let url = first
        .strip_prefix("loadgen: dashboard at ")
        .unwrap_or_else(|| panic!("the first line names the dashboard: {first}"))
        .to_string();
    (child, url, received)
}

fn wait_for(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            panic!("loadgen did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The report's field `intervals.N.NAME` as the page shows it.
fn assert_shows(report: &Value, field: &str, text: &str) {
    let pointer = format!("/{}", field.replace('.', "/"));
    let expected = report
        .pointer(&pointer)
        .unwrap_or_else(|| panic!("the report has {field}"));
    let shown = match text.strip_suffix(" ms") {
        // Milliseconds to the microsecond: the report's integer exactly.
        Some(ms) => {
            let us = (ms.parse::<f64>().expect("milliseconds") * 1000.0).round();
            assert_eq!(Some(us), expected.as_f64(), "{field}: shown {text}");
            return;
        }
        None => text
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("{field}: '{text}'")),
    };
    let decimals = text.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    let tolerance = 0.5 * 10f64.powi(-decimals) + 1e-9;
    let expected = expected.as_f64().expect("a number");
    assert!(
        (shown - expected).abs() <= tolerance,
        "{field}: shown {text}, report {expected}"
    );
}

/// The index of the second an update shows (its cells name
/// `intervals.N.…`).
fn second_of(cells: &[Value]) -> usize {
    let field = cells[0][0].as_str().expect("a field");
    field
        .split('.')
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("an intervals field: {field}"))
}

#[test]
fn the_live_page_follows_the_run_second_by_second_and_offers_its_report() {
    let target = TestTarget::start();
    let dir = TempDir::new("dashboard");
    let (json, html, seen) = (
        dir.path().join("run.json"),
        dir.path().join("run.html"),
        dir.path().join("seen.json"),
    );
    let uri = target.http("/");
    // The dashboard serves from the start; the run waits a few seconds for
    // the browser, which takes a second or more to open on a busy machine
    // and would otherwise see the first seconds only as the backlog.
    let start_at = (std::time::SystemTime::now() + Duration::from_secs(8))
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
        .to_string();
    let (mut child, url, stderr) = start(&[
        "-q",
        "--start-at",
        &start_at,
        "-D",
        "5s",
        "--rate",
        "200",
        "-c",
        "4",
        "--threshold",
        "p99<10s",
        "--dashboard",
        "127.0.0.1:0",
        // Long enough for the browser to take the report; a signal ends it.
        "--dashboard-linger",
        "60s",
        "-o",
        path_str(&json),
        "--html",
        path_str(&html),
        &uri,
    ]);
    let seen = watch(&url, &seen, Some("dashboard.png"));
    stop_lingering(&mut child, &stderr);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).expect("JSON");
    assert_follows_the_run(&seen, &report);
    assert_only_its_own_origin_and_no_error(&seen, &url);
    assert_offers(&seen, &html, &json);
}

/// Watches the page at `url` in headless Chromium until the run is over
/// (`dashboard/watch.py`); what it saw, written to `seen`. With
/// `LOADGEN_DOCS_SCREENSHOTS=DIR`, pictured mid-run as `DIR/picture`.
fn watch(url: &str, seen: &std::path::Path, picture: Option<&str>) -> Value {
    let mut watch = std::process::Command::new(python());
    watch
        .arg(fixture("watch.py"))
        .arg(url)
        .arg(seen)
        .arg(chromium());
    if let (Some(docs), Some(picture)) = (docs_screenshots_dir(), picture) {
        std::fs::create_dir_all(&docs).expect("create the screenshots directory");
        watch.arg(docs.join(picture));
    }
    let watched = run_bounded(watch, RUN_LIMIT);
    assert_eq!(watched.status.code(), Some(0), "{}", describe(&watched));
    serde_json::from_str(&std::fs::read_to_string(seen).unwrap()).expect("JSON")
}

/// The browser has the report: the linger ends at the first signal, and
/// the run exits 0.
fn stop_lingering(child: &mut Child, stderr: &mpsc::Receiver<String>) {
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = wait_for(child, Duration::from_secs(30));
    let said: Vec<String> = stderr.try_iter().collect();
    assert_eq!(status.code(), Some(0), "stderr: {said:#?}");
}

/// Three successive seconds shown while the run went on, and every figure
/// of every second shown is the JSON report's.
fn assert_follows_the_run(seen: &Value, report: &Value) {
    let updates = seen["updates"].as_array().expect("updates");
    let live: Vec<usize> = updates
        .iter()
        .filter(|u| u["over"] == false)
        .map(|u| second_of(u["cells"].as_array().unwrap()))
        .collect();
    let successive = live
        .windows(3)
        .any(|w| w[1] == w[0] + 1 && w[2] == w[1] + 1);
    assert!(
        successive,
        "three successive seconds shown while the run went on: {live:?}"
    );
    for update in updates {
        let cells = update["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 6, "every figure of the second: {cells:?}");
        for cell in cells {
            let (field, text) = (cell[0].as_str().unwrap(), cell[1].as_str().unwrap());
            assert_shows(report, field, text);
        }
    }
}

fn assert_only_its_own_origin_and_no_error(seen: &Value, url: &str) {
    let origin = url.trim_end_matches('/');
    let requests: Vec<&str> = seen["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        requests
            .iter()
            .all(|r| r.starts_with(&format!("{origin}/"))),
        "nothing outside {origin}: {requests:#?}"
    );
    assert!(requests.contains(&&*format!("{origin}/events")));
    for (what, list) in [
        ("console", &seen["console"]),
        ("errors", &seen["page_errors"]),
    ] {
        assert!(list.as_array().unwrap().is_empty(), "{what}: {:#?}", list);
    }
}

/// The page's download links give the very report the run wrote.
fn assert_offers(seen: &Value, html: &std::path::Path, json: &std::path::Path) {
    let downloads = &seen["downloads"];
    for (name, written) in [("report.html", html), ("report.json", json)] {
        assert_eq!(downloads[name]["status"], 200, "{name}: {downloads}");
        assert_eq!(
            downloads[name]["body"].as_str(),
            Some(std::fs::read_to_string(written).unwrap().as_str()),
            "{name} is the report the run wrote"
        );
    }
}

/// The step names and the thresholds' states a live update shows.
fn steps_and_thresholds(update: &Value) -> (Vec<String>, Vec<String>) {
    let steps = update["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c[0].as_str().unwrap().ends_with(".name"))
        .map(|c| c[1].as_str().unwrap().to_string())
        .collect();
    let thresholds = update["thresholds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    (steps, thresholds)
}

/// A 10 s arrival-rate scenario of two steps with a check each, and three
/// thresholds: a duration's, a step's duration's and the checks'.
fn browse_scenario(dir: &TempDir) -> PathBuf {
    dir.write(
        "browse.yaml",
        "defaults: {base_url: '{{env.BASE_URL}}'}\nenv: {BASE_URL: x}\n\
         scenarios:\n  browse:\n    executor: constant-arrival-rate\n    rate: 40\n\
         \x20   duration: 10s\n    preAllocatedVUs: 4\n    steps:\n\
         \x20     - {name: home, url: /, checks: {status_in: [200]}}\n\
         \x20     - {name: page, url: '/?s=2k', checks: {status_in: [200]}}\n\
         thresholds:\n  http_req_duration: ['p(99)<10s']\n\
         \x20 'http_req_duration{step:page}': ['p(95)<10s']\n  checks: ['rate>0.99']\n",
    )
}

/// Runs [`browse_scenario`] with `args` and watches its page; returns what
/// the page showed, checked against the JSON report the run wrote.
fn watch_browse(dir: &TempDir, args: &[&str], picture: Option<&str>) -> (Value, Value) {
    let target = TestTarget::start();
    let file = browse_scenario(dir);
    let (json, html, seen) = (
        dir.path().join("run.json"),
        dir.path().join("run.html"),
        dir.path().join("seen.json"),
    );
    let base = format!("BASE_URL={}", target.http(""));
    let mut all = vec![
        "run",
        path_str(&file),
        "--env",
        &base,
        "--dashboard",
        "127.0.0.1:0",
        "--dashboard-linger",
        "60s",
        "-o",
        path_str(&json),
        "--html",
        path_str(&html),
    ];
    all.extend_from_slice(args);
    let (mut child, url, stderr) = start(&all);
    let seen = watch(&url, &seen, picture);
    stop_lingering(&mut child, &stderr);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).expect("JSON");
    assert_only_its_own_origin_and_no_error(&seen, &url);
    assert_offers(&seen, &html, &json);
    (seen, report)
}

/// While the run went on, both steps and each threshold's state (the
/// checks are counted at the end, the durations read from the seconds);
/// at the end, every step's response in the seconds: the same counts and
/// percentiles as the report's steps, and the report's verdicts.
fn assert_shows_the_steps(seen: &Value, report: &Value) {
    let live: Vec<&Value> = seen["updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["over"] == false)
        .collect();
    assert!(live.len() > 1, "{seen}");
    for update in &live[1..] {
        let (steps, thresholds) = steps_and_thresholds(update);
        assert_eq!(steps, ["home", "page"], "{update}");
        assert_eq!(thresholds.len(), 3, "{thresholds:?}");
        assert!(
            thresholds[0].starts_with("http_req_duration: p(99)<10s pass"),
            "{thresholds:?}"
        );
        assert!(
            thresholds[1].starts_with("http_req_duration{step:page}: p(95)<10s pass"),
            "{thresholds:?}"
        );
        assert!(
            thresholds[2].starts_with("checks: rate>0.99 pending"),
            "{thresholds:?}"
        );
    }
    let (steps, thresholds) = steps_and_thresholds(&seen["final"]);
    assert_eq!(steps, ["home", "page"]);
    for cell in seen["final"]["steps"].as_array().unwrap() {
        let (field, text) = (cell[0].as_str().unwrap(), cell[1].as_str().unwrap());
        if !field.ends_with(".name") {
            assert_shows(report, field, text);
        }
    }
    assert!(
        thresholds.iter().all(|t| t.contains(" pass ")),
        "{thresholds:?}"
    );
}

#[test]
fn a_scenario_runs_live_page_shows_its_steps_and_thresholds_each_second() {
    let dir = TempDir::new("dashboard-scenario");
    let (seen, report) = watch_browse(&dir, &[], Some("dashboard-scenario.png"));
    assert_follows_the_run(&seen, &report);
    assert_shows_the_steps(&seen, &report);
}

#[test]
fn a_distributed_scenario_runs_live_page_shows_the_workers_steps_merged() {
    let dir = TempDir::new("dashboard-workers");
    let token = dir.write("token", "dashboard-test-token-0123456789abcdef\n");
    let workers = [Worker::start(&token), Worker::start(&token)];
    let urls = format!("{},{}", workers[0].url, workers[1].url);
    let (seen, report) = watch_browse(
        &dir,
        &["--workers", &urls, "--token-file", path_str(&token)],
        None,
    );
    assert_eq!(field(&report, "/workers").as_array().map(Vec::len), Some(2));
    assert_shows_the_steps(&seen, &report);
}

#[test]
fn an_address_it_cannot_listen_on_is_a_usage_error_before_the_run() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let target = TestTarget::start();
    let output = run(&["-n", "10", "--dashboard", &address, &target.http("/")]);
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("--dashboard: cannot listen on {address}")),
        "{stderr}"
    );
    assert_eq!(target.stats().http1, 0, "no request was sent");
}
