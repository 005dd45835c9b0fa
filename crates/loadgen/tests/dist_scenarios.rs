//! Scenario runs split between machines, with real processes on loopback
//! against the built-in target's login app: `loadgen run FILE --shard`,
//! and `loadgen run FILE --workers` with `loadgen worker`s. The target's
//! own counters are the truth the merged report is held to.

mod common;

use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const TOKEN: &str = "scenario-test-token";
const WORKER_START_LIMIT: Duration = Duration::from_secs(20);

/// A `loadgen worker` process; its stderr is collected line by line.
struct WorkerProcess {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    url: String,
}

impl WorkerProcess {
    fn start(token_file: &Path, extra: &[&str]) -> WorkerProcess {
        let mut cmd = loadgen();
        cmd.args(["worker", "--listen", "127.0.0.1:0", "--token-file"])
            .arg(token_file)
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start a worker");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().expect("piped stderr");
        let collected = lines.clone();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                collected.lock().unwrap().push(line);
            }
        });
        let deadline = Instant::now() + WORKER_START_LIMIT;
        let url = loop {
            let said = lines.lock().unwrap().clone();
            if let Some(url) = said
                .iter()
                .find_map(|l| l.strip_prefix("loadgen worker: listening on "))
            {
                break url.to_string();
            }
            if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
                let _ = child.kill();
                panic!("the worker did not start: {said:?}");
            }
            thread::sleep(Duration::from_millis(20));
        };
        WorkerProcess { child, lines, url }
    }

    fn log(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// Waits up to `limit` for a log line containing `text`.
    fn wait_for_line(&self, text: &str, limit: Duration) -> Option<String> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(line) = self.log().into_iter().find(|l| l.contains(text)) {
                return Some(line);
            }
            if Instant::now() > deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The login/logout flow of examples/login-logout.yaml against `base`,
/// 4 virtual users of 5 iterations each; the password comes from a feeder
/// file beside the scenario, which the workers get from the controller.
fn login_scenario(dir: &TempDir, base: &str) -> PathBuf {
    dir.write("creds.csv", "password\nsecret\n");
    dir.write(
        "login.yaml",
        format!(
            "\
defaults:
  base_url: {base}
  protocol: h1
data:
  creds: {{file: creds.csv, order: per_vu}}
scenarios:
  login:
    executor: per-vu-iterations
    vus: 4
    iterations: 5
    steps:
      - name: login page
        url: /app/login
        checks:
          status_in: [200]
          header_includes: {{set-cookie: 'sid='}}
        extract:
          - {{type: dom, selector: 'form#login input[name=\"csrf\"]', attribute: value, as: csrf}}
      - name: log in
        url: /app/login
        form: {{username: 'user{{{{vu}}}}', password: '{{{{creds.password}}}}', csrf: '{{{{csrf}}}}'}}
        checks:
          status_in: [200]
          body_includes: ['Welcome, user{{{{vu}}}}']
        extract:
          - {{type: regex, pattern: 'logout\\?token=([a-f0-9]+)', as: logout_token}}
      - name: log out
        url: /app/logout?token={{{{logout_token}}}}
        follow_redirects: 0
        checks:
          status_in: [302]
thresholds:
  checks: ['rate==1']
"
        ),
    )
}

fn token_file(dir: &TempDir) -> PathBuf {
    dir.write("token", format!("{TOKEN}\n"))
}

/// `loadgen run FILE --workers A,B --token-file F <args>`.
fn controller(file: &Path, workers: &[&WorkerProcess], token: &Path, args: &[&str]) -> Command {
    let urls: Vec<&str> = workers.iter().map(|w| w.url.as_str()).collect();
    let mut cmd = loadgen();
    cmd.arg("run")
        .arg(file)
        .arg("--workers")
        .arg(urls.join(","))
        .arg("--token-file")
        .arg(token)
        .args(args);
    cmd
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("the -o file");
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn two_workers_run_the_login_flow_and_their_checks_add_up() {
    let target = TestTarget::start();
    let dir = TempDir::new("dist-scenario");
    let token = token_file(&dir);
    let allowed = target.target.clear_addr().unwrap().to_string();
    let file = login_scenario(&dir, &target.http(""));
    let workers = [
        WorkerProcess::start(&token, &["--allow-target", &allowed]),
        WorkerProcess::start(&token, &["--allow-target", &allowed]),
    ];
    let report_file = dir.path().join("merged.json");
    let page_file = dir.path().join("merged.html");
    let before = target.stats();
    let output = run_bounded(
        controller(
            &file,
            &[&workers[0], &workers[1]],
            &token,
            &["-o", path_str(&report_file), "--html", path_str(&page_file)],
        ),
        RUN_LIMIT,
    );
    let after = stats_delta(before, target.stats());
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let report = read_json(&report_file);

    // The merged iterations are the target's logins and logouts.
    assert_num(&report, "/scenario/iterations/completed", 20);
    assert_eq!(after.logins, 20, "{after:?}");
    assert_eq!(after.logouts, 20, "{after:?}");
    assert_eq!(after.failed_logins, 0, "{after:?}");
    // Page, login, inbox (the followed redirect), logout: each once.
    assert_num(&report, "/requests/succeeded", 80);
    assert_eq!(after.total, 80);

    // Every check, merged and per worker, adds up.
    let checks = field(&report, "/scenario/checks").as_array().unwrap();
    assert_eq!(checks.len(), 5);
    let rows = field(&report, "/workers").as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (i, check) in checks.iter().enumerate() {
        assert_num(check, "/passes", 20);
        assert_num(check, "/fails", 0);
        let per_worker: u64 = rows
            .iter()
            .map(|row| num(row, &format!("/checks/{i}/passes")))
            .sum();
        assert_eq!(per_worker, 20, "{check}");
    }
    let iterations: Vec<u64> = rows
        .iter()
        .map(|row| num(row, "/iterations/completed"))
        .collect();
    assert_eq!(iterations, [10, 10]);
    assert_eq!(text(&rows[1], "/segment"), "1/2:1");
    assert_eq!(field(&report, "/workers_agree"), &Value::Bool(true));
    assert_eq!(
        field(&report, "/worker_checks").as_array().unwrap().len(),
        5
    );

    // The page: the merged steps and checks, each worker's part and req/s.
    let page = std::fs::read_to_string(&page_file).expect("--html was written");
    assert!(
        page.contains("<h2 id=\"scenario\">"),
        "the scenario section"
    );
    assert_eq!(
        page.matches("data-field=\"rate\">100.00%</td>").count(),
        5,
        "every check passed everywhere"
    );
    assert!(
        page.contains("<table class=\"workers\">"),
        "the workers' table"
    );
    assert!(page.contains("Responses per second, per worker"));
    for row in rows {
        let url = text(row, "/url");
        assert!(
            page.contains(&format!("<td class=\"name\">{url}</td>")),
            "{url}"
        );
        let requests = format!("<td data-field=\"requests\">{}</td>", row["requests"]);
        assert!(page.contains(&requests), "{requests}");
    }
    // A scenario's rows leave out req/s, which the workers' reports give.
    assert!(
        !page.contains("data-field=\"req_per_s\">—"),
        "req/s per worker"
    );

    // The summary, then the table of workers and of checks by worker.
    let shown = stdout(&output);
    assert!(shown.contains("running "), "{shown}");
    assert!(shown.contains("\nworkers:\n"), "{shown}");
    assert!(
        shown.contains("checks by worker (passes/evaluated):"),
        "{shown}"
    );
    let check_line = shown
        .lines()
        .find(|l| l.contains("log in: body_includes"))
        .unwrap_or_else(|| panic!("a row per check\n{shown}"));
    assert!(check_line.contains("10/10  10/10"), "{check_line}");
    assert!(check_line.trim_end().ends_with("PASS"), "{check_line}");
    assert!(
        shown.contains("workers agree on every check: PASS"),
        "{shown}"
    );
    for worker in &workers {
        let line = worker
            .wait_for_line("of scenario", Duration::from_secs(10))
            .unwrap_or_else(|| panic!("the worker logs the run: {:?}", worker.log()));
        assert!(line.contains("10 iterations"), "{line}");
    }
}

#[test]
fn shards_run_here_add_up_to_the_whole() {
    let target = TestTarget::start();
    let dir = TempDir::new("scenario-shards");
    let file = login_scenario(&dir, &target.http(""));
    let mut completed = 0;
    for (shard, segment) in [("0/3", "0:1/3"), ("1/3", "1/3:2/3"), ("2/3", "2/3:1")] {
        let mut cmd = loadgen();
        cmd.arg("run")
            .arg(&file)
            .args(["--shard", shard, "--json", "-t", "2"]);
        let output = run_bounded(cmd, RUN_LIMIT);
        assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        completed += num(&report, "/scenario/iterations/completed");
        assert_eq!(text(&report, "/config/segment"), segment);
    }
    // 4 users split 2, 1, 1 ways: 10, 5 and 5 iterations.
    assert_eq!(completed, 20);
    assert_eq!(target.stats().logins, 20);

    let mut cmd = loadgen();
    cmd.arg("run").arg(&file).args(["--shard", "4/5"]);
    // 4 users over 5 segments: the last gets none.
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_error(&output, 2, &["--shard"]);
}

/// One HTTP/1.1 call to a worker: its status and body.
fn call(url: &str, path: &str, token: Option<&str>, body: &[u8]) -> (u16, String) {
    let addr = url.strip_prefix("http://").expect("a cleartext worker");
    let mut stream = TcpStream::connect(addr).expect("connect to the worker");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    if let Some(token) = token {
        head.push_str(&format!("authorization: Bearer {token}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // The worker may answer 401 before it has read the body.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// A scenario run request for `text`, to start now.
fn scenario_request(text: &str, files: Value) -> Vec<u8> {
    let now_us = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64;
    serde_json::to_vec(&serde_json::json!({
        "scenario": {"bundle": {"name": "login.yaml", "text": text, "files": files}},
        "start_at_us": now_us,
    }))
    .unwrap()
}

#[test]
fn an_unauthenticated_scenario_call_gets_401_and_sends_nothing() {
    let target = TestTarget::start();
    let dir = TempDir::new("scenario-401");
    let token = token_file(&dir);
    let worker = WorkerProcess::start(&token, &[]);
    let file = login_scenario(&dir, &target.http(""));
    let text = std::fs::read_to_string(&file).unwrap();
    let files = serde_json::json!({"creds.csv": "password\nsecret\n"});
    for (token, what) in [(None, "no token"), (Some("not-the-token"), "a wrong token")] {
        let (status, body) = call(
            &worker.url,
            "/v1/run-scenario",
            token,
            &scenario_request(&text, files.clone()),
        );
        assert_eq!(status, 401, "{what}: {body}");
    }
    // A feeder the request leaves out is not read from the worker's disk.
    let (status, body) = call(
        &worker.url,
        "/v1/run-scenario",
        Some(TOKEN),
        &scenario_request(&text, serde_json::json!({})),
    );
    assert_eq!(status, 422, "{body}");
    assert!(
        body.contains("creds.csv was not sent with the scenario"),
        "{body}"
    );

    // Through the controller: a wrong token is a usage error before anything runs.
    let wrong = dir.write("wrong-token", "nope\n");
    let output = run_bounded(controller(&file, &[&worker], &wrong, &[]), RUN_LIMIT);
    assert_error(&output, 2, &["401"]);
    // Anything accepted would have started by now.
    thread::sleep(Duration::from_millis(1500));
    assert_eq!(target.stats().total, 0, "a refused call reached the target");
}

#[test]
fn a_scenario_outside_the_allowed_targets_is_refused_before_any_request() {
    let target = TestTarget::start();
    let dir = TempDir::new("scenario-403");
    let token = token_file(&dir);
    // The target's TLS port only: its cleartext port is another target.
    let allowed = target.target.tls_addr().unwrap().to_string();
    let worker = WorkerProcess::start(&token, &["--allow-target", &allowed]);
    let file = login_scenario(&dir, &target.http(""));
    let output = run_bounded(controller(&file, &[&worker], &token, &[]), RUN_LIMIT);
    assert_error(&output, 2, &["not allowed"]);
    let refused = worker
        .wait_for_line("refused a run", Duration::from_secs(10))
        .expect("the worker logs the refusal");
    assert!(refused.contains("403"), "{refused}");
    thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        target.stats().total,
        0,
        "a refused scenario reached the target"
    );
}

#[test]
fn a_redirect_to_a_target_not_allowed_is_an_error_and_is_not_followed() {
    let target = TestTarget::start();
    let dir = TempDir::new("scenario-redirect");
    let token = token_file(&dir);
    let addr = target.target.clear_addr().unwrap();
    let worker = WorkerProcess::start(&token, &["--allow-target", &addr.to_string()]);
    // `localhost` is another origin than `127.0.0.1`, and not allowed.
    let file = dir.write(
        "redirect.yaml",
        format!(
            "\
defaults:
  protocol: h1
scenarios:
  away:
    executor: shared-iterations
    vus: 2
    iterations: 6
    steps:
      - name: away
        url: http://{addr}/redirect-to?url=http%3A%2F%2Flocalhost%3A{port}%2Fecho
thresholds:
  http_req_failed: ['rate<0.01']
",
            port = addr.port()
        ),
    );
    let output = run_bounded(
        controller(&file, &[&worker], &token, &["--json"]),
        RUN_LIMIT,
    );
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("JSON: {e}\n{}", describe(&output)));
    // The file's threshold, judged on the merged report.
    assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
    // Each iteration's first request was sent and answered; its redirect
    // was refused: an error of the step, nothing sent to localhost.
    assert_eq!(target.stats().total, 6);
    assert_num(&report, "/scenario/iterations/aborted", 6);
    assert_num(&report, "/scenario/steps/0/requests/errored", 6);
    assert_num(&report, "/errors/other", 6);
    let message = text(&report, "/errors/first_message/other");
    assert!(message.contains("not allowed"), "{message}");
}
