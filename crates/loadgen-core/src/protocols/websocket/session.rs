//! One WebSocket's messages, whatever carries them (an upgraded HTTP/1.1
//! connection or an HTTP/2 stream): frames out (masked, up to `-m` in
//! flight) and frames in, each answer ending the oldest message in flight
//! exactly once. Pings are answered and the server's close is counted by
//! its code and answered. No I/O: the driver moves [`Session::out`] to its
//! carrier and hands what arrives to [`Session::handle`].

use super::frame::{self, close_code, FrameReader, Incoming, Opcode};
use super::Messages;
use crate::driver::Lost;
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange, Response};
use crate::plan::WsExpect;
use crate::recorder::WEBSOCKET_STATUS;
use crate::request::RequestRef;
use bytes::Bytes;
use std::collections::VecDeque;
use std::time::Instant;

struct InFlight {
    exchange: Exchange,
    /// A message made for this send (a scenario's body); `None`: the run's message.
    made: Option<Bytes>,
}

pub(super) struct Session<'a> {
    messages: &'a Messages,
    reader: FrameReader,
    in_flight: VecDeque<InFlight>,
    /// Frames for the server, in order; the driver takes them.
    pub out: Vec<u8>,
    masks: Masks,
    /// A close frame was received or sent: no more messages go out.
    pub closing: bool,
    pub close_sent: bool,
    /// Measured messages sent since the recorder last heard of them
    /// (`start` has no [`Events`]; the driver passes them on).
    unrecorded_sent: u64,
}

impl<'a> Session<'a> {
    pub(super) fn new(messages: &'a Messages, mask_seed: u64) -> Self {
        Session {
            messages,
            reader: FrameReader::new(messages.max_incoming),
            in_flight: VecDeque::new(),
            out: Vec::new(),
            masks: Masks(mask_seed | 1),
            closing: false,
            close_sent: false,
            unrecorded_sent: 0,
        }
    }

    pub(super) fn messages(&self) -> &'a Messages {
        self.messages
    }

    pub(super) fn record_sent(&mut self, events: &mut Events<'_>) {
        if self.unrecorded_sent > 0 {
            events.recorder.borrow_mut().websocket().messages_sent += self.unrecorded_sent;
            self.unrecorded_sent = 0;
        }
    }

    pub(super) fn queue_close(&mut self, code: u16) {
        if !self.close_sent {
            self.close_sent = true;
            self.closing = true;
            frame::write_close(&mut self.out, code, self.masks.next());
        }
    }

    /// Frames one message for the server.
    pub(super) fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
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

    pub(super) fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub(super) fn oldest_sent(&self) -> Option<Instant> {
        self.in_flight.front().map(|m| m.exchange.sent)
    }

    pub(super) fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        for lost in self.in_flight.drain(..) {
            each(lost.exchange);
        }
    }

    /// Handles the frames `data` holds; returns how much of it was used
    /// (a frame cut off at the end waits for the rest). `Err` at a close
    /// frame with messages in flight, or at a broken frame.
    pub(super) fn handle(
        &mut self,
        data: &[u8],
        now: Instant,
        events: &mut Events<'_>,
    ) -> Result<usize, Lost> {
        let mut consumed = 0;
        // Ends at a close frame or an error, which return.
        loop {
            let step = match self.reader.read(&data[consumed..]) {
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
                    answer(
                        &mut self.in_flight,
                        self.messages,
                        binary,
                        payload,
                        now,
                        events,
                    );
                }
                Some(Incoming::Ping(payload)) => {
                    frame::write_frame(&mut self.out, Opcode::Pong, payload, self.masks.next());
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

    /// The socket is over with messages possibly in flight.
    pub(super) fn lost(&self, kind: ErrorKind, why: String) -> Lost {
        Lost::new(
            kind,
            format!("{why} with {} message(s) in flight", self.in_flight.len()),
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
pub(super) fn random_key_and_seed() -> ([u8; 16], u64) {
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
