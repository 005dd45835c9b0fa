//! WebSocket runs (`ws://`, `wss://`) against the built-in target's `/ws`
//! echo and against a server written with Python's `websockets` package
//! (tests/websocket/echo_server.py), and over HTTP/2 (RFC 8441) against
//! one made of Python's `h2` and `websockets` (h2_echo_server.py): exact
//! message counts, close codes, resets, and usage errors. No timing is
//! asserted.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

/// Exact accounting of `n` messages that were all answered, over an
/// HTTP/1.1 upgrade.
fn assert_all_answered(report: &Value, n: u64) {
    assert_all_answered_over(report, n, "websocket");
}

/// [`assert_all_answered`] for sockets opened over `protocol`.
fn assert_all_answered_over(report: &Value, n: u64, protocol: &str) {
    for (pointer, expected) in [
        ("/requests/total", n),
        ("/requests/started", n),
        ("/requests/done", n),
        ("/requests/succeeded", n),
        ("/requests/failed", 0),
        ("/requests/errored", 0),
        ("/status_codes/by_code/101", n),
        ("/request_time/count", n),
        ("/websocket/messages_sent", n),
        ("/websocket/messages_received", n),
        ("/websocket/upgrade_failures", 0),
    ] {
        assert_num(report, pointer, expected);
    }
    assert_protocol(report, protocol);
}

fn ws_uri(t: &TestTarget, tls: bool) -> String {
    let uri = if tls { t.https("/ws") } else { t.http("/ws") };
    uri.replacen("http", "ws", 1)
}

#[test]
fn built_in_target_over_ws() {
    let t = TestTarget::start();
    let report = run_json_ok(&["-n", "1000", "-c", "4", "-m", "4", &ws_uri(&t, false)]);
    assert_all_answered(&report, 1000);
    assert_eq!(t.stats().websocket_messages, 1000);
    assert_num(&report, "/websocket/upgrades", 4);
    assert_num(&report, "/websocket/upgrade_time/count", 4);
    let message_len = "loadgen websocket message".len() as u64;
    assert_num(&report, "/bytes/data", 1000 * message_len);
}

#[test]
fn built_in_target_over_wss_with_binary_messages() {
    let t = TestTarget::start();
    let dir = TempDir::new("ws-binary");
    let file = dir.write("message.bin", [0u8, 159, 146, 150, 255]);
    let report = run_json_ok(&[
        "-k",
        "-n",
        "1000",
        "-c",
        "4",
        "-m",
        "4",
        "--ws-binary",
        "--ws-message-file",
        path_str(&file),
        &ws_uri(&t, true),
    ]);
    assert_all_answered(&report, 1000);
    assert_num(&report, "/bytes/data", 5000);
    assert!(
        field(&report, "/tls").is_object(),
        "wss:// runs over TLS: {report:#}"
    );
    assert_num(&report, "/tls_handshake_time/count", 4);
}

#[test]
fn open_model_across_sockets() {
    let t = TestTarget::start();
    let report = run_json_ok(&[
        "--rate",
        "400",
        "-n",
        "200",
        "-c",
        "4",
        "-m",
        "2",
        "--ws-message",
        "rate",
        &ws_uri(&t, false),
    ]);
    assert_all_answered(&report, 200);
    assert_num(&report, "/queue_delay/count", 200);
}

#[test]
fn text_report_has_a_websocket_line() {
    let t = TestTarget::start();
    let output = run(&["-n", "20", "-c", "2", &ws_uri(&t, false)]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let out = stdout(&output);
    assert!(
        out.contains("websocket: 20 messages sent, 20 received, 2 upgrades, 0 upgrade failures"),
        "{out}"
    );
    assert!(out.contains("WS upgrade      :"), "{out}");
}

// ---------------------------------------------------------------------------
// Against Python's `websockets`
// ---------------------------------------------------------------------------

/// A `websockets` server in MODE (see echo_server.py).
fn echo_server(mode: &str, limit: u32) -> PythonServer {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/websocket/echo_server.py"
    );
    PythonServer::start(Path::new(script), &[mode, &limit.to_string()])
}

fn ws_uri_of(server: &PythonServer) -> String {
    format!("ws://127.0.0.1:{}/", server.port)
}

#[test]
fn python_echo_server_exact_counts() {
    let server = echo_server("echo", 0);
    let report = run_json_ok(&["-n", "1000", "-c", "4", "-m", "4", &ws_uri_of(&server)]);
    assert_all_answered(&report, 1000);
    assert_num(&report, "/websocket/upgrades", 4);
}

