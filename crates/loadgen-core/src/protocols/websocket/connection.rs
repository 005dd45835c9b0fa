//! One WebSocket: the upgrade, then messages out (masked, up to `-m` in
//! flight) and messages in, each answer ending the oldest message in
//! flight exactly once. Pings are answered, the server's close is counted
//! by its code and answered, and a connection that drops without a close
//! fails what was in flight.

use super::frame::{self, close_code, FrameReader, Incoming, Opcode};
use super::handshake;
use super::Messages;
use crate::driver::{Driver, Lost};
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange, Response};
use crate::plan::WsExpect;
use crate::recorder::WEBSOCKET_STATUS;
use crate::request::RequestRef;
use crate::transport::Transport;
use bytes::Bytes;
use std::cell::RefCell;
use std::collections::VecDeque;
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

struct InFlight {
    exchange: Exchange,
    /// A message made for this send (a scenario's body); `None`: the run's message.
    made: Option<Bytes>,
}

pub(super) struct Connection<'a> {
    transport: Transport,
    messages: &'a Messages,
    read_buffer: &'a RefCell<Vec<u8>>,
    state: State,
    reader: FrameReader,
    in_flight: VecDeque<InFlight>,
    /// Bytes on their way out, and how many of them went already.
    out: Vec<u8>,
    written: usize,
    /// The start of a frame the last read ended in the middle of.
    partial: Vec<u8>,
    masks: Masks,
    /// A close frame was received or sent: no more messages go out.
    closing: bool,
    close_sent: bool,
    /// Measured messages sent since the recorder last heard of them
    /// (`start` has no [`Events`]; `poll` and `close` pass them on).
    unrecorded_sent: u64,
}

impl<'a> Connection<'a> {
    pub(super) fn new(
        transport: Transport,
        messages: &'a Messages,
        read_buffer: &'a RefCell<Vec<u8>>,
    ) -> Self {
        let (key_bytes, seed) = random_key_and_seed();
        let key = handshake::new_key(key_bytes);
        let out = handshake::request(&messages.path, &messages.authority, &messages.headers, &key);
        Connection {
            transport,
            messages,
            read_buffer,
            state: State::Upgrading {
                accept: handshake::accept_for(&key),
                started: Instant::now(),
                deadline: messages
                    .upgrade_limit
                    .map(|limit| Box::pin(tokio::time::sleep(limit))),
            },
            reader: FrameReader::new(messages.max_incoming),
            in_flight: VecDeque::new(),
            out,
            written: 0,
            partial: Vec::new(),
            masks: Masks(seed | 1),
            closing: false,
            close_sent: false,
            unrecorded_sent: 0,
        }
    }

    fn record_sent(&mut self, events: &mut Events<'_>) {
        if self.unrecorded_sent > 0 {
            events.recorder.borrow_mut().websocket().messages_sent += self.unrecorded_sent;
            self.unrecorded_sent = 0;
        }
    }

