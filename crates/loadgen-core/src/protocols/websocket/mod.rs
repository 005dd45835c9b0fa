//! WebSocket (RFC 6455) for `ws://` and `wss://` URIs, over an HTTP/1.1
//! upgrade or, with `--ws-http2`, as an HTTP/2 stream opened with extended
//! CONNECT (RFC 8441). Each connection opens one WebSocket; then every
//! request is one message sent, and it ends when its answer arrives: the
//! next message, equal to the one sent (an echo, the default), or of any
//! content (`--ws-expect any`). Up to `-m` messages are in flight per
//! socket; the scheduler decides when each is sent, as for HTTP.
//!
//! `frame`, `handshake` and `session` are sans-IO and tested without
//! sockets; `http1` and `http2` are the drivers that put a session on a
//! connection.

pub mod frame;
pub mod handshake;
mod http1;
mod http2;
mod session;

use crate::driver::{Driver, Lost, OpenContext, Prepared, Protocol};
use crate::events::Events;
use crate::plan::{Http2Options, Plan, WsExpect};
use crate::plan_error::PlanError;
use crate::request::Request;
use crate::transport::{Carrier, Link};
use crate::uri::Scheme;
use bytes::Bytes;
use std::time::Duration;

/// The most a server's message may hold, at least: a hostile server
/// cannot make a client hold more than this (or twice the message sent,
/// if that is larger) for one message.
pub const MIN_MESSAGE_CAP: usize = 1 << 20;

/// WebSocket over an HTTP/1.1 upgrade, as registered.
pub struct WebSocket;

/// WebSocket over HTTP/2 (RFC 8441), as registered.
pub struct WebSocketOverHttp2;

impl Protocol for WebSocket {
    fn alpn(&self) -> &'static str {
        "http/1.1"
    }

    fn cleartext_name(&self) -> Option<&'static str> {
        Some("websocket")
    }

    fn carrier(&self) -> Carrier {
        Carrier::Stream
    }

    fn schemes(&self) -> &'static [Scheme] {
        &[Scheme::Ws, Scheme::Wss]
    }

    fn prepare(&self, plan: &Plan, requests: &[Request]) -> Result<Box<dyn Prepared>, PlanError> {
        Ok(Box::new(Messages::new(plan, requests, None)))
    }
}

impl Protocol for WebSocketOverHttp2 {
    fn alpn(&self) -> &'static str {
        "h2"
    }

    /// Its name in reports, with TLS or without.
    fn cleartext_name(&self) -> Option<&'static str> {
        Some("websocket/h2")
    }

    fn carrier(&self) -> Carrier {
        Carrier::Stream
    }

    fn schemes(&self) -> &'static [Scheme] {
        &[Scheme::Ws, Scheme::Wss]
    }

    fn prepare(&self, plan: &Plan, requests: &[Request]) -> Result<Box<dyn Prepared>, PlanError> {
        Ok(Box::new(Messages::new(plan, requests, Some(plan.http2))))
    }
}

impl Messages {
    fn new(plan: &Plan, requests: &[Request], http2: Option<Http2Options>) -> Messages {
        // The plan allows one path for a WebSocket run.
        let request = &requests[0];
        let headers = request
            .headers
            .iter()
            .filter(|(name, _)| !is_handshake_field(name))
            .cloned()
            .collect();
        let message = Bytes::copy_from_slice(plan.websocket.message_bytes());
        Messages {
            path: request.path.clone(),
            authority: request.authority.clone(),
            headers,
            max_incoming: MIN_MESSAGE_CAP.max(2 * message.len()),
            message,
            binary: plan.websocket.binary,
            expect: plan.websocket.expect,
            upgrade_limit: plan.timeouts.connect,
            http2: http2.map(|settings| Http2Upgrade {
                settings,
                scheme: if plan.is_tls() { "https" } else { "http" },
            }),
        }
    }
}

/// Fields the handshake sets itself; a `-H` of the same name would make
/// the upgrade request ambiguous, and a body has no place in it.
fn is_handshake_field(name: &str) -> bool {
    matches!(
        name,
        "upgrade"
            | "connection"
            | "sec-websocket-key"
            | "sec-websocket-version"
            | "content-length"
            | "transfer-encoding"
    )
}

/// A run's messages and upgrade request, prepared once.
pub struct Messages {
    path: String,
    authority: String,
    /// `-H` fields and the user agent, sent with the upgrade.
    headers: Vec<(String, String)>,
    message: Bytes,
    binary: bool,
    expect: WsExpect,
    /// The largest message accepted from the server.
    max_incoming: usize,
    /// How long the server may take to answer the upgrade (`--connect-timeout`).
    upgrade_limit: Option<Duration>,
    /// Set when the sockets open over HTTP/2.
    http2: Option<Http2Upgrade>,
}

/// What an extended CONNECT needs besides the messages.
struct Http2Upgrade {
    settings: Http2Options,
    /// The `:scheme` of the CONNECT: RFC 8441 maps ws to http, wss to https.
    scheme: &'static str,
}

impl Prepared for Messages {
    fn open<'a>(&'a self, link: Link, context: OpenContext<'a>) -> Box<dyn Driver + 'a> {
        let Link::Stream(transport) = link else {
            unreachable!("WebSocket runs on a byte stream")
        };
        match &self.http2 {
            None => Box::new(http1::Connection::new(transport, self, context.read_buffer)),
            Some(upgrade) => Box::new(http2::Tunnel::new(transport, self, upgrade)),
        }
    }
}

/// A socket never opened: no request was in flight, so the shared layer
/// would not keep the reason; it is noted here, and counted.
fn upgrade_failed(lost: &Lost, events: &mut Events<'_>) {
    events.recorder.borrow_mut().websocket().upgrade_failures += 1;
    events.note_error(lost.kind, || lost.message.clone());
}
