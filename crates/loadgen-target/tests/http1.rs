mod common;

use std::net::TcpStream;
use std::os::unix::net::UnixStream;

use common::Client;
use loadgen_target::{Stats, Target, TargetConfig, TargetError, DEFAULT_BODY};

fn clear_only() -> TargetConfig {
    TargetConfig {
        tls_addr: None,
        threads: 1,
        ..TargetConfig::default()
    }
}

#[test]
fn default_and_sized_bodies_are_counted() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = Client::new(TcpStream::connect(target.clear_addr().unwrap()).unwrap());

    let r = client.get("/");
    assert_eq!(r.status, 200);
    assert_eq!(r.body, DEFAULT_BODY.as_bytes());
    assert_eq!(r.header("content-length"), Some("13"));
    assert_eq!(r.header("content-type"), Some("text/plain"));

    let r = client.get("/any/path?s=100");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-length"), Some("100"));
    assert_eq!(r.body.len(), 100);

    let r = client.get("/?s=256k&status=503&delay=1ms&unknown=1");
    assert_eq!(r.status, 503);
    assert_eq!(r.body.len(), 256 * 1024);

    let stats = target.stats();
    assert_eq!((stats.http1, stats.http2, stats.total), (3, 0, 3));
    assert_eq!(stats.response_body_bytes, 13 + 100 + 256 * 1024);
    target.shutdown();
}

#[test]
fn invalid_parameters_get_a_400_with_a_reason() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = Client::new(TcpStream::connect(target.clear_addr().unwrap()).unwrap());
    for query in ["s=lots", "delay=forever", "status=700", "status=101"] {
        let r = client.get(&format!("/?{query}"));
        assert_eq!(r.status, 400, "{query}");
        let text = String::from_utf8(r.body).unwrap();
        assert!(text.starts_with("invalid "), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    }
    assert_eq!(target.stats().http1, 4);
}

#[test]
fn request_bodies_are_read_and_counted() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = Client::new(TcpStream::connect(target.clear_addr().unwrap()).unwrap());
    client.send("POST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello");
    assert_eq!(client.read_response().status, 200);
    client.send(
        "POST / HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    );
    assert_eq!(client.read_response().status, 200);
    let stats = target.stats();
    assert_eq!((stats.total, stats.request_body_bytes), (2, 8));
}

#[test]
fn pipelined_requests_are_all_answered() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = Client::new(TcpStream::connect(target.clear_addr().unwrap()).unwrap());
    let request = "GET /?s=10 HTTP/1.1\r\nhost: x\r\n\r\n";
    client.send(&request.repeat(5));
    for _ in 0..5 {
        assert_eq!(client.read_response().body.len(), 10);
    }
    assert_eq!(target.stats().http1, 5);
}

#[test]
fn stats_endpoints_are_not_counted() {
    let target = Target::start(clear_only()).unwrap();
    let mut client = Client::new(TcpStream::connect(target.clear_addr().unwrap()).unwrap());
    client.get("/");
    client.get("/");

    let r = client.get("/__stats");
    assert_eq!(r.header("content-type"), Some("application/json"));
    let stats: Stats = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        (stats.http1, stats.total, stats.response_body_bytes),
        (2, 2, 26)
    );

    client.send("POST /__stats/reset HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n");
    let before: Stats = serde_json::from_slice(&client.read_response().body).unwrap();
    assert_eq!(before, stats);
    assert_eq!(target.stats(), Stats::default());

    client.get("/");
    client.get("/__stats/reset");
    assert_eq!(target.stats(), Stats::default());
}

#[test]
fn unix_socket_serves_http1() {
    let path = std::env::temp_dir().join(format!("loadgen-target-{}.sock", std::process::id()));
    // A stale file from a previous run must not prevent binding.
    let _ = std::os::unix::net::UnixListener::bind(&path);
    let target = Target::start(TargetConfig {
        clear_addr: None,
        unix_path: Some(path.clone()),
        ..clear_only()
    })
    .unwrap();
    assert_eq!(target.clear_addr(), None);
    assert_eq!(target.unix_path(), Some(path.as_path()));
    let mut client = Client::new(UnixStream::connect(&path).unwrap());
    assert_eq!(client.get("/?s=1k").body.len(), 1024);
    assert_eq!(target.stats().http1, 1);
    target.shutdown();
    assert!(!path.exists(), "socket file removed on shutdown");
}

#[test]
fn address_in_use_is_reported_at_start() {
    let first = Target::start(clear_only()).unwrap();
    let addr = first.clear_addr().unwrap();
    let err = Target::start(TargetConfig {
        clear_addr: Some(addr),
        ..clear_only()
    })
    .unwrap_err();
    assert!(matches!(err, TargetError::Bind { .. }), "{err:?}");
    assert!(err.to_string().contains(&addr.to_string()), "{err}");
}

#[test]
fn shutdown_does_not_wait_for_idle_or_slow_connections() {
    let target = Target::start(clear_only()).unwrap();
    let addr = target.clear_addr().unwrap();
    let _idle = TcpStream::connect(addr).unwrap();
    let mut kept = Client::new(TcpStream::connect(addr).unwrap());
    kept.get("/");
    let mut slow = Client::new(TcpStream::connect(addr).unwrap());
    slow.get("/");
    slow.send("GET /?delay=60s HTTP/1.1\r\nhost: x\r\n\r\n");
    std::thread::sleep(std::time::Duration::from_millis(50));
    // Returns after the grace period rather than after 60 s.
    let started = std::time::Instant::now();
    target.shutdown();
    eprintln!("shutdown took {:?}", started.elapsed());
}

#[test]
fn runs_from_inside_another_runtime() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let target = runtime.block_on(async {
        let target = Target::start(clear_only()).unwrap();
        let addr = target.clear_addr().unwrap();
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        stream
            .write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        assert!(response.ends_with(DEFAULT_BODY.as_bytes()));
        target
    });
    assert_eq!(target.stats().total, 1);
    // Dropping it inside an async context must not panic.
    runtime.block_on(async move { drop(target) });
}
