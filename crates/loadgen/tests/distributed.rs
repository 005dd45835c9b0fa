//! Distributed runs with real processes: `loadgen worker`s and a controller
//! (`loadgen --workers`) on loopback and in network namespaces, against the
//! built-in target and nginx. The target's own count is the truth the
//! merged report is held to.

mod browser;
mod common;

use common::*;
use loadgen_target::TargetConfig;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const TOKEN: &str = "distributed-test-token";
/// The longest a worker may take to say where it listens.
const WORKER_START_LIMIT: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------
// Workers and controllers as processes
// ---------------------------------------------------------------------------

/// A `loadgen worker` process; its stderr is collected line by line.
struct WorkerProcess {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    url: String,
}

impl WorkerProcess {
    /// `loadgen worker --listen 127.0.0.1:0 --token-file TOKEN_FILE <extra>`.
    fn start(token_file: &std::path::Path, extra: &[&str]) -> WorkerProcess {
        let mut cmd = loadgen();
        cmd.args(["worker", "--listen", "127.0.0.1:0", "--token-file"])
            .arg(token_file)
            .args(extra);
        WorkerProcess::spawn(cmd)
    }

    fn spawn(mut cmd: Command) -> WorkerProcess {
        let shown = format!("{cmd:?}");
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
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
            if let Some(status) = child.try_wait().unwrap() {
                panic!("{shown} exited with {status}: {said:?}");
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{shown} did not say where it listens: {said:?}");
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

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A controller started in the background, its output collected.
struct Background {
    child: Child,
    stdout: thread::JoinHandle<Vec<u8>>,
    stderr: thread::JoinHandle<Vec<u8>>,
}

impl Background {
    fn start(mut cmd: Command) -> Background {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the controller");
        let mut out = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        Background {
            child,
            stdout: thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = out.read_to_end(&mut buf);
                buf
            }),
            stderr: thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = err.read_to_end(&mut buf);
                buf
            }),
        }
    }

    /// Waits for the end, killing the process and failing after `limit`.
    fn wait(mut self, limit: Duration) -> Output {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("the controller did not end within {limit:?}");
            }
            thread::sleep(Duration::from_millis(10));
        };
        Output {
            status,
            stdout: self.stdout.join().unwrap(),
            stderr: self.stderr.join().unwrap(),
        }
    }
}

fn token_file(dir: &TempDir) -> std::path::PathBuf {
    dir.write("token", format!("{TOKEN}\n"))
}

/// `loadgen --workers A,B --token-file F <args>`.
fn controller(workers: &[&WorkerProcess], token: &std::path::Path, args: &[&str]) -> Command {
    let urls: Vec<&str> = workers.iter().map(|w| w.url.as_str()).collect();
    let mut cmd = loadgen();
    cmd.arg("--workers")
        .arg(urls.join(","))
        .arg("--token-file")
        .arg(token)
        .args(args);
    cmd
}

