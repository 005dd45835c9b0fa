//! HTTP/2 with the `h2` crate: the connection and all of its streams are
//! polled in the client's own task, so a request never crosses a channel.

use crate::driver::{ConnectionEnd, Session};
use crate::recorder::ErrorKind;
use crate::request::RequestSpec;
use crate::scheduler::Ticket;
use crate::timer::{any_passed, connection_deadlines, DeadlineTimer};
use crate::transport::Transport;
use bytes::Bytes;
use futures_util::stream::{FuturesUnordered, StreamExt};
use h2::client::{ResponseFuture, SendRequest};
use h2::RecvStream;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Uri};
use std::cell::Cell;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Each path's request parts, built once per run and cloned per request.
/// HTTP/3 sends the same requests and shares them.
pub struct RequestTemplates {
    pub(crate) per_path: Vec<Template>,
}

pub(crate) struct Template {
    pub(crate) method: Method,
    pub(crate) uri: Uri,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Option<Bytes>,
}

impl RequestTemplates {
    pub fn new(specs: &[RequestSpec], scheme: &str) -> Result<Self, String> {
        let per_path = specs
            .iter()
            .map(|spec| {
                let method = Method::from_bytes(spec.method.as_bytes()).map_err(|_| {
                    format!("--method: '{}' is not a valid HTTP method", spec.method)
                })?;
                let uri = Uri::builder()
                    .scheme(scheme)
                    .authority(spec.authority.as_str())
                    .path_and_query(spec.path.as_str())
                    .build()
                    .map_err(|e| {
                        format!(
                            "invalid request target '{}{}': {e}",
                            spec.authority, spec.path
                        )
                    })?;
                let mut headers = HeaderMap::with_capacity(spec.headers.len());
                for (name, value) in &spec.headers {
                    let name = HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| format!("-H: '{name}' is not a valid header name"))?;
                    if is_connection_specific(&name) {
                        continue;
                    }
                    let value = HeaderValue::from_str(value).map_err(|_| {
                        format!("-H: the value of '{name}' is not a valid header value")
                    })?;
                    headers.append(name, value);
                }
                Ok(Template {
                    method,
                    uri,
                    headers,
                    body: spec.body.clone(),
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(RequestTemplates { per_path })
    }
}

/// HTTP/2 forbids these; h2 would reject the request.
fn is_connection_specific(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "connection" | "keep-alive" | "proxy-connection" | "transfer-encoding" | "upgrade"
    )
}

/// Bytes and activity seen on the socket, shared between the I/O wrapper
/// (owned by h2) and the driver loop on the same task.
struct Wire {
    last_activity: Cell<Instant>,
    first_byte_seen: Cell<bool>,
}

/// Counts what is read and spots HEADERS frames, so header bytes are the
/// compressed size on the wire, as h2load reports them.
struct CountingIo<'a, 'w> {
    inner: Transport,
    session_worker: &'a crate::worker::Worker<'w>,
    wire: &'a Wire,
    connect_started: Instant,
    frames: FrameScanner,
}

impl AsyncRead for CountingIo<'_, '_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        let new = &buf.filled()[before..];
        if !new.is_empty() {
            let now = Instant::now();
            self.wire.last_activity.set(now);
            let header_bytes = self.frames.scan(new);
            let worker = self.session_worker;
            if worker.measuring() || !self.wire.first_byte_seen.get() {
                let mut recorder = worker.recorder.borrow_mut();
                if worker.measuring() {
                    recorder.bytes.total += new.len() as u64;
                    recorder.bytes.headers += header_bytes;
                }
                if !self.wire.first_byte_seen.get() {
                    recorder.first_byte(now - self.connect_started);
                }
            }
            self.wire.first_byte_seen.set(true);
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for CountingIo<'_, '_> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let n = ready!(Pin::new(&mut self.inner).poll_write(cx, buf))?;
        self.wire.last_activity.set(Instant::now());
        Poll::Ready(Ok(n))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let n = ready!(Pin::new(&mut self.inner).poll_write_vectored(cx, bufs))?;
        self.wire.last_activity.set(Instant::now());
        Poll::Ready(Ok(n))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Walks HTTP/2 frame boundaries in the server's byte stream and adds up
/// the payload length of HEADERS and CONTINUATION frames.
#[derive(Default)]
struct FrameScanner {
    header: [u8; 9],
    header_len: usize,
    /// Payload bytes of the current frame still to skip.
    skip: usize,
}

impl FrameScanner {
    fn scan(&mut self, mut data: &[u8]) -> u64 {
        let mut header_bytes = 0;
        while !data.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(data.len());
                self.skip -= n;
                data = &data[n..];
                continue;
            }
            let n = (9 - self.header_len).min(data.len());
            self.header[self.header_len..self.header_len + n].copy_from_slice(&data[..n]);
            self.header_len += n;
            data = &data[n..];
            if self.header_len == 9 {
                self.header_len = 0;
                let length = u32::from_be_bytes([0, self.header[0], self.header[1], self.header[2]])
                    as usize;
                // 0x1 HEADERS, 0x9 CONTINUATION.
                if matches!(self.header[3], 0x1 | 0x9) {
                    header_bytes += length as u64;
                }
                self.skip = length;
            }
        }
        header_bytes
    }
}

/// One request on the connection, from HEADERS sent to END_STREAM received.
struct StreamTask {
    ticket: Ticket,
    sent: Instant,
    status: u16,
    uncompressed_header_bytes: u64,
    data_bytes: u64,
    /// Body bytes read but not yet handed back to the stream's window.
    unreleased: usize,
    /// Hand capacity back once this much is unreleased (half the stream window).
    release_at: usize,
    state: StreamState,
}

enum StreamState {
    AwaitingResponse(ResponseFuture),
    Body(RecvStream),
    Done,
}

impl Future for StreamTask {
    type Output = (StreamTask, Result<(), h2::Error>);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let task = &mut *self;
        loop {
            match &mut task.state {
                StreamState::AwaitingResponse(response) => {
                    match ready!(Pin::new(response).poll(cx)) {
                        Ok(response) => {
                            task.status = response.status().as_u16();
                            // `:status` and its three digits, then names and values, as nghttp2 counts.
                            task.uncompressed_header_bytes = 10
                                + response
                                    .headers()
                                    .iter()
                                    .map(|(n, v)| (n.as_str().len() + v.len()) as u64)
                                    .sum::<u64>();
                            let body = response.into_body();
                            if body.is_end_stream() {
                                task.state = StreamState::Done;
                            } else {
                                task.state = StreamState::Body(body);
                            }
                        }
                        Err(e) => return Poll::Ready(task.finish(Err(e))),
                    }
                }
                StreamState::Body(body) => match ready!(body.poll_data(cx)) {
                    Some(Ok(chunk)) => {
                        task.data_bytes += chunk.len() as u64;
                        // h2 returns a closed stream's capacity to the connection by
                        // itself; a long body must give its stream window back on the
                        // way, but a short one need not take the stream lock per chunk.
                        task.unreleased += chunk.len();
                        if task.unreleased >= task.release_at {
                            let _ = body.flow_control().release_capacity(task.unreleased);
                            task.unreleased = 0;
                        }
                    }
                    Some(Err(e)) => return Poll::Ready(task.finish(Err(e))),
                    None => task.state = StreamState::Done,
                },
                StreamState::Done => return Poll::Ready(task.finish(Ok(()))),
            }
        }
    }
}

