//! HTTP/3 with the `h3` crate over quinn. The connection's control streams
//! and all of its request streams are polled in the client's own task:
//! each request is one future of a single concrete type in a
//! `FuturesUnordered`, so nothing is boxed per request and nothing crosses
//! a channel. (quinn drives the UDP socket in tasks of the same thread.)

use crate::driver::{Driver, Lost, OpenContext, Prepared, Protocol};
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange, Head, Header, Response};
use crate::grpc;
use crate::histogram::micros;
use crate::plan::Plan;
use crate::plan_error::PlanError;
use crate::quic::{describe_error, h3_code_name, QuicConnection};
use crate::recorder::QuicCounts;
use crate::request::{is_connection_specific, Request, RequestRef, Wants};
use crate::transport::{Carrier, Link};
use bytes::{Buf, Bytes};
use futures_util::stream::{FuturesUnordered, StreamExt};
use h3::client::SendRequest;
use h3::error::{Code, StreamError};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};
use pin_project_lite::pin_project;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::time::Sleep;

/// RFC 9000's default `max_ack_delay`: how long a live server may wait
/// before it acknowledges what it received.
const MAX_ACK_DELAY: Duration = Duration::from_millis(25);

type Sender = SendRequest<h3_quinn::OpenStreams, Bytes>;
type H3Connection = h3::client::Connection<h3_quinn::Connection, Bytes>;
type Setup =
    Pin<Box<dyn Future<Output = Result<(H3Connection, Sender), h3::error::ConnectionError>>>>;

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

/// A request as `http` types, built once and cloned per request: `h3`
/// takes requests in that form.
struct Template {
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Option<Bytes>,
}

/// Requests reach drivers validated ([`crate::request::validate`]).
fn template(request: &Request, scheme: &str) -> Template {
    let uri = Uri::builder()
        .scheme(scheme)
        .authority(request.authority.as_str())
        .path_and_query(request.path.as_str())
        .build()
        .expect("a validated request target");
    let mut headers = HeaderMap::with_capacity(request.headers.len());
    for (name, value) in &request.headers {
        if is_connection_specific(name) {
            continue;
        }
        headers.append(
            HeaderName::from_bytes(name.as_bytes()).expect("a validated header name"),
            HeaderValue::from_str(value).expect("a validated header value"),
        );
    }
    Template {
        method: Method::from_bytes(request.method.as_bytes()).expect("a validated method"),
        uri,
        headers,
        body: request.body.clone(),
    }
}

