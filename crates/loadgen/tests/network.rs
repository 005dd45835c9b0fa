//! A real network between loadgen and the built-in target: latency, jitter,
//! bandwidth limits, slow closes and stalls on TCP through Toxiproxy;
//! latency on QUIC through a delaying UDP relay; 1% packet loss and a
//! 10 Mbit/s cap on a veth link between two network namespaces. Every run
//! is counted exactly on both sides, and what was injected shows in what
//! loadgen measured. docs/reliability.md ("A real network") has the figures.

mod common;
mod impair;

use common::*;
use impair::namespaces::{Link, SERVER_IP};
use impair::toxiproxy::{Stream, Toxiproxy};
use impair::udp_relay::UdpRelay;
use loadgen_target::TargetConfig;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// Injected each way: a round trip of 100 ms.
const EACH_WAY: Duration = Duration::from_millis(50);

/// A 10 Mbit/s cap, in bytes per second.
const CAP_BYTES_PER_S: f64 = 10e6 / 8.0;

fn p50_us(report: &Value) -> u64 {
    num(report, "/request_time/p50_us")
}

fn bytes_per_s(report: &Value) -> f64 {
    field(report, "/throughput_bytes_per_s")
        .as_f64()
        .unwrap_or_else(|| panic!("throughput_bytes_per_s is not a number:\n{report:#}"))
}

/// `args` run against `target`: every one of `n` requests a 200 with the
/// 13-byte body, and the target counted exactly `n` more, all of `protocol`
/// (`http1`, `http2` or `http3`).
fn run_counted(target: &TestTarget, n: u64, protocol: &str, args: &[&str]) -> Value {
    let before = target.stats();
    let report = run_json_ok(args);
    assert_all_ok(&report, n, BODY_LEN);
    assert_served(target, before, n, protocol, &report);
    report
}

fn assert_served(
    target: &TestTarget,
    before: loadgen_target::Stats,
    n: u64,
    protocol: &str,
    report: &Value,
) {
    let seen = stats_delta(before, target.stats());
    let by_protocol = match protocol {
        "http1" => seen.http1,
        "http2" => seen.http2,
        "http3" => seen.http3,
        other => panic!("no such protocol count: {other}"),
    };
    assert_eq!(
        (by_protocol, seen.total),
        (n, n),
        "the target's count of {protocol} and of all requests; report:\n{report:#}"
    );
}

/// The measured p50 is the injected round trip plus what the same path
/// took without it (the server's own time), within 10%.
fn assert_round_trip_added(label: &str, base_us: u64, delayed_us: u64, round_trip: Duration) {
    let expected = round_trip.as_micros() as f64 + base_us as f64;
    let off = (delayed_us as f64 - expected).abs() / expected;
    eprintln!(
        "{label}: p50 {delayed_us} us with {} ms injected, {base_us} us without: \
         expected {expected:.0} us, off by {:.1}%",
        round_trip.as_millis(),
        off * 100.0
    );
    assert!(
        off <= 0.10,
        "{label}: p50 {delayed_us} us is not within 10% of {expected:.0} us \
         ({round_trip:?} injected + {base_us} us measured without)"
    );
}

// ---------------------------------------------------------------------------
// Latency: Toxiproxy for TCP, a delaying relay for QUIC
// ---------------------------------------------------------------------------

/// HTTP/1.1, h2c or HTTP/2 over TLS (`flag`; `tls` for the target's TLS
/// port) through a Toxiproxy proxy, first as it is, then with 50 ms added
/// each way.
fn latency_through_toxiproxy(flag: &str, tls: bool, protocol: &str) {
    let target = TestTarget::start();
    let toxiproxy = Toxiproxy::start();
    let (upstream, scheme) = match tls {
        true => (target.target.tls_addr().unwrap(), "https"),
        false => (target.target.clear_addr().unwrap(), "http"),
    };
    let proxy = toxiproxy.proxy("target", upstream);
    let url = format!("{scheme}://{}/", proxy.listen);
    let base = run_counted(
        &target,
        200,
        protocol,
        &["-n", "200", "-c", "1", "-k", flag, &url],
    );
    proxy.delay_both_ways(EACH_WAY, Duration::ZERO);
    let delayed = run_counted(
        &target,
        40,
        protocol,
        &["-n", "40", "-c", "4", "-k", flag, &url],
    );
    let label = format!("{protocol} ({scheme})");
    assert_round_trip_added(&label, p50_us(&base), p50_us(&delayed), 2 * EACH_WAY);
}

#[test]
fn h1_p50_is_the_injected_round_trip_plus_the_servers_time() {
    latency_through_toxiproxy("--h1", false, "http1");
}

