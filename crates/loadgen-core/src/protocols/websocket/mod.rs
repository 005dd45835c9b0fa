//! WebSocket (RFC 6455) over an HTTP/1.1 upgrade, for `ws://` and `wss://`
//! URIs. Each connection upgrades once; then every request is one message
//! sent, and it ends when its answer arrives: the next message, equal to
//! the one sent (an echo, the default), or of any content
//! (`--ws-expect any`). Up to `-m` messages are in flight per socket; the
//! scheduler decides when each is sent, as for HTTP.
//!
//! `frame` and `handshake` are sans-IO and tested without sockets;
//! `connection` is the driver that puts them on a transport.

mod connection;
pub mod frame;
pub mod handshake;

use crate::driver::{Driver, OpenContext, Prepared, Protocol};
use crate::plan::{Plan, WsExpect};
use crate::plan_error::PlanError;
use crate::request::Request;
use crate::transport::{Carrier, Link};
use crate::uri::Scheme;
use bytes::Bytes;
use connection::Connection;
use std::time::Duration;

/// The most a server's message may hold, at least: a hostile server
/// cannot make a client hold more than this (or twice the message sent,
/// if that is larger) for one message.
pub const MIN_MESSAGE_CAP: usize = 1 << 20;

/// The protocol as registered.
pub struct WebSocket;

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
        // The plan allows one path for a WebSocket run.
        let request = &requests[0];
        let headers = request
            .headers
            .iter()
            .filter(|(name, _)| !is_handshake_field(name))
            .cloned()
            .collect();
        let message = Bytes::copy_from_slice(plan.websocket.message_bytes());
        Ok(Box::new(Messages {
            path: request.path.clone(),
            authority: request.authority.clone(),
            headers,
            max_incoming: MIN_MESSAGE_CAP.max(2 * message.len()),
            message,
            binary: plan.websocket.binary,
            expect: plan.websocket.expect,
            upgrade_limit: plan.timeouts.connect,
        }))
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
}

impl Prepared for Messages {
    fn open<'a>(&'a self, link: Link, context: OpenContext<'a>) -> Box<dyn Driver + 'a> {
        let Link::Stream(transport) = link else {
            unreachable!("WebSocket runs on a byte stream")
        };
        Box::new(Connection::new(transport, self, context.read_buffer))
    }
}
