//! HTTP/2 over loadgen's own sans-IO connection (`loadgen-http2`): this
//! file owns the socket, the connection owns the protocol.
//!
//! The `h2` crate did this job first; it spent about 60% more instructions
//! per request than h2load, most of them building `http` types for each
//! request and decoding every response header (docs/performance.md). Here
//! each path's header block is encoded once per run and a response is
//! decoded only as far as its status and sizes.

use crate::driver::templates::is_connection_specific;
use crate::driver::{ConnectionEnd, Session};
use crate::recorder::ErrorKind;
use crate::request::RequestSpec;
use crate::scheduler::Ticket;
use crate::timer::{any_passed, connection_deadlines, DeadlineTimer};
use crate::transport::Transport;
use bytes::Bytes;
use loadgen_http2::{hpack, Config, Connection, ConnectionError, Event, StreamError};
use std::future::poll_fn;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::io::AsyncWrite;

/// Read buffers start small and double whenever a read fills them; a
/// frame other than DATA must fit whole, so they may grow to the largest
/// frame the plan allows.
const FIRST_READ_BUFFER: usize = 4 * 1024;
const LARGEST_READ_BUFFER: usize = 64 * 1024;

/// Each path's HPACK header block, encoded once per run.
pub struct HeaderBlocks {
    per_path: Vec<Box<[u8]>>,
    body: Option<Bytes>,
}

impl HeaderBlocks {
    pub fn new(specs: &[RequestSpec], scheme: &str) -> Self {
        let per_path = specs
            .iter()
            .map(|spec| {
                let headers: Vec<(String, String)> = spec
                    .headers
                    .iter()
                    .filter(|(name, _)| !is_connection_specific(name))
                    .cloned()
                    .collect();
                let mut block = Vec::new();
                hpack::encode_request(
                    &spec.method,
                    scheme,
                    &spec.authority,
                    &spec.path,
                    &headers,
                    &mut block,
                );
                block.into_boxed_slice()
            })
            .collect();
        HeaderBlocks {
            per_path,
            body: specs.first().and_then(|s| s.body.clone()),
        }
    }
}

/// What a stream carries for the recorder.
struct InFlight {
    ticket: Ticket,
    sent: Instant,
}

/// Runs the connection until the schedule is done or the connection is lost.
pub async fn run(transport: Transport, session: Session<'_, '_>) -> ConnectionEnd {
    let http2 = &session.worker.plan.http2;
    let config = Config {
        stream_window: http2.stream_window(),
        connection_window: http2.connection_window(),
        max_frame_size: http2.max_frame_size,
        header_table_size: http2.header_table_size,
    };
    let mut driver = Driver {
        transport,
        session,
        connection: Connection::new(config),
        read_buf: Vec::with_capacity(FIRST_READ_BUFFER),
        first_byte_seen: false,
        last_activity: Instant::now(),
        timer: DeadlineTimer::default(),
        expired: Vec::new(),
    };
    poll_fn(|cx| driver.poll(cx)).await
}

struct Driver<'a, 'w> {
    transport: Transport,
    session: Session<'a, 'w>,
    connection: Connection<InFlight>,
    read_buf: Vec<u8>,
    first_byte_seen: bool,
    last_activity: Instant,
    timer: DeadlineTimer,
    /// Streams past their request timeout, kept to reuse the storage.
    expired: Vec<u32>,
}

