//! HTTP/3 with the `h3` crate over quinn. As for HTTP/2, the connection's
//! control streams and all of its request streams are polled in the
//! client's own task: each request is one future of a single concrete type
//! in a `FuturesUnordered`, so nothing is boxed here and nothing crosses a
//! channel. (quinn drives the UDP socket in tasks of the same thread.)

use crate::driver::{ConnectionEnd, Session};
use crate::quic::{describe_error, h3_code_name, QuicConnection};
use crate::recorder::{micros, ErrorKind, QuicCounts};
use crate::scheduler::Ticket;
use crate::timer::{any_passed, connection_deadlines, DeadlineTimer};
use crate::worker::Worker;
use bytes::{Buf, Bytes};
use futures_util::stream::{FuturesUnordered, StreamExt};
use h3::client::SendRequest;
use h3::error::{Code, StreamError};
use http::Request;
use pin_project_lite::pin_project;
use std::cell::Cell;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::time::Sleep;

type Sender = SendRequest<h3_quinn::OpenStreams, Bytes>;

/// What one request brought back.
struct Exchanged {
    status: u16,
    uncompressed_header_bytes: u64,
    data_bytes: u64,
}

/// Why a request ended without a response.
enum Failure {
    Stream(StreamError),
    Timeout,
}

/// State the request futures share with the driver, owned by [`run`].
struct Shared<'a, 'w> {
    worker: &'a Worker<'w>,
    connect_started: Instant,
    first_byte_seen: Cell<bool>,
}

impl Shared<'_, '_> {
    fn response_headers(&self) {
        // Recorded in warm-up too, as for HTTP/1.1 and HTTP/2.
        if !self.first_byte_seen.replace(true) {
            self.worker
                .recorder
                .borrow_mut()
                .first_byte(self.connect_started.elapsed());
        }
    }
}

/// One request from HEADERS sent to the end of the response body.
async fn exchange(
    mut send: Sender,
    request: Request<()>,
    body: Option<Bytes>,
    shared: &Shared<'_, '_>,
) -> Result<Exchanged, StreamError> {
    let mut stream = send.send_request(request).await?;
    drop(send);
    if let Some(body) = body {
        stream.send_data(body).await?;
    }
    stream.finish().await?;
    let response = stream.recv_response().await?;
    shared.response_headers();
    let status = response.status().as_u16();
    // `:status` and its three digits, then names and values, as nghttp3 counts.
    let uncompressed_header_bytes = 10
        + response
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str().len() + v.len()) as u64)
            .sum::<u64>();
    let mut data_bytes = 0;
    while let Some(chunk) = stream.recv_data().await? {
        data_bytes += chunk.remaining() as u64;
    }
    Ok(Exchanged {
        status,
        uncompressed_header_bytes,
        data_bytes,
    })
}

pin_project! {
    /// A request future with its ticket, its send time and, with
    /// `--request-timeout`, its deadline.
    struct Tracked<F> {
        ticket: Ticket,
        sent: Instant,
        #[pin]
        exchange: F,
        #[pin]
        deadline: Option<Sleep>,
    }
}