impl StreamTask {
    fn finish(&mut self, result: Result<(), h2::Error>) -> (StreamTask, Result<(), h2::Error>) {
        let done = StreamTask {
            ticket: self.ticket,
            sent: self.sent,
            status: self.status,
            uncompressed_header_bytes: self.uncompressed_header_bytes,
            data_bytes: self.data_bytes,
            unreleased: 0,
            release_at: self.release_at,
            state: StreamState::Done,
        };
        self.state = StreamState::Done;
        (done, result)
    }
}

fn error_kind(error: &h2::Error) -> ErrorKind {
    // h2 reports its own protocol errors as a GOAWAY it sent: check the initiator first.
    if error.is_library() && !error.is_io() {
        ErrorKind::Protocol
    } else {
        ErrorKind::Reset
    }
}

fn describe(error: &h2::Error) -> String {
    if error.is_go_away() && error.is_remote() {
        let reason = error.reason().map(|r| format!("{r:?}")).unwrap_or_default();
        format!("the server sent GOAWAY ({reason}); streams it had not accepted were lost")
    } else if error.is_library() && !error.is_io() {
        format!(
            "HTTP/2 protocol error: {error} (does the server speak HTTP/2? \
             for cleartext HTTP/1.1 use -p http/1.1 or --h1)"
        )
    } else {
        format!("HTTP/2: {error}")
    }
}

