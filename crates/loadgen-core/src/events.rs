//! What every protocol driver reports, and the one place that turns it into
//! measurements: bytes and time to first byte, each request's end (into the
//! recorder and the client's own tally), and, for requests that asked,
//! response heads and bodies handed to whoever sent them.
//!
//! h2load does the same in `Client::on_read` and `Client::on_stream_close`
//! for all of its session types; here a driver holds an [`Events`] while it
//! polls and calls it as things happen.

use crate::error_kind::ErrorKind;
use crate::recorder::{QuicCounts, Recorder};
use crate::request::Wants;
use crate::ticket::{Phase, Ticket};
use std::cell::{Cell, RefCell};
use std::time::Instant;

/// One request on its way through a driver: handed to the driver when it
/// starts, handed back in exactly one [`Events::complete`] or
/// [`Events::failed`].
#[derive(Clone, Copy, Debug)]
pub struct Exchange {
    pub ticket: Ticket,
    /// When the request went on the wire: raw latency counts from here.
    pub sent: Instant,
    pub wants: Wants,
}

/// One response header field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    pub name: &'a [u8],
    pub value: &'a [u8],
}

/// A final response head, for requests that want headers.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    pub status: u16,
    pub headers: &'a [Header<'a>],
}

/// A complete response: its status and sizes as h2load counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Header bytes as they arrived (HPACK-compressed on HTTP/2).
    pub header_bytes: u64,
    /// Names and values of the response's header fields.
    pub header_bytes_uncompressed: u64,
    /// Body bytes after transfer decoding.
    pub data_bytes: u64,
    /// A gRPC call's status ([`crate::grpc::call_status`]); `None` for
    /// anything but a gRPC call.
    pub grpc_status: Option<u16>,
}

/// How an exchange ended, for a [`ResponseSink`].
#[derive(Clone, Copy, Debug)]
pub enum End<'a> {
    Response(&'a Response),
    Failed(ErrorKind),
}

/// Receives what requests asked for ([`Wants`]) and how every request
/// ended. Benchmarks need none; a scenario runner reads checks and
/// extractors from it.
pub trait ResponseSink {
    fn head(&mut self, exchange: &Exchange, head: &Head<'_>);
    fn body(&mut self, exchange: &Exchange, chunk: &[u8]);
    fn end(&mut self, exchange: &Exchange, end: End<'_>);
}

/// One client's own counts, for h2load's per-client req/s.
#[derive(Debug, Default)]
pub struct ClientTally {
    /// Recorded requests that got a response, whatever its status.
    pub responses: u64,
    pub first_request: Option<Instant>,
    pub last_response: Option<Instant>,
}

/// What the shared layer keeps about one connection.
#[derive(Debug)]
pub struct LinkState {
    /// When the connection attempt began: time to first byte counts from here.
    pub connect_started: Instant,
    pub first_byte_seen: bool,
    /// The last read or write: `-N` counts from here.
    pub last_activity: Instant,
}

impl LinkState {
    pub fn new(connect_started: Instant) -> Self {
        LinkState {
            connect_started,
            first_byte_seen: false,
            last_activity: Instant::now(),
        }
    }
}

/// The shared layer as a driver sees it while it polls.
pub struct Events<'c> {
    pub(crate) recorder: &'c RefCell<Recorder>,
    pub(crate) phase: &'c Cell<Phase>,
    pub(crate) link: &'c mut LinkState,
    pub(crate) tally: &'c mut ClientTally,
    pub(crate) sink: Option<&'c mut dyn ResponseSink>,
    /// `-N` is on: only then does a write read the clock, for the
    /// inactivity deadline. A read reads it anyway, to time responses.
    pub(crate) inactivity_watched: bool,
}

impl Events<'_> {
    /// Whether traffic is counted now (not in warm-up, not after the end).
    pub fn measuring(&self) -> bool {
        self.phase.get() == Phase::Measuring
    }

    /// `n` bytes arrived on a byte-stream connection (after TLS): counted
    /// while measuring; the first of them are the connection's first byte.
    pub fn read(&mut self, n: usize, now: Instant) {
        self.link.last_activity = now;
        if self.measuring() {
            self.recorder.borrow_mut().bytes_moved(n as u64, 0);
        }
        self.first_byte(now);
    }

