//! HTTP/3 over quinn's streams, with framing and QPACK of its own: each
//! request's HEADERS frame is encoded once per run ([`qpack`]), a response
//! is parsed as it arrives ([`frame`]), and the connection's control
//! streams run beside the requests ([`control`]). All of it is polled in the
//! client's own task: each request is one future of a single concrete type
//! in a `FuturesUnordered`, so nothing is boxed per request and nothing
//! crosses a channel. (quinn drives the UDP socket in tasks of the same
//! thread.) The `h3` crate encoded every request's fields anew and boxed
//! futures per stream; see docs/performance.md.

mod control;
mod exchange;
mod frame;
mod qpack;

use crate::driver::{Driver, Lost, OpenContext, Prepared, Protocol};
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange, Head, Header, Response};
use crate::grpc;
use crate::histogram::micros;
use crate::plan::Plan;
use crate::plan_error::PlanError;
use crate::quic::{describe_error, h3_code_name, QuicConnection};
use crate::recorder::QuicCounts;
use crate::request::{is_connection_specific, Request, RequestRef};
use crate::transport::{Carrier, Link};
use control::ServerControl;
use exchange::{exchange_one, Exchanged, Failure, Outgoing};
use frame::{H3_NO_ERROR, H3_REQUEST_REJECTED};
use futures_util::stream::{FuturesUnordered, StreamExt};
use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::time::Sleep;

/// RFC 9000's default `max_ack_delay`: how long a live server may wait
/// before it acknowledges what it received.
const MAX_ACK_DELAY: Duration = Duration::from_millis(25);

type ControlStreams = Pin<Box<dyn Future<Output = quinn::ConnectionError>>>;

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

/// A request's frames, encoded once: sending it clones two `Bytes`.
struct Template {
    headers: bytes::Bytes,
    body: Option<(bytes::Bytes, bytes::Bytes)>,
}

impl Template {
    fn outgoing(&self) -> Outgoing {
        Outgoing {
            headers: self.headers.clone(),
            body: self.body.clone(),
        }
    }
}

/// Requests reach drivers validated ([`crate::request::validate`]), with
/// lower-case header names.
fn template(request: &Request, scheme: &str) -> Template {
    let fields = request
        .headers
        .iter()
        .filter(|(name, _)| !is_connection_specific(name))
        .map(|(name, value)| (name.as_str(), value.as_str()));
    let section = qpack::encode_request(
        &request.method,
        scheme,
        &request.authority,
        &request.path,
        fields,
    );
    let Outgoing { headers, body } = exchange::outgoing(&section, request.body.as_ref());
    Template { headers, body }
}

/// The run's requests for HTTP/3.
struct Templates {
    per_request: Vec<Template>,
    scheme: &'static str,
    /// gRPC calls: every response's trailers are read for `grpc-status`.
    grpc: bool,
}

impl Prepared for Templates {
    fn open<'a>(&'a self, link: Link, context: OpenContext<'a>) -> Box<dyn Driver + 'a> {
        let Link::Quic(quic) = link else {
            unreachable!("HTTP/3 runs on QUIC")
        };
        let server_control = Rc::new(ServerControl::default());
        let control: ControlStreams = Box::pin(control::run(
            quic.connection.clone(),
            server_control.clone(),
        ));
        let timeouts = context.timeouts;
        let grpc = self.grpc;
        Box::new(Http3Connection {
            quic,
            templates: self,
            control,
            server_control,
            make: move |connection: quinn::Connection, outgoing: Outgoing, exchange: Exchange| {
                Tracked {
                    exchange,
                    result: exchange_one(connection, outgoing, exchange.wants, grpc),
                    deadline: (timeouts.get().request)
                        .map(|t| tokio::time::sleep_until((exchange.sent + t).into())),
                }
            },
            streams: FuturesUnordered::new(),
            going_away: false,
            closed: None,
            baseline: None,
            datagrams_seen: 0,
            datagrams_changed: Instant::now(),
            silent: false,
        })
    }
}

pin_project! {
    /// A request future with its exchange and, with `--request-timeout`,
    /// its deadline: requests here are futures, so each carries its own.
    struct Tracked<F> {
        exchange: Exchange,
        #[pin]
        result: F,
        #[pin]
        deadline: Option<Sleep>,
    }
}

