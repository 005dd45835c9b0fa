//! HTTP/3 on quinn-proto's streams, with framing and QPACK of its own: each
//! request's HEADERS frame is encoded once per run ([`qpack`],
//! [`templates`]), a response is parsed as it arrives ([`frame`],
//! [`stream`]) and recorded as it ends ([`outcome`]), and the connection's
//! control streams are read beside the requests ([`control`]). The connection's
//! socket is read in this driver's poll ([`crate::quic::QuicLink`]), and
//! each stream that has data is read right after the datagrams that
//! brought it: no task, channel or waker per stream. (The `h3` crate, then
//! quinn's own tasks, did this work before; see docs/performance.md.)

mod control;
mod frame;
// The response reader as the `http3_response` fuzz target drives it.
#[doc(hidden)]
pub mod fuzzing;
mod outcome;
mod qpack;
mod stream;
mod table;
mod templates;

use crate::driver::{Driver, Lost, Prepared, Protocol};
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange};
use crate::histogram::micros;
use crate::plan::Plan;
use crate::plan_error::PlanError;
use crate::quic::QuicLink;
use crate::recorder::QuicCounts;
use crate::request::{Request, RequestRef};
use crate::transport::Carrier;
use control::ServerStream;
use frame::H3_NO_ERROR;
use quinn_proto::{ConnectionError, ConnectionStats, Dir, Event, StreamEvent, StreamId, VarInt};
use std::collections::VecDeque;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use stream::{Failure, Outgoing, RequestStream};
use table::RequestTable;
use templates::{template, Templates};

/// RFC 9000's default `max_ack_delay`: how long a live server may wait
/// before it acknowledges what it received.
const MAX_ACK_DELAY: Duration = Duration::from_millis(25);

/// H3_REQUEST_CANCELLED: a response this client will not read further.
const H3_REQUEST_CANCELLED: u32 = 0x10c;

/// The protocol as registered.
pub struct Http3;

impl Protocol for Http3 {
    fn alpn(&self) -> &'static str {
        "h3"
    }

    fn cleartext_name(&self) -> Option<&'static str> {
        None
    }

    fn carrier(&self) -> Carrier {
        Carrier::Quic
    }

    fn prepare(&self, plan: &Plan, requests: &[Request]) -> Result<Box<dyn Prepared>, PlanError> {
        let scheme = plan.endpoint.scheme.as_str();
        Ok(Box::new(Templates {
            per_request: requests.iter().map(|r| template(r, scheme)).collect(),
            scheme,
            grpc: plan.grpc,
        }))
    }
}

struct Http3Connection<'a> {
    link: QuicLink,
    templates: &'a Templates,
    /// Requests on their streams.
    streams: RequestTable,
    /// Requests waiting for the server's stream limit to rise.
    waiting: VecDeque<(Outgoing, Exchange)>,
    /// Requests quinn-proto refused as they started, reported by the next poll.
    refused: Vec<(Exchange, Failure)>,
    /// The client's control stream is open and its SETTINGS written.
    control_sent: bool,
    server_streams: Vec<(StreamId, ServerStream)>,
    /// GOAWAY received or the connection failed: no new streams.
    going_away: bool,
    closed: Option<ConnectionError>,
    /// quinn-proto's counters when measuring began on this connection.
    baseline: Option<ConnectionStats>,
    /// When the last datagram arrived.
    last_arrival: Instant,
}

impl<'a> Http3Connection<'a> {
    /// A connection on `link` for `templates`' requests, its control
    /// stream opened and the server's streams taken.
    fn open(link: QuicLink, templates: &'a Templates) -> Self {
        let mut connection = Http3Connection {
            link,
            templates,
            streams: RequestTable::default(),
            waiting: VecDeque::new(),
            refused: Vec::new(),
            control_sent: false,
            server_streams: Vec::new(),
            going_away: false,
            closed: None,
            baseline: None,
            last_arrival: Instant::now(),
        };
        connection.open_control_stream();
        connection.accept_server_streams();
        connection
    }

    fn open_control_stream(&mut self) {
        if self.control_sent {
            return;
        }
        let Some(id) = self.link.connection.streams().open(Dir::Uni) else {
            // Waits for the server's limit: StreamEvent::Available.
            return;
        };
        self.control_sent = true;
        // Three bytes: far below any stream's initial credit.
        let _ = self
            .link
            .connection
            .send_stream(id)
            .write_chunks(&mut [control::client_control_stream()]);
    }

    /// Takes the server's new unidirectional streams and reads them.
    fn accept_server_streams(&mut self) {
        while let Some(id) = self.link.connection.streams().accept(Dir::Uni) {
            self.server_streams.push((id, ServerStream::default()));
            self.read_server_stream(id);
        }
    }

