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
    let python = python();
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
    let mut watch = std::process::Command::new(&python);
    watch
        .arg(fixture("watch.py"))
        .arg(&url)
        .arg(&seen)
        .arg(chromium());
    if let Some(docs) = std::env::var_os("LOADGEN_DOCS_SCREENSHOTS") {
        std::fs::create_dir_all(&docs).expect("create the screenshots directory");
        watch.arg(PathBuf::from(docs).join("dashboard.png"));
    }
    let watched = run_bounded(watch, RUN_LIMIT);
    assert_eq!(watched.status.code(), Some(0), "{}", describe(&watched));

    // The browser has the report: the linger ends at the first signal.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = wait_for(&mut child, Duration::from_secs(30));
    let said: Vec<String> = stderr.try_iter().collect();
    assert_eq!(status.code(), Some(0), "stderr: {said:#?}");

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).expect("JSON");
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).expect("JSON");

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
            assert_shows(&report, field, text);
        }
    }

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

    let downloads = &seen["downloads"];
    for (name, written) in [("report.html", &html), ("report.json", &json)] {
        assert_eq!(downloads[name]["status"], 200, "{name}: {downloads}");
        assert_eq!(
            downloads[name]["body"].as_str(),
            Some(std::fs::read_to_string(written).unwrap().as_str()),
            "{name} is the report the run wrote"
        );
    }
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
