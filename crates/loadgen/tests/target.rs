//! Runs against the built-in target, whose counters tell exactly how many
//! requests arrived over which protocol.

mod common;

use common::*;

const N: u64 = 1000;

/// Runs `-n 1000 -c 10 <args>` against `target` and checks the accounting on
/// both sides: the report says 1000 succeeded with `body_len`-byte bodies
/// over `protocol`, and the target saw exactly 1000 requests of that version.
fn check_run(target: &TestTarget, args: &[&str], protocol: &str, body_len: u64) {
    let before = target.stats();
    let mut full = vec!["-n", "1000", "-c", "10"];
    full.extend_from_slice(args);
    let report = run_json_ok(&full);
    let seen = stats_delta(before, target.stats());

    assert_all_ok(&report, N, body_len);
    assert_protocol(&report, protocol);
    let (http1, http2, http3) = match protocol {
        "http/1.1" => (N, 0, 0),
        "h3" => (0, 0, N),
        _ => (0, N, 0),
    };
    assert_eq!(
        (seen.http1, seen.http2, seen.http3, seen.total),
        (http1, http2, http3, N),
        "target counts (http1, http2, http3, total) for {args:?}; report:\n{report:#}"
    );
    assert_eq!(
        seen.response_body_bytes,
        N * body_len,
        "response body bytes the target sent for {args:?}"
    );
}

#[test]
fn http1_cleartext() {
    let t = TestTarget::start();
    check_run(&t, &["--h1", &t.http("/")], "http/1.1", BODY_LEN);
}

#[test]
fn http1_pipelined() {
    let t = TestTarget::start();
    check_run(&t, &["--h1", "-m", "8", &t.http("/")], "http/1.1", BODY_LEN);
}

#[test]
fn h2c_is_the_default_for_http_uris() {
    let t = TestTarget::start();
    check_run(&t, &[&t.http("/")], "h2c", BODY_LEN);
}

#[test]
fn h2c_with_concurrent_streams() {
    let t = TestTarget::start();
    check_run(&t, &["-m", "10", &t.http("/")], "h2c", BODY_LEN);
}

/// Wake-up coalescing changes when responses are read, never how many are
/// counted: at its longest and turned off, the accounting is exact, and
/// the report says which it was.
#[test]
fn h2c_with_wake_coalescing_at_its_longest_and_off() {
    let t = TestTarget::start();
    for window in ["1ms", "0"] {
        check_run(
            &t,
            &["-m", "10", "--coalesce-wakeups", window, &t.http("/")],
            "h2c",
            BODY_LEN,
        );
    }
    let recorded = |args: &[&str]| {
        let mut full = vec!["-n", "20", "-c", "2"];
        full.extend_from_slice(args);
        field(&run_json_ok(&full), "/config/wake_coalescing_us").clone()
    };
    let url = t.http("/");
    assert_eq!(recorded(&["-m", "4", &url]), 1000);
    assert_eq!(
        recorded(&["-m", "4", "--coalesce-wakeups", "250us", &url]),
        250
    );
    assert!(recorded(&["-m", "4", "--coalesce-wakeups", "0", &url]).is_null());
    // One request per connection: nothing to batch, no sleep.
    assert!(recorded(&[&url]).is_null());
}

#[test]
fn h2_over_tls() {
    let t = TestTarget::start();
    check_run(&t, &["-k", "-m", "10", &t.https("/")], "h2", BODY_LEN);
}

#[test]
fn http1_over_tls() {
    let t = TestTarget::start();
    check_run(&t, &["-k", "--h1", &t.https("/")], "http/1.1", BODY_LEN);
}

/// `host:port` of a `scheme://host:port/` URL.
fn authority_of(url: &str) -> &str {
    url.split("://").nth(1).unwrap().trim_end_matches('/')
}

#[test]
fn connect_to_overrides_where_but_not_whom() {
    let t = TestTarget::start();
    // Nothing resolves these names: every request must go to --connect-to.
    let clear = t.http("/");
    check_run(
        &t,
        &[
            "--connect-to",
            authority_of(&clear),
            "http://loadgen.invalid:1/",
        ],
        "h2c",
        BODY_LEN,
    );
    let tls = t.https("/");
    check_run(
        &t,
        &[
            "-k",
            "--connect-to",
            authority_of(&tls),
            "https://localhost.invalid:1/",
        ],
        "h2",
        BODY_LEN,
    );
}

