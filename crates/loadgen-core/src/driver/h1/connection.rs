//! One HTTP/1.1 connection: writes pipelined requests, parses responses,
//! and reports each request's end to the recorder exactly once.

use super::parser::{Event, ResponseParser};
use crate::driver::{ConnectionEnd, Session};
use crate::recorder::ErrorKind;
use crate::request::RequestSpec;
use crate::scheduler::Ticket;
use crate::timer::{connection_deadlines, DeadlineTimer};
use crate::transport::Transport;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::io::AsyncWrite;

/// How much one read may take. Connections read into their worker thread's
/// buffer ([`Worker::read_buffer`](crate::worker::Worker)), one at a time,
/// and keep only what they could not parse yet (the start of a response
/// head), so ten thousand connections do not hold ten thousand buffers.
const READ_SIZE: usize = 64 * 1024;

/// Each path's complete request (head and body), serialized once per run.
pub struct RequestBytes {
    per_path: Vec<Box<[u8]>>,
    head_method: bool,
}

impl RequestBytes {
    pub fn new(specs: &[RequestSpec]) -> Self {
        let per_path = specs
            .iter()
            .map(|spec| {
                let mut out = Vec::with_capacity(128);
                out.extend_from_slice(spec.method.as_bytes());
                out.push(b' ');
                out.extend_from_slice(spec.path.as_bytes());
                out.extend_from_slice(b" HTTP/1.1\r\nHost: ");
                out.extend_from_slice(spec.authority.as_bytes());
                out.extend_from_slice(b"\r\n");
                for (name, value) in &spec.headers {
                    out.extend_from_slice(name.as_bytes());
                    out.extend_from_slice(b": ");
                    out.extend_from_slice(value.as_bytes());
                    out.extend_from_slice(b"\r\n");
                }
                out.extend_from_slice(b"\r\n");
                if let Some(body) = &spec.body {
                    out.extend_from_slice(body);
                }
                out.into_boxed_slice()
            })
            .collect();
        let head_method = specs
            .first()
            .is_some_and(|s| s.method.eq_ignore_ascii_case("HEAD"));
        RequestBytes {
            per_path,
            head_method,
        }
    }

    pub fn get(&self, path: usize) -> &[u8] {
        &self.per_path[path]
    }
}

struct InFlight {
    ticket: Ticket,
    sent: Instant,
    status: u16,
}

/// Runs the connection until the schedule is done or the connection is lost.
///
/// Not an `async fn`: that would keep the moved-in transport and session
/// next to the connection made of them, in every client's future.
pub fn run<'a, 'w>(transport: Transport, session: Session<'a, 'w>) -> Running<'a, 'w> {
    let plan = session.worker.plan;
    // As h2load: a request body turns pipelining off.
    let depth = if plan.body.is_some() {
        1
    } else {
        plan.max_concurrent_streams
    };
    let mut connection = Connection {
        transport,
        session,
        depth,
        parser: ResponseParser::new(false),
        in_flight: VecDeque::with_capacity(depth.min(1024)),
        outgoing: Outgoing::Idle,
        batch: Vec::new(),
        partial: Vec::new(),
        first_byte_seen: false,
        closing: false,
        last_activity: Instant::now(),
        timer: DeadlineTimer::default(),
    };
    connection.parser = ResponseParser::new(connection.session.worker.requests.http1.head_method);
    Running(connection)
}

/// One connection at work, as the future [`run`] returns.
pub struct Running<'a, 'w>(Connection<'a, 'w>);

impl Future for Running<'_, '_> {
    type Output = ConnectionEnd;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        self.get_mut().0.poll(cx)
    }
}

/// What is on its way to the socket.
#[derive(Clone, Copy)]
enum Outgoing {
    Idle,
    /// One request, written straight from its prepared bytes.
    One {
        path: usize,
        written: usize,
    },
    /// Pipelined requests, copied one after the other into `batch`.
    Batch {
        written: usize,
    },
}

struct Connection<'a, 'w> {
    transport: Transport,
    session: Session<'a, 'w>,
    depth: usize,
    parser: ResponseParser,
    in_flight: VecDeque<InFlight>,
    outgoing: Outgoing,
    /// Empty, and unallocated, unless requests are pipelined (`-m`).
    batch: Vec<u8>,
    /// The start of a response the last read ended in the middle of.
    partial: Vec<u8>,
    first_byte_seen: bool,
    /// The server said it will close: no more requests go out.
    closing: bool,
    last_activity: Instant,
    timer: DeadlineTimer,
}

