//! A server that closes a keep-alive connection once it has been idle (as
//! nginx does after `keepalive_timeout`): a virtual user pausing longer
//! than that between steps sees the close while idle and sends its next
//! step on a new connection, instead of writing it into the closed one.

mod common;

use common::{run_text, step};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// Answers each connection's requests until it has been idle for `idle`,
/// then closes it; counts the connections it accepted.
fn closing_server(idle: Duration) -> (u16, Arc<AtomicU64>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicU64::new(0));
    let counter = accepted.clone();
    thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(stream) = stream else { return };
            counter.fetch_add(1, Ordering::Relaxed);
            thread::spawn(move || serve(stream, idle));
        }
    });
    (port, accepted)
}

fn serve(mut stream: TcpStream, idle: Duration) {
    stream.set_read_timeout(Some(idle)).unwrap();
    let mut pending = Vec::new();
    let mut buf = [0u8; 4096];
    // Bounded: a test connection carries a handful of requests.
    for _ in 0..100 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return, // closed by the client, or idle too long: close
            Ok(n) => pending.extend_from_slice(&buf[..n]),
        }
        while let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
            pending.drain(..end + 4);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
        }
    }
}

#[test]
fn a_connection_the_server_closed_while_idle_is_replaced_not_reset() {
    let (port, accepted) = closing_server(Duration::from_millis(200));
    let text = format!(
        "
defaults:
  base_url: http://127.0.0.1:{port}
  protocol: h1
scenarios:
  pauses:
    executor: per-vu-iterations
    vus: 2
    iterations: 2
    steps:
      - name: first
        url: /a
        think_time: 500ms
        checks: {{status_in: [200]}}
      - name: after the pause
        url: /b
        checks: {{status_in: [200]}}
"
    );
    let report = run_text(&text);
    let scenario = report.scenario.as_ref().unwrap();
    for name in ["first", "after the pause"] {
        let s = step(scenario, name);
        assert_eq!(s.requests.succeeded, 4, "{s:#?}");
        assert_eq!(s.requests.errored, 0, "{s:#?}");
    }
    assert_eq!(report.requests.errored, 0, "{report:#?}");
    // The second iteration starts at once after the first's last step, on
    // that step's connection: 3 connections per VU.
    assert_eq!(accepted.load(Ordering::Relaxed), 6);
}