/// 100 messages on one socket a server closes with 1011 after 10: every
/// message ends once, answered or failed by the close.
fn assert_close_counted(report: &Value) {
    let closes = num(report, "/websocket/close_codes/1011");
    assert!(closes >= 1, "{report:#}");
    assert_num(report, "/requests/done", 100);
    let answered = num(report, "/requests/succeeded");
    let errored = num(report, "/requests/errored");
    assert_eq!(answered + errored, 100, "{report:#}");
    assert!(answered >= 10, "{report:#}");
    assert_eq!(num(report, "/errors/reset"), errored, "{report:#}");
}

/// 200 messages on sockets a server resets: the resets fail what was in
/// flight, the rest is answered, and every message is accounted for.
fn assert_resets_counted(report: &Value) {
    assert!(num(report, "/errors/reset") >= 1, "{report:#}");
    assert!(num(report, "/requests/succeeded") >= 1, "{report:#}");
    assert_eq!(
        num(report, "/requests/done") + num(report, "/requests/errored_not_started"),
        200,
        "{report:#}"
    );
}

#[test]
fn python_server_close_is_counted_with_its_code() {
    let server = echo_server("close", 10);
    let (report, output) = run_json(&["-n", "100", "-c", "1", &ws_uri_of(&server)]);
    assert_no_panic(&output);
    assert_close_counted(&report);
}

#[test]
fn python_server_reset_counts_errors_and_the_run_ends() {
    let server = echo_server("reset", 5);
    let (report, output) = run_json(&["-n", "200", "-c", "2", "-m", "2", &ws_uri_of(&server)]);
    assert_no_panic(&output);
    assert_resets_counted(&report);
}

#[test]
fn python_server_reset_ends_a_timed_run() {
    let server = echo_server("reset", 3);
    let (report, output) = run_json(&["-D", "1", "-c", "2", &ws_uri_of(&server)]);
    assert_no_panic(&output);
    assert!(num(&report, "/errors/reset") >= 1, "{report:#}");
}

#[test]
fn unanswered_messages_time_out_and_the_run_ends() {
    let server = echo_server("silent", 0);
    let (report, output) = run_json(&[
        "-n",
        "10",
        "-c",
        "1",
        "-m",
        "2",
        "--request-timeout",
        "200ms",
        &ws_uri_of(&server),
    ]);
    assert_no_panic(&output);
    assert_num(&report, "/requests/succeeded", 0);
    assert!(num(&report, "/requests/timeout") >= 1, "{report:#}");
    assert_eq!(
        num(&report, "/requests/done") + num(&report, "/requests/errored_not_started"),
        10,
        "{report:#}"
    );
}

#[test]
fn expect_any_takes_a_different_answer() {
    let server = echo_server("other", 0);
    let report = run_json_ok(&[
        "-n",
        "100",
        "-c",
        "2",
        "-m",
        "2",
        "--ws-expect",
        "any",
        &ws_uri_of(&server),
    ]);
    assert_all_answered(&report, 100);
    let (report, _) = run_json(&["-n", "100", "-c", "2", &ws_uri_of(&server)]);
    assert_num(&report, "/requests/succeeded", 0);
    assert_num(&report, "/errors/protocol", 100);
}

// ---------------------------------------------------------------------------
// Over HTTP/2 (RFC 8441)
// ---------------------------------------------------------------------------

#[test]
fn built_in_target_over_h2c_with_extended_connect() {
    let t = TestTarget::start();
    let report = run_json_ok(&[
        "-n",
        "1000",
        "-c",
        "4",
        "-m",
        "4",
        "--ws-http2",
        &ws_uri(&t, false),
    ]);
    assert_all_answered_over(&report, 1000, "websocket/h2");
    assert_eq!(t.stats().websocket_messages, 1000);
    assert_num(&report, "/websocket/upgrades", 4);
    assert_num(&report, "/websocket/upgrade_time/count", 4);
    let message_len = "loadgen websocket message".len() as u64;
    assert_num(&report, "/bytes/data", 1000 * message_len);
}

#[test]
fn built_in_target_over_h2_with_binary_messages_and_an_open_model() {
    let t = TestTarget::start();
    let dir = TempDir::new("ws-h2-binary");
    let file = dir.write("message.bin", vec![7u8; 40_000]);
    let report = run_json_ok(&[
        "-k",
        "--rate",
        "400",
        "-n",
        "200",
        "-c",
        "2",
        "-m",
        "4",
        "--ws-http2",
        "--ws-binary",
        "--ws-message-file",
        path_str(&file),
        &ws_uri(&t, true),
    ]);
    // Messages larger than HTTP/2's frames and first windows.
    assert_all_answered_over(&report, 200, "websocket/h2");
    assert_num(&report, "/bytes/data", 200 * 40_000);
    assert_num(&report, "/queue_delay/count", 200);
    assert!(field(&report, "/tls").is_object(), "{report:#}");
    assert_eq!(t.stats().websocket_messages, 200);
}

