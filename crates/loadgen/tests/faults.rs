//! loadgen against servers that misbehave on purpose
//! (`loadgen_target::FaultServer`), one test per fault. Whatever the server
//! does, the run ends on its own, without a panic, with every request
//! accounted for exactly once, and the failures counted under the kind of
//! error that names what went wrong.

mod common;

use common::*;
use loadgen_target::{Fault, FaultServer};
use serde_json::Value;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// A run that takes longer has hung: every fault here ends a run in well
/// under a second.
const FAULT_RUN_LIMIT: Duration = Duration::from_secs(30);
/// The floods send up to 50 MB per connection, so a client that kept one
/// connection's flood (or the acknowledgements of its PINGs or SETTINGS,
/// beyond the few MB the sockets hold) would pass this; one that refuses
/// the flood stays near its usual size (under 10 MiB).
const FLOOD_RSS_LIMIT_KIB: u64 = 40 * 1024;

/// A run against a fault server, its report and the client's peak memory.
struct FaultRun {
    report: Value,
    output: Output,
    peak_rss_kib: u64,
}

/// `loadgen --json -q <args> URL` against a fresh server of `fault`, with
/// `--h1` for the HTTP/1.1 faults (an `http://` URL means h2c otherwise)
/// and `-k` for the TLS faults (their certificate is self-signed) but the
/// expired certificate.
fn run_against(fault: Fault, args: &[&str]) -> FaultRun {
    let server = FaultServer::start(fault).expect("start the fault server");
    let mut cmd = loadgen();
    cmd.args(["--json", "-q"]);
    if fault.is_tls() {
        // An expired certificate is the fault itself: it is verified.
        if fault != Fault::ExpiredCertificate {
            cmd.arg("-k");
        }
    } else if !fault.is_http2() {
        cmd.arg("--h1");
    }
    cmd.args(args).arg(server.url("/"));
    let (output, peak_rss_kib) = run_measured(cmd, FAULT_RUN_LIMIT);
    assert_no_panic(&output);
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{fault:?}: no JSON report: {e}\n{}", describe(&output)));
    FaultRun {
        report,
        output,
        peak_rss_kib,
    }
}

/// [`run_bounded`], also returning the child's peak resident set size from
/// the kernel's accounting of it (`wait4`'s `ru_maxrss`, in KiB).
// The child is reaped by wait4, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn run_measured(mut cmd: Command, limit: Duration) -> (Output, u64) {
    let shown = format!("{cmd:?}");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    let pid = libc::pid_t::try_from(child.id()).expect("a pid fits in pid_t");
    let stdout = read_all(child.stdout.take().expect("piped stdout"));
    let stderr = read_all(child.stderr.take().expect("piped stderr"));
    let deadline = Instant::now() + limit;
    let mut killed = false;
    let (status, usage) = loop {
        let mut status = 0;
        // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let flags = if killed { 0 } else { libc::WNOHANG };
        // SAFETY: wait4 on our own child, with pointers to live locals; std
        // never reaps it, as `child` is not waited on.
        let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        assert!(reaped >= 0, "wait4: {}", std::io::Error::last_os_error());
        if reaped == pid {
            break (ExitStatus::from_raw(status), usage);
        }
        if Instant::now() >= deadline && !killed {
            let _ = child.kill();
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let output = Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    };
    assert!(
        !killed,
        "{shown} did not finish within {limit:?} and was killed\n{}",
        describe(&output)
    );
    (output, u64::try_from(usage.ru_maxrss).unwrap_or(0))
}

