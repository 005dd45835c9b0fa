//! HTTP/3 on the UDP side of the TLS port: a quinn endpoint and the `h3`
//! server, answering with the same responses (and counters), gRPC calls
//! included, as HTTP/1.1 and HTTP/2.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes};
use h3::error::Code;
use http::{Response, Version};
use http_body_util::BodyExt;
use quinn::crypto::rustls::QuicServerConfig;
use quinn::{Endpoint, EndpointConfig, TransportConfig, VarInt};

use crate::app::{self, BoundedBody};
use crate::body::Body;
use crate::error::TargetError;
use crate::grpc;
use crate::server::Lifeline;
use crate::service;
use crate::state::State;

/// Concurrent request streams per connection, as for HTTP/2.
const MAX_STREAMS: u32 = 1000;
const SOCKET_BUFFER: usize = 4 << 20;
/// What one connection may hold written but not yet acknowledged. h3-quinn
/// copies every body into quinn's send buffer, so this is also the memory a
/// connection's responses take. At 8 MB (quinn's default is 10) a run of
/// HttpArena's `static-h3` profile (64 connections of 64 streams, 58 KB a
/// response) kept every response whole in memory: a gigabyte resident, ten
/// page faults a request, and half the requests per second the target
/// serves now (docs/performance.md, "HTTP/3: the built-in target's send
/// window").
///
/// A megabyte is still several times what a connection has in flight on
/// loopback, and one connection's bulk transfer is no slower with it.
const SEND_WINDOW: u64 = 1 << 20;
/// How long a connection that served its `max_requests_per_connection`
/// waits, after its GOAWAY, for the client to close it.
const CLOSE_AFTER_GOAWAY: Duration = Duration::from_secs(2);

/// Binds the UDP endpoint on `addr`. Must be called inside the server runtime.
pub(crate) fn bind(
    addr: SocketAddr,
    tls: Arc<rustls::ServerConfig>,
) -> Result<Endpoint, TargetError> {
    let err = |source| TargetError::Bind {
        listener: "HTTP/3 (UDP)",
        addr,
        source,
    };
    let crypto = QuicServerConfig::try_from(tls).map_err(|e| err(io::Error::other(e)))?;
    let mut config = quinn::ServerConfig::with_crypto(Arc::new(crypto));
    let mut transport = TransportConfig::default();
    transport
        .max_concurrent_bidi_streams(VarInt::from_u32(MAX_STREAMS))
        .stream_receive_window(VarInt::from_u32(1 << 20))
        .receive_window(VarInt::from_u32(4 << 20))
        .send_window(SEND_WINDOW)
        .initial_rtt(Duration::from_millis(1));
    config.transport_config(Arc::new(transport));
    let socket = (|| -> io::Result<std::net::UdpSocket> {
        let domain = if addr.is_ipv4() {
            socket2::Domain::IPV4
        } else {
            socket2::Domain::IPV6
        };
        let socket =
            socket2::Socket::new(domain, socket2::Type::DGRAM, Some(socket2::Protocol::UDP))?;
        let _ = socket.set_recv_buffer_size(SOCKET_BUFFER);
        let _ = socket.set_send_buffer_size(SOCKET_BUFFER);
        socket.bind(&addr.into())?;
        Ok(socket.into())
    })()
    .map_err(err)?;
    let runtime = quinn::default_runtime()
        .ok_or_else(|| err(io::Error::other("no async runtime for QUIC")))?;
    Endpoint::new(EndpointConfig::default(), Some(config), socket, runtime).map_err(err)
}

pub(crate) async fn accept(endpoint: Endpoint, state: Arc<State>, mut life: Lifeline) {
    loop {
        let incoming = tokio::select! {
            biased;
            _ = life.stopped() => break,
            incoming = endpoint.accept() => match incoming {
                Some(incoming) => incoming,
                None => break,
            },
        };
        let (state, life) = (state.clone(), life.clone());
        tokio::spawn(serve_connection(incoming, state, life));
    }
    // H3_NO_ERROR to every client still connected.
    endpoint.close(VarInt::from_u32(0x100), b"shutting down");
}