#[test]
fn unix_socket_h2c() {
    let t = TestTarget::start();
    let base = t.unix_base();
    check_run(&t, &["-B", &base, "http://localhost/"], "h2c", BODY_LEN);
}

#[test]
fn unix_socket_http1() {
    let t = TestTarget::start();
    let base = t.unix_base();
    check_run(
        &t,
        &["--h1", "-B", &base, "http://localhost/"],
        "http/1.1",
        BODY_LEN,
    );
}

#[test]
fn body_size_parameter_h2c_and_http1() {
    let t = TestTarget::start();
    check_run(&t, &[&t.http("/?s=1k")], "h2c", 1024);
    check_run(&t, &["--h1", &t.http("/?s=1k")], "http/1.1", 1024);
}

#[test]
fn body_size_parameter_over_tls() {
    let t = TestTarget::start();
    check_run(&t, &["-k", "-m", "10", &t.https("/?s=1k")], "h2", 1024);
}

#[test]
fn statuses_without_content_come_without_a_body() {
    let t = TestTarget::start();
    for (status, args) in [
        ("204", vec![]),
        ("204", vec!["--h1"]),
        ("304", vec![]),
        ("304", vec!["--h1"]),
    ] {
        let url = t.http(&format!("/?status={status}"));
        let mut full = vec!["-n", "100", "-c", "2"];
        full.extend_from_slice(&args);
        full.push(&url);
        let report = run_json_ok(&full);
        assert_num(&report, "/requests/errored", 0);
        assert_num(&report, &format!("/status_codes/by_code/{status}"), 100);
    }
}

#[test]
fn status_503_counts_as_failed_and_exits_zero() {
    let t = TestTarget::start();
    for args in [vec![], vec!["--h1"]] {
        let before = t.stats();
        let url = t.http("/?status=503");
        let mut full = vec!["-n", "1000", "-c", "10"];
        full.extend_from_slice(&args);
        full.push(&url);
        // The run worked: the server answered every request.
        let report = run_json_ok(&full);
        for (pointer, expected) in [
            ("/requests/done", N),
            ("/requests/succeeded", 0),
            ("/requests/failed", N),
            ("/requests/errored", 0),
            ("/requests/timeout", 0),
            ("/status_codes/2xx", 0),
            ("/status_codes/5xx", N),
            ("/status_codes/by_code/503", N),
        ] {
            assert_num(&report, pointer, expected);
        }
        assert_eq!(stats_delta(before, t.stats()).total, N, "{args:?}");
    }
}

#[test]
fn tls_verification_failure_hints_at_insecure() {
    let t = TestTarget::start();
    let url = t.https("/");
    let (report, output) = run_json(&["-n", "100", "-c", "10", &url]);
    assert_ne!(
        output.status.code(),
        Some(0),
        "a self-signed certificate must not be trusted without -k\n{}",
        describe(&output)
    );
    let err = stderr(&output);
    assert!(
        err.contains("-k") || err.contains("--insecure"),
        "stderr should tell the user about -k/--insecure\n{}",
        describe(&output)
    );
    assert_num(&report, "/requests/succeeded", 0);
    assert_num(&report, "/requests/errored", 100);
    assert!(
        num(&report, "/errors/tls") > 0,
        "errors.tls should count the failed handshakes:\n{report:#}"
    );
    assert_eq!(t.stats().total, 0, "no request may reach the target");
}

#[test]
fn tls_ca_file_trusts_the_target() {
    let t = TestTarget::start();
    let ca = t.ca_file();
    check_run(
        &t,
        &["--tls-ca", path_str(&ca), "-m", "10", &t.https("/")],
        "h2",
        BODY_LEN,
    );
    check_run(
        &t,
        &["--tls-ca", path_str(&ca), "--h1", &t.https("/")],
        "http/1.1",
        BODY_LEN,
    );
}

