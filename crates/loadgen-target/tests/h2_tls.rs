mod common;

use std::net::TcpStream;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http2;
use hyper_util::rt::{TokioExecutor, TokioIo};
use loadgen_target::{Target, TargetConfig, DEFAULT_BODY};
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, RootCertStore};
use tokio::io::{AsyncRead, AsyncWrite};

fn client_config(target: &Target, alpn: &[u8]) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut target.cert_pem().as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![alpn.to_vec()];
    Arc::new(config)
}

/// Sends a few requests over one HTTP/2 connection and checks the bodies.
async fn exercise_h2<I>(io: I)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) = http2::handshake(TokioExecutor::new(), TokioIo::new(io))
        .await
        .unwrap();
    let conn = tokio::spawn(conn);

    let get = |uri: &str| {
        http::Request::get(format!("http://localhost{uri}"))
            .body(Full::new(Bytes::new()))
            .unwrap()
    };
    let response = sender.send_request(get("/")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.version(), http::Version::HTTP_2);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(body, DEFAULT_BODY.as_bytes());

    // Bigger than the stream window, so flow control has to work.
    let response = sender.send_request(get("/?s=3m&status=201")).await.unwrap();
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["content-length"], "3145728");
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(body.len(), 3 << 20);

    let post = http::Request::post("http://localhost/")
        .body(Full::new(Bytes::from_static(b"0123456789")))
        .unwrap();
    let response = sender.send_request(post).await.unwrap();
    assert_eq!(response.status(), 200);

    drop(sender);
    conn.await.unwrap().unwrap();
}

/// Shutdown blocks, and hyper's client drives its connection in a task of
/// this (single-threaded) test runtime, which must keep running meanwhile
/// or the target would wait out its grace period for that connection.
async fn shut_down(target: Target) {
    tokio::task::spawn_blocking(move || target.shutdown())
        .await
        .unwrap();
}

#[tokio::test]
async fn h2c_prior_knowledge_on_the_cleartext_port() {
    let target = Target::start(TargetConfig {
        tls_addr: None,
        ..TargetConfig::default()
    })
    .unwrap();
    let stream = tokio::net::TcpStream::connect(target.clear_addr().unwrap())
        .await
        .unwrap();
    exercise_h2(stream).await;
    let stats = target.stats();
    assert_eq!((stats.http1, stats.http2, stats.total), (0, 3, 3));
    assert_eq!(stats.request_body_bytes, 10);
    assert_eq!(stats.response_body_bytes, 13 + (3 << 20) + 13);
    shut_down(target).await;
}

#[tokio::test]
async fn h2_over_tls_by_alpn() {
    let target = Target::start(TargetConfig {
        clear_addr: None,
        ..TargetConfig::default()
    })
    .unwrap();
    let connector = tokio_rustls::TlsConnector::from(client_config(&target, b"h2"));
    let tcp = tokio::net::TcpStream::connect(target.tls_addr().unwrap())
        .await
        .unwrap();
    let tls = connector
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
    exercise_h2(tls).await;
    assert_eq!(target.stats().http2, 3);
    shut_down(target).await;
}

#[test]
fn http1_over_tls_with_an_ip_address_name() {
    let target = Target::start(TargetConfig {
        clear_addr: None,
        threads: 1,
        ..TargetConfig::default()
    })
    .unwrap();
    let name = ServerName::try_from("127.0.0.1").unwrap();
    let conn = rustls::ClientConnection::new(client_config(&target, b"http/1.1"), name).unwrap();
    let tcp = TcpStream::connect(target.tls_addr().unwrap()).unwrap();
    let mut client = common::Client::new(rustls::StreamOwned::new(conn, tcp));
    let r = client.get("/?s=20k");
    assert_eq!(r.status, 200);
    assert_eq!(r.body.len(), 20 * 1024);
    let r = client.get("/");
    assert_eq!(r.body, DEFAULT_BODY.as_bytes());
    let stats = target.stats();
    assert_eq!((stats.http1, stats.http2), (2, 0));
}