impl<F: Future<Output = Result<Exchanged, Failure>>> Future for Tracked<F> {
    type Output = (Exchange, Result<Exchanged, Failure>);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(result) = this.result.poll(cx) {
            return Poll::Ready((*this.exchange, result));
        }
        if let Some(mut deadline) = this.deadline.as_pin_mut() {
            if deadline.as_mut().poll(cx).is_ready() {
                let timeout = deadline.deadline().into_std() - this.exchange.sent;
                return Poll::Ready((*this.exchange, Err(Failure::Timeout(timeout))));
            }
        }
        Poll::Pending
    }
}

struct Http3Connection<'a, M, F> {
    quic: QuicConnection,
    templates: &'a Templates,
    /// The unidirectional streams; ready when the connection has ended.
    control: ControlStreams,
    server_control: Rc<ServerControl>,
    make: M,
    streams: FuturesUnordered<Tracked<F>>,
    /// GOAWAY received or the connection failed: no new streams.
    going_away: bool,
    closed: Option<quinn::ConnectionError>,
    /// quinn's counters when measuring began on this connection.
    baseline: Option<quinn::ConnectionStats>,
    datagrams_seen: u64,
    /// When a poll first saw `datagrams_seen`.
    datagrams_changed: Instant,
    /// A request timed out with nothing from the server since it was sent.
    silent: bool,
}