/// Waits (bounded) until the target has served more than `above` requests.
fn wait_for_served(target: &TestTarget, above: u64, limit: Duration) {
    let deadline = Instant::now() + limit;
    while target.stats().total <= above {
        assert!(Instant::now() < deadline, "the target saw no load");
        thread::sleep(Duration::from_millis(10));
    }
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn workers_of(report: &Value) -> &Vec<Value> {
    field(report, "/workers")
        .as_array()
        .unwrap_or_else(|| panic!("workers is not an array:\n{report:#}"))
}

/// Each worker's clock offset and start skew, printed for the record.
fn print_clocks(what: &str, report: &Value) {
    for worker in workers_of(report) {
        eprintln!(
            "{what}: worker {} segment {}: clock offset {} µs (round trip {} µs), start skew {} µs",
            worker["url"],
            worker["segment"],
            worker["clock_offset_us"],
            worker["clock_round_trip_us"],
            worker["start_skew_us"]
        );
    }
}

// ---------------------------------------------------------------------------
// Loopback
// ---------------------------------------------------------------------------

/// Two workers (one over HTTPS with its own certificate) and a controller
/// against the built-in target: the merged count is the target's count, the
/// per-worker table and each worker's start skew are there, and the
/// `--hdr-log` is written from the merged seconds.
#[test]
fn two_workers_on_loopback_add_up_to_what_the_target_served() {
    let target = TestTarget::start();
    let dir = TempDir::new("dist-loopback");
    let token = token_file(&dir);
    let certified = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()])
        .expect("a self-signed certificate");
    let cert = dir.write("worker-cert.pem", certified.cert.pem());
    let key = dir.write("worker-key.pem", certified.signing_key.serialize_pem());
    let secure = WorkerProcess::start(
        &token,
        &["--cert", path_str(&cert), "--key", path_str(&key)],
    );
    let plain = WorkerProcess::start(&token, &[]);
    assert!(
        secure.url.starts_with("https://127.0.0.1:"),
        "{}",
        secure.url
    );
    assert!(
        plain
            .log()
            .iter()
            .any(|l| l.contains("any target is allowed")),
        "a worker without --allow-target says so: {:?}",
        plain.log()
    );

    let report_path = dir.path().join("merged.json");
    let hdr_path = dir.path().join("merged.hlog");
    let page_path = dir.path().join("merged.html");
    let mut cmd = controller(
        &[&secure, &plain],
        &token,
        &[
            "--worker-ca",
            path_str(&cert),
            "-n",
            "3001",
            "-c",
            "6",
            // Paced over two seconds, so that the page's per-worker chart
            // has more than one second to draw.
            "--rate",
            "1500",
            "--h1",
            "-o",
            path_str(&report_path),
            "--hdr-log",
            path_str(&hdr_path),
            "--html",
            path_str(&page_path),
            &target.http("/"),
        ],
    );
    cmd.stdin(Stdio::null());
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));

    let served = target.stats().total;
    let report = read_json(&report_path);
    assert_num(&report, "/requests/succeeded", served);
    assert_eq!(served, 3001);
    assert_all_ok(&report, 3001, BODY_LEN);
    assert_num(&report, "/config/clients", 6);

    let text = stdout(&output);
    assert!(text.contains("\nworkers:\n"), "{}", describe(&output));
    assert!(text.contains("start skew"), "{}", describe(&output));
    for worker in [&secure, &plain] {
        assert!(text.contains(&worker.url), "{}", describe(&output));
    }
    let rows = workers_of(&report);
    assert_eq!(rows.len(), 2);
    let mut parts = 0;
    for (row, segment) in rows.iter().zip(["0:1/2", "1/2:1"]) {
        assert_eq!(row["state"], "reported", "{row:#}");
        assert_eq!(row["segment"], segment, "{row:#}");
        assert!(row["start_skew_us"].is_i64(), "{row:#}");
        assert!(row["clock_offset_us"].is_i64(), "{row:#}");
        parts += row["requests"].as_u64().unwrap();
    }
    assert_eq!(parts, 3001);
    print_clocks("loopback", &report);

    // The page has the workers' table, as the JSON's rows, and their req/s.
    let page = std::fs::read_to_string(&page_path).expect("--html was written");
    assert!(
        page.contains("<table class=\"workers\">"),
        "the workers' table"
    );
    assert!(page.contains("Responses per second, per worker"));
    for row in rows {
        let url = row["url"].as_str().unwrap();
        assert!(
            page.contains(&format!("<td class=\"name\">{url}</td>")),
            "{url}"
        );
        let requests = format!("<td data-field=\"requests\">{}</td>", row["requests"]);
        assert!(page.contains(&requests), "{requests}");
    }
    // In a browser: nothing fetched, nothing said, one line per worker.
    let loaded = browser::load(&page_path);
    assert!(loaded.console.is_empty(), "console: {:#?}", loaded.console);
    assert!(
        loaded.requests.is_empty(),
        "requests: {:#?}",
        loaded.requests
    );
    let charts = browser::charts(&loaded.dom);
    let per_worker = charts
        .iter()
        .find(|c| c.title == "Responses per second, per worker")
        .expect("the per-worker chart");
    assert_eq!(per_worker.paths.len(), 2, "one line per worker");
    assert!(per_worker
        .paths
        .iter()
        .all(|d| d.starts_with('M') && !d.contains("NaN")));
    for worker in [&secure, &plain] {
        assert!(
            per_worker.legend.iter().any(|l| l.contains(&worker.url)),
            "{} in {:?}",
            worker.url,
            per_worker.legend
        );
    }
    browser::save_charts_for_docs(
        &loaded.dom,
        "workers",
        &["Responses per second, per worker"],
    );

    let hlog = std::fs::read_to_string(&hdr_path).expect("--hdr-log was written");
    assert!(hlog.contains("Tag=request,"), "{hlog}");
    for worker in [&secure, &plain] {
        let line = worker
            .wait_for_line("completed", Duration::from_secs(5))
            .unwrap_or_else(|| panic!("each worker logs its run: {:?}", worker.log()));
        assert!(line.contains("requests done"), "{line}");
    }
}

// ---------------------------------------------------------------------------
// Stall truth
// ---------------------------------------------------------------------------

/// Two workers at `--rate 1000` for 6 s in total while the target stalls for
/// 1 s: the merged corrected percentiles are those of the schedule. During
/// the stall, the requests due at the rate wait for its end, so their
/// corrected times spread evenly from 0 to the stall's length L; the k-th
/// slowest of all N requests took about L − k/R. p99 is k = N/100, p90 is
/// k = N/10 (with N = 6000 and L = 1 s: 940 ms and 400 ms).
#[test]
fn a_stall_shows_in_the_merged_corrected_percentiles() {
    const RATE: f64 = 1000.0;
    const STALL: Duration = Duration::from_secs(1);
    let target = TestTarget::start_with(TargetConfig::default());
    let dir = TempDir::new("dist-stall");
    let token = token_file(&dir);
    let a = WorkerProcess::start(&token, &[]);
    let b = WorkerProcess::start(&token, &[]);
    let report_path = dir.path().join("stall.json");
    let run = Background::start(controller(
        &[&a, &b],
        &token,
        &[
            "-q",
            "--rate",
            "1000",
            "-D",
            "6s",
            "-c",
            "20",
            "--h1",
            "-o",
            path_str(&report_path),
            &target.http("/"),
        ],
    ));
    // Well inside the run: two seconds after its first request.
    wait_for_served(&target, 0, Duration::from_secs(30));
    thread::sleep(Duration::from_secs(2));
    let stall_started = Instant::now();
    let stall_end = target.target.stall_for(STALL);
    let stall = stall_end.duration_since(stall_started);
    let output = run.wait(RUN_LIMIT);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));

    let report = read_json(&report_path);
    let n = num(&report, "/request_time/count") as f64;
    let expect = |q: f64| (stall.as_secs_f64() - (1.0 - q) * n / RATE) * 1e6;
    let (p99, p90) = (
        num(&report, "/request_time/p99_us") as f64,
        num(&report, "/request_time/p90_us") as f64,
    );
    eprintln!(
        "stall of {stall:?} in {n} requests: corrected p99 {:.1} ms (expected {:.1}), p90 {:.1} ms (expected {:.1})",
        p99 / 1e3,
        expect(0.99) / 1e3,
        p90 / 1e3,
        expect(0.90) / 1e3
    );
    print_clocks("stall", &report);
    for (q, measured) in [(0.99, p99), (0.90, p90)] {
        let expected = expect(q);
        assert!(
            (measured - expected).abs() <= expected * 0.10,
            "p{}: {measured} µs, expected {expected} µs within 10%\n{report:#}",
            q * 100.0
        );
    }
    // As in h2load, a request in flight when the duration ends is started
    // but not done: the target may have answered it, the client not read it.
    let served = target.stats().total;
    let (succeeded, started) = (
        num(&report, "/requests/succeeded"),
        num(&report, "/requests/started"),
    );
    assert!(
        succeeded <= served && served <= started,
        "served {served}, succeeded {succeeded}, started {started}\n{report:#}"
    );
    assert_num(&report, "/requests/done", succeeded);
}