    fn read_server_stream(&mut self, id: StreamId) {
        let Some(at) = self.server_streams.iter().position(|(s, _)| *s == id) else {
            return;
        };
        let server_stream = &mut self.server_streams[at].1;
        let mut recv = self.link.connection.recv_stream(id);
        let Ok(mut chunks) = recv.read(true) else {
            self.server_streams.swap_remove(at);
            return;
        };
        let ended = loop {
            match chunks.next(usize::MAX) {
                Ok(Some(chunk)) => {
                    if server_stream.push(&chunk.bytes) {
                        self.going_away = true;
                    }
                }
                Ok(None) | Err(quinn_proto::ReadError::Reset(_)) => break true,
                Err(quinn_proto::ReadError::Blocked) => break false,
            }
        };
        let _ = chunks.finalize();
        if ended {
            self.server_streams.swap_remove(at);
        }
    }

    /// Puts a request on a new stream, or hands it back when the server's
    /// stream limit is reached.
    fn try_open(&mut self, outgoing: Outgoing, exchange: Exchange) -> Option<(Outgoing, Exchange)> {
        let Some(id) = self.link.connection.streams().open(Dir::Bi) else {
            return Some((outgoing, exchange));
        };
        let send = self.link.connection.send_stream(id);
        match RequestStream::open(id, exchange, outgoing, self.templates.grpc, send) {
            Ok(stream) => self.streams.insert(stream),
            Err(failure) => self.refused.push((exchange, failure)),
        }
        None
    }

    /// Starts waiting requests while the server's limit allows.
    fn open_waiting(&mut self) {
        while let Some((outgoing, exchange)) = self.waiting.pop_front() {
            if let Some(back) = self.try_open(outgoing, exchange) {
                self.waiting.push_front(back);
                return;
            }
        }
    }

    /// Handles what the connection reports; true if a request ended.
    fn take_events(&mut self, events: &mut Events<'_>) -> bool {
        let mut ended = false;
        while let Some(event) = self.link.connection.poll() {
            match event {
                Event::Stream(StreamEvent::Readable { id }) => {
                    if id.dir() == Dir::Uni {
                        self.read_server_stream(id);
                    } else {
                        ended |= self.read_request(id, events);
                    }
                }
                Event::Stream(StreamEvent::Writable { id }) => {
                    ended |= self.write_request(id, events)
                }
                Event::Stream(StreamEvent::Opened { dir: Dir::Uni }) => {
                    self.accept_server_streams()
                }
                Event::Stream(StreamEvent::Available { dir: Dir::Bi }) => self.open_waiting(),
                Event::Stream(StreamEvent::Available { dir: Dir::Uni }) => {
                    self.open_control_stream()
                }
                Event::ConnectionLost { reason } => {
                    self.closed = Some(reason);
                    self.going_away = true;
                }
                _ => {}
            }
        }
        ended
    }

    /// Reads a request's stream; true if its response ended.
    fn read_request(&mut self, id: StreamId, events: &mut Events<'_>) -> bool {
        let Some(stream) = self.streams.get_mut(id) else {
            return false;
        };
        let Some(result) = stream.read(self.link.connection.recv_stream(id)) else {
            return false;
        };
        let stream = self.streams.remove(id).expect("the stream was just read");
        if matches!(result, Err(Failure::Response(_))) {
            let _ = self
                .link
                .connection
                .recv_stream(id)
                .stop(VarInt::from_u32(H3_REQUEST_CANCELLED));
        }
        if !stream.is_written() {
            let _ = self
                .link
                .connection
                .send_stream(id)
                .reset(VarInt::from_u32(H3_REQUEST_CANCELLED));
        }
        let exchange = stream.exchange;
        let result = result.map(|()| stream.into_exchanged());
        self.report(exchange, result, events);
        true
    }

    /// Writes more of a request the server's flow control held back; true
    /// if the request failed.
    fn write_request(&mut self, id: StreamId, events: &mut Events<'_>) -> bool {
        let Some(stream) = self.streams.get_mut(id) else {
            return false;
        };
        let Err(failure) = stream.write(self.link.connection.send_stream(id)) else {
            return false;
        };
        let stream = self
            .streams
            .remove(id)
            .expect("the stream was just written");
        self.report(stream.exchange, Err(failure), events);
        true
    }

    /// Whether the server sent nothing at all while a request sent at
    /// `sent` waited `timeout`. A live server acknowledges a request within
    /// its ack delay, so a request timeout several times that (three probe
    /// timeouts, RFC 9000's floor for an idle timeout) with no datagram
    /// means the server is gone: without this, a connection to a dead
    /// server takes request after request until QUIC's 30 s idle timeout.
    fn server_went_silent(&self, sent: Instant, timeout: Duration) -> bool {
        let floor = 3 * (self.link.connection.rtt() + MAX_ACK_DELAY);
        self.last_arrival < sent && timeout >= floor
    }
}