/// Runs the connection until the schedule is done or the connection is lost.
pub async fn run(transport: Transport, session: Session<'_, '_>) -> ConnectionEnd {
    let worker = session.worker;
    let plan = worker.plan;
    let wire = Wire {
        last_activity: Cell::new(Instant::now()),
        first_byte_seen: Cell::new(false),
    };
    let io = CountingIo {
        inner: transport,
        session_worker: worker,
        wire: &wire,
        connect_started: session.connect_started,
        frames: FrameScanner::default(),
    };
    let handshake = h2::client::Builder::new()
        .initial_window_size(plan.http2.stream_window())
        .initial_connection_window_size(plan.http2.connection_window())
        .max_frame_size(plan.http2.max_frame_size)
        .header_table_size(plan.http2.header_table_size)
        .enable_push(false)
        .handshake::<_, Bytes>(io)
        .await;
    let (send, connection) = match handshake {
        Ok(pair) => pair,
        Err(e) => {
            worker
                .recorder
                .borrow_mut()
                .note_error(ErrorKind::Protocol, || describe(&e));
            return ConnectionEnd::Lost;
        }
    };
    let mut driver = Driver {
        session,
        send,
        connection,
        streams: FuturesUnordered::new(),
        wire: &wire,
        going_away: false,
        connection_result: None,
        timer: DeadlineTimer::default(),
    };
    poll_fn(|cx| driver.poll(cx)).await
}

struct Driver<'a, 'w, T: AsyncRead + AsyncWrite + Unpin> {
    session: Session<'a, 'w>,
    send: SendRequest<Bytes>,
    connection: h2::client::Connection<T, Bytes>,
    streams: FuturesUnordered<StreamTask>,
    wire: &'a Wire,
    /// GOAWAY received or the connection failed: no new streams.
    going_away: bool,
    connection_result: Option<Result<(), h2::Error>>,
    timer: DeadlineTimer,
}