// ---------------------------------------------------------------------------
// Security
// ---------------------------------------------------------------------------

/// One HTTP/1.1 call to a worker: its status and body.
fn call(url: &str, method: &str, path: &str, token: Option<&str>, body: &[u8]) -> (u16, String) {
    let addr = url.strip_prefix("http://").expect("a cleartext worker");
    let mut stream = TcpStream::connect(addr).expect("connect to the worker");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    if let Some(token) = token {
        head.push_str(&format!("authorization: Bearer {token}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // The worker may answer (413, 401) before it has read all of a body.
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

fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64
}

/// A run request for `plan`, to start now.
fn run_request(plan: Value) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({ "plan": plan, "start_at_us": now_us() })).unwrap()
}

/// Without the token, with a wrong one, to a target it does not allow,
/// over its bounds or naming a file on its machine, a worker runs nothing.
#[test]
fn a_worker_runs_nothing_it_should_not() {
    let target = TestTarget::start();
    let dir = TempDir::new("dist-security");
    let token = token_file(&dir);
    let allowed = target.target.clear_addr().unwrap().to_string();
    let worker = WorkerProcess::start(
        &token,
        &[
            "--allow-target",
            &allowed,
            "--max-clients",
            "50",
            "--max-request",
            "64K",
        ],
    );
    let plan = serde_json::json!({
        "uris": [target.http("/")],
        "cleartext": "http/1.1",
        "clients": 2,
        "mode": {"requests": 100}
    });

    for (token, what) in [(None, "no token"), (Some("not-the-token"), "a wrong token")] {
        let (status, body) = call(
            &worker.url,
            "POST",
            "/v1/run",
            token,
            &run_request(plan.clone()),
        );
        assert_eq!(status, 401, "{what}: {body}");
        assert!(body.contains("\"error\""), "{what}: {body}");
        let (status, _) = call(&worker.url, "GET", "/v1/clock", token, b"");
        assert_eq!(status, 401, "{what}: the clock too");
        let (status, _) = call(&worker.url, "POST", "/v1/cancel", token, b"");
        assert_eq!(status, 401, "{what}: cancel too");
    }

    let elsewhere = format!("http://127.0.0.1:{}/", closed_port());
    let refusals = [
        (
            serde_json::json!({"uris": [elsewhere], "mode": {"requests": 1}}),
            403,
            "not allowed",
        ),
        (
            serde_json::json!({"uris": [target.http("/")], "connect_to": "127.0.0.2", "mode": {"requests": 1}}),
            403,
            "not allowed",
        ),
        (
            serde_json::json!({"uris": [target.http("/")], "clients": 51, "mode": {"requests": 51}}),
            422,
            "--max-clients",
        ),
        (
            serde_json::json!({"uris": [target.http("/")], "mode": {"duration": {"duration": {"secs": 90000, "nanos": 0}, "warm_up": {"secs": 0, "nanos": 0}}}}),
            422,
            "--max-duration",
        ),
        (
            serde_json::json!({"uris": [target.http("/")], "log_file": "/tmp/written-by-a-worker"}),
            403,
            "log_file",
        ),
        (
            serde_json::json!({"uris": [target.http("/")], "clients": 0}),
            422,
            "clients",
        ),
    ];
    for (plan, expected, mention) in refusals {
        let (status, body) = call(
            &worker.url,
            "POST",
            "/v1/run",
            Some(TOKEN),
            &run_request(plan.clone()),
        );
        assert_eq!(status, expected, "{plan}: {body}");
        assert!(body.contains(mention), "{plan}: {body}");
        assert_eq!(body.trim().lines().count(), 1, "one line: {body}");
    }
    let (status, body) = call(&worker.url, "POST", "/v1/run", Some(TOKEN), b"{\"plan\": 1");
    assert_eq!(status, 400, "{body}");
    let oversized = vec![b' '; 100 * 1024];
    let (status, body) = call(&worker.url, "POST", "/v1/run", Some(TOKEN), &oversized);
    assert_eq!(status, 413, "{body}");

    // Through the controller: a wrong token and a refused target are usage
    // errors, said in one line, before anything runs.
    let wrong = dir.write("wrong-token", "nope\n");
    let output = run_bounded(
        controller(&[&worker], &wrong, &["-n", "10", &target.http("/")]),
        RUN_LIMIT,
    );
    assert_error(&output, 2, &["401"]);
    let output = run_bounded(
        controller(
            &[&worker],
            &token,
            &["-n", "10", &format!("http://127.0.0.1:{}/", closed_port())],
        ),
        RUN_LIMIT,
    );
    assert_error(&output, 2, &["not allowed"]);

    // Anything refused would have started by now.
    thread::sleep(Duration::from_millis(1500));
    assert_eq!(target.stats().total, 0, "a refused call reached the target");
    assert!(!std::path::Path::new("/tmp/written-by-a-worker").exists());

    // The same worker runs what it may.
    let output = run_bounded(
        controller(
            &[&worker],
            &token,
            &["-q", "-n", "10", "--h1", &target.http("/")],
        ),
        RUN_LIMIT,
    );
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    assert_eq!(target.stats().total, 10);
}

/// A run by count has no duration of its own: the worker stops it at its
/// `--max-duration`, and the report says it was interrupted.
#[test]
fn a_run_by_count_stops_at_the_workers_longest_duration() {
    let target = TestTarget::start();
    let dir = TempDir::new("dist-longest");
    let token = token_file(&dir);
    let worker = WorkerProcess::start(&token, &["--max-duration", "2s"]);
    let report_path = dir.path().join("stopped.json");
    let output = run_bounded(
        controller(
            &[&worker],
            &token,
            &[
                "-q",
                "-n",
                "1000000",
                "--rate",
                "200",
                "-c",
                "2",
                "--h1",
                "-o",
                path_str(&report_path),
                &target.http("/"),
            ],
        ),
        RUN_LIMIT,
    );
    assert_no_panic(&output);
    let report = read_json(&report_path);
    assert_eq!(report["interrupted"], true, "{report:#}");
    let done = num(&report, "/requests/done");
    assert!(done > 0 && done < 1_000_000, "{report:#}");
    assert_eq!(done, target.stats().total);
    let line = worker
        .wait_for_line("longest duration", Duration::from_secs(5))
        .unwrap_or_else(|| panic!("the worker says why it stopped: {:?}", worker.log()));
    eprintln!("longest duration: {line}");
}

/// `loadgen grpc --workers`: each worker makes its part of the calls, and
/// the merged report counts every call by its status.
#[test]
fn grpc_calls_split_over_two_workers_merge_their_statuses() {
    let target = TestTarget::start();
    let dir = TempDir::new("dist-grpc");
    let token = token_file(&dir);
    let workers = [
        WorkerProcess::start(&token, &[]),
        WorkerProcess::start(&token, &[]),
    ];
    let urls: Vec<&str> = workers.iter().map(|w| w.url.as_str()).collect();
    let report_path = dir.path().join("grpc.json");
    let mut cmd = loadgen();
    cmd.args(["grpc", "-q", "--workers", &urls.join(","), "--token-file"])
        .arg(&token)
        .args([
            "--call",
            "loadgen.echo.v1.Echo/Echo",
            "--proto",
            loadgen_target::ECHO_PROTO_PATH,
            "-d",
            r#"{"message": "x", "status": 14}"#,
            "-n",
            "2000",
            "-c",
            "4",
            "-m",
            "10",
            "-o",
            path_str(&report_path),
            &target.http(""),
        ]);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let report = read_json(&report_path);
    assert_num(&report, "/requests/done", 2000);
    assert_num(&report, "/grpc/statuses/UNAVAILABLE", 2000);
    assert_num(&report, "/requests/failed", 2000);
    assert_eq!(target.stats().http2, 2000);
    for worker in workers_of(&report) {
        assert_eq!(worker["requests"], 1000, "{report:#}");
    }
}

/// Usage errors of the controller's flags: one line, exit 2, nothing sent.
#[test]
fn controller_flags_are_checked_before_anything_is_sent() {
    let dir = TempDir::new("dist-flags");
    let token = token_file(&dir);
    let uri = "http://127.0.0.1:1/";
    let worker = format!("http://127.0.0.1:{}", closed_port());
    let token = path_str(&token);
    for (args, mention) in [
        (vec!["--workers", &worker, uri], "--token-file"),
        (vec!["--token-file", token, uri], "--workers"),
        (
            vec!["--workers", "ftp://x:1", "--token-file", token, uri],
            "--workers",
        ),
        (
            vec![
                "--workers",
                &worker,
                "--token-file",
                "/nonexistent/token",
                uri,
            ],
            "--token-file",
        ),
        (
            vec![
                "--workers",
                &worker,
                "--token-file",
                token,
                "--log-file",
                "x",
                uri,
            ],
            "--log-file",
        ),
        (
            vec![
                "--workers",
                &worker,
                "--token-file",
                token,
                "--shard",
                "0/2",
                uri,
            ],
            "--shard",
        ),
        (
            vec![
                "--workers",
                &format!("{worker},{worker}"),
                "--token-file",
                token,
                "-c",
                "1",
                uri,
            ],
            "--workers",
        ),
        (
            vec!["--workers", &worker, "--token-file", token, "-c", "0", uri],
            "-c",
        ),
        (
            vec![
                "--workers",
                &worker,
                "--token-file",
                token,
                "--on-worker-loss",
                "maybe",
                uri,
            ],
            "--on-worker-loss",
        ),
    ] {
        let output = run(&args);
        assert_error(&output, 2, &[mention]);
    }
    let output = run(&[
        "worker",
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        "/nonexistent/token",
    ]);
    assert_error(&output, 2, &["--token-file"]);
}

// ---------------------------------------------------------------------------
// Losing a worker, losing the controller
// ---------------------------------------------------------------------------

/// How the second of two workers is lost mid-run.
#[derive(Clone, Copy, PartialEq)]
enum Loss {
    /// SIGKILL: its connection closes.
    Killed,
    /// SIGSTOP: its connection stays open, and it says nothing; SIGCONT
    /// after the given time, while the run would still be going on.
    Stopped { wake_after: Duration },
}

/// What a run that lost its second worker left.
struct LossRun {
    output: Output,
    /// Its `-o` report.
    report: Value,
    /// Its `--hdr-log`.
    hdr_log: String,
    /// How long the controller took to end after the loss.
    took: Duration,
    /// Requests the target served over the whole run.
    served: u64,
    /// The lost worker (stopped, or killed).
    lost: WorkerProcess,
}

/// Loses the second of two workers mid-run, both loading the target at a
/// steady `--rate 400` for `run_for`.
fn lose_a_worker(policy: &str, loss: Loss, run_for: &str) -> LossRun {
    let target = TestTarget::start();
    let dir = TempDir::new("dist-loss");
    let token = token_file(&dir);
    let kept = WorkerProcess::start(&token, &[]);
    let mut lost = WorkerProcess::start(&token, &[]);
    let report_path = dir.path().join("kept.json");
    let hdr_log_path = dir.path().join("kept.hlog");
    let run = Background::start(controller(
        &[&kept, &lost],
        &token,
        &[
            "-q",
            "--on-worker-loss",
            policy,
            "--rate",
            "400",
            "-D",
            run_for,
            "-c",
            "8",
            "--h1",
            "-o",
            path_str(&report_path),
            "--hdr-log",
            path_str(&hdr_log_path),
            &target.http("/"),
        ],
    ));
    wait_for_served(&target, 0, Duration::from_secs(30));
    // Past a few whole seconds, each streamed to the controller.
    thread::sleep(Duration::from_millis(3500));
    let at = Instant::now();
    match loss {
        Loss::Killed => lost.kill(),
        Loss::Stopped { wake_after } => {
            let pid = lost.child.id() as libc::pid_t;
            // SAFETY: kill(2) on our own child, not reaped yet.
            unsafe { libc::kill(pid, libc::SIGSTOP) };
            thread::spawn(move || {
                thread::sleep(wake_after);
                // SAFETY: as above; the test holds the child until it ends.
                unsafe { libc::kill(pid, libc::SIGCONT) };
            });
        }
    }
    let output = run.wait(RUN_LIMIT);
    let took = at.elapsed();
    assert_no_panic(&output);
    let report = read_json(&report_path);
    let hdr_log = std::fs::read_to_string(&hdr_log_path).expect("--hdr-log was written");
    LossRun {
        output,
        report,
        hdr_log,
        took,
        served: settled_count(|| target.stats().total as usize) as u64,
        lost,
    }
}

/// The lost worker is named, its row says so, and its seconds up to the
/// loss are in the merged report, marked partial in every output.
fn check_loss(run: &LossRun) {
    let (output, report, doomed) = (&run.output, &run.report, &run.lost.url);
    let err = stderr(output);
    let named = format!("worker {doomed} (segment 1/2:1) lost");
    assert!(err.contains(&named), "{}", describe(output));
    assert!(
        err.contains("1 of 2 workers lost; the report is marked partial (--on-worker-loss "),
        "{}",
        describe(output)
    );
    let rows = workers_of(report);
    assert_eq!(rows[0]["state"], "reported", "{report:#}");
    assert_eq!(rows[1]["state"], "lost", "{report:#}");
    assert!(rows[1]["lost_reason"].is_string(), "{report:#}");
    let kept = rows[0]["requests"].as_u64().unwrap();
    assert!(kept > 0, "{report:#}");
    // Both parts are in the merged report: the kept worker's whole run and
    // the lost one's seconds up to its loss.
    assert_eq!(text(report, "/config/segment"), "0:1/2,1/2:1");
    let partial = field(report, "/partial").as_array().expect("partial");
    assert_eq!(partial.len(), 1, "{report:#}");
    let part = &partial[0];
    assert_eq!(part["worker"], 1, "{report:#}");
    assert_eq!(part["address"], doomed.as_str(), "{report:#}");
    assert_eq!(part["merged"], true, "{report:#}");
    assert!(
        part["seconds_received"].as_u64().unwrap() >= 2,
        "{report:#}"
    );
    assert!(part["lost_at"].is_string(), "{report:#}");
    let lost_requests = part["requests"].as_u64().unwrap();
    assert!(lost_requests > 0, "{report:#}");
    assert_num(report, "/requests/done", kept + lost_requests);
    assert!(
        stdout(output).contains("partial: worker #1 "),
        "{}",
        describe(output)
    );
    assert!(
        run.hdr_log.contains("\n#partial: worker #1 "),
        "{}",
        run.hdr_log
    );
}

/// The merged count is the target's within one second's worth of
/// requests: what the lost worker had in its last, unsent second.
fn check_count(run: &LossRun) {
    let done = num(&run.report, "/requests/done");
    eprintln!(
        "the target served {}, the merged report counts {done}",
        run.served
    );
    assert!(
        run.served.abs_diff(done) <= 400,
        "the target served {}, the merged report counts {done}:\n{:#}",
        run.served,
        run.report
    );
}

#[test]
fn a_lost_worker_fails_the_run_by_default() {
    let run = lose_a_worker("fail", Loss::Killed, "6s");
    eprintln!("fail: the controller ended {:?} after the worker was killed (at the end of the other's -D)", run.took);
    assert_eq!(
        run.output.status.code(),
        Some(1),
        "{}",
        describe(&run.output)
    );
    assert!(
        stderr(&run.output).contains("(--on-worker-loss fail)"),
        "{}",
        describe(&run.output)
    );
    check_loss(&run);
    check_count(&run);
}

#[test]
fn a_lost_workers_seconds_are_counted_with_continue() {
    let run = lose_a_worker("continue", Loss::Killed, "6s");
    eprintln!("continue: the controller ended {:?} after the worker was killed (at the end of the other's -D)", run.took);
    // A partial report: exit 3.
    assert_eq!(
        run.output.status.code(),
        Some(3),
        "{}",
        describe(&run.output)
    );
    check_loss(&run);
    check_count(&run);
}

/// A worker that stops answering (SIGSTOP: its connection stays open) is
/// given up after the silence limit; once it runs again, it finds its
/// controller gone and cancels.
#[test]
fn a_silent_worker_is_given_up_and_cancels_when_it_wakes() {
    // The worker is stopped about 4.5 s into its -D; the controller gives it
    // up 5 s later; the worker wakes 3 s after that, while its own -D still
    // has about 4 s to go, and finds its controller gone. (Woken after its
    // -D, it would complete.)
    let loss = Loss::Stopped {
        wake_after: Duration::from_secs(8),
    };
    // continue-ok: the run exits as it would have without the loss.
    let run = lose_a_worker("continue-ok", loss, "16s");
    eprintln!(
        "silent: the controller ended {:?} after the worker was stopped",
        run.took
    );
    assert_eq!(
        run.output.status.code(),
        Some(0),
        "{}",
        describe(&run.output)
    );
    assert!(
        stderr(&run.output).contains("said nothing for 5s"),
        "{}",
        describe(&run.output)
    );
    check_loss(&run);
    let lost = &run.lost;
    let line = lost
        .wait_for_line("the controller went away", Duration::from_secs(10))
        .unwrap_or_else(|| panic!("the woken worker did not cancel: {:?}", lost.log()));
    eprintln!("silent: once woken, {line}");
}

/// SIGKILL the controller mid-run: both workers notice the closed
/// connection, cancel their runs and say so, and the target's count stops
/// growing.
#[test]
fn workers_stop_when_their_controller_is_killed() {
    let target = TestTarget::start();
    let dir = TempDir::new("dist-orphan");
    let token = token_file(&dir);
    let a = WorkerProcess::start(&token, &[]);
    let b = WorkerProcess::start(&token, &[]);
    let mut run = Background::start(controller(
        &[&a, &b],
        &token,
        &[
            "-q",
            "--rate",
            "400",
            "-D",
            "30s",
            "-c",
            "8",
            "--h1",
            &target.http("/"),
        ],
    ));
    wait_for_served(&target, 0, Duration::from_secs(30));
    thread::sleep(Duration::from_secs(1));
    let killed = Instant::now();
    let _ = run.child.kill();
    let _ = run.child.wait();
    for worker in [&a, &b] {
        let line = worker
            .wait_for_line("the controller went away", Duration::from_secs(10))
            .unwrap_or_else(|| panic!("the worker did not cancel: {:?}", worker.log()));
        eprintln!(
            "worker {} said it cancelled {:?} after the kill: {line}",
            worker.url,
            killed.elapsed()
        );
    }
    let after_cancel = target.stats().total;
    let mut last_change = killed;
    let mut count = after_cancel;
    // Requests in flight at the cancel may still end; none starts.
    while killed.elapsed() < Duration::from_secs(3) {
        let now = target.stats().total;
        if now != count {
            count = now;
            last_change = Instant::now();
        }
        thread::sleep(Duration::from_millis(5));
    }
    eprintln!(
        "the target's count last grew {:?} after the kill ({after_cancel} when both workers had cancelled, {count} at the end)",
        last_change.duration_since(killed)
    );
    assert_eq!(
        count, after_cancel,
        "the load went on after the workers cancelled"
    );
    let _ = run.wait(Duration::from_secs(5));
}

/// Sends `signals` to the process `pid` at once: one burst, one stop.
fn burst(pid: u32, signals: &[libc::c_int]) {
    for signal in signals {
        // SAFETY: kill(2) on our own child, not reaped yet.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, *signal) }, 0);
    }
}

/// Waits until the target's count has not grown for a second; bounded.
fn wait_until_idle(target: &TestTarget) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut count = target.stats().total;
    let mut still_since = Instant::now();
    while still_since.elapsed() < Duration::from_secs(1) {
        assert!(Instant::now() < deadline, "the load went on");
        thread::sleep(Duration::from_millis(20));
        let now = target.stats().total;
        if now != count {
            count = now;
            still_since = Instant::now();
        }
    }
    count
}

