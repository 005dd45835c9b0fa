//! One HTTP/1.1 connection: writes pipelined requests, parses responses in
//! order, and hands each request's end to the shared layer exactly once.

use super::parser::{Event, Parsed, ResponseParser};
use super::{serialize, RequestBytes};
use crate::driver::{Driver, Lost};
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange, Head, Header, Response};
use crate::request::{RequestRef, Wants};
use crate::transport::Transport;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::io::AsyncWrite;

/// How much one read may take. Connections read into their worker thread's
/// buffer, one at a time, and keep only what they could not parse yet (the
/// start of a response head), so ten thousand connections do not hold ten
/// thousand buffers.
const READ_SIZE: usize = 64 * 1024;

struct InFlight {
    exchange: Exchange,
    /// The request is a HEAD: its response has no body.
    head: bool,
    response: Response,
}

/// What is on its way to the socket.
#[derive(Clone, Copy)]
enum Outgoing {
    Idle,
    /// One request, written straight from its prepared bytes.
    One {
        request: usize,
        written: usize,
    },
    /// Several requests (pipelined, or made for this send), copied one
    /// after the other into `batch`.
    Batch {
        written: usize,
    },
}

pub(super) struct Connection<'a> {
    transport: Transport,
    requests: &'a RequestBytes,
    read_buffer: &'a RefCell<Vec<u8>>,
    parser: ResponseParser,
    in_flight: VecDeque<InFlight>,
    outgoing: Outgoing,
    /// Empty, and unallocated, unless requests are pipelined (`-m`).
    batch: Vec<u8>,
    /// The start of a response the last read ended in the middle of.
    partial: Vec<u8>,
    /// The server said it will close: no more requests go out.
    closing: bool,
    /// Requests go one at a time (a request carries a body, as in h2load).
    serial: bool,
    /// Read while idle ([`crate::driver::OpenContext::watch_idle`]).
    watch_idle: bool,
}

impl<'a> Connection<'a> {
    pub(super) fn new(
        transport: Transport,
        requests: &'a RequestBytes,
        read_buffer: &'a RefCell<Vec<u8>>,
        watch_idle: bool,
    ) -> Self {
        Connection {
            transport,
            requests,
            read_buffer,
            parser: ResponseParser::new(false),
            // Room for one: without pipelining (`-m 1`, the common case)
            // no more is ever in flight, where the first push into an
            // empty deque makes room for four, 288 bytes a connection more
            // (docs/performance.md, "Memory"). Pipelining grows it as it
            // goes.
            in_flight: VecDeque::with_capacity(1),
            outgoing: Outgoing::Idle,
            batch: Vec::new(),
            partial: Vec::new(),
            closing: false,
            serial: requests.has_body,
            watch_idle,
        }
    }

