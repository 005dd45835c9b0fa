//! HTTP/3 over QUIC against the built-in target, which serves HTTP/3 on the
//! UDP side of its TLS port and counts HTTP/3 requests apart.

mod common;

use common::*;
use std::time::{Duration, Instant};

const N: u64 = 1000;

/// Runs `-n 1000 -c 10 -m 10 <args>` and checks both sides: 1000 succeeded
/// with `body_len`-byte bodies over h3, and the target counted exactly 1000
/// HTTP/3 requests.
fn check_h3_run(target: &TestTarget, args: &[&str], body_len: u64) -> serde_json::Value {
    let before = target.stats();
    let mut full = vec!["-n", "1000", "-c", "10", "-m", "10"];
    full.extend_from_slice(args);
    let report = run_json_ok(&full);
    let seen = stats_delta(before, target.stats());
    assert_all_ok(&report, N, body_len);
    assert_protocol(&report, "h3");
    assert_eq!(
        (seen.http1, seen.http2, seen.http3, seen.total),
        (0, 0, N, N),
        "target counts (http1, http2, http3, total) for {args:?}; report:\n{report:#}"
    );
    assert_eq!(seen.response_body_bytes, N * body_len, "{args:?}");
    report
}

#[test]
fn h3_against_the_target() {
    let t = TestTarget::start();
    let report = check_h3_run(&t, &["--h3", "-k", &t.https("/")], BODY_LEN);
    assert_num(&report, "/bytes/data", 13_000);
    assert_num(&report, "/connections", 10);
    assert_eq!(text(&report, "/tls/protocol"), "TLSv1.3", "{report:#}");
    let sent = num(&report, "/quic/datagrams_sent");
    let received = num(&report, "/quic/datagrams_received");
    assert!(
        sent > 0 && received > 0,
        "quic datagram counts should be positive:\n{report:#}"
    );
    assert!(num(&report, "/quic/rtt_us") > 0, "{report:#}");
    assert!(
        num(&report, "/bytes/total") > 13_000,
        "bytes.total counts UDP payload:\n{report:#}"
    );
}

#[test]
fn alpn_list_h3_selects_quic_and_body_sizes_count() {
    let t = TestTarget::start();
    check_h3_run(&t, &["--alpn-list", "h3", "-k", &t.https("/?s=1k")], 1024);
    check_h3_run(&t, &["--h3", "-k", &t.https("/?s=100k")], 100 * 1024);
}

#[test]
fn h3_verifies_certificates_with_tls_ca_and_sni() {
    let t = TestTarget::start();
    let ca = t.ca_file();
    check_h3_run(
        &t,
        &["--h3", "--tls-ca", path_str(&ca), &t.https("/")],
        BODY_LEN,
    );
    check_h3_run(
        &t,
        &[
            "--h3",
            "--tls-ca",
            path_str(&ca),
            "--sni",
            "localhost",
            &t.https("/"),
        ],
        BODY_LEN,
    );
    // Without -k or the CA the self-signed certificate is refused, with a hint.
    let (report, output) = run_json(&["-n", "10", "--h3", &t.https("/")]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_num(&report, "/requests/errored", 10);
    assert!(num(&report, "/errors/tls") > 0, "{report:#}");
    assert!(stderr(&output).contains("-k"), "{}", describe(&output));
    assert_eq!(t.stats().http3, 2 * N);
}

#[test]
fn h3_text_output_has_h2load_lines() {
    let t = TestTarget::start();
    let output = run(&["-n", "100", "-c", "2", "--h3", "-k", &t.https("/")]);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let out = stdout(&output);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.contains(&"Application protocol: h3"),
        "{}",
        describe(&output)
    );
    let traffic = lines
        .iter()
        .position(|l| l.starts_with("traffic: "))
        .unwrap_or_else(|| panic!("no traffic line\n{}", describe(&output)));
    let udp = lines[traffic + 1];
    assert!(
        udp.starts_with("UDP datagram: ") && udp.ends_with(" received"),
        "h2load's UDP datagram line should follow traffic\n{}",
        describe(&output)
    );
}

#[test]
fn h3_post_data_and_duration_mode() {
    let t = TestTarget::start();
    let payload = "y".repeat(3000);
    let file = t.dir.write("body.txt", &payload);
    let before = t.stats();
    let report = run_json_ok(&[
        "-n",
        "100",
        "-c",
        "4",
        "-m",
        "4",
        "--h3",
        "-k",
        "-d",
        path_str(&file),
        &t.https("/"),
    ]);
    let seen = stats_delta(before, t.stats());
    assert_all_ok(&report, 100, BODY_LEN);
    assert_eq!(text(&report, "/config/method"), "POST", "{report:#}");
    assert_eq!((seen.http3, seen.request_body_bytes), (100, 300_000));

    let report = run_json_ok(&[
        "-D",
        "1",
        "--warm-up-time",
        "0.3",
        "-c",
        "4",
        "-m",
        "4",
        "--h3",
        "-k",
        &t.https("/"),
    ]);
    let done = num(&report, "/requests/done");
    assert!(done > 0, "{report:#}");
    assert_num(&report, "/requests/succeeded", done);
    assert_num(&report, "/requests/errored", 0);
    assert_eq!(text(&report, "/config/mode"), "duration", "{report:#}");
    assert_eq!(field(&report, "/config/duration_s").as_f64(), Some(1.0));
}