/// A controller stopped by a burst of SIGINT and SIGTERM tells its
/// workers to stop, prints the merged report of what they did, marked
/// interrupted, and exits 130 or 143 (the signal the watcher saw first); the workers stop loading the target and
/// take the next run.
#[test]
fn an_interrupted_controller_stops_its_workers_and_reports() {
    let target = TestTarget::start();
    let dir = TempDir::new("dist-interrupted");
    let token = token_file(&dir);
    let a = WorkerProcess::start(&token, &[]);
    let b = WorkerProcess::start(&token, &[]);
    let report_path = dir.path().join("interrupted.json");
    let run = Background::start(controller(
        &[&a, &b],
        &token,
        &[
            "-q",
            "--rate",
            "400",
            "-D",
            "30s",
            "-c",
            "8",
            "--h1",
            "-o",
            path_str(&report_path),
            &target.http("/"),
        ],
    ));
    wait_for_served(&target, 0, Duration::from_secs(30));
    thread::sleep(Duration::from_millis(2500));
    burst(run.child.id(), &[libc::SIGINT, libc::SIGTERM]);
    let output = run.wait(Duration::from_secs(20));
    assert_no_panic(&output);
    // Both signals may be pending when the watcher wakes: either one is
    // the stop's, and the exit code names it (130 or 143).
    assert!(
        matches!(output.status.code(), Some(130 | 143)),
        "{}",
        describe(&output)
    );
    assert!(
        stdout(&output).contains("\ninterrupted: "),
        "{}",
        describe(&output)
    );
    // Its workers' runs were stopped by the controller, not on their machines.
    assert!(
        !String::from_utf8_lossy(&output.stderr).contains("stopped before the run's end"),
        "{}",
        describe(&output)
    );
    let report = read_json(&report_path);
    assert_eq!(report["interrupted"], true, "{report:#}");
    for row in workers_of(&report) {
        assert_eq!(row["state"], "reported", "{report:#}");
    }
    let done = num(&report, "/requests/done");
    assert!(done > 0, "{report:#}");
    for worker in [&a, &b] {
        worker
            .wait_for_line("cancelled by a call to /v1/cancel", Duration::from_secs(10))
            .unwrap_or_else(|| panic!("the worker did not stop: {:?}", worker.log()));
    }
    let served = wait_until_idle(&target);
    eprintln!("interrupted: the report counts {done}, the target served {served}");
    assert!(
        served.abs_diff(done) <= 400,
        "served {served}, counted {done}"
    );
    // Idle again: the next run is taken.
    let next = run_bounded(
        controller(
            &[&a, &b],
            &token,
            &["-n", "20", "-c", "2", "--h1", &target.http("/")],
        ),
        RUN_LIMIT,
    );
    assert_eq!(next.status.code(), Some(0), "{}", describe(&next));
}

