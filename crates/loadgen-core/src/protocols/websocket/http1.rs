//! A WebSocket over an HTTP/1.1 upgrade (RFC 6455): the upgrade, then the
//! session's frames straight on the connection. A connection that drops
//! without a close fails what was in flight.

use super::frame::close_code;
use super::handshake;
use super::session::{random_key_and_seed, Session};
use super::Messages;
use crate::driver::{Driver, Lost};
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange};
use crate::request::RequestRef;
use crate::transport::Transport;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Instant;
use tokio::io::AsyncWrite;

/// How much one read may take, into the worker thread's buffer.
const READ_SIZE: usize = 64 * 1024;

enum State {
    /// The upgrade request is out; waiting for the 101.
    Upgrading {
        accept: String,
        started: Instant,
        deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    },
    Open,
}

pub(super) struct Connection<'a> {
    transport: Transport,
    read_buffer: &'a RefCell<Vec<u8>>,
    state: State,
    session: Session<'a>,
    /// How much of the session's output went already.
    written: usize,
    /// The start of a frame the last read ended in the middle of.
    partial: Vec<u8>,
}

impl<'a> Connection<'a> {
    pub(super) fn new(
        transport: Transport,
        messages: &'a Messages,
        read_buffer: &'a RefCell<Vec<u8>>,
    ) -> Self {
        let (key_bytes, seed) = random_key_and_seed();
        let key = handshake::new_key(key_bytes);
        let mut session = Session::new(messages, seed);
        session.out =
            handshake::request(&messages.path, &messages.authority, &messages.headers, &key);
        Connection {
            transport,
            read_buffer,
            state: State::Upgrading {
                accept: handshake::accept_for(&key),
                started: Instant::now(),
                deadline: messages
                    .upgrade_limit
                    .map(|limit| Box::pin(tokio::time::sleep(limit))),
            },
            session,
            written: 0,
            partial: Vec::new(),
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> std::io::Result<()> {
        let out = &mut self.session.out;
        while self.written < out.len() {
            match Pin::new(&mut self.transport).poll_write(cx, &out[self.written..]) {
                Poll::Ready(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
                Poll::Ready(Ok(n)) => {
                    events.wrote(n);
                    self.written += n;
                }
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Pending => return Ok(()),
            }
        }
        out.clear();
        self.written = 0;
        self.transport.push_out(cx)
    }

    fn poll_connection(
        &mut self,
        cx: &mut Context<'_>,
        events: &mut Events<'_>,
    ) -> Poll<Result<(), Lost>> {
        if let Err(e) = self.poll_write(cx, events) {
            return Poll::Ready(Err(self
                .session
                .lost(ErrorKind::Reset, format!("write failed: {e}"))));
        }
        if let State::Upgrading {
            deadline: Some(deadline),
            ..
        } = &mut self.state
        {
            if deadline.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(Lost::new(
                    ErrorKind::Timeout,
                    "no answer to the WebSocket upgrade within --connect-timeout",
                )));
            }
        }
        if self.session.close_sent && self.session.in_flight() == 0 {
            // Nothing more to read for: the shared layer ends the connection.
            return Poll::Pending;
        }
        match self.poll_read(cx, events) {
            Ok(true) => Poll::Ready(Ok(())),
            Ok(false) => Poll::Pending,
            Err(lost) => Poll::Ready(Err(lost)),
        }
    }

    /// `Ok(true)`: bytes were read and handled; `Ok(false)`: nothing to read yet.
    fn poll_read(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Result<bool, Lost> {
        let read_buffer = self.read_buffer;
        // Only this connection uses the thread's buffer until this returns.
        let mut buffer = read_buffer.borrow_mut();
        buffer.clear();
        buffer.extend_from_slice(&self.partial);
        buffer.reserve(READ_SIZE);
        let n = match self.transport.poll_read_append(cx, &mut buffer) {
            Poll::Pending => return Ok(false),
            Poll::Ready(Err(e)) => {
                return Err(self
                    .session
                    .lost(ErrorKind::Reset, format!("read failed: {e}")));
            }
            Poll::Ready(Ok(n)) => n,
        };
        let now = Instant::now();
        if n == 0 {
            events.active(now);
            return Err(self.ended_without_close());
        }
        events.read(n, now);
        let consumed = self.handle(&buffer, now, events)?;
        self.partial.clear();
        self.partial.extend_from_slice(&buffer[consumed..]);
        Ok(true)
    }

    /// Handles what `data` holds: the upgrade's answer, then frames.
    /// Returns how much of it was used.
    fn handle(
        &mut self,
        data: &[u8],
        now: Instant,
        events: &mut Events<'_>,
    ) -> Result<usize, Lost> {
        let mut consumed = 0;
        if let State::Upgrading {
            accept, started, ..
        } = &self.state
        {
            match handshake::check_answer(data, accept) {
                Ok(None) => return Ok(0),
                Ok(Some(used)) => {
                    events
                        .recorder
                        .borrow_mut()
                        .websocket_upgraded(now - *started);
                    self.state = State::Open;
                    consumed = used;
                }
                Err(handshake::Refused(why)) => {
                    return Err(Lost::new(ErrorKind::Protocol, why));
                }
            }
        }
        Ok(consumed + self.session.handle(&data[consumed..], now, events)?)
    }

    fn ended_without_close(&mut self) -> Lost {
        self.session.closing = true;
        if let State::Upgrading { .. } = self.state {
            return Lost::new(
                ErrorKind::Protocol,
                "the server closed the connection instead of answering the WebSocket upgrade",
            );
        }
        self.session.lost(
            ErrorKind::Reset,
            "the server closed the TCP connection without a WebSocket close".into(),
        )
    }
}

impl Driver for Connection<'_> {
    fn can_start(&self) -> bool {
        matches!(self.state, State::Open) && !self.session.closing
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        self.session.start(request, exchange);
    }

    fn in_flight(&self) -> usize {
        self.session.in_flight()
    }

    fn is_closing(&self) -> bool {
        self.session.closing
    }

    fn poll(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>> {
        self.session.record_sent(events);
        let polled = self.poll_connection(cx, events);
        if let (Poll::Ready(Err(lost)), State::Upgrading { .. }) = (&polled, &self.state) {
            super::upgrade_failed(lost, events);
        }
        polled
    }

    fn oldest_sent(&self) -> Option<Instant> {
        self.session.oldest_sent()
    }

    fn time_out(&mut self, _cutoff: Instant, _events: &mut Events<'_>) -> Result<(), Lost> {
        // Answers come in order: a late one leaves every later message unmatched.
        Err(self
            .session
            .lost(ErrorKind::Timeout, "a message timed out".into()))
    }

    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        self.session.take_in_flight(each);
    }

    fn close(&mut self, events: &mut Events<'_>) {
        self.session.record_sent(events);
        if matches!(self.state, State::Open) {
            self.session.queue_close(close_code::NORMAL);
        }
        // One try, without waiting: a polite close when the socket takes it.
        let mut cx = Context::from_waker(Waker::noop());
        let _ = self.poll_write(&mut cx, events);
    }
}
