//! Stalls: while the target is stalled every response waits for the stall's
//! end. These are functional checks of the stall itself, so they only assert
//! that a response did not come early, never that it came within some time.

mod common;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::Client;
use loadgen_target::{Target, TargetConfig, TargetError, DEFAULT_BODY};

/// Timer rounding: a response may be measured this much before the stall's
/// nominal end and still count as held until it.
const EPSILON: Duration = Duration::from_millis(2);

fn clear_only() -> TargetConfig {
    TargetConfig {
        tls_addr: None,
        threads: 2,
        ..TargetConfig::default()
    }
}

fn connect(target: &Target) -> Client<TcpStream> {
    Client::new(TcpStream::connect(target.clear_addr().unwrap()).unwrap())
}

fn assert_not_before(what: &str, arrived: Instant, end: Instant) {
    assert!(
        arrived + EPSILON >= end,
        "{what} arrived {:?} before the stall ended",
        end - arrived
    );
}

#[test]
fn a_request_made_during_a_stall_is_answered_after_it() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = connect(&target);
    assert_eq!(client.get("/").status, 200);

    let end = target.stall_for(Duration::from_millis(300));
    let r = client.get("/");
    assert_not_before("the response", Instant::now(), end);
    assert_eq!(r.status, 200);
    assert_eq!(r.body, DEFAULT_BODY.as_bytes());
    assert_eq!(target.stats().total, 2);
}

#[test]
fn delay_applies_after_the_stall() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = connect(&target);
    let end = target.stall_for(Duration::from_millis(200));
    let r = client.get("/?delay=150ms&status=503");
    assert_not_before(
        "the delayed response",
        Instant::now(),
        end + Duration::from_millis(150),
    );
    assert_eq!(r.status, 503);
}

#[test]
fn a_request_in_progress_when_the_stall_starts_is_held_too() {
    let target = Target::start(clear_only()).unwrap();
    let addr = target.clear_addr().unwrap();
    let request = std::thread::spawn(move || {
        let mut client = Client::new(TcpStream::connect(addr).unwrap());
        let r = client.get("/?delay=500ms");
        (r.status, Instant::now())
    });
    std::thread::sleep(Duration::from_millis(50));
    // Begins while the request waits out its delay, and outlasts it.
    let end = target.stall_for(Duration::from_millis(1000));
    let (status, arrived) = request.join().unwrap();
    assert_eq!(status, 200);
    assert_not_before("the response in progress", arrived, end);
}

#[test]
fn stall_endpoint_starts_a_stall_and_is_not_counted() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = connect(&target);

    let before = Instant::now();
    let r = client.get("/__stall?for=300ms");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let reply: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    let remaining = reply["remaining_ms"].as_u64().unwrap();
    assert!(remaining <= 300, "{reply}");
    let until = reply["stalled_until_ms"].as_u64().unwrap();
    let epoch_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(
        until + 1000 > epoch_ms && until < epoch_ms + 1000,
        "{reply}"
    );

    let r = client.get("/");
    assert_not_before(
        "the response",
        Instant::now(),
        before + Duration::from_millis(300),
    );
    assert_eq!(r.status, 200);

    // POST works the same way; neither control request is counted.
    client.send("POST /__stall?for=1ms HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n");
    assert_eq!(client.read_response().status, 200);
    let stats = target.stats();
    assert_eq!((stats.http1, stats.total), (1, 1));
}

#[test]
fn stall_endpoint_rejects_a_missing_or_bad_length() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = connect(&target);
    for query in ["", "?for=", "?for=soon", "?for=2h", "?length=1s"] {
        let r = client.get(&format!("/__stall{query}"));
        assert_eq!(r.status, 400, "{query}");
        let text = String::from_utf8(r.body).unwrap();
        assert!(text.contains("for"), "{query}: {text}");
        assert_eq!(text.lines().count(), 1, "{query}: {text}");
    }
    assert_eq!(target.stats().total, 0);
}

#[test]
fn stats_answer_during_a_stall() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = connect(&target);
    // Far longer than any scheduling hiccup: the counters must not wait for it.
    let end = target.stall_for(Duration::from_secs(20));
    let r = client.get("/__stats");
    assert_eq!(r.status, 200);
    assert!(Instant::now() < end, "/__stats was held by the stall");
}

#[test]
fn periodic_stalls_hold_requests_that_arrive_in_a_window() {
    let every = Duration::from_millis(600);
    let length = Duration::from_millis(300);
    let started = Instant::now();
    let target = Target::start(TargetConfig {
        stall_every: Some(every),
        stall_for: Some(length),
        ..clear_only()
    })
    .unwrap();
    let mut client = connect(&target);

    // The first window opens when the server starts.
    assert_eq!(client.get("/").status, 200);
    assert_not_before("the first response", Instant::now(), started + length);

    // Back-to-back requests over more than two periods: one of them arrives
    // just after a window opens and waits for most of it.
    let mut longest = Duration::ZERO;
    let mut answered = 0;
    while started.elapsed() < 2 * every + every / 4 {
        let sent = Instant::now();
        assert_eq!(client.get("/").status, 200);
        longest = longest.max(sent.elapsed());
        answered += 1;
    }
    assert!(
        longest >= length / 2,
        "no request waited for a stall window; longest {longest:?}"
    );
    assert!(answered > 2, "{answered} requests answered between stalls");
}

#[test]
fn periodic_stall_settings_are_checked() {
    let cases = [
        (Some(Duration::from_secs(5)), None),
        (None, Some(Duration::from_secs(1))),
        (Some(Duration::from_secs(1)), Some(Duration::from_secs(1))),
        (Some(Duration::ZERO), Some(Duration::ZERO)),
    ];
    for (stall_every, stall_for) in cases {
        let err = Target::start(TargetConfig {
            stall_every,
            stall_for,
            ..clear_only()
        })
        .unwrap_err();
        assert!(
            matches!(err, TargetError::Config(_)),
            "{stall_every:?}/{stall_for:?}: {err}"
        );
    }
}