fn read_all(mut pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Every one of `n` requests is counted once, as succeeded or failed, and
/// no more were left started but not done than `clients * streams` could
/// hold.
fn assert_accounted(report: &Value, n: u64, clients: u64, streams: u64) {
    assert_num(report, "/requests/total", n);
    let succeeded = num(report, "/requests/succeeded");
    let failed = num(report, "/requests/failed");
    assert_eq!(
        succeeded + failed,
        n,
        "total = succeeded + failed:\n{report:#}"
    );
    let started = num(report, "/requests/started");
    let done = num(report, "/requests/done");
    assert!(
        done <= started && started - done <= clients * streams,
        "started {started}, done {done}, with -c {clients} -m {streams}:\n{report:#}"
    );
}

/// Every request failed, each counted under `kind`, and the first message
/// of that kind contains `says`.
fn assert_all_failed_with(report: &Value, n: u64, kind: &str, says: &str) {
    assert_num(report, "/requests/succeeded", 0);
    assert_num(report, &format!("/errors/{kind}"), n);
    assert_first_message(report, kind, says);
}

fn assert_first_message(report: &Value, kind: &str, says: &str) {
    let message = text(report, &format!("/errors/first_message/{kind}"));
    assert!(
        message.contains(says),
        "the first {kind} error should say {says:?}:\n{report:#}"
    );
}

/// `-n 10 -c 2` against an HTTP/1.1 fault that breaks every response.
fn check_http1_fault_fails_all(fault: Fault, kind: &str, says: &str) {
    let run = run_against(fault, &["-n", "10", "-c", "2"]);
    assert_accounted(&run.report, 10, 2, 1);
    assert_all_failed_with(&run.report, 10, kind, says);
}

#[test]
fn malformed_status_line() {
    check_http1_fault_fails_all(
        Fault::MalformedStatusLine,
        "protocol",
        "malformed response head",
    );
}

#[test]
fn bad_content_length() {
    check_http1_fault_fails_all(
        Fault::BadContentLength,
        "protocol",
        "invalid Content-Length",
    );
}

#[test]
fn conflicting_content_length() {
    check_http1_fault_fails_all(
        Fault::ConflictingContentLength,
        "protocol",
        "conflicting Content-Length",
    );
}

#[test]
fn bad_chunk_size() {
    check_http1_fault_fails_all(Fault::BadChunkSize, "protocol", "invalid chunk size");
}

#[test]
fn truncated_chunked_body() {
    check_http1_fault_fails_all(
        Fault::TruncatedChunkedBody,
        "protocol",
        "closed in the middle of a response",
    );
}

#[test]
fn reset_after_status_line() {
    // Whether the reset or the end of the stream is read first depends on
    // the kernel; either way the connection was lost, a reset.
    let run = run_against(Fault::ResetAfterStatusLine, &["-n", "10", "-c", "2"]);
    assert_accounted(&run.report, 10, 2, 1);
    assert_num(&run.report, "/requests/succeeded", 0);
    assert_num(&run.report, "/errors/reset", 10);
}

#[test]
fn close_on_accept() {
    let run = run_against(Fault::CloseOnAccept, &["-n", "10", "-c", "2"]);
    assert_accounted(&run.report, 10, 2, 1);
    assert_num(&run.report, "/requests/succeeded", 0);
    assert_num(&run.report, "/errors/reset", 10);
}

#[test]
fn oversized_header_whole() {
    check_http1_fault_fails_all(
        Fault::OversizedHeaderWhole,
        "protocol",
        "response head larger than 65536 bytes",
    );
}

#[test]
fn oversized_header_split() {
    check_http1_fault_fails_all(
        Fault::OversizedHeaderSplit,
        "protocol",
        "response head larger than 65536 bytes",
    );
}

fn assert_exit(output: &Output, code: i32) {
    assert_eq!(output.status.code(), Some(code), "{}", describe(output));
}

#[test]
fn unsolicited_response() {
    // Each request gets its own response first, so all of them succeed;
    // the stray response after it costs the connection, not a request,
    // and is counted apart and named.
    let run = run_against(Fault::UnsolicitedResponse, &["-n", "10", "-c", "2"]);
    let report = &run.report;
    assert_accounted(report, 10, 2, 1);
    assert_num(report, "/requests/succeeded", 10);
    assert_num(report, "/status_codes/by_code/200", 10);
    assert_num(report, "/bytes/data", 10 * BODY_LEN);
    let stray = num(report, "/errors/between_requests");
    assert!((1..=10).contains(&stray), "{report:#}");
    assert!(num(report, "/connections") > 2, "{report:#}");
    assert_first_message(report, "between_requests", "nobody asked for");
    assert_first_message(report, "between_requests", "HTTP/1.1 200 OK");
    assert!(
        stderr(&run.output).contains("closed for a protocol error between requests"),
        "{}",
        describe(&run.output)
    );
    assert_exit(&run.output, 0);
}

#[test]
fn status_out_of_range_is_a_5xx_response() {
    // RFC 9110 section 15: a client treats an invalid status as 5xx.
    let run = run_against(Fault::StatusOutOfRange, &["-n", "10", "-c", "2"]);
    let report = &run.report;
    assert_accounted(report, 10, 2, 1);
    assert_num(report, "/requests/succeeded", 0);
    assert_num(report, "/requests/failed_status", 10);
    assert_num(report, "/requests/errored", 0);
    assert_num(report, "/status_codes/5xx", 10);
    assert_num(report, "/status_codes/by_code/999", 10);
    assert_num(report, "/bytes/data", 10 * BODY_LEN);
    assert_exit(&run.output, 0);
    // The text report puts them in the same class.
    let server = FaultServer::start(Fault::StatusOutOfRange).expect("start the fault server");
    let output = common::run(&["--h1", "-q", "-n", "4", &server.url("/")]);
    assert!(
        stdout(&output).contains("status codes: 0 2xx, 0 3xx, 0 4xx, 4 5xx"),
        "{}",
        describe(&output)
    );
}

#[test]
fn obs_fold_is_read_as_spaces() {
    let run = run_against(Fault::ObsFold, &["-n", "10", "-c", "2"]);
    assert_all_ok(&run.report, 10, BODY_LEN);
    assert_accounted(&run.report, 10, 2, 1);
    assert_exit(&run.output, 0);
}

#[test]
fn close_delimited_stall_ends_with_the_request_timeout() {
    // Without a timeout the run would wait for the close that never comes.
    let run = run_against(
        Fault::CloseDelimitedStall,
        &["-n", "4", "-c", "2", "--request-timeout", "200ms"],
    );
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "timeout", "timed out");
    assert_exit(&run.output, 1);
}