    /// Bytes went out, or the connection otherwise showed it is alive.
    pub fn active(&mut self, now: Instant) {
        self.link.last_activity = now;
    }

    /// `n` bytes went out on a byte-stream connection (before TLS): counted
    /// while measuring.
    pub fn wrote(&mut self, n: usize) {
        if self.inactivity_watched {
            self.link.last_activity = Instant::now();
        }
        if self.measuring() {
            self.recorder.borrow_mut().bytes_moved(0, n as u64);
        }
    }

    /// The connection's first byte from the server, if not seen yet. Byte
    /// streams get it from [`Events::read`]; HTTP/3 takes it at the end of
    /// its first response, as h2load does.
    pub fn first_byte(&mut self, now: Instant) {
        if !self.link.first_byte_seen {
            self.link.first_byte_seen = true;
            self.recorder
                .borrow_mut()
                .first_byte(now - self.link.connect_started);
        }
    }

    /// Bytes a transport counts itself (QUIC's datagram payloads), received
    /// and sent, already limited to the measured part of the connection's life.
    pub fn transport_bytes(&mut self, received: u64, sent: u64) {
        self.recorder.borrow_mut().bytes_moved(received, sent);
    }

    /// QUIC transport figures of one connection, while measured.
    pub fn quic_figures(&mut self, counts: &QuicCounts) {
        self.recorder.borrow_mut().quic_connection(counts);
    }

    /// A final response head; drivers call it only when the exchange wants headers.
    pub fn head(&mut self, exchange: &Exchange, head: &Head<'_>) {
        if let Some(sink) = &mut self.sink {
            sink.head(exchange, head);
        }
    }

    /// A piece of a response body; drivers call it only when the exchange wants the body.
    pub fn body(&mut self, exchange: &Exchange, chunk: &[u8]) {
        if let Some(sink) = &mut self.sink {
            sink.body(exchange, chunk);
        }
    }

    /// The exchange got its whole response at `now`.
    pub fn complete(&mut self, exchange: &Exchange, response: &Response, now: Instant) {
        if exchange.ticket.recorded {
            let mut recorder = self.recorder.borrow_mut();
            match response.grpc_status {
                None => recorder.response(response.status, &exchange.ticket, exchange.sent, now),
                Some(code) => {
                    recorder.grpc_call(response.status, code, &exchange.ticket, exchange.sent, now)
                }
            }
            recorder.bytes.headers += response.header_bytes;
            recorder.bytes.headers_uncompressed += response.header_bytes_uncompressed;
            recorder.bytes.data += response.data_bytes;
            self.tally.responses += 1;
            self.tally.last_response = Some(now);
        }
        if let Some(sink) = &mut self.sink {
            sink.end(exchange, End::Response(response));
        }
    }

    /// A gRPC call's `grpc-message` (percent-encoded, as sent), with its
    /// status as far as it is known: the first for each status is kept.
    pub fn grpc_message(&mut self, exchange: &Exchange, status: Option<u16>, message: &[u8]) {
        if exchange.ticket.recorded {
            let code = status.unwrap_or(crate::grpc::UNKNOWN);
            self.recorder
                .borrow_mut()
                .note_grpc_message(code, || crate::grpc::decode_message(message));
        }
    }

    /// The exchange ended without a response; `message` runs only if it is
    /// the first error of its kind.
    pub fn failed(
        &mut self,
        exchange: &Exchange,
        kind: ErrorKind,
        message: impl FnOnce() -> String,
    ) {
        if exchange.ticket.recorded {
            let mut recorder = self.recorder.borrow_mut();
            recorder.note_error(kind, message);
            recorder.request_error(kind, exchange.sent);
        }
        if let Some(sink) = &mut self.sink {
            sink.end(exchange, End::Failed(kind));
        }
    }

    /// An error of the connection as a whole, for the summary on stderr.
    pub fn note_error(&mut self, kind: ErrorKind, message: impl FnOnce() -> String) {
        self.recorder.borrow_mut().note_error(kind, message);
    }

    /// The connection broke the protocol while no request was in flight:
    /// counted while measuring, as requests are.
    pub fn error_between_requests(&mut self, message: impl FnOnce() -> String) {
        if self.measuring() {
            self.recorder.borrow_mut().error_between_requests(message);
        }
    }
}