impl<T: AsyncRead + AsyncWrite + Unpin> Driver<'_, '_, T> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        loop {
            if self.connection_result.is_none() {
                if let Poll::Ready(result) = Pin::new(&mut self.connection).poll(cx) {
                    self.connection_result = Some(result);
                    self.going_away = true;
                }
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
            } else if self.connection_result.is_some() {
                // The connection is gone; streams it did not fail itself never will be.
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
            match self.send.poll_ready(cx) {
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(_)) => {
                    self.going_away = true;
                    break;
                }
                Poll::Pending => break,
            }
            let Poll::Ready(Some(ticket)) = self.session.schedule.poll_ticket(cx) else {
                break;
            };
            let template = &self.session.worker.requests.http2.per_path[ticket.path];
            let mut request = Request::new(());
            *request.method_mut() = template.method.clone();
            *request.uri_mut() = template.uri.clone();
            *request.headers_mut() = template.headers.clone();
            let now = self.session.request_started(&ticket);
            match self.send.send_request(request, template.body.is_none()) {
                Ok((response, mut body_stream)) => {
                    if let Some(body) = &template.body {
                        // h2 queues the data and sends it as the peer's window allows.
                        let _ = body_stream.send_data(body.clone(), true);
                    }
                    self.streams.push(StreamTask {
                        ticket,
                        sent: now,
                        status: 0,
                        uncompressed_header_bytes: 0,
                        data_bytes: 0,
                        unreleased: 0,
                        release_at: (self.session.worker.plan.http2.stream_window() / 2).max(1)
                            as usize,
                        state: StreamState::AwaitingResponse(response),
                    });
                    started = true;
                }
                Err(e) => {
                    self.going_away = true;
                    if ticket.recorded {
                        let kind = error_kind(&e);
                        let mut recorder = self.session.worker.recorder.borrow_mut();
                        recorder.note_error(kind, || describe(&e));
                        recorder.request_error(kind);
                    }
                }
            }
        }
        started
    }

    fn collect_finished(&mut self, cx: &mut Context<'_>) -> bool {
        let mut any = false;
        // Responses found in one pass arrived together; one clock read serves them all.
        let mut now = None;
        while let Poll::Ready(Some((task, result))) = self.streams.poll_next_unpin(cx) {
            any = true;
            if !task.ticket.recorded {
                continue;
            }
            let mut recorder = self.session.worker.recorder.borrow_mut();
            match result {
                Ok(()) => {
                    let now = *now.get_or_insert_with(Instant::now);
                    recorder.response(task.status, &task.ticket, task.sent, now);
                    recorder.bytes.headers_uncompressed += task.uncompressed_header_bytes;
                    recorder.bytes.data += task.data_bytes;
                    self.session.tally.response(now);
                }
                Err(e) => {
                    let kind = error_kind(&e);
                    recorder.note_error(kind, || describe(&e));
                    recorder.request_error(kind);
                }
            }
        }
        any
    }

    /// Counts the streams still open as lost with the connection.
    fn connection_lost(&mut self) -> ConnectionEnd {
        let kind = match &self.connection_result {
            Some(Err(e)) => {
                let kind = error_kind(e);
                if !self.streams.is_empty() {
                    self.session
                        .worker
                        .recorder
                        .borrow_mut()
                        .note_error(kind, || describe(e));
                }
                kind
            }
            _ => ErrorKind::Reset,
        };
        self.fail_streams(kind);
        ConnectionEnd::Lost
    }

    fn fail_streams(&mut self, kind: ErrorKind) {
        let mut recorder = self.session.worker.recorder.borrow_mut();
        for task in std::mem::take(&mut self.streams) {
            if task.ticket.recorded {
                recorder.request_error(kind);
            }
        }
    }

    fn poll_timeouts(&mut self, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        let timeouts = self.session.worker.plan.timeouts;
        let oldest = if timeouts.request.is_some() {
            self.streams.iter().map(|s| s.sent).min()
        } else {
            None
        };
        let busy = !self.streams.is_empty();
        let connection = connection_deadlines(
            &timeouts,
            busy,
            self.wire.last_activity.get(),
            self.session.connect_started,
        );
        let request = timeouts.request.zip(oldest).map(|(t, sent)| sent + t);
        if self
            .timer
            .poll(cx, connection.into_iter().chain([request]))
            .is_pending()
        {
            return Poll::Pending;
        }
        let now = Instant::now();
        if any_passed(connection, now) {
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
        // Drop expired streams (h2 resets them) and keep the rest.
        let request_timeout = timeouts.request.expect("only the request timeout is left");
        let mut recorder = self.session.worker.recorder.borrow_mut();
        for task in std::mem::take(&mut self.streams) {
            if task.sent + request_timeout <= now {
                if task.ticket.recorded {
                    recorder.note_error(ErrorKind::Timeout, || "request timed out".into());
                    recorder.request_error(ErrorKind::Timeout);
                }
            } else {
                self.streams.push(task);
            }
        }
        drop(recorder);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, len: usize) -> Vec<u8> {
        let mut f = vec![
            (len >> 16) as u8,
            (len >> 8) as u8,
            len as u8,
            kind,
            0,
            0,
            0,
            0,
            1,
        ];
        f.extend(std::iter::repeat_n(0u8, len));
        f
    }

    #[test]
    fn frame_scanner_counts_header_payloads_across_splits() {
        let mut stream = frame(0x4, 6); // SETTINGS
        stream.extend(frame(0x1, 20)); // HEADERS
        stream.extend(frame(0x9, 5)); // CONTINUATION
        stream.extend(frame(0x0, 100)); // DATA
        stream.extend(frame(0x1, 3));
        for piece in [1, 2, 5, 9, 10, 64, stream.len()] {
            let mut scanner = FrameScanner::default();
            let total: u64 = stream.chunks(piece).map(|c| scanner.scan(c)).sum();
            assert_eq!(total, 28, "piece size {piece}");
        }
    }
}