impl<F: Future<Output = Result<Exchanged, StreamError>>> Future for Tracked<F> {
    type Output = (Ticket, Instant, Result<Exchanged, Failure>);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(result) = this.exchange.poll(cx) {
            return Poll::Ready((*this.ticket, *this.sent, result.map_err(Failure::Stream)));
        }
        if let Some(deadline) = this.deadline.as_pin_mut() {
            if deadline.poll(cx).is_ready() {
                return Poll::Ready((*this.ticket, *this.sent, Err(Failure::Timeout)));
            }
        }
        Poll::Pending
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

/// Runs the connection until the schedule is done or the connection is lost.
pub async fn run(quic: QuicConnection, session: Session<'_, '_>) -> ConnectionEnd {
    let worker = session.worker;
    let shared = Shared {
        worker,
        connect_started: session.connect_started,
        first_byte_seen: Cell::new(false),
    };
    let built = h3::client::builder()
        .send_grease(false)
        .build::<_, _, Bytes>(h3_quinn::Connection::new(quic.connection.clone()))
        .await;
    let (h3, send) = match built {
        Ok(pair) => pair,
        Err(e) => {
            let message = match quic.connection.close_reason() {
                Some(reason) => format!("HTTP/3 setup failed: {}", describe_error(&reason)),
                None => format!("HTTP/3 setup failed: {e}"),
            };
            worker
                .recorder
                .borrow_mut()
                .note_error(ErrorKind::Protocol, || message);
            quic.connection.close(0u32.into(), b"");
            return ConnectionEnd::Lost;
        }
    };
    let request_timeout = worker.plan.timeouts.request;
    let make = |send: Sender, ticket: Ticket, sent: Instant| {
        let template = &worker.requests.http3.per_path[ticket.path];
        let mut request = Request::new(());
        *request.method_mut() = template.method.clone();
        *request.uri_mut() = template.uri.clone();
        *request.headers_mut() = template.headers.clone();
        Tracked {
            ticket,
            sent,
            exchange: exchange(send, request, template.body.clone(), &shared),
            deadline: request_timeout.map(|t| tokio::time::sleep_until((sent + t).into())),
        }
    };
    let baseline = worker.measuring().then(|| quic.connection.stats());
    let mut driver = Driver {
        session,
        quic,
        h3,
        send,
        make,
        streams: FuturesUnordered::new(),
        going_away: false,
        closed: None,
        baseline,
        last_activity: Instant::now(),
        datagrams_seen: 0,
        timer: DeadlineTimer::default(),
    };
    let end = poll_fn(|cx| driver.poll(cx)).await;
    drop(driver);
    if end == ConnectionEnd::Finished {
        // Lets quinn send the CONNECTION_CLOSE before the thread may stop;
        // nothing waits for the server to acknowledge it.
        tokio::task::yield_now().await;
    }
    end
}

struct Driver<'a, 'w, M, F> {
    session: Session<'a, 'w>,
    quic: QuicConnection,
    h3: h3::client::Connection<h3_quinn::Connection, Bytes>,
    send: Sender,
    make: M,
    streams: FuturesUnordered<Tracked<F>>,
    /// GOAWAY received or the connection failed: no new streams.
    going_away: bool,
    closed: Option<h3::error::ConnectionError>,
    /// quinn's counters when measuring began on this connection.
    baseline: Option<quinn::ConnectionStats>,
    last_activity: Instant,
    datagrams_seen: u64,
    timer: DeadlineTimer,
}

impl<M, F> Driver<'_, '_, M, F>
where
    M: FnMut(Sender, Ticket, Instant) -> Tracked<F>,
    F: Future<Output = Result<Exchanged, StreamError>>,
{
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        loop {
            if self.closed.is_none() {
                if let Poll::Ready(error) = self.h3.poll_close(cx) {
                    self.closed = Some(error);
                    self.going_away = true;
                }
            }
            if self.baseline.is_none() && self.session.worker.measuring() {
                self.baseline = Some(self.quic.connection.stats());
            }
            let started = self.start_streams(cx);
            let finished = self.collect_finished(cx);
            if self.streams.is_empty() {
                if self.going_away {
                    return Poll::Ready(self.connection_lost());
                }
                if !self.session.schedule.has_more() {
                    return Poll::Ready(ConnectionEnd::Finished);
                }
            } else if self.closed.is_some() {
                // The connection is gone; its streams cannot finish any more.
                return Poll::Ready(self.connection_lost());
            }
            if started || finished {
                continue;
            }
            return self.poll_timeouts(cx);
        }
    }

    fn start_streams(&mut self, cx: &mut Context<'_>) -> bool {
        let mut started = false;
        let depth = self.session.worker.plan.max_concurrent_streams;
        while !self.going_away && self.streams.len() < depth {
            let Poll::Ready(Some(ticket)) = self.session.schedule.poll_ticket(cx) else {
                break;
            };
            let now = self.session.request_started(&ticket);
            // h3 waits inside the future when the server's stream limit is reached.
            let tracked = (self.make)(self.send.clone(), ticket, now);
            self.streams.push(tracked);
            started = true;
        }
        started
    }

