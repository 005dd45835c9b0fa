//! Bad input: every mistake ends with one line on stderr that names it and
//! the right exit code (2 for usage errors, 1 when no request got through),
//! never with a panic or a hang.

mod common;

use common::*;
use std::time::Duration;

/// A URL nothing listens on: usage errors must be caught before connecting.
fn nowhere() -> String {
    format!("http://127.0.0.1:{}/", closed_port())
}

fn usage_error(args: &[&str], mentions: &[&str]) {
    let output = run(args);
    assert_error(&output, 2, mentions);
}

#[test]
fn unknown_flag() {
    usage_error(&["--no-such-flag", &nowhere()], &["--no-such-flag"]);
}

#[test]
fn requests_not_a_number() {
    usage_error(&["-n", "abc", &nowhere()], &["-n", "--requests", "abc"]);
}

#[test]
fn zero_clients() {
    usage_error(&["-c", "0", &nowhere()], &["-c", "--clients"]);
}

#[test]
fn unsupported_scheme() {
    usage_error(&["-n", "1", "ftp://x"], &["ftp"]);
}

#[test]
fn not_a_url() {
    usage_error(
        &["-n", "1", "not a url"],
        &["not a url", "URI", "URL", "uri", "url"],
    );
}

#[test]
fn connect_to_bad_port() {
    usage_error(
        &["-n", "1", "--connect-to", "127.0.0.1:http", &nowhere()],
        &["--connect-to", "127.0.0.1:http"],
    );
}

#[test]
fn port_out_of_range_or_not_a_number() {
    for (uri, port) in [
        ("http://127.0.0.1:99999/", "'99999'"),
        ("http://127.0.0.1:65536/", "'65536'"),
        ("http://127.0.0.1:abc/", "'abc'"),
        ("https://127.0.0.1:99999/", "'99999'"),
    ] {
        usage_error(&["-n", "1", uri], &[port]);
    }
}

#[test]
fn base_uri_port_out_of_range() {
    usage_error(
        &["-n", "1", "-B", "http://127.0.0.1:99999", "/"],
        &["'99999'"],
    );
}

#[test]
fn missing_uri() {
    usage_error(&["-n", "1"], &["URI", "URL", "uri", "url"]);
}

#[test]
fn unreadable_data_file() {
    usage_error(
        &["-n", "1", "-d", "/nonexistent/body", &nowhere()],
        &["/nonexistent/body"],
    );
}

#[test]
fn unreadable_input_file() {
    usage_error(
        &["-n", "1", "-i", "/nonexistent/uris"],
        &["/nonexistent/uris"],
    );
}

#[test]
fn unknown_cipher() {
    let url = format!("https://127.0.0.1:{}/", closed_port());
    usage_error(&["-n", "1", "--ciphers", "NOPE", "-k", &url], &["NOPE"]);
}

#[test]
fn unknown_tls13_cipher() {
    let url = format!("https://127.0.0.1:{}/", closed_port());
    usage_error(
        &["-n", "1", "--tls13-ciphers", "NOPE13", "-k", &url],
        &["NOPE13"],
    );
}

#[test]
fn bad_duration() {
    usage_error(&["-D", "1x", &nowhere()], &["1x", "-D", "--duration"]);
}

#[test]
fn wake_coalescing_above_a_millisecond() {
    usage_error(
        &["--coalesce-wakeups", "2ms", &nowhere()],
        &["--coalesce-wakeups", "1000 µs"],
    );
}

#[test]
fn more_threads_than_clients() {
    usage_error(&["-t", "4", "-c", "2", &nowhere()], &["-t", "thread"]);
}

#[test]
fn bad_protocol_name() {
    usage_error(
        &["-p", "spdy/3", &nowhere()],
        &["spdy/3", "-p", "--no-tls-proto"],
    );
}

#[test]
fn closed_port_exits_one_promptly() {
    let url = nowhere();
    let mut cmd = loadgen();
    cmd.args(["--json", "-q", "-n", "10", &url]);
    let output = run_bounded(cmd, Duration::from_secs(20));
    assert_no_panic(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "every request errored: exit code 1\n{}",
        describe(&output)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("no JSON report: {e}\n{}", describe(&output)));
    assert_num(&report, "/requests/succeeded", 0);
    assert_num(&report, "/requests/errored", 10);
    assert_num(&report, "/errors/connect", 10);
}

#[test]
fn closed_port_text_mode_says_why() {
    let url = nowhere();
    let mut cmd = loadgen();
    cmd.args(["-n", "10", "-c", "2", &url]);
    let output = run_bounded(cmd, Duration::from_secs(20));
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let said = format!("{}{}", stdout(&output), stderr(&output)).to_lowercase();
    assert!(
        said.contains("refused") || said.contains("connect"),
        "the output should say that connecting failed\n{}",
        describe(&output)
    );
}

#[test]
fn log_file_in_a_missing_directory() {
    usage_error(
        &[
            "-n",
            "1",
            "--log-file",
            "/nonexistent/dir/requests.log",
            &nowhere(),
        ],
        &["--log-file", "/nonexistent/dir/requests.log"],
    );
}

#[test]
fn max_udp_payload_size_out_of_range() {
    for size in ["1199", "65528", "1M"] {
        usage_error(
            &[
                "-n",
                "1",
                "--h3",
                "--max-udp-payload-size",
                size,
                "https://127.0.0.1:1/",
            ],
            &["--max-udp-payload-size"],
        );
    }
}

#[test]
fn qlog_file_base_in_a_missing_directory() {
    usage_error(
        &[
            "-n",
            "1",
            "--h3",
            "--qlog-file-base",
            "/nonexistent/dir/run",
            "https://127.0.0.1:1/",
        ],
        &["--qlog-file-base", "/nonexistent/dir/run"],
    );
}

#[test]
fn a_line_end_in_the_method_or_a_header_is_one_line_and_exit_2() {
    // Shown escaped, so that the message stays one line.
    usage_error(
        &["-n", "1", "--method", "GET\r\nX: y", &nowhere()],
        &["--method: 'GET\\r\\nX: y'"],
    );
    usage_error(&["-n", "1", "-H", "X: a\r\nEvil: b", &nowhere()], &["-H"]);
    usage_error(
        &["-n", "1", "-H", "X\r\nY: a", &nowhere()],
        &["-H: 'X\\r\\nY: a'"],
    );
    usage_error(&["-n", "1", "-H", "X: a\nb", &nowhere()], &["-H"]);
}

#[test]
fn a_sweep_refuses_what_belongs_to_one_run() {
    let uri = nowhere();
    for flags in [
        &["--metrics-push", "prometheus-rw=http://127.0.0.1:1/"][..],
        &["--metrics-listen", "127.0.0.1:0"],
        &["--dashboard", "127.0.0.1:0"],
        &["--server-pid", "1"],
    ] {
        let mut args = vec!["sweep", "--rate", "10:20:10", "-D", "1s"];
        args.extend_from_slice(flags);
        args.push(&uri);
        usage_error(&args, &[flags[0], "not for a sweep"]);
    }
}
