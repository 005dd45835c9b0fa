//! A server that closes connections: the built-in target with
//! `max_requests_per_connection` ends every connection after 100 requests
//! (HTTP/1.1 `connection: close`, HTTP/2 and HTTP/3 GOAWAY). Each client
//! reconnects, the run completes, and every request is accounted for
//! exactly once: the ones the server served succeeded, the ones lost with
//! a connection errored.

mod common;

use common::*;
use loadgen_target::TargetConfig;

const N: u64 = 1000;
const PER_CONNECTION: u64 = 100;

fn closing_target() -> TestTarget {
    TestTarget::start_with(TargetConfig {
        max_requests_per_connection: Some(PER_CONNECTION),
        ..Default::default()
    })
}

/// `-n 1000 -c 2 -m 4 <args>` against a target closing every connection
/// after 100 requests; returns the report after checking the accounting.
fn check_replaced(target: &TestTarget, args: &[&str], protocol: &str) -> serde_json::Value {
    let before = target.stats();
    let mut full = vec!["-n", "1000", "-c", "2", "-m", "4"];
    full.extend_from_slice(args);
    let report = run_json_ok(&full);
    let served = stats_delta(before, target.stats()).total;
    assert_protocol(&report, protocol);
    let succeeded = num(&report, "/requests/succeeded");
    let errored = num(&report, "/requests/errored");
    assert_eq!(succeeded + errored, N, "{args:?}:\n{report:#}");
    assert_num(&report, "/requests/total", N);
    assert_num(&report, "/requests/failed_status", 0);
    assert_num(&report, "/requests/errored_not_started", 0);
    assert_eq!(
        served, succeeded,
        "the target served exactly the requests that succeeded ({args:?}):\n{report:#}"
    );
    assert_num(&report, "/bytes/data", succeeded * BODY_LEN);
    // At most 100 responses per connection: at least 10 connections.
    let connections = num(&report, "/connections");
    assert!(
        connections >= N.div_ceil(PER_CONNECTION),
        "{connections} connections for {succeeded} responses ({args:?}):\n{report:#}"
    );
    // Most requests get through: each connection loses at most what was in flight.
    assert!(
        errored <= connections * 4,
        "{errored} errored over {connections} connections ({args:?}):\n{report:#}"
    );
    report
}

#[test]
fn h3_connections_closed_by_the_server_are_replaced() {
    let t = closing_target();
    let report = check_replaced(&t, &["--h3", "-k", &t.https("/")], "h3");
    assert_eq!(t.stats().http3, num(&report, "/requests/succeeded"));
}

#[test]
fn http1_connections_closed_by_the_server_are_replaced() {
    let t = closing_target();
    check_replaced(&t, &["--h1", &t.http("/")], "http/1.1");
}

#[test]
fn h2c_connections_closed_by_the_server_are_replaced() {
    let t = closing_target();
    check_replaced(&t, &[&t.http("/")], "h2c");
}

#[test]
fn h2_over_tls_connections_closed_by_the_server_are_replaced() {
    let t = closing_target();
    check_replaced(&t, &["-k", &t.https("/")], "h2");
}