    fn queue_close(&mut self, code: u16) {
        if !self.close_sent {
            self.close_sent = true;
            self.closing = true;
            frame::write_close(&mut self.out, code, self.masks.next());
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> std::io::Result<()> {
        while self.written < self.out.len() {
            match Pin::new(&mut self.transport).poll_write(cx, &self.out[self.written..]) {
                Poll::Ready(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
                Poll::Ready(Ok(n)) => {
                    events.wrote(n, Instant::now());
                    self.written += n;
                }
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Pending => return Ok(()),
            }
        }
        self.out.clear();
        self.written = 0;
        self.transport.push_out(cx)
    }

    fn poll_connection(
        &mut self,
        cx: &mut Context<'_>,
        events: &mut Events<'_>,
    ) -> Poll<Result<(), Lost>> {
        if let Err(e) = self.poll_write(cx, events) {
            return Poll::Ready(Err(
                self.lost(ErrorKind::Reset, format!("write failed: {e}"))
            ));
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
        if self.close_sent && self.in_flight.is_empty() {
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
                return Err(self.lost(ErrorKind::Reset, format!("read failed: {e}")));
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
        // Ends at a close frame or an error, which return.
        loop {
            let Self {
                reader,
                in_flight,
                out,
                masks,
                messages,
                ..
            } = self;
            let step = match reader.read(&data[consumed..]) {
                Ok(step) => step,
                Err(error) => {
                    self.queue_close(error.code);
                    return Err(self.lost(ErrorKind::Protocol, error.message));
                }
            };
            let Some((used, event)) = step else {
                break;
            };
            consumed += used;
            match event {
                None => {}
                Some(Incoming::Message { binary, payload }) => {
                    answer(in_flight, messages, binary, payload, now, events);
                }
                Some(Incoming::Ping(payload)) => {
                    frame::write_frame(out, Opcode::Pong, payload, masks.next());
                }
                Some(Incoming::Pong) => {}
                Some(Incoming::Close { code }) => {
                    let mut recorder = events.recorder.borrow_mut();
                    *recorder
                        .websocket()
                        .close_codes
                        .entry(code.unwrap_or(1005))
                        .or_default() += 1;
                    drop(recorder);
                    // The close handshake: the server's code goes back to it.
                    self.queue_close(code.unwrap_or(close_code::NORMAL));
                    if !self.in_flight.is_empty() {
                        let code = code.map_or("no code".to_string(), |c| c.to_string());
                        return Err(self.lost(
                            ErrorKind::Reset,
                            format!("the server closed the WebSocket ({code})"),
                        ));
                    }
                    return Ok(consumed);
                }
            }
        }
        Ok(consumed)
    }

    /// The connection is over with messages possibly in flight.
    fn lost(&self, kind: ErrorKind, why: String) -> Lost {
        Lost::new(
            kind,
            format!("{why} with {} message(s) in flight", self.in_flight.len()),
        )
    }

    fn ended_without_close(&mut self) -> Lost {
        self.closing = true;
        if let State::Upgrading { .. } = self.state {
            return Lost::new(
                ErrorKind::Protocol,
                "the server closed the connection instead of answering the WebSocket upgrade",
            );
        }
        self.lost(
            ErrorKind::Reset,
            "the server closed the TCP connection without a WebSocket close".into(),
        )
    }
}

/// A message arrived: it answers the oldest message in flight, if any (a
/// message nobody is waiting for is counted and otherwise ignored).
fn answer(
    in_flight: &mut VecDeque<InFlight>,
    messages: &Messages,
    binary: bool,
    payload: &[u8],
    now: Instant,
    events: &mut Events<'_>,
) {
    if events.measuring() {
        events.recorder.borrow_mut().websocket().messages_received += 1;
    }
    let Some(done) = in_flight.pop_front() else {
        return;
    };
    let sent = done.made.as_ref().unwrap_or(&messages.message);
    let matches = match messages.expect {
        WsExpect::Any => true,
        WsExpect::Echo => binary == messages.binary && payload == &sent[..],
    };
    if !matches {
        events.failed(&done.exchange, ErrorKind::Protocol, || {
            format!(
                "the server answered a message of {} bytes with a different one of {} bytes; \
                 for servers that do not echo, use --ws-expect any",
                sent.len(),
                payload.len()
            )
        });
        return;
    }
    if done.exchange.wants.body {
        events.body(&done.exchange, payload);
    }
    let response = Response {
        status: WEBSOCKET_STATUS,
        data_bytes: payload.len() as u64,
        ..Response::default()
    };
    events.complete(&done.exchange, &response, now);
}

impl Driver for Connection<'_> {
    fn can_start(&self) -> bool {
        matches!(self.state, State::Open) && !self.closing
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        let made = match request {
            RequestRef::Listed(_) => None,
            RequestRef::Made(request) => request.body.clone(),
        };
        let payload = made.as_ref().unwrap_or(&self.messages.message);
        let opcode = if self.messages.binary {
            Opcode::Binary
        } else {
            Opcode::Text
        };
        frame::write_frame(&mut self.out, opcode, payload, self.masks.next());
        self.unrecorded_sent += u64::from(exchange.ticket.recorded);
        self.in_flight.push_back(InFlight { exchange, made });
    }

    fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    fn is_closing(&self) -> bool {
        self.closing
    }

    fn poll(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>> {
        self.record_sent(events);
        let polled = self.poll_connection(cx, events);
        if let (Poll::Ready(Err(lost)), State::Upgrading { .. }) = (&polled, &self.state) {
            // No request was in flight, so the shared layer would not keep
            // the reason: the upgrade's failure is noted here.
            events.recorder.borrow_mut().websocket().upgrade_failures += 1;
            events.note_error(lost.kind, || lost.message.clone());
        }
        polled
    }

    fn oldest_sent(&self) -> Option<Instant> {
        self.in_flight.front().map(|m| m.exchange.sent)
    }

    fn time_out(&mut self, _cutoff: Instant, _events: &mut Events<'_>) -> Result<(), Lost> {
        // Answers come in order: a late one leaves every later message unmatched.
        Err(self.lost(ErrorKind::Timeout, "a message timed out".into()))
    }

    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        for lost in self.in_flight.drain(..) {
            each(lost.exchange);
        }
    }

    fn close(&mut self, events: &mut Events<'_>) {
        self.record_sent(events);
        if matches!(self.state, State::Open) {
            self.queue_close(close_code::NORMAL);
        }
        // One try, without waiting: a polite close when the socket takes it.
        let mut cx = Context::from_waker(Waker::noop());
        let _ = self.poll_write(&mut cx, events);
    }
}

/// Masking keys: RFC 6455 wants them unpredictable to scripts that could
/// choose a payload to attack proxies; a benchmark's payload is the user's
/// own, so a generator seeded from the system's randomness per connection
/// serves, at a few cycles per message.
struct Masks(u64);

impl Masks {
    fn next(&mut self) -> [u8; 4] {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let value = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        ((value >> 32) as u32).to_ne_bytes()
    }
}

/// A handshake key and a seed for the masks, from the system's randomness.
fn random_key_and_seed() -> ([u8; 16], u64) {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 24];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .expect("the system's random source works");
    let mut key = [0u8; 16];
    key.copy_from_slice(&bytes[..16]);
    let seed = u64::from_ne_bytes(bytes[16..].try_into().expect("eight bytes"));
    (key, seed)
}