#[test]
fn duration_mode_with_warm_up() {
    let t = TestTarget::start();
    let url = t.http("/");
    let report = run_json_ok(&["-D", "2", "--warm-up-time", "1", "-c", "4", &url]);
    assert_eq!(text(&report, "/config/mode"), "duration", "{report:#}");
    let done = num(&report, "/requests/done");
    assert!(done > 0, "requests.done should be positive:\n{report:#}");
    assert_num(&report, "/requests/succeeded", done);
    assert_num(&report, "/requests/failed", 0);
    assert_num(&report, "/requests/errored", 0);
    assert!(
        num(&report, "/requests/started") >= done,
        "started >= done:\n{report:#}"
    );
    // As h2load's: what ended, not what was cancelled in flight at the end.
    assert_num(&report, "/requests/total", done);
    // Requests of the warm-up reach the target but are not recorded.
    assert!(
        t.stats().total >= done,
        "the target served {} requests, fewer than the {done} recorded",
        t.stats().total
    );
}

#[test]
fn multiple_uris_share_the_first_ones_origin() {
    let t = TestTarget::start();
    let first = t.http("/a");
    let report = run_json_ok(&["-n", "100", "-c", "1", &first, "/b"]);
    assert_num(&report, "/requests/succeeded", 100);
    assert_num(&report, "/requests/errored", 0);
    assert_eq!(t.stats().total, 100);
    let uris = field(&report, "/config/uris")
        .as_array()
        .unwrap_or_else(|| panic!("config.uris is not a list:\n{report:#}"));
    assert_eq!(uris.len(), 2, "{report:#}");
}

#[test]
fn data_file_is_posted() {
    let t = TestTarget::start();
    let payload = "x".repeat(100) + "\n";
    let file = t.dir.write("body.txt", &payload);
    let len = payload.len() as u64;
    for protocol in ["h2c", "http/1.1"] {
        let url = t.http("/");
        let mut args = vec!["-n", "100", "-c", "10", "-d", path_str(&file)];
        if protocol == "http/1.1" {
            args.push("--h1");
        }
        args.push(&url);
        let before = t.stats();
        let report = run_json_ok(&args);
        let seen = stats_delta(before, t.stats());
        assert_all_ok(&report, 100, BODY_LEN);
        assert_protocol(&report, protocol);
        assert_eq!(text(&report, "/config/method"), "POST", "{report:#}");
        assert_eq!(seen.total, 100, "{protocol}");
        assert_eq!(seen.request_body_bytes, 100 * len, "{protocol}");
    }
}

#[test]
fn text_output_follows_h2load_layout() {
    let t = TestTarget::start();
    let url = t.http("/");
    let output = run(&["-n", "1000", "-c", "10", "--h1", &url]);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let out = stdout(&output);
    let has_line = |expected: &str| out.lines().any(|l| l.trim() == expected);
    assert!(
        has_line(
            "requests: 1000 total, 1000 started, 1000 done, 1000 succeeded, 0 failed, 0 errored, 0 timeout"
        ),
        "h2load's requests line is missing\n{}",
        describe(&output)
    );
    assert!(
        has_line("status codes: 1000 2xx, 0 3xx, 0 4xx, 0 5xx"),
        "h2load's status codes line is missing\n{}",
        describe(&output)
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("traffic: ") && l.trim_end().ends_with("(13000) data")),
        "h2load's traffic line should end with the data bytes\n{}",
        describe(&output)
    );
    assert_eq!(t.stats().http1, N);
}

#[test]
fn input_file_lists_the_uris() {
    let t = TestTarget::start();
    let list = format!("{}\n{}\n", t.http("/a"), t.http("/b?s=1k"));
    let file = t.dir.write("uris.txt", list);
    let report = run_json_ok(&["-n", "100", "-c", "2", "-i", path_str(&file)]);
    assert_num(&report, "/requests/succeeded", 100);
    assert_num(&report, "/requests/errored", 0);
    // Each client cycles through the two paths: half get the 1k body.
    assert_num(&report, "/bytes/data", 50 * BODY_LEN + 50 * 1024);
    assert_eq!(t.stats().total, 100);
}