async fn serve_connection(incoming: quinn::Incoming, state: Arc<State>, mut life: Lifeline) {
    let connection = tokio::select! {
        connected = incoming => match connected {
            Ok(connection) => connection,
            Err(_) => return,
        },
        _ = life.stopped() => return,
    };
    let built = h3::server::builder()
        .send_grease(false)
        .build::<_, Bytes>(h3_quinn::Connection::new(connection.clone()))
        .await;
    let Ok(mut h3) = built else { return };
    // Requests this connection may still serve, with max_requests_per_connection.
    let mut left = state.max_requests_per_connection;
    let mut close_at = None;
    loop {
        let give_up = async {
            match close_at {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let resolver = tokio::select! {
            accepted = h3.accept() => match accepted {
                Ok(Some(resolver)) => resolver,
                // The client closed the connection, or it broke.
                _ => return,
            },
            _ = life.stopped() => {
                connection.close(VarInt::from_u32(0x100), b"shutting down");
                return;
            }
            _ = give_up => {
                connection.close(VarInt::from_u32(0x100), b"max requests per connection");
                return;
            }
        };
        if left == Some(0) {
            // Beyond the GOAWAY: refused unprocessed, as the client was told.
            tokio::spawn(reject(resolver));
            continue;
        }
        let state = state.clone();
        tokio::spawn(async move {
            // Stream errors are the client's business, as on TCP.
            let _ = handle(resolver, state).await;
        });
        if let Some(left) = &mut left {
            *left -= 1;
            if *left == 0 {
                // GOAWAY naming the next stream: every request accepted so
                // far is served, later ones are refused. The client closes
                // the connection once its requests are done.
                if h3.shutdown(1).await.is_err() {
                    return;
                }
                close_at = Some(tokio::time::Instant::now() + CLOSE_AFTER_GOAWAY);
            }
        }
    }
}

/// Refuses a request that came after the GOAWAY.
async fn reject(resolver: h3::server::RequestResolver<h3_quinn::Connection, Bytes>) {
    if let Ok((_, mut stream)) = resolver.resolve_request().await {
        stream.stop_sending(Code::H3_REQUEST_REJECTED);
        stream.stop_stream(Code::H3_REQUEST_REJECTED);
    }
}

async fn handle(
    resolver: h3::server::RequestResolver<h3_quinn::Connection, Bytes>,
    state: Arc<State>,
) -> Result<(), h3::error::StreamError> {
    let (request, mut stream) = resolver.resolve_request().await?;
    let (mut head, ()) = request.into_parts();
    head.version = Version::HTTP_3;
    if grpc::is_stream(&head) {
        // Answered while the client still sends: each half on its own.
        let (mut send, recv) = stream.split();
        let requests = futures_util::stream::unfold(Some(recv), |recv| async move {
            let mut recv = recv?;
            match recv.recv_data().await {
                Ok(Some(mut data)) => Some((Ok(data.copy_to_bytes(data.remaining())), Some(recv))),
                Ok(None) => None,
                Err(_) => Some((Err(()), None)),
            }
        });
        let response = grpc::serve_stream(&head, requests, state).await;
        let (parts, body) = response.into_parts();
        send.send_response(Response::from_parts(parts, ())).await?;
        send_body(&mut send, body).await?;
        return send.finish().await;
    }
    let response = if grpc::is_grpc(&head.headers) {
        let mut upload = grpc::Upload::default();
        while let Some(chunk) = stream.recv_data().await? {
            if !upload.push(chunk) {
                break;
            }
        }
        service::respond_grpc(&head, upload, &state).await
    } else if app::serves(head.uri.path()) {
        let mut received = BoundedBody::default();
        while let Some(chunk) = stream.recv_data().await? {
            received.push(chunk);
        }
        service::respond_app(&head, received, &state).await
    } else {
        let mut received = 0u64;
        while let Some(chunk) = stream.recv_data().await? {
            received += chunk.remaining() as u64;
        }
        service::respond(&head.uri, &head.method, head.version, received, &state).await
    };
    let (parts, body) = response.into_parts();
    let no_body = head.method == http::Method::HEAD
        || parts.status == http::StatusCode::NO_CONTENT
        || parts.status == http::StatusCode::NOT_MODIFIED;
    stream
        .send_response(Response::from_parts(parts, ()))
        .await?;
    if !no_body {
        send_body(&mut stream, body).await?;
    }
    stream.finish().await
}

async fn send_body<S>(
    stream: &mut h3::server::RequestStream<S, Bytes>,
    mut body: Body,
) -> Result<(), h3::error::StreamError>
where
    S: h3::quic::SendStream<Bytes>,
{
    while let Some(Ok(frame)) = body.frame().await {
        match frame.into_data() {
            Ok(data) => {
                if !data.is_empty() {
                    stream.send_data(data).await?;
                }
            }
            Err(frame) => {
                if let Ok(trailers) = frame.into_trailers() {
                    // gRPC's grpc-status; the stream is finished after it.
                    stream.send_trailers(trailers).await?;
                }
            }
        }
    }
    Ok(())
}