impl Driver<'_, '_> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        loop {
            self.start_streams(cx);
            if let Err(e) = self.poll_write(cx) {
                return Poll::Ready(self.lose(ErrorKind::Reset, || format!("write failed: {e}")));
            }
            if self.connection.open_streams() == 0 {
                if self.connection.is_closing() {
                    return Poll::Ready(ConnectionEnd::Lost);
                }
                if !self.session.schedule.has_more() {
                    return Poll::Ready(ConnectionEnd::Finished);
                }
            }
            match self.poll_read(cx) {
                Poll::Ready(Ok(())) => continue,
                Poll::Ready(Err(end)) => return Poll::Ready(end),
                Poll::Pending => {}
            }
            return self.poll_timeouts(cx);
        }
    }

    fn start_streams(&mut self, cx: &mut Context<'_>) {
        let depth = self.session.worker.plan.max_concurrent_streams;
        let blocks = &self.session.worker.requests.http2;
        while self.connection.open_streams() < depth && self.connection.can_start_request() {
            let Poll::Ready(Some(ticket)) = self.session.schedule.poll_ticket(cx) else {
                break;
            };
            let sent = self.session.request_started(&ticket);
            self.connection.start_request(
                &blocks.per_path[ticket.path],
                blocks.body.as_ref(),
                InFlight { ticket, sent },
            );
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>) -> std::io::Result<()> {
        while !self.connection.output().is_empty() {
            match Pin::new(&mut self.transport).poll_write(cx, self.connection.output()) {
                Poll::Ready(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
                Poll::Ready(Ok(n)) => {
                    self.connection.consume_output(n);
                    self.last_activity = Instant::now();
                }
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Pending => return Ok(()),
            }
        }
        // TLS buffers records; push them out. Plain sockets flush at once.
        match Pin::new(&mut self.transport).poll_flush(cx) {
            Poll::Ready(Err(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// `Ok(())`: bytes were read and handled, poll again. `Err(end)`: the
    /// connection is over.
    fn poll_read(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ConnectionEnd>> {
        let spare = self.read_buf.capacity() - self.read_buf.len();
        if spare < FIRST_READ_BUFFER / 4 {
            self.read_buf.reserve(FIRST_READ_BUFFER);
        }
        let offered = self.read_buf.capacity() - self.read_buf.len();
        let n = match self.transport.poll_read_append(cx, &mut self.read_buf) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Err(e)) => {
                return Poll::Ready(Err(
                    self.lose(ErrorKind::Reset, || format!("read failed: {e}"))
                ));
            }
            Poll::Ready(Ok(n)) => n,
        };
        if n == offered && self.read_buf.capacity() < LARGEST_READ_BUFFER {
            self.read_buf.reserve(self.read_buf.capacity());
        }
        let now = Instant::now();
        self.last_activity = now;
        if n == 0 {
            return Poll::Ready(Err(self.on_eof()));
        }
        let worker = self.session.worker;
        if worker.measuring() || !self.first_byte_seen {
            let mut recorder = worker.recorder.borrow_mut();
            if worker.measuring() {
                recorder.bytes.total += n as u64;
            }
            if !self.first_byte_seen {
                recorder.first_byte(now - self.session.connect_started);
            }
        }
        self.first_byte_seen = true;
        match self.receive(now) {
            Ok(()) => Poll::Ready(Ok(())),
            Err(e) => Poll::Ready(Err(self.lose(ErrorKind::Protocol, || describe(&e)))),
        }
    }

    /// Hands what was read to the connection and records the streams that ended.
    fn receive(&mut self, now: Instant) -> Result<(), ConnectionError> {
        let Self {
            connection,
            session,
            read_buf,
            ..
        } = self;
        let worker = session.worker;
        let mut recorder = worker.recorder.borrow_mut();
        let tally = &mut *session.tally;
        let result = connection.receive(read_buf, &mut |event| match event {
            Event::Response {
                user,
                status,
                header_bytes_uncompressed,
                data_bytes,
            } => {
                if user.ticket.recorded {
                    recorder.response(status, &user.ticket, user.sent, now);
                    recorder.bytes.headers_uncompressed += header_bytes_uncompressed;
                    recorder.bytes.data += data_bytes;
                    tally.response(now);
                }
            }
            Event::Failed { user, error } => {
                if user.ticket.recorded {
                    let kind = match error {
                        StreamError::Malformed(_) => ErrorKind::Protocol,
                        StreamError::Reset(_) | StreamError::Refused => ErrorKind::Reset,
                    };
                    recorder.note_error(kind, || format!("HTTP/2: {error}"));
                    recorder.request_error(kind, user.sent);
                }
            }
        });
        let header_bytes = connection.take_header_bytes();
        if worker.measuring() {
            recorder.bytes.headers += header_bytes;
        }
        let consumed = result?;
        if consumed == read_buf.len() {
            read_buf.clear();
        } else {
            read_buf.drain(..consumed);
        }
        Ok(())
    }

    fn on_eof(&mut self) -> ConnectionEnd {
        if self.connection.open_streams() == 0 {
            return ConnectionEnd::Lost;
        }
        let count = self.connection.open_streams();
        self.lose(ErrorKind::Reset, || {
            format!("server closed the connection with {count} stream(s) open")
        })
    }

    /// Counts every open stream as ended by `kind`.
    fn lose(&mut self, kind: ErrorKind, message: impl FnOnce() -> String) -> ConnectionEnd {
        let mut recorder = self.session.worker.recorder.borrow_mut();
        if self.connection.open_streams() > 0 {
            recorder.note_error(kind, message);
        }
        for lost in self.connection.take_streams() {
            if lost.ticket.recorded {
                recorder.request_error(kind, lost.sent);
            }
        }
        ConnectionEnd::Lost
    }

    fn poll_timeouts(&mut self, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        let timeouts = self.session.worker.plan.timeouts;
        let oldest = if timeouts.request.is_some() {
            self.connection.streams().map(|(_, s)| s.sent).min()
        } else {
            None
        };
        let connection = connection_deadlines(
            &timeouts,
            self.connection.open_streams() > 0,
            self.last_activity,
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
            let count = self.connection.open_streams();
            return Poll::Ready(self.lose(ErrorKind::Timeout, || {
                format!("connection timed out with {count} stream(s) open")
            }));
        }
        // Reset the expired streams and keep the rest.
        let request_timeout = timeouts.request.expect("only the request timeout is left");
        self.expired.clear();
        self.expired.extend(
            self.connection
                .streams()
                .filter(|(_, s)| s.sent + request_timeout <= now)
                .map(|(id, _)| id),
        );
        let mut recorder = self.session.worker.recorder.borrow_mut();
        for id in self.expired.drain(..) {
            if let Some(expired) = self.connection.cancel(id) {
                if expired.ticket.recorded {
                    recorder.note_error(ErrorKind::Timeout, || "request timed out".into());
                    recorder.request_error(ErrorKind::Timeout, expired.sent);
                }
            }
        }
        drop(recorder);
        // The resets are waiting to be written.
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

fn describe(error: &ConnectionError) -> String {
    if error.is_not_http2() {
        format!(
            "HTTP/2 protocol error: {error} (does the server speak HTTP/2? \
             for cleartext HTTP/1.1 use -p http/1.1 or --h1)"
        )
    } else {
        format!("HTTP/2 protocol error: {error}")
    }
}