#[test]
fn output_file_formats() {
    let t = TestTarget::start();
    let url = t.http("/");
    let json = t.dir.path().join("report.json");
    let jsonl = t.dir.path().join("runs.jsonl");
    let csv = t.dir.path().join("runs.csv");
    for _ in 0..2 {
        for file in [&json, &jsonl, &csv] {
            let output = run(&["-q", "-n", "10", "-o", path_str(file), &url]);
            assert_no_panic(&output);
            assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
        }
    }
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };

    // JSON is overwritten: one report.
    let report: serde_json::Value = serde_json::from_str(&read(&json)).expect("report.json");
    assert_all_ok(&report, 10, BODY_LEN);

    // JSONL gains one report per run.
    let text = read(&jsonl);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 2, "runs.jsonl:\n{text}");
    for line in lines {
        let report: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        assert_all_ok(&report, 10, BODY_LEN);
    }

    // CSV: a header, then one row per run.
    let text = read(&csv);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 3, "runs.csv:\n{text}");
    assert_eq!(t.stats().total, 60);
}

/// The lines of a `--log-file`: (start µs since the epoch, status, duration µs).
fn log_lines(path: &std::path::Path) -> Vec<(u64, i32, u64)> {
    std::fs::read_to_string(path)
        .expect("the log file exists")
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "line {line:?}");
            (
                fields[0].parse().unwrap(),
                fields[1].parse().unwrap(),
                fields[2].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn log_file_has_one_line_per_request() {
    let t = TestTarget::start();
    let dir = TempDir::new("log-file");
    let path = dir.path().join("requests.log");
    let before_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64;
    let url = t.http("/?status=503");
    let report = run_json_ok(&[
        "-n",
        "1000",
        "-c",
        "10",
        "-t",
        "2",
        "--log-file",
        path_str(&path),
        &url,
    ]);
    assert_num(&report, "/requests/failed", N);
    let lines = log_lines(&path);
    assert_eq!(lines.len() as u64, N);
    for (start, status, _) in &lines {
        assert_eq!(*status, 503);
        assert!(
            *start >= before_us,
            "start {start} before the run began ({before_us})"
        );
    }
}

#[test]
fn log_file_marks_requests_without_a_response() {
    let t = TestTarget::start();
    let dir = TempDir::new("log-file-timeouts");
    let path = dir.path().join("requests.log");
    let url = t.http("/?delay=2s");
    let (report, output) = run_json(&[
        "-n",
        "6",
        "-c",
        "2",
        "--request-timeout",
        "100ms",
        "--log-file",
        path_str(&path),
        &url,
    ]);
    // Every request errored: exit 1, as for any such run; the log is still written.
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_num(&report, "/requests/timeout", 6);
    let lines = log_lines(&path);
    assert_eq!(lines.len(), 6);
    assert!(
        lines.iter().all(|&(_, status, _)| status == -1),
        "{lines:?}"
    );
    // Each ended at its timeout, not before.
    assert!(
        lines.iter().all(|&(_, _, duration)| duration >= 100_000),
        "{lines:?}"
    );
}

#[test]
fn bytes_sent_are_counted_on_every_protocol() {
    let target = TestTarget::start();
    let sent = |args: &[&str]| {
        let report = run_json_ok(args);
        num(&report, "/bytes/sent")
    };
    // One HTTP/1.1 request's bytes, the same each time: twice the requests,
    // twice the bytes.
    let uri = target.http("/");
    let ten = sent(&["--h1", "-n", "10", "-c", "1", &uri]);
    let twenty = sent(&["--h1", "-n", "20", "-c", "1", &uri]);
    assert!(ten > 10 * "GET / HTTP/1.1\r\n".len() as u64, "{ten}");
    assert_eq!(twenty, 2 * ten);
    // HTTP/2 and HTTP/3 add their framing and control frames.
    let tls = target.https("/");
    assert!(sent(&["-k", "-n", "10", "-c", "1", &tls]) > 0);
    assert!(sent(&["-k", "--h3", "-n", "10", "-c", "1", &tls]) > 0);
}