/// Request bodies larger than the server's flow-control windows: each is
/// written as credit arrives, in GSO batches the kernel accepts. (Each
/// request's deadline catches a body that stalls.)
#[test]
fn h3_bodies_beyond_flow_control_windows_are_sent_whole() {
    let t = TestTarget::start();
    let payload = "z".repeat(3 << 20);
    let file = t.dir.write("big.txt", &payload);
    let before = t.stats();
    let report = run_json_ok(&[
        "-n",
        "40",
        "-c",
        "2",
        "-m",
        "4",
        "--h3",
        "-k",
        "--request-timeout",
        "10s",
        "-d",
        path_str(&file),
        &t.https("/"),
    ]);
    let seen = stats_delta(before, t.stats());
    assert_all_ok(&report, 40, BODY_LEN);
    assert_eq!((seen.http3, seen.request_body_bytes), (40, 40 * (3 << 20)));
}

#[test]
fn h3_request_timeout_counts_each_request_once() {
    let t = TestTarget::start();
    let (report, output) = run_json(&[
        "-n",
        "6",
        "-c",
        "1",
        "-m",
        "3",
        "--h3",
        "-k",
        "--request-timeout",
        "200ms",
        &t.https("/?delay=3s"),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_num(&report, "/requests/started", 6);
    assert_num(&report, "/requests/timeout", 6);
    assert_num(&report, "/requests/errored", 6);
    assert_num(&report, "/requests/succeeded", 0);
}

#[test]
fn closed_udp_port_ends_within_the_connect_timeout() {
    let port = closed_port();
    let url = format!("https://127.0.0.1:{port}/");
    let started = Instant::now();
    let (report, output) = run_json(&[
        "-n",
        "20",
        "-c",
        "2",
        "--h3",
        "-k",
        "--connect-timeout",
        "1s",
        &url,
    ]);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "took {took:?}\n{}",
        describe(&output)
    );
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_num(&report, "/requests/succeeded", 0);
    assert_num(&report, "/requests/errored", 20);
    assert_num(&report, "/errors/connect", 20);
}

#[test]
fn bad_groups_and_h3_without_tls_are_usage_errors() {
    let output = run(&["--groups", "X25519:nope", "https://127.0.0.1:1/"]);
    assert_error(&output, 2, &["--groups"]);
    let output = run(&["--h3", "http://127.0.0.1:1/"]);
    assert_error(&output, 2, &["--h3"]);
}

#[test]
fn groups_apply_to_tls_and_quic() {
    let t = TestTarget::start();
    let report = check_h3_run(
        &t,
        &["--h3", "-k", "--groups", "P-256", &t.https("/")],
        BODY_LEN,
    );
    assert_eq!(text(&report, "/application_protocol"), "h3");
    let report = run_json_ok(&["-n", "10", "-k", "--groups", "P-384", &t.https("/")]);
    assert_eq!(
        text(&report, "/tls/server_temp_key"),
        "ECDH P-384 384 bits",
        "{report:#}"
    );
    assert!(field(&report, "/quic").is_null(), "{report:#}");
}

#[test]
fn target_advertises_h3_with_alt_svc() {
    let t = TestTarget::start();
    let port = t.target.tls_addr().unwrap().port();
    let out = std::process::Command::new("curl")
        .args(["-sk", "-o", "/dev/null", "-D", "-", &t.https("/")])
        .output();
    let Ok(out) = out else {
        eprintln!("curl not available; skipping the alt-svc check");
        return;
    };
    let headers = String::from_utf8_lossy(&out.stdout).to_ascii_lowercase();
    assert!(
        headers.contains(&format!("alt-svc: h3=\":{port}\"")),
        "{headers}"
    );
}

#[test]
fn max_udp_payload_size_bounds_every_datagram_sent() {
    let t = TestTarget::start();
    let dir = TempDir::new("h3-payload");
    const BODY: usize = 64 * 1024;
    const REQUESTS: u64 = 50;
    let body = dir.write("body.bin", vec![b'x'; BODY]);
    let report = run_json_ok(&[
        "-n",
        "50",
        "-c",
        "1",
        "--h3",
        "-k",
        "--max-udp-payload-size",
        "1200",
        "-d",
        path_str(&body),
        &t.https("/"),
    ]);
    assert_num(&report, "/requests/succeeded", REQUESTS);
    // No datagram carries more than 1200 bytes, so the request bodies alone
    // need at least this many.
    let at_least = REQUESTS * BODY as u64 / 1200;
    let sent = num(&report, "/quic/datagrams_sent");
    assert!(
        sent >= at_least,
        "{sent} datagrams sent, at least {at_least} needed"
    );
}

#[test]
fn no_udp_gso_still_runs() {
    let t = TestTarget::start();
    check_h3_run(&t, &["--h3", "-k", "--no-udp-gso", &t.https("/")], BODY_LEN);
}

#[test]
fn qlog_file_base_writes_a_trace_per_connection() {
    let t = TestTarget::start();
    let dir = TempDir::new("h3-qlog");
    let base = dir.path().join("run");
    let report = run_json_ok(&[
        "-n",
        "100",
        "-c",
        "2",
        "--h3",
        "-k",
        "--qlog-file-base",
        path_str(&base),
        &t.https("/"),
    ]);
    assert_num(&report, "/requests/succeeded", 100);
    for client in 0..2 {
        let path = dir.path().join(format!("run.0.{client}.sqlog"));
        let text = std::fs::read_to_string(&path).expect("one trace per connection");
        // JSON text sequences: records separated by RS (0x1e).
        let records: Vec<serde_json::Value> = text
            .split('\u{1e}')
            .filter(|r| !r.trim().is_empty())
            .map(|r| serde_json::from_str(r).expect("each record is JSON"))
            .collect();
        assert_eq!(records[0]["qlog_format"], "JSON-SEQ", "{path:?}");
        let sent = records
            .iter()
            .filter(|r| r["name"] == "transport:packet_sent")
            .count();
        assert!(sent > 0, "{path:?} records packets sent");
    }
}