#[test]
fn h2c_p50_is_the_injected_round_trip_plus_the_servers_time() {
    latency_through_toxiproxy("--no-tls-proto=h2c", false, "http2");
}

#[test]
fn h2_over_tls_p50_is_the_injected_round_trip_plus_the_servers_time() {
    latency_through_toxiproxy("--alpn-list=h2", true, "http2");
}

#[test]
fn h3_p50_is_the_injected_round_trip_plus_the_servers_time() {
    let target = TestTarget::start();
    let server = target.target.tls_addr().unwrap();
    let url = |relay: &UdpRelay| format!("https://{}/", relay.addr);
    let direct = UdpRelay::start(server, Duration::ZERO);
    let base = run_counted(
        &target,
        200,
        "http3",
        &["-n", "200", "-c", "1", "--h3", "-k", &url(&direct)],
    );
    let delayed_relay = UdpRelay::start(server, EACH_WAY);
    let delayed = run_counted(
        &target,
        40,
        "http3",
        &["-n", "40", "-c", "4", "--h3", "-k", &url(&delayed_relay)],
    );
    assert_round_trip_added("http3", p50_us(&base), p50_us(&delayed), 2 * EACH_WAY);
    let rtt = num(&delayed, "/quic/min_rtt_us");
    assert!(
        rtt >= 2 * EACH_WAY.as_micros() as u64,
        "QUIC's own RTT sample {rtt} us is below the injected round trip:\n{delayed:#}"
    );
}

/// 50 ± 20 ms each way: the median stays, the spread shows.
#[test]
fn jitter_spreads_request_times_around_the_same_p50() {
    let target = TestTarget::start();
    let toxiproxy = Toxiproxy::start();
    let proxy = toxiproxy.proxy("target", target.target.clear_addr().unwrap());
    let url = proxy.http("/");
    let base = run_counted(
        &target,
        200,
        "http1",
        &["-n", "200", "-c", "1", "--h1", &url],
    );
    let jitter = Duration::from_millis(20);
    proxy.delay_both_ways(EACH_WAY, jitter);
    let jittered = run_counted(&target, 80, "http1", &["-n", "80", "-c", "4", "--h1", &url]);
    assert_round_trip_added(
        "http1 ± jitter",
        p50_us(&base),
        p50_us(&jittered),
        2 * EACH_WAY,
    );
    // Two delays of 50 ± 20 ms: between 60 and 140 ms, spread like a
    // triangle of standard deviation 16 ms whose 90th percentile is 122 ms.
    // Nothing arrives early; a loaded machine can wake a timer late, so the
    // top is checked at p90 rather than at the maximum.
    let [min, p90, max] =
        ["min_us", "p90_us", "max_us"].map(|stat| num(&jittered, &format!("/request_time/{stat}")));
    let stdev = field(&jittered, "/request_time/stdev_us").as_f64().unwrap();
    eprintln!("jitter: min {min} us, p90 {p90} us, max {max} us, stdev {stdev:.0} us");
    assert!(
        (60_000..90_000).contains(&min) && p90 <= 150_000,
        "request times not spread over 100 ± 40 ms:\n{jittered:#}"
    );
    assert!(
        stdev >= 8_000.0,
        "a stdev of {stdev:.0} us is not the jitter's:\n{jittered:#}"
    );
}

/// A scripted flow (log in, log out) with 100 ms on every round trip:
/// each of its requests is counted, by the report and by the target.
#[test]
fn a_scenario_through_toxiproxy_latency_counts_every_request() {
    let target = TestTarget::start();
    let toxiproxy = Toxiproxy::start();
    let proxy = toxiproxy.proxy("target", target.target.clear_addr().unwrap());
    proxy.delay_both_ways(EACH_WAY, Duration::ZERO);
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/login-logout.yaml");
    let before = target.stats();
    let mut cmd = loadgen();
    cmd.arg("run")
        .arg(&example)
        .args(["--env", &format!("BASE_URL={}", proxy.http(""))])
        .args(["--iterations", "6", "--vus", "2", "--json"]);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not one JSON object: {e}\n{}", describe(&output)));
    // Each iteration: the login page, the login and its redirect, the logout.
    let n = 6 * 4;
    for (pointer, expected) in [
        ("/scenario/iterations/completed", 6),
        ("/requests/total", n),
        ("/requests/done", n),
        ("/requests/succeeded", n),
        ("/requests/failed", 0),
        ("/requests/errored", 0),
        ("/requests/timeout", 0),
    ] {
        assert_num(&report, pointer, expected);
    }
    for check in field(&report, "/scenario/checks").as_array().unwrap() {
        assert_eq!(check["fails"], 0, "{check}\n{report:#}");
    }
    let seen = stats_delta(before, target.stats());
    assert_eq!(
        (seen.total, seen.logins, seen.logouts),
        (n, 6, 6),
        "the target's count of requests, logins and logouts; report:\n{report:#}"
    );
    // Every request waited at least one injected round trip.
    let min = num(&report, "/request_time/min_us");
    assert!(min >= 2 * EACH_WAY.as_micros() as u64, "{report:#}");
}

