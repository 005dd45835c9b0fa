//! The built-in target's stall holds responses on every protocol, since it
//! lives in the request path that HTTP/1.1, HTTP/2 and HTTP/3 share. The
//! checks are one-sided: a run cannot finish before the stall has ended.

mod common;

use common::*;
use std::time::{Duration, Instant};

const STALL: Duration = Duration::from_millis(800);
/// Timer rounding on the target's side.
const EPSILON: Duration = Duration::from_millis(2);

/// Stalls the target, runs `loadgen -n 2 -c 1 <args>` and checks that both
/// requests succeeded over `protocol`, and not before the stall ended.
fn check_held(args: &[&str], protocol: &str, target: &TestTarget) {
    let end = target.target.stall_for(STALL);
    let mut full = vec!["-n", "2", "-c", "1"];
    full.extend_from_slice(args);
    let report = run_json_ok(&full);
    let finished = Instant::now();
    assert_num(&report, "/requests/succeeded", 2);
    assert_protocol(&report, protocol);
    assert!(
        finished + EPSILON >= end,
        "loadgen {args:?} finished {:?} before the stall ended; report:\n{report:#}",
        end - finished
    );
}

#[test]
fn stall_holds_http1() {
    let t = TestTarget::start();
    check_held(&["--h1", &t.http("/")], "http/1.1", &t);
}

#[test]
fn stall_holds_h2c() {
    let t = TestTarget::start();
    check_held(&[&t.http("/")], "h2c", &t);
}

#[test]
fn stall_holds_http2_over_tls() {
    let t = TestTarget::start();
    check_held(&["-k", &t.https("/")], "h2", &t);
}

#[test]
fn stall_holds_http3() {
    let t = TestTarget::start();
    check_held(&["--h3", "-k", &t.https("/")], "h3", &t);
}

#[test]
fn serve_stalls_periodically_and_on_request() {
    let started = Instant::now();
    let (server, clear) =
        serve_on_free_ports_with(&["--stall-every", "3600s", "--stall-for", "500ms"]);

    // The first periodic window opens when the server starts.
    let report = run_json_ok(&["-n", "1", "--h1", &format!("http://{clear}/")]);
    assert_num(&report, "/requests/succeeded", 1);
    assert!(started.elapsed() + EPSILON >= Duration::from_millis(500));

    // A one-off stall through the control path.
    let asked = Instant::now();
    let report = run_json_ok(&[
        "-n",
        "1",
        "--h1",
        &format!("http://{clear}/__stall?for=600ms"),
    ]);
    assert_num(&report, "/requests/succeeded", 1);
    let report = run_json_ok(&["-n", "1", "--h1", &format!("http://{clear}/")]);
    assert_num(&report, "/requests/succeeded", 1);
    assert!(asked.elapsed() + EPSILON >= Duration::from_millis(600));
    drop(server);
}

#[test]
fn serve_rejects_a_stall_that_never_ends() {
    let output = run(&["serve", "--stall-every", "1s", "--stall-for", "2s"]);
    assert_error(&output, 2, &["stall"]);
    let output = run(&["serve", "--stall-every", "1s"]);
    assert_error(&output, 2, &["--stall-for"]);
}
