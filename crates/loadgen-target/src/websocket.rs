//! `/ws`: a WebSocket echo endpoint, on the cleartext and TLS listeners:
//! RFC 6455 over an HTTP/1.1 upgrade, and RFC 8441 over HTTP/2 (an
//! extended CONNECT stream, h2c or h2). Every text or binary message comes
//! back as it came; pings are answered and a close is returned, by
//! `tungstenite`, a WebSocket implementation that loadgen's own client
//! was not written from.

use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use http::header::{
    HeaderValue, CONNECTION, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, SEC_WEBSOCKET_VERSION,
    UPGRADE,
};
use http::{Method, Request, Response, StatusCode, Version};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::body::Body;
use crate::state::State;

/// The endpoint's path.
pub(crate) const PATH: &str = "/ws";

/// Answers a request for `/ws`: 101 and an echo on the upgraded
/// connection, or why not.
pub(crate) fn respond(req: Request<Incoming>, state: Arc<State>) -> Response<Body> {
    if req.version() == Version::HTTP_2 {
        return respond_to_connect(req, state);
    }
    let asks_upgrade = req.version() == Version::HTTP_11
        && req
            .headers()
            .get(UPGRADE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    if !asks_upgrade {
        return plain(
            StatusCode::UPGRADE_REQUIRED,
            "/ws is a WebSocket endpoint: connect with ws:// or wss://\n",
        );
    }
    if let Some(refused) = unserved_version(&req) {
        return refused;
    }
    let Some(key) = req.headers().get(SEC_WEBSOCKET_KEY) else {
        return plain(StatusCode::BAD_REQUEST, "Sec-WebSocket-Key is missing\n");
    };
    let accept = derive_accept_key(key.as_bytes());
    echo_once_upgraded(req, state);
    let mut response = Response::new(Body::from_static(""));
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    headers.insert(
        SEC_WEBSOCKET_ACCEPT,
        HeaderValue::from_str(&accept).expect("base64 is a valid header value"),
    );
    response
}

/// An HTTP/2 request for `/ws`: an extended CONNECT for the `websocket`
/// protocol gets 200 and an echo on its stream (RFC 8441 section 5).
fn respond_to_connect(req: Request<Incoming>, state: Arc<State>) -> Response<Body> {
    let protocol = req.extensions().get::<hyper::ext::Protocol>();
    let asks_websocket = req.method() == Method::CONNECT
        && protocol.is_some_and(|p| p.as_str().eq_ignore_ascii_case("websocket"));
    if !asks_websocket {
        return plain(
            StatusCode::BAD_REQUEST,
            "/ws over HTTP/2 takes an extended CONNECT with :protocol websocket\n",
        );
    }
    if let Some(refused) = unserved_version(&req) {
        return refused;
    }
    echo_once_upgraded(req, state);
    Response::new(Body::from_static(""))
}

/// An extended CONNECT (RFC 8441) to a path other than `/ws`.
pub(crate) fn elsewhere() -> Response<Body> {
    plain(
        StatusCode::NOT_FOUND,
        "no WebSocket here: /ws is the WebSocket endpoint\n",
    )
}

/// Version 13 is the only one there is; anything else is refused with
/// the version served, as RFC 6455 section 4.4 says.
fn unserved_version(req: &Request<Incoming>) -> Option<Response<Body>> {
    if req.headers().get(SEC_WEBSOCKET_VERSION) == Some(&HeaderValue::from_static("13")) {
        return None;
    }
    let mut response = plain(
        StatusCode::UPGRADE_REQUIRED,
        "only WebSocket version 13 is served\n",
    );
    response
        .headers_mut()
        .insert(SEC_WEBSOCKET_VERSION, HeaderValue::from_static("13"));
    Some(response)
}

/// Echoes on the connection (HTTP/1.1) or stream (HTTP/2) the request
/// upgrades to, once the answer has gone out.
fn echo_once_upgraded(mut req: Request<Incoming>, state: Arc<State>) {
    let upgrade = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        if let Ok(upgraded) = upgrade.await {
            echo(
                WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await,
                &state,
            )
            .await;
        }
    });
}

/// Sends every message back until the client closes or the connection
/// breaks (the client's business in a benchmark, so errors end it quietly).
async fn echo<S>(mut socket: WebSocketStream<S>, state: &State)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    while let Some(Ok(message)) = socket.next().await {
        let reply = match message {
            Message::Text(_) | Message::Binary(_) => message,
            // tungstenite answers pings and closes by itself.
            _ => continue,
        };
        if socket.send(reply).await.is_err() {
            break;
        }
        state.counters.websocket_message();
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::from_static(text));
    *response.status_mut() = status;
    response
}