impl<M, F> Http3Connection<'_, M, F>
where
    F: Future<Output = Result<Exchanged, Failure>>,
{
    /// Reports the streams that ended; true if any did.
    fn collect_finished(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> bool {
        let mut any = false;
        while let Poll::Ready(Some((exchange, result))) = self.streams.poll_next_unpin(cx) {
            any = true;
            let now = Instant::now();
            events.active(now);
            match result {
                Ok(done) => {
                    // h2load takes HTTP/3's first byte at the end of the first stream.
                    events.first_byte(now);
                    if let Some(headers) = &done.headers {
                        let fields: Vec<Header<'_>> = headers
                            .iter()
                            .map(|(name, value)| Header { name, value })
                            .collect();
                        let head = Head {
                            status: done.status,
                            headers: &fields,
                        };
                        events.head(&exchange, &head);
                    }
                    for piece in &done.body {
                        events.body(&exchange, piece);
                    }
                    if let Some(message) = &done.grpc_message {
                        events.grpc_message(&exchange, done.grpc_status, message);
                    }
                    let response = Response {
                        status: done.status,
                        header_bytes: done.header_bytes,
                        header_bytes_uncompressed: done.uncompressed_header_bytes,
                        data_bytes: done.data_bytes,
                        grpc_status: self
                            .templates
                            .grpc
                            .then(|| grpc::call_status(done.status, done.grpc_status)),
                    };
                    events.complete(&exchange, &response, now);
                }
                Err(Failure::Reset(code)) => {
                    // Refused unprocessed: the server is going away.
                    if code == H3_REQUEST_REJECTED {
                        self.going_away = true;
                    }
                    events.failed(&exchange, ErrorKind::Reset, || {
                        format!("the server reset the stream with {}", h3_code_name(code))
                    });
                }
                Err(Failure::Connection(e)) => {
                    self.going_away = true;
                    events.failed(&exchange, ErrorKind::Reset, || {
                        format!("HTTP/3: {}", describe_error(&e))
                    });
                }
                Err(Failure::Response(e)) => {
                    events.failed(&exchange, ErrorKind::Protocol, || e.to_string());
                }
                Err(Failure::Local(message)) => {
                    events.failed(&exchange, ErrorKind::Other, || format!("HTTP/3: {message}"));
                }
                Err(Failure::Timeout(timeout)) if self.server_went_silent(&exchange, timeout) => {
                    self.silent = true;
                    events.failed(&exchange, ErrorKind::Timeout, || {
                        "request timed out, with not a packet from the server since it was \
                         sent: the connection is given up"
                            .into()
                    });
                }
                Err(Failure::Timeout(_)) => {
                    events.failed(&exchange, ErrorKind::Timeout, || "request timed out".into());
                }
            }
        }
        any
    }

    /// Whether the server sent nothing at all while `timed_out` waited.
    /// A live server acknowledges a request within its ack delay, so a
    /// request timeout several times that (three probe timeouts, RFC 9000's
    /// floor for an idle timeout) with no datagram means the server is
    /// gone: without this, a connection to a dead server takes request
    /// after request until QUIC's 30 s idle timeout. The count was read
    /// by this poll, before the streams.
    fn server_went_silent(&self, timed_out: &Exchange, timeout: Duration) -> bool {
        let floor = 3 * (self.quic.connection.rtt() + MAX_ACK_DELAY);
        self.datagrams_changed < timed_out.sent && timeout >= floor
    }

    /// Why the connection is over, with what was in flight.
    fn connection_lost(&self) -> Lost {
        let reason = self.quic.connection.close_reason();
        let kind = match &reason {
            Some(quinn::ConnectionError::TimedOut) => ErrorKind::Timeout,
            _ => ErrorKind::Reset,
        };
        let message = match (&reason, &self.closed) {
            (Some(reason), _) => format!("HTTP/3: {}", describe_error(reason)),
            (None, Some(closed)) => format!("HTTP/3: {}", describe_error(closed)),
            (None, None) => "HTTP/3: the connection was lost".into(),
        };
        Lost::new(kind, message)
    }
}

impl<M, F> Driver for Http3Connection<'_, M, F>
where
    M: FnMut(quinn::Connection, Outgoing, Exchange) -> Tracked<F>,
    F: Future<Output = Result<Exchanged, Failure>>,
{
    fn can_start(&self) -> bool {
        !self.going_away
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        let outgoing = match request {
            RequestRef::Listed(index) => self.templates.per_request[index].outgoing(),
            RequestRef::Made(request) => template(request, self.templates.scheme).outgoing(),
        };
        // The future waits for a stream when the server's limit is reached.
        let tracked = (self.make)(self.quic.connection.clone(), outgoing, exchange);
        self.streams.push(tracked);
    }

    fn in_flight(&self) -> usize {
        self.streams.len()
    }

    fn is_closing(&self) -> bool {
        self.going_away
    }

    fn poll(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>> {
        if self.baseline.is_none() && events.measuring() {
            self.baseline = Some(self.quic.connection.stats());
        }
        if self.closed.is_none() {
            if let Poll::Ready(error) = self.control.as_mut().poll(cx) {
                self.closed = Some(error);
                self.going_away = true;
            }
        }
        if self.server_control.goaway.get() {
            self.going_away = true;
        }
        // Packets arriving count as activity even when no stream finished.
        let datagrams = self.quic.connection.stats().udp_rx.datagrams;
        if datagrams != self.datagrams_seen {
            self.datagrams_seen = datagrams;
            let now = Instant::now();
            self.datagrams_changed = now;
            events.active(now);
        }
        let finished = self.collect_finished(cx, events);
        if self.closed.is_some() && !self.streams.is_empty() {
            // The connection is gone; its streams cannot finish any more.
            return Poll::Ready(Err(self.connection_lost()));
        }
        if self.silent {
            self.going_away = true;
            return Poll::Ready(Err(Lost::new(
                ErrorKind::Timeout,
                "HTTP/3: the server sent nothing for --request-timeout; the connection is given up",
            )));
        }
        if finished {
            Poll::Ready(Ok(()))
        } else {
            Poll::Pending
        }
    }

    fn oldest_sent(&self) -> Option<Instant> {
        // Each request's future carries its own deadline.
        None
    }

    fn time_out(&mut self, _cutoff: Instant, _events: &mut Events<'_>) -> Result<(), Lost> {
        Ok(())
    }

    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        for lost in Pin::new(&self.streams).iter_pin_ref() {
            each(lost.exchange);
        }
        self.streams.clear();
    }

    fn close(&mut self, events: &mut Events<'_>) {
        if let Some(base) = &self.baseline {
            let now = self.quic.connection.stats();
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

impl<M, F> Drop for Http3Connection<'_, M, F> {
    fn drop(&mut self) {
        // The server's acknowledgement is not awaited.
        self.quic.connection.close(H3_NO_ERROR.into(), b"");
    }
}