/// Two sockets over HTTP/2 to `uri` that never open: both counted as
/// upgrade failures, with a first error that says `why`.
fn assert_http2_sockets_refused(uri: &str, why: &str) {
    let (report, output) = run_json(&["-n", "4", "-c", "2", "--ws-http2", uri]);
    assert_no_panic(&output);
    assert_num(&report, "/websocket/upgrade_failures", 2);
    assert_num(&report, "/websocket/upgrades", 0);
    assert_num(&report, "/requests/succeeded", 0);
    let first = field(&report, "/errors/first_message/protocol");
    assert!(
        first.as_str().is_some_and(|m| m.contains(why)),
        "{report:#}"
    );
}

#[test]
fn a_refused_extended_connect_is_counted() {
    let t = TestTarget::start();
    // The target answers an extended CONNECT anywhere but /ws with 404.
    let uri = t.http("/").replacen("http", "ws", 1);
    assert_http2_sockets_refused(&uri, "extended CONNECT with 404");
}

/// An RFC 8441 server made of Python's `h2` and `websockets` packages, in
/// MODE (see h2_echo_server.py).
fn h2_echo_server(mode: &str, limit: u32) -> PythonServer {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/websocket/h2_echo_server.py"
    );
    PythonServer::start(Path::new(script), &[mode, &limit.to_string()])
}

#[test]
fn python_h2_server_exact_counts() {
    let server = h2_echo_server("echo", 0);
    let report = run_json_ok(&[
        "-n",
        "1000",
        "-c",
        "4",
        "-m",
        "4",
        "--ws-http2",
        &ws_uri_of(&server),
    ]);
    assert_all_answered_over(&report, 1000, "websocket/h2");
    assert_num(&report, "/websocket/upgrades", 4);
}

#[test]
fn python_h2_server_close_is_counted_with_its_code() {
    let server = h2_echo_server("close", 10);
    let (report, output) = run_json(&["-n", "100", "-c", "1", "--ws-http2", &ws_uri_of(&server)]);
    assert_no_panic(&output);
    assert_close_counted(&report);
}

#[test]
fn python_h2_server_stream_reset_counts_errors_and_runs_end() {
    let server = h2_echo_server("reset", 5);
    let uri = ws_uri_of(&server);
    let (report, output) = run_json(&["-n", "200", "-c", "2", "-m", "2", "--ws-http2", &uri]);
    assert_no_panic(&output);
    assert_resets_counted(&report);
    let (report, output) = run_json(&["-D", "1", "-c", "2", "--ws-http2", &uri]);
    assert_no_panic(&output);
    assert!(num(&report, "/errors/reset") >= 1, "{report:#}");
}

#[test]
fn a_server_without_extended_connect_is_told_apart() {
    // nginx speaks h2c but does not enable extended CONNECT.
    let nginx = Nginx::start();
    let uri = nginx.h2c("/").replacen("http", "ws", 1);
    assert_http2_sockets_refused(&uri, "drop --ws-http2");
}

// ---------------------------------------------------------------------------
// Usage errors
// ---------------------------------------------------------------------------

#[test]
fn websocket_flags_need_a_websocket_uri() {
    let output = run(&["--ws-message", "hi", "http://127.0.0.1:1/"]);
    assert_error(&output, 2, &["--ws-message"]);
    let output = run(&["--ws-expect", "any", "https://127.0.0.1:1/"]);
    assert_error(&output, 2, &["--ws-expect"]);
    let output = run(&["--ws-http2", "http://127.0.0.1:1/"]);
    assert_error(&output, 2, &["--ws-http2"]);
    let output = run(&["--ws-http2", "--h1", "ws://127.0.0.1:1/"]);
    assert_error(&output, 2, &["--ws-http2"]);
}

#[test]
fn a_missing_message_file_is_one_line() {
    let output = run(&[
        "--ws-message-file",
        "/nonexistent/message.txt",
        "ws://127.0.0.1:1/",
    ]);
    assert_error(&output, 2, &["--ws-message-file"]);
}

#[test]
fn a_refused_upgrade_is_counted() {
    let t = TestTarget::start();
    // The target's / is no WebSocket endpoint: it answers 200.
    let uri = t.http("/").replacen("http", "ws", 1);
    let (report, output) = run_json(&["-n", "4", "-c", "2", &uri]);
    assert_no_panic(&output);
    assert_num(&report, "/websocket/upgrade_failures", 2);
    assert_num(&report, "/requests/succeeded", 0);
}
