//! The gRPC echo service and reflection against grpcio (h2c and TLS) and
//! an `h3` client (HTTP/3), all on loopback.

use std::process::{Command, Stdio};
use std::sync::Arc;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use loadgen_target::{Target, TargetConfig, ECHO_DESCRIPTOR_SET, ECHO_GRPC_PATH};
use prost::Message;

/// The test venv's Python, with grpcio, grpcio-reflection and grpcio-tools
/// (scripts/test makes it and exports it as LOADGEN_TEST_PYTHON).
fn python() -> Option<String> {
    let python = std::env::var("LOADGEN_TEST_PYTHON").ok();
    if python.is_none() {
        eprintln!("skipped: LOADGEN_TEST_PYTHON is unset (scripts/test sets it)");
    }
    python
}

/// Runs tests/grpc/client.py in MODE against ADDRESS; returns the number
/// of calls it made.
fn grpcio(mode: &str, address: std::net::SocketAddr, target: &Target) -> Option<u64> {
    let python = python()?;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/grpc/client.py");
    let output = Command::new(python)
        .args([script, mode, &address.to_string()])
        .env("LOADGEN_TARGET_CERT_PEM", target.cert_pem())
        .stdin(Stdio::null())
        .output()
        .expect("run the Python gRPC client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "client.py {mode} failed: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    Some(stdout.trim().lines().last().unwrap().parse().unwrap())
}

fn start(threads: usize) -> Target {
    Target::start(TargetConfig {
        threads,
        ..TargetConfig::default()
    })
    .unwrap()
}

#[test]
fn grpcio_echo_over_h2c_fails_calls_on_demand_and_is_counted() {
    let target = start(2);
    let Some(calls) = grpcio("echo", target.clear_addr().unwrap(), &target) else {
        return;
    };
    assert_eq!(calls, 103);
    let stats = target.stats();
    assert_eq!((stats.http2, stats.total), (calls, calls));
    assert!(stats.request_body_bytes > 0 && stats.response_body_bytes > 0);
    target.shutdown();
}

#[test]
fn grpcio_echo_over_tls() {
    let target = start(2);
    let Some(calls) = grpcio("tls", target.tls_addr().unwrap(), &target) else {
        return;
    };
    assert_eq!(target.stats().http2, calls);
    target.shutdown();
}

#[test]
fn grpcio_reflection_finds_the_echo_service() {
    let target = start(1);
    if grpcio("reflection", target.clear_addr().unwrap(), &target).is_some() {
        assert!(target.stats().http2 >= 4);
    }
    target.shutdown();
}

#[test]
fn the_descriptor_set_names_the_echo_file() {
    let set = prost_types::FileDescriptorSet::decode(ECHO_DESCRIPTOR_SET).unwrap();
    assert_eq!(set.file.len(), 1);
    assert_eq!(set.file[0].name(), "echo.proto");
    assert_eq!(set.file[0].service[0].name(), "Echo");
}

#[derive(Clone, PartialEq, prost::Message)]
struct EchoRequest {
    #[prost(string, tag = "1")]
    message: String,
    #[prost(bytes = "bytes", tag = "2")]
    payload: Bytes,
    #[prost(uint32, tag = "3")]
    status: u32,
    #[prost(string, tag = "4")]
    status_message: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct EchoReply {
    #[prost(string, tag = "1")]
    message: String,
    #[prost(bytes = "bytes", tag = "2")]
    payload: Bytes,
}

fn client_config(target: &Target) -> rustls::ClientConfig {
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut target.cert_pem().as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h3".to_vec()];
    config
}

#[tokio::test]
async fn echo_over_http3_with_trailers() {
    let target = start(1);
    let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(client_config(&target)).unwrap();
    let mut endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    endpoint.set_default_client_config(quinn::ClientConfig::new(Arc::new(crypto)));
    let connection = endpoint
        .connect(target.tls_addr().unwrap(), "localhost")
        .unwrap()
        .await
        .unwrap();
    let (mut driver, mut sender) = h3::client::new(h3_quinn::Connection::new(connection))
        .await
        .unwrap();
    let driver =
        tokio::spawn(async move { std::future::poll_fn(|cx| driver.poll_close(cx)).await });

    let request = EchoRequest {
        message: "over QUIC".into(),
        payload: Bytes::from_static(&[7; 1000]),
        ..EchoRequest::default()
    };
    let encoded = request.encode_to_vec();
    let mut framed = BytesMut::new();
    framed.put_u8(0);
    framed.put_u32(encoded.len() as u32);
    framed.put_slice(&encoded);

    let head = http::Request::post(format!("https://localhost{ECHO_GRPC_PATH}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap();
    let mut stream = sender.send_request(head).await.unwrap();
    stream.send_data(framed.freeze()).await.unwrap();
    stream.finish().await.unwrap();
    let response = stream.recv_response().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/grpc");
    let mut body = BytesMut::new();
    while let Some(mut chunk) = stream.recv_data().await.unwrap() {
        body.put(chunk.copy_to_bytes(chunk.remaining()));
    }
    let trailers = stream.recv_trailers().await.unwrap().expect("trailers");
    assert_eq!(trailers["grpc-status"], "0");

    assert_eq!(body[0], 0, "uncompressed");
    let len = u32::from_be_bytes(body[1..5].try_into().unwrap()) as usize;
    assert_eq!(body.len(), 5 + len);
    let reply = EchoReply::decode(&body[5..]).unwrap();
    assert_eq!(reply.message, "over QUIC");
    assert_eq!(reply.payload, request.payload);
    assert_eq!(target.stats().http3, 1);

    drop(sender);
    endpoint.close(0u32.into(), b"done");
    driver.abort();
    tokio::task::spawn_blocking(move || target.shutdown())
        .await
        .unwrap();
}