// ---------------------------------------------------------------------------
// Bandwidth, slow closes and stalls through Toxiproxy
// ---------------------------------------------------------------------------

#[test]
fn a_bandwidth_toxic_is_the_bytes_per_second_ceiling() {
    let target = TestTarget::start();
    let toxiproxy = Toxiproxy::start();
    let proxy = toxiproxy.proxy("target", target.target.clear_addr().unwrap());
    let url = proxy.http("/?s=1m");
    let args = ["-n", "2", "-c", "1", "--h1", &url];
    let free = run_json_ok(&args);
    // Toxiproxy's rate is in kilobytes (1000 bytes) per second.
    let rate_kb = (CAP_BYTES_PER_S / 1000.0) as u64;
    proxy.add("bandwidth", Stream::Downstream, json!({ "rate": rate_kb }));
    let capped = run_json_ok(&args);
    for report in [&free, &capped] {
        assert_all_ok(report, 2, 1 << 20);
    }
    check_ceiling("bandwidth toxic", bytes_per_s(&free), bytes_per_s(&capped));
}

/// The capped rate is the cap (a little under, for headers, connection
/// setup and framing; a little over, for a bucket's first burst), and the
/// same download without it goes several times faster.
fn check_ceiling(label: &str, free: f64, capped: f64) {
    eprintln!(
        "{label}: {capped:.0} bytes/s capped at {CAP_BYTES_PER_S:.0}, {free:.0} bytes/s without"
    );
    assert!(
        (0.8 * CAP_BYTES_PER_S..=1.08 * CAP_BYTES_PER_S).contains(&capped),
        "{label}: {capped:.0} bytes/s is not the cap of {CAP_BYTES_PER_S:.0}"
    );
    assert!(
        free > 3.0 * CAP_BYTES_PER_S,
        "{label}: {free:.0} bytes/s without the cap: the cap shows nothing"
    );
}

/// The server closes each connection after 10 requests, and the close
/// reaches the client 300 ms late: loadgen reconnects without losing or
/// counting twice any request, and without waiting for a close the server
/// announced (`connection: close`, GOAWAY).
#[test]
fn slow_closes_lose_no_request_and_hold_nothing_up() {
    let target = TestTarget::start_with(TargetConfig {
        max_requests_per_connection: Some(10),
        ..TargetConfig::default()
    });
    let toxiproxy = Toxiproxy::start();
    let proxy = toxiproxy.proxy("target", target.target.clear_addr().unwrap());
    proxy.add("slow_close", Stream::Downstream, json!({ "delay": 300 }));
    for (flag, protocol) in [("--h1", "http1"), ("--no-tls-proto=h2c", "http2")] {
        let report = run_counted(
            &target,
            100,
            protocol,
            &["-n", "100", "-c", "2", flag, &proxy.http("/")],
        );
        assert_num(&report, "/connections", 10);
        // Each client reconnects four times: waiting for those closes alone
        // would take 1.2 s.
        let elapsed = field(&report, "/elapsed_s").as_f64().unwrap();
        eprintln!("slow close, {protocol}: 100 requests over 10 connections in {elapsed:.3} s");
        assert!(
            elapsed < 1.0,
            "{protocol} waited for slow closes:\n{report:#}"
        );
    }
}

/// Toxiproxy's `timeout` toxic with no timeout: nothing comes back and the
/// connection stays open. Every request reached the server, and every one
/// is counted as timed out, none twice.
#[test]
fn a_stalled_link_times_out_every_request_exactly_once() {
    let target = TestTarget::start();
    let toxiproxy = Toxiproxy::start();
    let proxy = toxiproxy.proxy("target", target.target.clear_addr().unwrap());
    proxy.add("timeout", Stream::Downstream, json!({ "timeout": 0 }));
    let before = target.stats();
    let (report, output) = run_json(&[
        "-n",
        "6",
        "-c",
        "2",
        "--h1",
        "--request-timeout",
        "300ms",
        &proxy.http("/"),
    ]);
    assert_ne!(output.status.code(), Some(0), "{}", describe(&output));
    for (pointer, expected) in [
        ("/requests/total", 6),
        ("/requests/started", 6),
        ("/requests/done", 6),
        ("/requests/succeeded", 0),
        ("/requests/timeout", 6),
        ("/status_codes/2xx", 0),
    ] {
        assert_num(&report, pointer, expected);
    }
    assert_served(&target, before, 6, "http1", &report);
}

