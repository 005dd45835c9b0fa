//! HTTP/3 against a server that goes silent mid-run, as one does when its
//! machine dies or its network goes: no close, no reset, not a packet more.
//! A relay between loadgen and the built-in target forwards datagrams both
//! ways, then drops everything. QUIC alone would keep such a connection
//! for its 30 s idle timeout, taking request after request into it; with
//! `--request-timeout` the first request to time out without a packet from
//! the server since it was sent gives the connection up. A server that is
//! alive but slow acknowledges each request, so its timeouts keep the
//! connection.

mod common;

use common::*;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The relay goes silent once it has passed this many datagrams from the
/// server: the handshake and a few hundred responses.
const DATAGRAMS_BEFORE_SILENCE: u64 = 300;
/// Requests in flight on the one connection.
const STREAMS: u64 = 4;
/// Well under QUIC's 30 s idle timeout, which the run must not wait for.
const SILENT_RUN_LIMIT: Duration = Duration::from_secs(20);

/// Forwards UDP between one client and `server` until it has passed
/// [`DATAGRAMS_BEFORE_SILENCE`] datagrams from the server; drops everything
/// after that.
struct Relay {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    from_server: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl Relay {
    fn start(server: SocketAddr) -> Relay {
        let front = UdpSocket::bind("127.0.0.1:0").expect("bind the relay");
        let back = UdpSocket::bind("127.0.0.1:0").expect("bind the relay");
        back.connect(server).expect("aim the relay at the target");
        for socket in [&front, &back] {
            socket
                .set_read_timeout(Some(Duration::from_millis(5)))
                .unwrap();
        }
        let addr = front.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let from_server = Arc::new(AtomicU64::new(0));
        let thread = std::thread::spawn({
            let (stop, from_server) = (stop.clone(), from_server.clone());
            move || relay(&front, &back, &stop, &from_server)
        });
        Relay {
            addr,
            stop,
            from_server,
            thread: Some(thread),
        }
    }
}

fn relay(front: &UdpSocket, back: &UdpSocket, stop: &AtomicBool, from_server: &AtomicU64) {
    let mut buf = [0; 65_536];
    let mut client = None;
    while !stop.load(Ordering::Relaxed) {
        let silent = from_server.load(Ordering::Relaxed) >= DATAGRAMS_BEFORE_SILENCE;
        if let Ok((n, peer)) = front.recv_from(&mut buf) {
            client = Some(peer);
            if !silent {
                let _ = back.send(&buf[..n]);
            }
        }
        while let Ok(n) = back.recv(&mut buf) {
            let Some(client) = client else { break };
            if from_server.load(Ordering::Relaxed) < DATAGRAMS_BEFORE_SILENCE {
                from_server.fetch_add(1, Ordering::Relaxed);
                let _ = front.send_to(&buf[..n], client);
            }
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[test]
fn a_server_gone_silent_ends_a_run_with_the_request_timeout() {
    let target = TestTarget::start();
    let tls = target.target.tls_addr().expect("TLS listener");
    let relay = Relay::start(tls);
    let url = format!("https://{}/", relay.addr);
    let mut cmd = loadgen();
    cmd.args([
        "--json",
        "-q",
        "--h3",
        "-k",
        "-n",
        "1000000",
        "-c",
        "1",
        "-m",
        &STREAMS.to_string(),
        "--request-timeout",
        "1s",
        "--connect-timeout",
        "1s",
        &url,
    ]);
    let output = run_bounded(cmd, SILENT_RUN_LIMIT);
    assert_no_panic(&output);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("no JSON report: {e}\n{}", describe(&output)));
    assert!(
        relay.from_server.load(Ordering::Relaxed) >= DATAGRAMS_BEFORE_SILENCE,
        "the relay never went silent\n{report:#}"
    );
    let succeeded = num(&report, "/requests/succeeded");
    assert!(succeeded > 0, "{report:#}");
    assert_num(&report, "/requests/total", 1_000_000);
    assert_eq!(
        succeeded + num(&report, "/requests/failed"),
        1_000_000,
        "{report:#}"
    );
    // The requests in flight when the relay went silent may have been
    // acknowledged: they time out as usual. The next ones, sent into the
    // silence, time out with nothing heard and give the connection up, and
    // the client's reconnection finds nobody. Without that, a request
    // would time out every second per stream until QUIC's idle timeout:
    // over a hundred of them.
    let timeouts = num(&report, "/errors/timeout");
    assert!((1..=2 * STREAMS).contains(&timeouts), "{report:#}");
    assert!(num(&report, "/errors/connect") > 0, "{report:#}");
    assert_eq!(num(&report, "/connections"), 1, "{report:#}");
}

#[test]
fn a_slow_server_keeps_its_connection_when_requests_time_out() {
    let target = TestTarget::start();
    let url = format!("{}?delay=2s", target.https("/"));
    let output = run_bounded(
        {
            let mut cmd = loadgen();
            cmd.args([
                "--json",
                "-q",
                "--h3",
                "-k",
                "-n",
                "8",
                "-c",
                "1",
                "-m",
                "4",
                "--request-timeout",
                "300ms",
                &url,
            ]);
            cmd
        },
        SILENT_RUN_LIMIT,
    );
    assert_no_panic(&output);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("no JSON report: {e}\n{}", describe(&output)));
    assert_num(&report, "/requests/total", 8);
    assert_num(&report, "/errors/timeout", 8);
    assert_eq!(
        text(&report, "/errors/first_message/timeout"),
        "request timed out",
        "{report:#}"
    );
    // The server acknowledged every request: all eight ran on one connection.
    assert_num(&report, "/connections", 1);
}
