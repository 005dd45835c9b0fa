//! The gRPC echo service and reflection against grpcio (h2c and TLS) and
//! an `h3` client (HTTP/3), all on loopback.

use std::process::{Command, Stdio};
use std::sync::Arc;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use loadgen_target::{Target, TargetConfig, ECHO_DESCRIPTOR_SET, ECHO_GRPC_PATH};
use loadgen_test_peers::python;
use prost::Message;

/// Runs tests/grpc/client.py in MODE against ADDRESS; returns the number
/// of calls it made.
fn grpcio(mode: &str, address: std::net::SocketAddr, target: &Target) -> u64 {
    let python = python();
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
    stdout.trim().lines().last().unwrap().parse().unwrap()
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
    let calls = grpcio("echo", target.clear_addr().unwrap(), &target);
    assert_eq!(calls, 103);
    let stats = target.stats();
    assert_eq!((stats.http2, stats.total), (calls, calls));
    assert!(stats.request_body_bytes > 0 && stats.response_body_bytes > 0);
    target.shutdown();
}

#[test]
fn grpcio_echo_over_tls() {
    let target = start(2);
    let calls = grpcio("tls", target.tls_addr().unwrap(), &target);
    assert_eq!(target.stats().http2, calls);
    target.shutdown();
}

#[test]
fn grpcio_reflection_finds_the_echo_service() {
    let target = start(1);
    grpcio("reflection", target.clear_addr().unwrap(), &target);
    assert!(target.stats().http2 >= 4);
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

type H3Sender = h3::client::SendRequest<h3_quinn::OpenStreams, Bytes>;

async fn http3(target: &Target) -> (H3Sender, quinn::Endpoint, tokio::task::JoinHandle<()>) {
    let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(client_config(target)).unwrap();
    let mut endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    endpoint.set_default_client_config(quinn::ClientConfig::new(Arc::new(crypto)));
    let connection = endpoint
        .connect(target.tls_addr().unwrap(), "localhost")
        .unwrap()
        .await
        .unwrap();
    let (mut driver, sender) = h3::client::new(h3_quinn::Connection::new(connection))
        .await
        .unwrap();
    let driver = tokio::spawn(async move {
        let _ = std::future::poll_fn(|cx| driver.poll_close(cx)).await;
    });
    (sender, endpoint, driver)
}

#[tokio::test]
async fn echo_over_http3_with_trailers() {
    let target = start(1);
    let (mut sender, endpoint, driver) = http3(&target).await;

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

/// A reflection request: `list_services` (field 7) or
/// `file_containing_symbol` (field 4), framed.
fn reflection_request(field: u8, value: &str) -> Bytes {
    let mut message = vec![field << 3 | 2, value.len() as u8];
    message.extend_from_slice(value.as_bytes());
    let mut framed = BytesMut::new();
    framed.put_u8(0);
    framed.put_u32(message.len() as u32);
    framed.put_slice(&message);
    framed.freeze()
}

/// Takes one whole framed message off `buf`, if it has arrived.
fn take_message(buf: &mut BytesMut) -> Option<Bytes> {
    if buf.len() < 5 {
        return None;
    }
    let len = u32::from_be_bytes(buf[1..5].try_into().unwrap()) as usize;
    if buf.len() < 5 + len {
        return None;
    }
    buf.advance(5);
    Some(buf.split_to(len).freeze())
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// As grpcurl does: each question waits for its answer before the next
/// one is asked, and the stream is half-closed only at the end.
#[tokio::test]
async fn reflection_answers_before_the_client_half_closes_over_h2c() {
    use http_body_util::{BodyExt, StreamBody};
    use hyper::body::Frame;

    let target = start(1);
    let tcp = tokio::net::TcpStream::connect(target.clear_addr().unwrap())
        .await
        .unwrap();
    let (mut sender, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        hyper_util::rt::TokioIo::new(tcp),
    )
    .await
    .unwrap();
    let conn = tokio::spawn(conn);
    let (questions, rx) = tokio::sync::mpsc::channel::<Bytes>(1);
    let mut rx = rx;
    let body = StreamBody::new(futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx)
            .map(|q| q.map(|q| Ok::<_, std::convert::Infallible>(Frame::data(q))))
    }));
    let request = http::Request::post(
        "http://localhost/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    )
    .header("content-type", "application/grpc")
    .header("te", "trailers")
    .body(body)
    .unwrap();
    questions.send(reflection_request(7, "")).await.unwrap();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let mut answers = response.into_body();
    let mut buf = BytesMut::new();
    let mut next_answer = async || loop {
        if let Some(message) = take_message(&mut buf) {
            return message;
        }
        let frame = answers.frame().await.expect("an answer").unwrap();
        buf.put(frame.into_data().expect("data before the trailers"));
    };
    let first = next_answer().await;
    assert!(contains(&first, "loadgen.echo.v1.Echo"));
    questions
        .send(reflection_request(4, "loadgen.echo.v1.EchoRequest"))
        .await
        .unwrap();
    let second = next_answer().await;
    assert!(contains(&second, "echo.proto"));
    drop(questions);
    let trailers = loop {
        let frame = answers.frame().await.expect("trailers").unwrap();
        if let Ok(trailers) = frame.into_trailers() {
            break trailers;
        }
    };
    assert_eq!(trailers["grpc-status"], "0");
    assert_eq!(target.stats().http2, 1);
    drop(sender);
    conn.await.unwrap().unwrap();
    tokio::task::spawn_blocking(move || target.shutdown())
        .await
        .unwrap();
}

/// The same over HTTP/3, where the request and response share a stream.
#[tokio::test]
async fn reflection_answers_before_the_client_half_closes_over_http3() {
    let target = start(1);
    let (mut sender, endpoint, driver) = http3(&target).await;
    let head = http::Request::post(
        "https://localhost/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    )
    .header("content-type", "application/grpc+proto")
    .body(())
    .unwrap();
    let mut stream = sender.send_request(head).await.unwrap();
    stream.send_data(reflection_request(7, "")).await.unwrap();
    let response = stream.recv_response().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut buf = BytesMut::new();
    let first = loop {
        if let Some(message) = take_message(&mut buf) {
            break message;
        }
        let mut chunk = stream.recv_data().await.unwrap().expect("an answer");
        buf.put(chunk.copy_to_bytes(chunk.remaining()));
    };
    assert!(contains(&first, "grpc.reflection.v1alpha.ServerReflection"));
    stream
        .send_data(reflection_request(4, "loadgen.echo.v1.Nope"))
        .await
        .unwrap();
    stream.finish().await.unwrap();
    while let Some(mut chunk) = stream.recv_data().await.unwrap() {
        buf.put(chunk.copy_to_bytes(chunk.remaining()));
    }
    let second = take_message(&mut buf).expect("a second answer");
    assert!(
        contains(&second, "loadgen.echo.v1.Nope"),
        "the request comes back"
    );
    let trailers = stream.recv_trailers().await.unwrap().expect("trailers");
    assert_eq!(trailers["grpc-status"], "0");
    assert_eq!(target.stats().http3, 1);

    drop(sender);
    endpoint.close(0u32.into(), b"done");
    driver.abort();
    tokio::task::spawn_blocking(move || target.shutdown())
        .await
        .unwrap();
}