/// A worker sent SIGINT and SIGTERM at once stops once: its run is
/// cancelled, its report (marked interrupted) still reaches the
/// controller, and it exits 0, not at once by the second signal. The
/// controller says the worker stopped early and exits 1
/// (`--on-worker-loss fail`, the default).
#[test]
fn a_worker_stopped_by_a_burst_of_signals_stops_once() {
    let target = TestTarget::start();
    let dir = TempDir::new("dist-worker-burst");
    let token = token_file(&dir);
    let mut worker = WorkerProcess::start(&token, &[]);
    let report_path = dir.path().join("stopped.json");
    let run = Background::start(controller(
        &[&worker],
        &token,
        &[
            "-q",
            "--rate",
            "200",
            "-D",
            "30s",
            "-c",
            "4",
            "--h1",
            "-o",
            path_str(&report_path),
            &target.http("/"),
        ],
    ));
    wait_for_served(&target, 0, Duration::from_secs(30));
    thread::sleep(Duration::from_millis(1500));
    burst(worker.child.id(), &[libc::SIGINT, libc::SIGTERM]);
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = worker.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the worker did not stop: {:?}",
            worker.log()
        );
        thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(0), "{:?}", worker.log());
    let stopping = worker
        .log()
        .iter()
        .filter(|l| l.contains("stopping"))
        .count();
    assert_eq!(stopping, 1, "{:?}", worker.log());
    let output = run.wait(Duration::from_secs(20));
    assert_no_panic(&output);
    let report = read_json(&report_path);
    assert_eq!(workers_of(&report)[0]["state"], "reported", "{report:#}");
    assert_eq!(report["interrupted"], true, "{report:#}");
    assert!(num(&report, "/requests/done") > 0, "{report:#}");
    // The run did not go to its end: the controller does not say it did.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("1 of 1 workers stopped before the run's end"),
        "{stderr}"
    );
    worker.kill();
}