impl Connection<'_, '_> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        loop {
            self.start_requests(cx);
            if self.in_flight.is_empty() {
                if self.closing {
                    return Poll::Ready(ConnectionEnd::Lost);
                }
                if !self.session.schedule.has_more() {
                    return Poll::Ready(ConnectionEnd::Finished);
                }
                // The schedule holds the next request back and will wake us.
                return Poll::Pending;
            }
            if let Err(e) = self.poll_write(cx) {
                return Poll::Ready(self.lose(ErrorKind::Reset, || format!("write failed: {e}")));
            }
            match self.poll_read(cx) {
                Poll::Ready(Ok(Some(end))) => return Poll::Ready(end),
                Poll::Ready(Ok(None)) => continue,
                Poll::Ready(Err(end)) => return Poll::Ready(end),
                Poll::Pending => {}
            }
            return match self.poll_timeouts(cx) {
                Poll::Ready(end) => Poll::Ready(end),
                Poll::Pending => Poll::Pending,
            };
        }
    }

    fn start_requests(&mut self, cx: &mut Context<'_>) {
        while !self.closing && self.in_flight.len() < self.depth {
            let Poll::Ready(Some(ticket)) = self.session.schedule.poll_ticket(cx) else {
                break;
            };
            let now = self.session.request_started(&ticket);
            let requests = &self.session.worker.requests.http1;
            match self.outgoing {
                Outgoing::Idle => {
                    self.outgoing = Outgoing::One {
                        path: ticket.path,
                        written: 0,
                    }
                }
                Outgoing::One { path, written } => {
                    self.batch.clear();
                    self.batch.extend_from_slice(&requests.get(path)[written..]);
                    self.batch.extend_from_slice(requests.get(ticket.path));
                    self.outgoing = Outgoing::Batch { written: 0 };
                }
                Outgoing::Batch { .. } => self.batch.extend_from_slice(requests.get(ticket.path)),
            }
            self.in_flight.push_back(InFlight {
                ticket,
                sent: now,
                status: 0,
            });
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>) -> std::io::Result<()> {
        let requests = &self.session.worker.requests.http1;
        loop {
            let (pending, written) = match self.outgoing {
                Outgoing::Idle => break,
                Outgoing::One { path, written } => (requests.get(path), written),
                Outgoing::Batch { written } => (&self.batch[..], written),
            };
            let rest = &pending[written..];
            match Pin::new(&mut self.transport).poll_write(cx, rest) {
                Poll::Ready(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
                Poll::Ready(Ok(n)) => {
                    self.last_activity = Instant::now();
                    self.outgoing = match self.outgoing {
                        _ if n == rest.len() => {
                            self.batch.clear();
                            Outgoing::Idle
                        }
                        Outgoing::One { path, written } => Outgoing::One {
                            path,
                            written: written + n,
                        },
                        _ => Outgoing::Batch {
                            written: written + n,
                        },
                    };
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

    /// `Ok(None)`: progress was made, poll again. `Ok(Some(end))` or
    /// `Err(end)`: the connection is over.
    fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Option<ConnectionEnd>, ConnectionEnd>> {
        let worker = self.session.worker;
        // Only this connection uses the thread's buffer until this returns.
        let mut buffer = worker.read_buffer.borrow_mut();
        buffer.clear();
        buffer.extend_from_slice(&self.partial);
        buffer.reserve(READ_SIZE);
        let n = match self.transport.poll_read_append(cx, &mut buffer) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Err(e)) => {
                return Poll::Ready(Err(
                    self.lose(ErrorKind::Reset, || format!("read failed: {e}"))
                ));
            }
            Poll::Ready(Ok(n)) => n,
        };
        let now = Instant::now();
        self.last_activity = now;
        if n == 0 {
            return Poll::Ready(Err(self.on_eof(now)));
        }
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
        let parsed = self.parse(&buffer, now);
        self.partial.clear();
        if let Ok(consumed) = parsed {
            if !self.closing {
                self.partial.extend_from_slice(&buffer[consumed..]);
            }
        }
        drop(buffer);
        match parsed {
            Ok(_) if self.closing => Poll::Ready(Err(
                self.lose_in_flight(ErrorKind::Reset, "server closed the connection")
            )),
            Ok(_) => Poll::Ready(Ok(None)),
            Err(message) => Poll::Ready(Err(self.lose(ErrorKind::Protocol, || message))),
        }
    }

    /// Parses the responses in `data`; returns how much of it they used.
    fn parse(&mut self, data: &[u8], now: Instant) -> Result<usize, String> {
        let mut consumed = 0;
        while consumed < data.len() && !self.closing {
            if self.in_flight.is_empty() {
                return Err("the server sent a response nobody asked for".into());
            }
            let Self {
                parser,
                in_flight,
                session,
                closing,
                ..
            } = self;
            let mut recorder = session.worker.recorder.borrow_mut();
            let mut on_event = |event: Event| {
                let Some(current) = in_flight.front_mut() else {
                    return;
                };
                let recorded = current.ticket.recorded;
                match event {
                    Event::Head {
                        status,
                        header_bytes,
                    } => {
                        current.status = status;
                        if recorded {
                            recorder.bytes.headers += header_bytes as u64;
                            recorder.bytes.headers_uncompressed += header_bytes as u64;
                        }
                    }
                    Event::Data(n) => {
                        if recorded {
                            recorder.bytes.data += n as u64;
                        }
                    }
                    Event::Complete { close } => {
                        let done = in_flight
                            .pop_front()
                            .expect("a response completes a request in flight");
                        if done.ticket.recorded {
                            recorder.response(done.status, &done.ticket, done.sent, now);
                            session.tally.response(now);
                        }
                        *closing |= close;
                    }
                }
            };
            let used = parser
                .parse(&data[consumed..], &mut on_event)
                .map_err(|e| e.0)?;
            if used == 0 {
                break;
            }
            consumed += used;
        }
        Ok(consumed)
    }

    fn on_eof(&mut self, now: Instant) -> ConnectionEnd {
        let Self {
            parser,
            in_flight,
            session,
            ..
        } = self;
        let mut recorder = session.worker.recorder.borrow_mut();
        let result = parser.finish(&mut |event| {
            if let Event::Complete { .. } = event {
                if let Some(done) = in_flight.pop_front() {
                    if done.ticket.recorded {
                        recorder.response(done.status, &done.ticket, done.sent, now);
                        session.tally.response(now);
                    }
                }
            }
        });
        drop(recorder);
        self.closing = true;
        match result {
            Ok(()) => self.lose_in_flight(ErrorKind::Reset, "server closed the connection"),
            Err(e) => self.lose(ErrorKind::Protocol, || e.0),
        }
    }

    /// Counts every request in flight as ended by `kind`.
    fn lose(&mut self, kind: ErrorKind, message: impl FnOnce() -> String) -> ConnectionEnd {
        if !self.in_flight.is_empty() {
            self.session
                .worker
                .recorder
                .borrow_mut()
                .note_error(kind, message);
        }
        self.lose_in_flight(kind, "")
    }

    fn lose_in_flight(&mut self, kind: ErrorKind, message: &str) -> ConnectionEnd {
        let mut recorder = self.session.worker.recorder.borrow_mut();
        if !self.in_flight.is_empty() && !message.is_empty() {
            let count = self.in_flight.len();
            recorder.note_error(kind, || {
                format!("{message} with {count} request(s) in flight")
            });
        }
        for lost in self.in_flight.drain(..) {
            if lost.ticket.recorded {
                recorder.request_error(kind, lost.sent);
            }
        }
        ConnectionEnd::Lost
    }

    fn poll_timeouts(&mut self, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        let timeouts = &self.session.worker.plan.timeouts;
        let oldest = self.in_flight.front().map(|r| r.sent);
        // Only called with requests in flight.
        let connection = connection_deadlines(
            timeouts,
            true,
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
        // Pipelined requests queue behind the expired one, so all of them time out.
        let count = self.in_flight.len();
        self.session
            .worker
            .recorder
            .borrow_mut()
            .note_error(ErrorKind::Timeout, || {
                format!("timed out with {count} request(s) in flight")
            });
        Poll::Ready(self.lose_in_flight(ErrorKind::Timeout, ""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_bytes_are_complete_http11() {
        let spec = RequestSpec {
            method: "POST".into(),
            path: "/p?q=1".into(),
            authority: "h:8080".into(),
            headers: vec![
                ("user-agent".into(), "x".into()),
                ("content-length".into(), "2".into()),
            ],
            body: Some(bytes::Bytes::from_static(b"hi")),
        };
        let bytes = RequestBytes::new(&[spec]);
        assert_eq!(
            bytes.get(0),
            b"POST /p?q=1 HTTP/1.1\r\nHost: h:8080\r\nuser-agent: x\r\ncontent-length: 2\r\n\r\nhi"
        );
    }
}