#[test]
fn close_delimited_stall_ends_with_the_inactivity_timeout() {
    let run = run_against(
        Fault::CloseDelimitedStall,
        &["-n", "4", "-c", "2", "-N", "200ms"],
    );
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "timeout", "timed out");
}

#[test]
fn interim_before_final() {
    let run = run_against(Fault::InterimBeforeFinal, &["-n", "10", "-c", "2"]);
    assert_all_ok(&run.report, 10, BODY_LEN);
    assert_num(&run.report, "/status_codes/1xx", 0);
    assert_accounted(&run.report, 10, 2, 1);
}

#[test]
fn no_content_with_body() {
    // The body is not part of a 204; those bytes may break the connection
    // (a response nobody asked for) or the next response's head.
    let run = run_against(Fault::NoContentWithBody, &["-n", "10", "-c", "2"]);
    assert_accounted(&run.report, 10, 2, 1);
    let succeeded = num(&run.report, "/requests/succeeded");
    assert!(succeeded > 0, "{:#}", run.report);
    assert_num(&run.report, "/status_codes/by_code/204", succeeded);
    assert_num(&run.report, "/bytes/data", 0);
    assert_num(&run.report, "/errors/protocol", 10 - succeeded);
}

#[test]
fn stall_ends_with_the_request_timeout() {
    let run = run_against(
        Fault::Stall,
        &["-n", "4", "-c", "2", "--request-timeout", "200ms"],
    );
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "timeout", "timed out");
}

#[test]
fn stall_ends_with_the_inactivity_timeout() {
    let run = run_against(Fault::Stall, &["-n", "4", "-c", "2", "-N", "200ms"]);
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "timeout", "timed out");
}