impl Driver for Http3Connection<'_> {
    fn can_start(&self) -> bool {
        !self.going_away
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        let outgoing = match request {
            RequestRef::Listed(index) => self.templates.per_request[index].outgoing(),
            RequestRef::Made(request) => template(request, self.templates.scheme).outgoing(),
        };
        // Written to quinn-proto now; sent by the next poll.
        if !self.waiting.is_empty() {
            self.waiting.push_back((outgoing, exchange));
        } else if let Some(back) = self.try_open(outgoing, exchange) {
            self.waiting.push_back(back);
        }
    }

    fn in_flight(&self) -> usize {
        self.streams.len() + self.waiting.len() + self.refused.len()
    }

    fn is_closing(&self) -> bool {
        self.going_away
    }

    fn poll(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>> {
        if self.baseline.is_none() && events.measuring() {
            self.baseline = Some(self.link.connection.stats());
        }
        let mut ended = !self.refused.is_empty();
        for (exchange, failure) in std::mem::take(&mut self.refused) {
            self.report(exchange, Err(failure), events);
        }
        let now = Instant::now();
        self.link.expire_timer(now);
        ended |= self.take_events(events);
        loop {
            match self.link.receive(cx) {
                Ok(true) => {
                    // Packets arriving count as activity even when no stream ends.
                    let now = Instant::now();
                    self.last_arrival = now;
                    events.active(now);
                    // Each batch's streams are read before the next is received.
                    ended |= self.take_events(events);
                }
                Ok(false) => break,
                Err(e) => return Poll::Ready(Err(Self::socket_failed(e))),
            }
        }
        if self.closed.is_some() && self.in_flight() > 0 {
            // The connection is gone; its streams cannot end any more.
            return Poll::Ready(Err(self.connection_lost()));
        }
        if ended {
            // Sent by the next poll, with the requests started in between:
            // acknowledgements and new requests share datagrams.
            return Poll::Ready(Ok(()));
        }
        match self.link.send(cx) {
            Ok(()) => Poll::Pending,
            Err(e) => Poll::Ready(Err(Self::socket_failed(e))),
        }
    }

    fn oldest_sent(&self) -> Option<Instant> {
        let started = self.streams.iter().map(|stream| stream.exchange.sent);
        let waiting = self.waiting.iter().map(|(_, exchange)| exchange.sent);
        started.chain(waiting).min()
    }

    fn time_out(&mut self, cutoff: Instant, events: &mut Events<'_>) -> Result<(), Lost> {
        let timeout = Instant::now().saturating_duration_since(cutoff);
        let expired: Vec<StreamId> = self
            .streams
            .iter()
            .filter(|stream| stream.exchange.sent <= cutoff)
            .map(|stream| stream.id)
            .collect();
        let mut silent = false;
        for id in expired {
            let stream = self.streams.remove(id).expect("listed above");
            let code = VarInt::from_u32(H3_REQUEST_CANCELLED);
            let _ = self.link.connection.recv_stream(id).stop(code);
            let _ = self.link.connection.send_stream(id).reset(code);
            if self.server_went_silent(stream.exchange.sent, timeout) {
                silent = true;
                events.failed(&stream.exchange, ErrorKind::Timeout, || {
                    "request timed out, with not a packet from the server since it was \
                     sent: the connection is given up"
                        .into()
                });
            } else {
                events.failed(&stream.exchange, ErrorKind::Timeout, || {
                    "request timed out".into()
                });
            }
        }
        while self
            .waiting
            .front()
            .is_some_and(|(_, exchange)| exchange.sent <= cutoff)
        {
            let (_, exchange) = self.waiting.pop_front().expect("checked above");
            events.failed(&exchange, ErrorKind::Timeout, || "request timed out".into());
        }
        if silent {
            self.going_away = true;
            return Err(Lost::new(
                ErrorKind::Timeout,
                "HTTP/3: the server sent nothing for --request-timeout; the connection is given up",
            ));
        }
        Ok(())
    }

    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        for stream in self.streams.drain() {
            each(stream.exchange);
        }
        for (_, exchange) in self.waiting.drain(..) {
            each(exchange);
        }
        for (exchange, _) in self.refused.drain(..) {
            each(exchange);
        }
    }

    fn close(&mut self, events: &mut Events<'_>) {
        if let Some(base) = &self.baseline {
            let now = self.link.connection.stats();
            events.quic_figures(&QuicCounts {
                connections: 1,
                datagrams_sent: now.udp_tx.datagrams - base.udp_tx.datagrams,
                datagrams_received: now.udp_rx.datagrams - base.udp_rx.datagrams,
                lost_packets: now.path.lost_packets - base.path.lost_packets,
                rtt_sum_us: micros(now.path.rtt),
                min_rtt_us: micros(now.path.min_rtt),
            });
            // UDP payload bytes received, as h2load counts traffic on QUIC.
            events.transport_bytes(
                now.udp_rx.bytes - base.udp_rx.bytes,
                now.udp_tx.bytes - base.udp_tx.bytes,
            );
        }
    }
}

impl Drop for Http3Connection<'_> {
    fn drop(&mut self) {
        // The server's acknowledgement is not awaited.
        self.link.close(VarInt::from_u32(H3_NO_ERROR));
    }
}