// ---------------------------------------------------------------------------
// Loss and a bandwidth cap between two network namespaces
// ---------------------------------------------------------------------------

/// `loadgen --json -q <args>` in the client namespace of `link`, exit 0.
fn run_json_in(link: &Link, args: &[&str]) -> Value {
    let mut full = vec!["--json", "-q"];
    full.extend_from_slice(args);
    let cmd = link.in_client(Path::new(env!("CARGO_BIN_EXE_loadgen")), &full);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_no_panic(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        full.join(" "),
        describe(&output)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not one JSON object: {e}\n{}", describe(&output)))
}

/// A link that drops 1% of packets each way, the target behind it.
fn lossy_link(tag: &str) -> (Link, TestTarget, TempDir) {
    let dir = TempDir::new(tag);
    let link = Link::create(tag);
    let target = link.start_target();
    link.drop_percent(1, dir.path());
    (link, target, dir)
}

fn assert_packets_dropped(label: &str, link: &Link) -> (u64, u64) {
    let (to_server, to_client) = link.dropped();
    eprintln!("{label}: nftables dropped {to_server} packets to the server, {to_client} back");
    assert!(
        to_server > 0 && to_client > 0,
        "{label}: the link lost nothing ({to_server} to the server, {to_client} back)"
    );
    (to_server, to_client)
}

fn tcp_under_loss(tag: &str, flag: &str, protocol: &str) {
    let (link, target, _dir) = lossy_link(tag);
    let before = target.stats();
    let url = format!("http://{SERVER_IP}:8080/");
    let report = run_json_in(&link, &["-n", "3000", "-c", "10", flag, &url]);
    assert_all_ok(&report, 3000, BODY_LEN);
    assert_served(&target, before, 3000, protocol, &report);
    assert_packets_dropped(protocol, &link);
}

#[test]
fn h1_under_one_percent_loss_counts_every_request() {
    tcp_under_loss("h1loss", "--h1", "http1");
}

#[test]
fn h2_under_one_percent_loss_counts_every_request() {
    tcp_under_loss("h2loss", "--no-tls-proto=h2c", "http2");
}

#[test]
fn h3_under_one_percent_loss_keeps_going_and_counts_lost_packets() {
    let (link, target, _dir) = lossy_link("h3loss");
    let before = target.stats();
    let url = format!("https://{SERVER_IP}:8443/");
    let report = run_json_in(&link, &["-n", "5000", "-c", "10", "--h3", "-k", &url]);
    assert_all_ok(&report, 5000, BODY_LEN);
    assert_served(&target, before, 5000, "http3", &report);
    let (to_server, _) = assert_packets_dropped("http3", &link);
    let lost = num(&report, "/quic/lost_packets");
    let sent = num(&report, "/quic/datagrams_sent");
    eprintln!("http3: quic.lost_packets {lost} of {sent} datagrams sent");
    // The client declares lost what it sent; the rule dropped `to_server`
    // of those (and some of the server's, which its own side recovers).
    assert!(
        lost > 0,
        "{to_server} packets to the server were dropped, quic.lost_packets is 0:\n{report:#}"
    );
}

/// 3 MiB downloaded over a veth link with and without a 10 Mbit/s `tbf`
/// on the server's side.
fn under_a_cap(tag: &str, args: &[&str], url: &str) {
    let link = Link::create(tag);
    let _target = link.start_target();
    let mut full = vec!["-n", "3", "-c", "1"];
    full.extend_from_slice(args);
    full.push(url);
    let free = run_json_in(&link, &full);
    link.cap_server_egress("10mbit");
    let capped = run_json_in(&link, &full);
    for report in [&free, &capped] {
        assert_all_ok(report, 3, 1 << 20);
    }
    check_ceiling(tag, bytes_per_s(&free), bytes_per_s(&capped));
}

#[test]
fn h1_under_a_10_mbit_cap_runs_at_the_cap() {
    under_a_cap(
        "h1cap",
        &["--h1"],
        &format!("http://{SERVER_IP}:8080/?s=1m"),
    );
}

#[test]
fn h2_under_a_10_mbit_cap_runs_at_the_cap() {
    under_a_cap(
        "h2cap",
        &["--no-tls-proto=h2c"],
        &format!("http://{SERVER_IP}:8080/?s=1m"),
    );
}

#[test]
fn h3_under_a_10_mbit_cap_runs_at_the_cap() {
    under_a_cap(
        "h3cap",
        &["--h3", "-k"],
        &format!("https://{SERVER_IP}:8443/?s=1m"),
    );
}