#[test]
fn slowloris_is_received_whole_while_bytes_keep_coming() {
    // Each response takes over half a second, a byte every 10 ms: -N
    // times silence, not the response, so it never ends one.
    let run = run_against(Fault::Slowloris, &["-n", "2", "-c", "2", "-N", "300ms"]);
    assert_all_ok(&run.report, 2, BODY_LEN);
    assert_accounted(&run.report, 2, 2, 1);
}

#[test]
fn slowloris_is_cut_off_by_the_request_timeout() {
    // The request timeout counts from the request, however busy the
    // connection: no response can be whole before 520 ms.
    let run = run_against(
        Fault::Slowloris,
        &["-n", "2", "-c", "2", "--request-timeout", "200ms"],
    );
    assert_accounted(&run.report, 2, 2, 1);
    assert_all_failed_with(&run.report, 2, "timeout", "timed out");
}

#[test]
fn continuation_flood() {
    // The request timeout ends the run of a client that would wait for
    // the end of the header block, so that its memory can be told.
    let run = run_against(
        Fault::ContinuationFlood,
        &["-n", "4", "-c", "2", "--request-timeout", "3s"],
    );
    assert!(
        run.peak_rss_kib > 0 && run.peak_rss_kib < FLOOD_RSS_LIMIT_KIB,
        "peak RSS {} KiB under the flood, the limit is {FLOOD_RSS_LIMIT_KIB} KiB\n{}",
        run.peak_rss_kib,
        describe(&run.output)
    );
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "protocol", "ENHANCE_YOUR_CALM");
    assert_first_message(&run.report, "protocol", "SETTINGS_MAX_HEADER_LIST_SIZE");
}

#[test]
fn goaway_mid_run() {
    // Four streams open on each connection and the server answers three:
    // the fourth is refused, and the client connects again for the rest.
    let run = run_against(Fault::GoawayMidRun, &["-n", "40", "-c", "2", "-m", "4"]);
    let report = &run.report;
    assert_accounted(report, 40, 2, 4);
    let succeeded = num(report, "/requests/succeeded");
    assert!(succeeded >= 3, "{report:#}");
    assert_num(report, "/status_codes/by_code/200", succeeded);
    assert_num(report, "/errors/reset", 40 - succeeded);
    assert!(num(report, "/connections") > 2, "{report:#}");
    if succeeded < 40 {
        assert_first_message(report, "reset", "GOAWAY");
    }
}

#[test]
fn rst_stream_every_stream() {
    let run = run_against(
        Fault::RstStreamEveryStream,
        &["-n", "10", "-c", "2", "-m", "2"],
    );
    assert_accounted(&run.report, 10, 2, 2);
    assert_all_failed_with(&run.report, 10, "reset", "INTERNAL_ERROR");
}

#[test]
fn malformed_frame() {
    let run = run_against(Fault::MalformedFrame, &["-n", "10", "-c", "2", "-m", "2"]);
    assert_accounted(&run.report, 10, 2, 2);
    assert_all_failed_with(&run.report, 10, "protocol", "FRAME_SIZE_ERROR");
}

#[test]
fn no_settings_ends_with_the_request_timeout() {
    let run = run_against(
        Fault::NoSettings,
        &["-n", "4", "-c", "2", "--request-timeout", "200ms"],
    );
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "timeout", "timed out");
}

#[test]
fn no_settings_ends_with_the_inactivity_timeout() {
    let run = run_against(Fault::NoSettings, &["-n", "4", "-c", "2", "-N", "200ms"]);
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "timeout", "timed out");
}

#[test]
fn content_length_short_is_a_malformed_response() {
    // nghttp2 (and so h2load) refuses it; so does loadgen, per stream.
    let run = run_against(
        Fault::ContentLengthShort,
        &["-n", "10", "-c", "2", "-m", "2"],
    );
    assert_accounted(&run.report, 10, 2, 2);
    assert_all_failed_with(
        &run.report,
        10,
        "protocol",
        "the stream ended before the response's content-length",
    );
    assert_exit(&run.output, 1);
}