// ---------------------------------------------------------------------------
// Network namespaces
// ---------------------------------------------------------------------------

/// Three network namespaces of the test's own: the controller and nginx in
/// one, a worker in each of the others, each worker linked to the
/// controller's namespace by a veth pair. Nothing leaves them.
///
/// ```text
///   worker 1 (198.18.0.2) ──veth── (198.18.0.1) controller, nginx :8080
///   worker 2 (198.18.0.6) ──veth── (198.18.0.5)
/// ```
struct Namespaces {
    controller: String,
    workers: [String; 2],
}

impl Namespaces {
    /// `None` (with the reason printed) where namespaces cannot be made.
    fn create() -> Option<Namespaces> {
        let tag = format!("lg{}", std::process::id());
        let names = Namespaces {
            controller: format!("{tag}c"),
            workers: [format!("{tag}w1"), format!("{tag}w2")],
        };
        if let Err(why) = ip(&["netns", "add", &names.controller]) {
            eprintln!("skipping the network namespace test: cannot create a namespace: {why}");
            return None;
        }
        // Dropped from here on, the namespaces are deleted whatever fails.
        for ns in &names.workers {
            ip(&["netns", "add", ns]).expect("a second namespace");
        }
        let c = names.controller.as_str();
        let links = [
            (
                &names.workers[0],
                "vc1",
                "vw1",
                "198.18.0.1/30",
                "198.18.0.2/30",
                "198.18.0.1",
            ),
            (
                &names.workers[1],
                "vc2",
                "vw2",
                "198.18.0.5/30",
                "198.18.0.6/30",
                "198.18.0.5",
            ),
        ];
        for (ns, here, there, here_addr, there_addr, gateway) in links {
            for args in [
                vec![
                    "-n", c, "link", "add", here, "type", "veth", "peer", "name", there, "netns",
                    ns,
                ],
                vec!["-n", c, "addr", "add", here_addr, "dev", here],
                vec!["-n", c, "link", "set", here, "up"],
                vec!["-n", ns, "addr", "add", there_addr, "dev", there],
                vec!["-n", ns, "link", "set", there, "up"],
                vec!["-n", ns, "link", "set", "lo", "up"],
                vec!["-n", ns, "route", "add", "default", "via", gateway],
            ] {
                ip(&args).unwrap_or_else(|why| panic!("ip {}: {why}", args.join(" ")));
            }
        }
        ip(&["-n", c, "link", "set", "lo", "up"]).expect("lo up");
        Some(names)
    }

