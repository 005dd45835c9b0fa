//! The driver contract: what a protocol is to the rest of the engine.
//!
//! A [`Protocol`] is registered once ([`crate::protocols`]); for a run it
//! prepares its wire form of the run's requests ([`Protocol::prepare`]),
//! and for each connection that speaks it, opens a [`Driver`]. A driver is
//! h2load's `Session`: it turns requests into bytes and bytes into
//! per-request events, and nothing else. The layer above it
//! ([`crate::connection`]) decides when a request may start (the `-m`
//! window, with the driver's own limit), counts bytes and the first byte,
//! records every request's end, applies the timeouts and fails whatever is
//! in flight when the connection is lost.

use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange};
use crate::plan::Plan;
use crate::plan_error::PlanError;
use crate::request::{Request, RequestRef};
use crate::transport::{Carrier, Link};
use crate::uri::Scheme;
use std::cell::RefCell;
use std::task::{Context, Poll};
use std::time::Instant;

/// A protocol loadgen can speak, as registered in [`crate::protocols::Protocols`].
pub trait Protocol: Send + Sync {
    /// Its ALPN identifier (`http/1.1`, `h2`, `h3`): how TLS and QUIC pick
    /// it, and its name in reports.
    fn alpn(&self) -> &'static str;
    /// Its name without TLS (`-p`): `h2c`, `http/1.1`; `None` when it needs TLS.
    fn cleartext_name(&self) -> Option<&'static str>;
    fn carrier(&self) -> Carrier;
    /// The URI schemes it serves: a run's scheme narrows the choice before
    /// `-p` or ALPN make it (`ws://` and `wss://` mean WebSocket).
    fn schemes(&self) -> &'static [Scheme] {
        &[Scheme::Http, Scheme::Https]
    }
    /// Readies the protocol for one run: its wire form of the run's
    /// requests, built once, and whatever settings of the plan it uses.
    fn prepare(&self, plan: &Plan, requests: &[Request]) -> Result<Box<dyn Prepared>, PlanError>;
}

/// A protocol readied for one run, shared read-only by every worker thread.
pub trait Prepared: Send + Sync {
    /// A driver for one new connection.
    fn open<'a>(&'a self, link: Link, context: OpenContext<'a>) -> Box<dyn Driver + 'a>;
}

/// What a new driver may use besides its link.
pub struct OpenContext<'a> {
    /// The worker thread's read buffer, for drivers that keep nothing
    /// between reads but the start of what they could not parse yet: one
    /// buffer per thread instead of one per connection.
    pub read_buffer: &'a RefCell<Vec<u8>>,
    /// Whether any request on the connection may want its headers: a
    /// driver may then keep what it otherwise would not (HTTP/2's header
    /// table contents).
    pub headers_wanted: bool,
    /// Read the connection while no request is in flight, so that a server
    /// closing it when idle (its keep-alive timeout) is seen before the next
    /// request is written to it, not as that request's reset. Benchmark
    /// clients keep their connections busy and leave it off; a scenario's
    /// virtual users pause between steps and turn it on. (HTTP/2 and HTTP/3
    /// always read.)
    pub watch_idle: bool,
    /// The client the connection serves, from 0 (the run's clients are
    /// numbered across its threads).
    pub client: usize,
    /// Requests the client had started before this connection: with the
    /// requests started on it, each request's number on its client.
    pub issued_before: u64,
}

/// Why a connection cannot go on: everything in flight fails with `kind`.
#[derive(Debug)]
pub struct Lost {
    pub kind: ErrorKind,
    /// Noted as the first error of its kind when requests were in flight.
    pub message: String,
}

impl Lost {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Lost {
        Lost {
            kind,
            message: message.into(),
        }
    }
}

/// One connection of one protocol.
pub trait Driver {
    /// Whether a request may start now as far as the protocol goes (the
    /// server's stream limit, a GOAWAY, a request body that turns
    /// pipelining off); the shared layer also keeps at most `-m` in flight.
    fn can_start(&self) -> bool;

    /// Puts a request on its way; `exchange` comes back in exactly one of
    /// [`Events::complete`] and [`Events::failed`], or from
    /// [`Driver::take_in_flight`].
    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange);

    /// Requests started and not ended.
    fn in_flight(&self) -> usize;

    /// The connection takes no new request, ever (the server said it
    /// closes, or sent GOAWAY): once nothing is in flight, the client
    /// reconnects.
    fn is_closing(&self) -> bool;

    /// Writes what is pending, reads what arrived and reports it.
    /// `Ready(Ok(()))`: progress was made, poll again; `Pending`: waiting
    /// for the network; `Ready(Err(lost))`: the connection is over.
    fn poll(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>>;

    /// When the oldest request in flight was sent, for `--request-timeout`;
    /// `None` when nothing is in flight or the driver times requests out
    /// itself.
    fn oldest_sent(&self) -> Option<Instant>;

    /// Requests sent at or before `cutoff` have timed out: end them. `Err`
    /// when the connection cannot go on without them (HTTP/1.1, where
    /// later responses queue behind the late one).
    fn time_out(&mut self, cutoff: Instant, events: &mut Events<'_>) -> Result<(), Lost>;

    /// Hands back every exchange in flight, once: the connection is lost.
    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange));

    /// The connection ends, however it ends (a timed run's stop included):
    /// last figures, and a polite close where the protocol has one.
    fn close(&mut self, _events: &mut Events<'_>) {}
}