    /// Moves what is being written from the prepared bytes into `batch`,
    /// so that more can be appended after it.
    fn outgoing_to_batch(&mut self) {
        match self.outgoing {
            Outgoing::Idle => {
                self.batch.clear();
                self.outgoing = Outgoing::Batch { written: 0 };
            }
            Outgoing::One { request, written } => {
                self.batch.clear();
                self.batch
                    .extend_from_slice(&self.requests.get(request)[written..]);
                self.outgoing = Outgoing::Batch { written: 0 };
            }
            Outgoing::Batch { .. } => {}
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> std::io::Result<()> {
        loop {
            let (pending, written) = match self.outgoing {
                Outgoing::Idle => break,
                Outgoing::One { request, written } => (self.requests.get(request), written),
                Outgoing::Batch { written } => (&self.batch[..], written),
            };
            let rest = &pending[written..];
            match Pin::new(&mut self.transport).poll_write(cx, rest) {
                Poll::Ready(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
                Poll::Ready(Ok(n)) => {
                    events.wrote(n);
                    self.outgoing = match self.outgoing {
                        _ if n == rest.len() => {
                            self.batch.clear();
                            Outgoing::Idle
                        }
                        Outgoing::One { request, written } => Outgoing::One {
                            request,
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
        self.transport.push_out(cx)
    }

    /// `Ok(true)`: bytes were read and parsed; `Ok(false)`: nothing to read yet.
    fn poll_read(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Result<bool, Lost> {
        // Only this connection uses the thread's buffer until this returns.
        let mut buffer = self.read_buffer.borrow_mut();
        buffer.clear();
        buffer.extend_from_slice(&self.partial);
        buffer.reserve(READ_SIZE);
        let n = match self.transport.poll_read_append(cx, &mut buffer) {
            Poll::Pending => return Ok(false),
            Poll::Ready(Err(e)) => {
                return Err(Lost::new(ErrorKind::Reset, format!("read failed: {e}")));
            }
            Poll::Ready(Ok(n)) => n,
        };
        let now = Instant::now();
        if n == 0 {
            events.active(now);
            return Err(self.on_eof(now, events));
        }
        events.read(n, now);
        let parsed = self.parse(&buffer, now, events);
        self.partial.clear();
        if let Ok(consumed) = parsed {
            if !self.closing {
                self.partial.extend_from_slice(&buffer[consumed..]);
            }
        }
        drop(buffer);
        match parsed {
            Ok(_) if self.closing && !self.in_flight.is_empty() => Err(self.server_closed()),
            Ok(_) => Ok(true),
            Err(message) => Err(Lost::new(ErrorKind::Protocol, message)),
        }
    }

    /// Parses the responses in `data`; returns how much of it they used.
    fn parse(
        &mut self,
        data: &[u8],
        now: Instant,
        events: &mut Events<'_>,
    ) -> Result<usize, String> {
        let mut consumed = 0;
        while consumed < data.len() && !self.closing {
            let Some(front) = self.in_flight.front() else {
                return Err(format!(
                    "the server sent a response nobody asked for, starting {:?}",
                    first_line(&data[consumed..])
                ));
            };
            let exchange = front.exchange;
            if self.parser.is_idle() {
                self.parser.expect_head_response(front.head);
            }
            let Self {
                parser,
                in_flight,
                closing,
                ..
            } = self;
            let mut on_event = |event: Event, events: &mut Events<'_>| {
                let Some(current) = in_flight.front_mut() else {
                    return;
                };
                match event {
                    Event::Head {
                        status,
                        header_bytes,
                    } => {
                        current.response.status = status;
                        current.response.header_bytes = header_bytes as u64;
                        current.response.header_bytes_uncompressed = header_bytes as u64;
                    }
                    Event::Data(n) => current.response.data_bytes += n as u64,
                    Event::Complete { close } => {
                        let done = in_flight
                            .pop_front()
                            .expect("a response completes a request in flight");
                        events.complete(&done.exchange, &done.response, now);
                        *closing |= close;
                    }
                }
            };
            let rest = &data[consumed..];
            let used = if exchange.wants == Wants::NOTHING {
                parser.parse(rest, &mut |event| on_event(event, events))
            } else {
                parser.parse_detailed(rest, &mut |parsed| match parsed {
                    Parsed::Event(event) => on_event(event, events),
                    Parsed::Fields { status, fields } if exchange.wants.headers => {
                        let headers: Vec<Header<'_>> = fields
                            .iter()
                            .map(|h| Header {
                                name: h.name.as_bytes(),
                                value: h.value,
                            })
                            .collect();
                        events.head(
                            &exchange,
                            &Head {
                                status,
                                headers: &headers,
                            },
                        );
                    }
                    Parsed::Body(chunk) if exchange.wants.body => events.body(&exchange, chunk),
                    _ => {}
                })
            }
            .map_err(|e| e.0)?;
            if used == 0 {
                break;
            }
            consumed += used;
        }
        Ok(consumed)
    }

    fn on_eof(&mut self, now: Instant, events: &mut Events<'_>) -> Lost {
        let Self {
            parser, in_flight, ..
        } = self;
        let result = parser.finish(&mut |event| {
            if let Event::Complete { .. } = event {
                if let Some(done) = in_flight.pop_front() {
                    events.complete(&done.exchange, &done.response, now);
                }
            }
        });
        self.closing = true;
        match result {
            Ok(()) => self.server_closed(),
            Err(e) => Lost::new(ErrorKind::Protocol, e.0),
        }
    }

    fn server_closed(&self) -> Lost {
        Lost::new(
            ErrorKind::Reset,
            format!(
                "server closed the connection with {} request(s) in flight",
                self.in_flight.len()
            ),
        )
    }
}

/// The start of what the server sent, enough to recognize it in a message.
fn first_line(bytes: &[u8]) -> String {
    let end = bytes
        .iter()
        .position(|&b| b == b'\r' || b == b'\n')
        .unwrap_or(bytes.len())
        .min(60);
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl Driver for Connection<'_> {
    fn can_start(&self) -> bool {
        !self.closing && (!self.serial || self.in_flight.is_empty())
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        let head = match request {
            RequestRef::Listed(index) => {
                match self.outgoing {
                    Outgoing::Idle => {
                        self.outgoing = Outgoing::One {
                            request: index,
                            written: 0,
                        }
                    }
                    _ => {
                        self.outgoing_to_batch();
                        self.batch.extend_from_slice(self.requests.get(index));
                    }
                }
                self.requests.head[index]
            }
            RequestRef::Made(request) => {
                self.serial |= request.body.is_some();
                self.outgoing_to_batch();
                serialize(request, &mut self.batch);
                request.is_head()
            }
        };
        self.in_flight.push_back(InFlight {
            exchange,
            head,
            response: Response::default(),
        });
    }

    fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    fn is_closing(&self) -> bool {
        self.closing
    }

    fn poll(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>> {
        if let Err(e) = self.poll_write(cx, events) {
            return Poll::Ready(Err(Lost::new(
                ErrorKind::Reset,
                format!("write failed: {e}"),
            )));
        }
        // Unless asked to watch it, an idle connection is not read: the
        // next request finds out whether the server closed it meanwhile.
        // Watched, a close while idle ends the connection with nothing lost.
        if self.in_flight.is_empty() && !self.watch_idle {
            return Poll::Pending;
        }
        match self.poll_read(cx, events) {
            Ok(true) => Poll::Ready(Ok(())),
            Ok(false) => Poll::Pending,
            Err(lost) => Poll::Ready(Err(lost)),
        }
    }

    fn oldest_sent(&self) -> Option<Instant> {
        self.in_flight.front().map(|r| r.exchange.sent)
    }

    fn time_out(&mut self, _cutoff: Instant, _events: &mut Events<'_>) -> Result<(), Lost> {
        // Pipelined requests queue behind the expired one, so all of them time out.
        Err(Lost::new(
            ErrorKind::Timeout,
            format!(
                "timed out with {} request(s) in flight",
                self.in_flight.len()
            ),
        ))
    }

    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        for lost in self.in_flight.drain(..) {
            each(lost.exchange);
        }
    }
}
