//! A client for the app's tests that speaks every protocol the target
//! serves, one connection each, with the request and response types of
//! `http`, so that one test body can run over all of them.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::{Buf, Bytes, BytesMut};
use http::{HeaderMap, Method, Request, StatusCode, Version};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use loadgen_target::Target;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, RootCertStore};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Http1,
    Http1Tls,
    H2c,
    H2Tls,
    Http3,
}

pub const ALL: [Protocol; 5] = [
    Protocol::Http1,
    Protocol::Http1Tls,
    Protocol::H2c,
    Protocol::H2Tls,
    Protocol::Http3,
];

impl Protocol {
    pub fn version(self) -> Version {
        match self {
            Protocol::Http1 | Protocol::Http1Tls => Version::HTTP_11,
            Protocol::H2c | Protocol::H2Tls => Version::HTTP_2,
            Protocol::Http3 => Version::HTTP_3,
        }
    }

    fn tls(self) -> bool {
        !matches!(self, Protocol::Http1 | Protocol::H2c)
    }
}

#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: not JSON: {:?}", self.text()))
    }
}

enum Sender {
    Http1(http1::SendRequest<Full<Bytes>>),
    Http2(http2::SendRequest<Full<Bytes>>),
    Http3(
        h3::client::SendRequest<h3_quinn::OpenStreams, Bytes>,
        quinn::Endpoint,
    ),
}

pub struct Client {
    /// `scheme://localhost:port`, the origin requests are sent to.
    pub origin: String,
    sender: Sender,
}

impl Client {
    pub async fn connect(target: &Target, protocol: Protocol) -> Client {
        let addr = if protocol.tls() {
            target.tls_addr().unwrap()
        } else {
            target.clear_addr().unwrap()
        };
        let scheme = if protocol.tls() { "https" } else { "http" };
        let origin = format!("{scheme}://localhost:{}", addr.port());
        let sender = match protocol {
            Protocol::Http1 => http1_over(TcpStream::connect(addr).await.unwrap()).await,
            Protocol::H2c => http2_over(TcpStream::connect(addr).await.unwrap()).await,
            Protocol::Http1Tls => http1_over(tls(target, addr, b"http/1.1").await).await,
            Protocol::H2Tls => http2_over(tls(target, addr, b"h2").await).await,
            Protocol::Http3 => http3(target, addr).await,
        };
        Client { origin, sender }
    }

    pub async fn get(&mut self, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.send(Method::GET, path, headers, Bytes::new()).await
    }

    pub async fn post(&mut self, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let body = Bytes::copy_from_slice(body.as_bytes());
        self.send(Method::POST, path, headers, body).await
    }

    /// Sends a request for `path` (with its query) on this connection.
    pub async fn send(
        &mut self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> Reply {
        let mut request = Request::builder().method(method);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let reply = match &mut self.sender {
            Sender::Http1(sender) => {
                let host = self.origin.split("://").nth(1).unwrap();
                let request = request.uri(path).header("host", host);
                let response = sender
                    .send_request(request.body(Full::new(body)).unwrap())
                    .await
                    .unwrap();
                collect(response).await
            }
            Sender::Http2(sender) => {
                let request = request.uri(format!("{}{path}", self.origin));
                let response = sender
                    .send_request(request.body(Full::new(body)).unwrap())
                    .await
                    .unwrap();
                collect(response).await
            }
            Sender::Http3(sender, _) => {
                let request = request.uri(format!("{}{path}", self.origin));
                let mut stream = sender
                    .send_request(request.body(()).unwrap())
                    .await
                    .unwrap();
                if !body.is_empty() {
                    stream.send_data(body).await.unwrap();
                }
                stream.finish().await.unwrap();
                let response = stream.recv_response().await.unwrap();
                let mut body = BytesMut::new();
                while let Some(mut chunk) = stream.recv_data().await.unwrap() {
                    while chunk.has_remaining() {
                        let len = chunk.chunk().len();
                        body.extend_from_slice(chunk.chunk());
                        chunk.advance(len);
                    }
                }
                let (parts, ()) = response.into_parts();
                Reply {
                    status: parts.status,
                    headers: parts.headers,
                    body: body.freeze(),
                }
            }
        };
        reply
    }

    /// Closes the connection and waits until it is closed, so that the
    /// target's shutdown has nothing to wait for.
    pub async fn close(self) {
        match self.sender {
            Sender::Http1(sender) => drop(sender),
            Sender::Http2(sender) => drop(sender),
            Sender::Http3(sender, endpoint) => {
                drop(sender);
                endpoint.close(0u32.into(), b"done");
                endpoint.wait_idle().await;
            }
        }
    }
}

async fn collect(response: http::Response<hyper::body::Incoming>) -> Reply {
    let (parts, body) = response.into_parts();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body: body.collect().await.unwrap().to_bytes(),
    }
}

async fn http1_over<I>(io: I) -> Sender
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = http1::handshake(TokioIo::new(io)).await.unwrap();
    tokio::spawn(connection);
    Sender::Http1(sender)
}

async fn http2_over<I>(io: I) -> Sender
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = http2::handshake(TokioExecutor::new(), TokioIo::new(io))
        .await
        .unwrap();
    tokio::spawn(connection);
    Sender::Http2(sender)
}

fn client_config(target: &Target, alpn: &[u8]) -> ClientConfig {
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
    config
}

async fn tls(
    target: &Target,
    addr: SocketAddr,
    alpn: &[u8],
) -> tokio_rustls::client::TlsStream<TcpStream> {
    let connector = tokio_rustls::TlsConnector::from(Arc::new(client_config(target, alpn)));
    let tcp = TcpStream::connect(addr).await.unwrap();
    let stream = connector
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(alpn));
    stream
}

async fn http3(target: &Target, addr: SocketAddr) -> Sender {
    let crypto =
        quinn::crypto::rustls::QuicClientConfig::try_from(client_config(target, b"h3")).unwrap();
    let mut endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    endpoint.set_default_client_config(quinn::ClientConfig::new(Arc::new(crypto)));
    let connection = endpoint.connect(addr, "localhost").unwrap().await.unwrap();
    let (mut driver, sender) = h3::client::new(h3_quinn::Connection::new(connection))
        .await
        .unwrap();
    tokio::spawn(async move { std::future::poll_fn(|cx| driver.poll_close(cx)).await });
    Sender::Http3(sender, endpoint)
}

/// Shuts the target down off this runtime's thread: the connections'
/// tasks run here and must keep running meanwhile.
pub async fn shut_down(target: Target) {
    tokio::task::spawn_blocking(move || target.shutdown())
        .await
        .unwrap();
}