    /// `ip netns exec NS <program> <args>`.
    fn exec(ns: &str, program: &std::path::Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(ip_binary());
        cmd.args(["netns", "exec", ns]).arg(program).args(args);
        cmd
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for ns in self.workers.iter().chain([&self.controller]) {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}

/// `ip` from PATH, or where Debian puts it when /usr/sbin is not on PATH.
fn ip_binary() -> std::path::PathBuf {
    find_program("ip", &["/usr/sbin/ip", "/sbin/ip"]).unwrap_or_else(|| "ip".into())
}

fn find_program(name: &str, elsewhere: &[&str]) -> Option<std::path::PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        elsewhere
            .iter()
            .map(std::path::PathBuf::from)
            .find(|p| p.is_file())
    })
}

fn ip(args: &[&str]) -> Result<(), String> {
    let output = Command::new(ip_binary())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
    }
}

fn nginx_path() -> std::path::PathBuf {
    find_program("nginx", &["/usr/sbin/nginx"])
        .expect("nginx is not installed: run scripts/test, which installs it")
}

/// nginx in the controller's namespace, answering `/` on 198.18.0.1:8080,
/// one access-log line per request.
struct NamespacedNginx {
    child: Child,
    access_log: std::path::PathBuf,
}

impl NamespacedNginx {
    fn start(ns: &str, dir: &TempDir) -> NamespacedNginx {
        let d = dir.path().display();
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        let conf = dir.write(
            "nginx.conf",
            format!(
                r#"worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/tmp/client_body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
    keepalive_requests 100000;
    server {{
        listen 198.18.0.1:8080;
        location / {{ return 200 "hello, world\n"; }}
    }}
}}
"#
            ),
        );
        let child = Namespaces::exec(
            ns,
            &nginx_path(),
            &[
                "-p",
                &d.to_string(),
                "-c",
                path_str(&conf),
                "-g",
                "daemon off;",
            ],
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nginx");
        let mut nginx = NamespacedNginx {
            child,
            access_log: dir.path().join("access.log"),
        };
        // nginx writes its pid file once its sockets are bound.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !dir.path().join("nginx.pid").exists() {
            if let Some(status) = nginx.child.try_wait().unwrap() {
                let log = std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default();
                panic!("nginx exited with {status}: {log}");
            }
            assert!(Instant::now() < deadline, "nginx did not start");
            thread::sleep(Duration::from_millis(20));
        }
        nginx
    }

    fn requests(&self) -> u64 {
        settled_count(|| {
            std::fs::read(&self.access_log)
                .map(|bytes| bytes.iter().filter(|b| **b == b'\n').count())
                .unwrap_or(0)
        }) as u64
    }
}