    fn collect_finished(&mut self, cx: &mut Context<'_>) -> bool {
        let mut any = false;
        while let Poll::Ready(Some((ticket, sent, result))) = self.streams.poll_next_unpin(cx) {
            any = true;
            let now = Instant::now();
            self.last_activity = now;
            if let Err(Failure::Stream(e)) = &result {
                if going_away(e) {
                    self.going_away = true;
                }
            }
            if !ticket.recorded {
                continue;
            }
            let mut recorder = self.session.worker.recorder.borrow_mut();
            match result {
                Ok(done) => {
                    recorder.response(done.status, &ticket, sent, now);
                    recorder.bytes.headers_uncompressed += done.uncompressed_header_bytes;
                    // h3 does not expose the QPACK-encoded size; QPACK without a
                    // dynamic table saves little on responses this small.
                    recorder.bytes.headers += done.uncompressed_header_bytes;
                    recorder.bytes.data += done.data_bytes;
                    self.session.tally.response(now);
                }
                Err(Failure::Stream(e)) => {
                    let kind = error_kind(&e);
                    recorder.note_error(kind, || describe(&e, &self.quic));
                    recorder.request_error(kind, sent);
                }
                Err(Failure::Timeout) => {
                    recorder.note_error(ErrorKind::Timeout, || "request timed out".into());
                    recorder.request_error(ErrorKind::Timeout, sent);
                }
            }
        }
        any
    }

    /// Counts the streams still open as lost with the connection.
    fn connection_lost(&mut self) -> ConnectionEnd {
        let reason = self.quic.connection.close_reason();
        let kind = match &reason {
            Some(quinn::ConnectionError::TimedOut) => ErrorKind::Timeout,
            _ => ErrorKind::Reset,
        };
        if !self.streams.is_empty() {
            let message = match (&reason, &self.closed) {
                (Some(reason), _) => format!("HTTP/3: {}", describe_error(reason)),
                (None, Some(closed)) => format!("HTTP/3 connection closed: {closed}"),
                (None, None) => "HTTP/3: the connection was lost".into(),
            };
            self.session
                .worker
                .recorder
                .borrow_mut()
                .note_error(kind, || message);
        }
        self.fail_streams(kind);
        ConnectionEnd::Lost
    }

    fn fail_streams(&mut self, kind: ErrorKind) {
        let mut recorder = self.session.worker.recorder.borrow_mut();
        for lost in Pin::new(&self.streams).iter_pin_ref() {
            if lost.ticket.recorded {
                recorder.request_error(kind, lost.sent);
            }
        }
        drop(recorder);
        self.streams.clear();
    }

    /// `-T` and `-N`; `--request-timeout` lives in each request's future.
    fn poll_timeouts(&mut self, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        let timeouts = self.session.worker.plan.timeouts;
        let busy = !self.streams.is_empty();
        let deadlines = connection_deadlines(
            &timeouts,
            busy,
            self.last_activity,
            self.session.connect_started,
        );
        if self.timer.poll(cx, deadlines).is_pending() {
            return Poll::Pending;
        }
        let now = Instant::now();
        // Packets arriving count as activity even when no stream finished.
        let datagrams = self.quic.connection.stats().udp_rx.datagrams;
        if datagrams != self.datagrams_seen {
            self.datagrams_seen = datagrams;
            self.last_activity = now;
        }
        let deadlines = connection_deadlines(
            &timeouts,
            busy,
            self.last_activity,
            self.session.connect_started,
        );
        if any_passed(deadlines, now) {
            let count = self.streams.len();
            self.session
                .worker
                .recorder
                .borrow_mut()
                .note_error(ErrorKind::Timeout, || {
                    format!("connection timed out with {count} stream(s) open")
                });
            self.fail_streams(ErrorKind::Timeout);
            return Poll::Ready(ConnectionEnd::Lost);
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl<M, F> Drop for Driver<'_, '_, M, F> {
    fn drop(&mut self) {
        // Runs on every end, a timed run's cancellation included.
        if let Some(base) = &self.baseline {
            let now = self.quic.connection.stats();
            self.session
                .worker
                .recorder
                .borrow_mut()
                .quic_connection(&QuicCounts {
                    connections: 1,
                    datagrams_sent: now.udp_tx.datagrams - base.udp_tx.datagrams,
                    datagrams_received: now.udp_rx.datagrams - base.udp_rx.datagrams,
                    lost_packets: now.path.lost_packets - base.path.lost_packets,
                    rtt_sum_us: micros(now.path.rtt),
                    min_rtt_us: micros(now.path.min_rtt),
                });
            // UDP payload bytes received, as h2load counts traffic on QUIC.
            self.session.worker.recorder.borrow_mut().bytes.total +=
                now.udp_rx.bytes - base.udp_rx.bytes;
        }
        // H3_NO_ERROR; the server's acknowledgement is not awaited.
        self.quic.connection.close(0x100u32.into(), b"");
    }
}