impl Template {
    fn request(&self) -> http::Request<()> {
        let mut request = http::Request::new(());
        *request.method_mut() = self.method.clone();
        *request.uri_mut() = self.uri.clone();
        *request.headers_mut() = self.headers.clone();
        request
    }
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
        let connection = h3_quinn::Connection::new(quic.connection.clone());
        let setup: Setup = Box::pin(async move {
            h3::client::builder()
                .send_grease(false)
                .build::<_, _, Bytes>(connection)
                .await
        });
        let timeouts = context.timeouts;
        let grpc = self.grpc;
        Box::new(Http3Connection {
            quic,
            templates: self,
            state: State::Setup(setup),
            make: move |send: Sender, request: http::Request<()>, body, exchange: Exchange| {
                Tracked {
                    exchange,
                    result: exchange_one(send, request, body, exchange.wants, grpc),
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

/// What one request brought back.
struct Exchanged {
    status: u16,
    uncompressed_header_bytes: u64,
    data_bytes: u64,
    /// The response's fields, when the request wants them.
    headers: Option<HeaderMap>,
    /// The body's pieces, when the request wants them.
    body: Vec<Bytes>,
    /// A gRPC call's `grpc-status`, from the trailers or a Trailers-Only head.
    grpc_status: Option<u16>,
    /// Its `grpc-message`, as sent.
    grpc_message: Option<Bytes>,
}

/// Why a request ended without a response.
enum Failure {
    Stream(StreamError),
    /// The request's timeout, which ran out.
    Timeout(Duration),
}

/// One request from HEADERS sent to the end of the response body.
async fn exchange_one(
    mut send: Sender,
    request: http::Request<()>,
    body: Option<Bytes>,
    wants: Wants,
    grpc: bool,
) -> Result<Exchanged, StreamError> {
    let mut stream = send.send_request(request).await?;
    drop(send);
    if let Some(body) = body {
        stream.send_data(body).await?;
    }
    stream.finish().await?;
    let response = stream.recv_response().await?;
    let status = response.status().as_u16();
    // `:status` and its three digits, then names and values, as nghttp3 counts.
    let uncompressed_header_bytes = 10
        + response
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str().len() + v.len()) as u64)
            .sum::<u64>();
    let mut grpc_status = grpc.then(|| grpc_status_of(response.headers())).flatten();
    let mut grpc_message = grpc.then(|| grpc_message_of(response.headers())).flatten();
    let headers = wants.headers.then(|| response.into_parts().0.headers);
    let mut data_bytes = 0;
    let mut pieces = Vec::new();
    while let Some(mut chunk) = stream.recv_data().await? {
        let n = chunk.remaining();
        data_bytes += n as u64;
        if wants.body {
            pieces.push(chunk.copy_to_bytes(n));
        }
    }
    if grpc {
        if let Some(trailers) = stream.recv_trailers().await? {
            grpc_status = grpc_status_of(&trailers).or(grpc_status);
            grpc_message = grpc_message_of(&trailers).or(grpc_message);
        }
    }
    Ok(Exchanged {
        status,
        uncompressed_header_bytes,
        data_bytes,
        headers,
        body: pieces,
        grpc_status,
        grpc_message,
    })
}

fn grpc_message_of(fields: &HeaderMap) -> Option<Bytes> {
    fields
        .get("grpc-message")
        .map(|value| Bytes::copy_from_slice(value.as_bytes()))
}

/// `grpc-status` as a number; `u16::MAX` when it holds none.
fn grpc_status_of(fields: &HeaderMap) -> Option<u16> {
    let value = fields.get("grpc-status")?;
    Some(
        value
            .to_str()
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or(u16::MAX),
    )
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

impl<F: Future<Output = Result<Exchanged, StreamError>>> Future for Tracked<F> {
    type Output = (Exchange, Result<Exchanged, Failure>);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(result) = this.result.poll(cx) {
            return Poll::Ready((*this.exchange, result.map_err(Failure::Stream)));
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

// The whole driver is boxed once per connection; the setup state being
// smaller saves nothing.
#[allow(clippy::large_enum_variant)]
enum State {
    /// The HTTP/3 control streams are being set up.
    Setup(Setup),
    Ready {
        h3: H3Connection,
        send: Sender,
    },
}

struct Http3Connection<'a, M, F> {
    quic: QuicConnection,
    templates: &'a Templates,
    state: State,
    make: M,
    streams: FuturesUnordered<Tracked<F>>,
    /// GOAWAY received or the connection failed: no new streams.
    going_away: bool,
    closed: Option<h3::error::ConnectionError>,
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
    F: Future<Output = Result<Exchanged, StreamError>>,
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
                            .map(|(name, value)| Header {
                                name: name.as_str().as_bytes(),
                                value: value.as_bytes(),
                            })
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
                    // h3 does not expose the QPACK-encoded size; QPACK without a
                    // dynamic table saves little on responses this small.
                    let response = Response {
                        status: done.status,
                        header_bytes: done.uncompressed_header_bytes,
                        header_bytes_uncompressed: done.uncompressed_header_bytes,
                        data_bytes: done.data_bytes,
                        grpc_status: self
                            .templates
                            .grpc
                            .then(|| grpc::call_status(done.status, done.grpc_status)),
                    };
                    events.complete(&exchange, &response, now);
                }
                Err(Failure::Stream(e)) => {
                    if going_away(&e) {
                        self.going_away = true;
                    }
                    events.failed(&exchange, error_kind(&e), || describe(&e, &self.quic));
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
            (None, Some(closed)) => format!("HTTP/3 connection closed: {closed}"),
            (None, None) => "HTTP/3: the connection was lost".into(),
        };
        Lost::new(kind, message)
    }
}

impl<M, F> Driver for Http3Connection<'_, M, F>
where
    M: FnMut(Sender, http::Request<()>, Option<Bytes>, Exchange) -> Tracked<F>,
    F: Future<Output = Result<Exchanged, StreamError>>,
{
    fn can_start(&self) -> bool {
        matches!(self.state, State::Ready { .. }) && !self.going_away
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        let State::Ready { send, .. } = &self.state else {
            unreachable!("requests start once the connection is set up")
        };
        let (request, body) = match request {
            RequestRef::Listed(index) => {
                let template = &self.templates.per_request[index];
                (template.request(), template.body.clone())
            }
            RequestRef::Made(request) => {
                let template = template(request, self.templates.scheme);
                (template.request(), template.body)
            }
        };
        // h3 waits inside the future when the server's stream limit is reached.
        let tracked = (self.make)(send.clone(), request, body, exchange);
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
        let h3 = match &mut self.state {
            State::Setup(setup) => {
                return match setup.as_mut().poll(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(Ok((h3, send))) => {
                        self.state = State::Ready { h3, send };
                        Poll::Ready(Ok(()))
                    }
                    Poll::Ready(Err(e)) => {
                        let message = match self.quic.connection.close_reason() {
                            Some(reason) => {
                                format!("HTTP/3 setup failed: {}", describe_error(&reason))
                            }
                            None => format!("HTTP/3 setup failed: {e}"),
                        };
                        events.note_error(ErrorKind::Protocol, || message.clone());
                        self.going_away = true;
                        Poll::Ready(Err(Lost::new(ErrorKind::Protocol, message)))
                    }
                };
            }
            State::Ready { h3, .. } => h3,
        };
        if self.closed.is_none() {
            if let Poll::Ready(error) = h3.poll_close(cx) {
                self.closed = Some(error);
                self.going_away = true;
            }
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
        // H3_NO_ERROR; the server's acknowledgement is not awaited.
        self.quic.connection.close(0x100u32.into(), b"");
    }
}

fn error_kind(error: &StreamError) -> ErrorKind {
    match error {
        StreamError::HeaderTooBig { .. } => ErrorKind::Protocol,
        StreamError::StreamError { .. } => ErrorKind::Protocol,
        _ => ErrorKind::Reset,
    }
}

/// Whether a stream's failure means the connection takes no new requests:
/// the server sent GOAWAY (seen by a request not yet sent, or as a refusal
/// of one sent after it) or the connection broke.
fn going_away(error: &StreamError) -> bool {
    match error {
        StreamError::RemoteClosing { .. } | StreamError::ConnectionError { .. } => true,
        StreamError::RemoteTerminate { code, .. } => *code == Code::H3_REQUEST_REJECTED,
        _ => false,
    }
}

fn describe(error: &StreamError, quic: &QuicConnection) -> String {
    match error {
        StreamError::RemoteClosing { .. } => {
            "the server sent GOAWAY; requests it had not accepted were lost".into()
        }
        StreamError::RemoteTerminate { code, .. } => {
            format!(
                "the server reset the stream with {}",
                h3_code_name(code.value())
            )
        }
        StreamError::ConnectionError { .. } => match quic.connection.close_reason() {
            Some(reason) => format!("HTTP/3: {}", describe_error(&reason)),
            None => format!("HTTP/3: {error}"),
        },
        other => format!("HTTP/3: {other}"),
    }
}