#[test]
fn content_length_long_is_a_malformed_response() {
    let run = run_against(
        Fault::ContentLengthLong,
        &["-n", "10", "-c", "2", "-m", "2"],
    );
    assert_accounted(&run.report, 10, 2, 2);
    assert_all_failed_with(
        &run.report,
        10,
        "protocol",
        "DATA beyond the response's content-length",
    );
    // Stream errors: the connections carry on.
    assert_num(&run.report, "/connections", 2);
}

#[test]
fn zero_window_holds_the_body_until_the_request_timeout() {
    // Larger than the 65,535 bytes the windows allow before the server's
    // SETTINGS: a client that sent more would be reset (FLOW_CONTROL_ERROR).
    let dir = TempDir::new("zero-window");
    let body = dir.write("body", vec![b'x'; 100_000]);
    let run = run_against(
        Fault::ZeroWindow,
        &[
            "-n",
            "4",
            "-c",
            "2",
            "-d",
            path_str(&body),
            "--request-timeout",
            "200ms",
        ],
    );
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "timeout", "timed out");
}

/// A flood of `frame_name` frames, none of whose acknowledgements the
/// server reads: the client refuses it once too many wait, and its memory
/// stays bounded.
fn check_control_flood(fault: Fault, frame_name: &str) {
    // The request timeout ends the run of a client that would queue
    // acknowledgements for the whole flood, so that its memory can be told.
    let run = run_against(fault, &["-n", "4", "-c", "2", "--request-timeout", "3s"]);
    assert!(
        run.peak_rss_kib > 0 && run.peak_rss_kib < FLOOD_RSS_LIMIT_KIB,
        "peak RSS {} KiB under the flood, the limit is {FLOOD_RSS_LIMIT_KIB} KiB\n{}",
        run.peak_rss_kib,
        describe(&run.output)
    );
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "protocol", "ENHANCE_YOUR_CALM");
    assert_first_message(&run.report, "protocol", frame_name);
}

#[test]
fn ping_flood() {
    check_control_flood(Fault::PingFlood, "PING");
}

#[test]
fn settings_flood() {
    check_control_flood(Fault::SettingsFlood, "SETTINGS");
}

#[test]
fn tls_handshake_stall_ends_with_the_connect_timeout() {
    // The TCP connection is made; the handshake never ends, and the
    // connect timeout covers both.
    let run = run_against(
        Fault::TlsHandshakeStall,
        &["-n", "4", "-c", "2", "--connect-timeout", "200ms"],
    );
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "connect", "--connect-timeout");
}

#[test]
fn alpn_none_when_only_h2_is_offered() {
    let run = run_against(
        Fault::AlpnNone,
        &["-n", "4", "-c", "2", "--alpn-list", "h2"],
    );
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "tls", "no ALPN");
}

#[test]
fn alpn_refused_by_the_server() {
    let run = run_against(Fault::AlpnRefused, &["-n", "4", "-c", "2"]);
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "tls", "ALPN");
}

#[test]
fn alpn_protocol_the_client_did_not_offer() {
    let run = run_against(Fault::AlpnUnoffered, &["-n", "4", "-c", "2"]);
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(&run.report, 4, "tls", "ALPN");
}

#[test]
fn expired_certificate_shows_its_dates() {
    let run = run_against(Fault::ExpiredCertificate, &["-n", "4", "-c", "2"]);
    assert_accounted(&run.report, 4, 2, 1);
    assert_all_failed_with(
        &run.report,
        4,
        "tls",
        "the certificate expired at 2021-01-01T00:00:00Z; it is now 20",
    );
    let message = text(&run.report, "/errors/first_message/tls");
    assert!(!message.contains("UNIX"), "{message}");
    assert_exit(&run.output, 1);
}