impl Drop for NamespacedNginx {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own child, not reaped yet.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Two workers in two namespaces and a controller in a third, against
/// nginx: nginx's access log counts what the merged report says succeeded.
#[test]
fn two_workers_in_network_namespaces_against_nginx() {
    let Some(namespaces) = Namespaces::create() else {
        return;
    };
    let dir = TempDir::new("dist-netns");
    let token = token_file(&dir);
    let nginx = NamespacedNginx::start(&namespaces.controller, &dir);
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_loadgen"));
    let workers: Vec<WorkerProcess> = namespaces
        .workers
        .iter()
        .zip(["198.18.0.2:7070", "198.18.0.6:7070"])
        .map(|(ns, listen)| {
            WorkerProcess::spawn(Namespaces::exec(
                ns,
                binary,
                &[
                    "worker",
                    "--listen",
                    listen,
                    "--token-file",
                    path_str(&token),
                    "--allow-target",
                    "198.18.0.1:8080",
                ],
            ))
        })
        .collect();
    let report_path = dir.path().join("netns.json");
    let urls: Vec<&str> = workers.iter().map(|w| w.url.as_str()).collect();
    let output = run_bounded(
        Namespaces::exec(
            &namespaces.controller,
            binary,
            &[
                "--workers",
                &urls.join(","),
                "--token-file",
                path_str(&token),
                "-n",
                "2000",
                "-c",
                "4",
                "--h1",
                "-o",
                path_str(&report_path),
                "http://198.18.0.1:8080/",
            ],
        ),
        RUN_LIMIT,
    );
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let report = read_json(&report_path);
    assert_num(&report, "/requests/succeeded", nginx.requests());
    assert_all_ok(&report, 2000, BODY_LEN);
    let text = stdout(&output);
    assert!(
        text.contains("\nworkers:\n") && text.contains("start skew"),
        "{text}"
    );
    for url in &urls {
        assert!(text.contains(url), "{text}");
    }
    for row in workers_of(&report) {
        assert_eq!(row["state"], "reported", "{row:#}");
        assert!(row["start_skew_us"].is_i64(), "{row:#}");
    }
    print_clocks("namespaces", &report);

    // The first worker's link goes down mid-run: nothing closes its control
    // connection, so the worker finds out from TCP (keepalive, user
    // timeout), and the controller from its silence.
    let served = nginx.requests();
    let mut cmd = Namespaces::exec(
        &namespaces.controller,
        binary,
        &[
            "-q",
            "--workers",
            &urls.join(","),
            "--token-file",
            path_str(&token),
            // So that the worker's log line comes when it notices, not
            // after a grace for requests that cannot end any more.
            "--stop-grace",
            "0s",
            "--rate",
            "200",
            "-D",
            "8s",
            "-c",
            "4",
            "--h1",
            "http://198.18.0.1:8080/",
        ],
    );
    cmd.stdin(Stdio::null());
    let run = Background::start(cmd);
    let deadline = Instant::now() + Duration::from_secs(30);
    while nginx.requests() <= served {
        assert!(Instant::now() < deadline, "the second run never started");
    }
    thread::sleep(Duration::from_secs(1));
    let cut = Instant::now();
    ip(&["-n", &namespaces.controller, "link", "set", "vc1", "down"]).expect("link down");
    let line = workers[0]
        .wait_for_line("the controller went away", Duration::from_secs(15))
        .unwrap_or_else(|| panic!("the cut-off worker did not cancel: {:?}", workers[0].log()));
    eprintln!(
        "namespaces: the cut-off worker cancelled {:?} after its link went down: {line}",
        cut.elapsed()
    );
    let output = run.wait(RUN_LIMIT);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let named = format!("worker {} (segment 0:1/2) lost", urls[0]);
    assert!(stderr(&output).contains(&named), "{}", describe(&output));
}
