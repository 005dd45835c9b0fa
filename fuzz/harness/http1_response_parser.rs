//! The HTTP/1.1 response parser against arbitrary server bytes.
//!
//! Input: a byte whose bits say which responses answer HEAD requests (bit
//! `i % 8` for the `i`-th response), a seed for the piece sizes, then the
//! server's bytes. They are fed in pieces the way the connection feeds
//! them (unused bytes are offered again with the next piece appended),
//! and once more whole. Invariants: no panic; no call consumes more than
//! it was given; what stays unconsumed is never more than a response
//! head's limit; body bytes are never more than the bytes fed; every
//! `Complete` follows a `Head`; the fields shown with a head add up to its
//! `header_bytes`; and the responses found do not depend on the pieces.

use crate::pieces;

use loadgen_core::protocols::http1::parser::{Event, Parsed, ResponseParser};

/// The parser's own limit on a response head (64 KiB): bytes it leaves
/// unconsumed are part of a head or a chunk line, so never more than this.
const MOST_UNCONSUMED: usize = 64 * 1024;

/// What the parser found in one way of feeding the input: its events, with
/// adjacent `Data` events added up (their sizes follow the pieces), and
/// whether it ended in an error.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    events: Vec<Event>,
    failed: bool,
}

pub fn check(input: &[u8]) {
    let Some(split) = pieces::Split::new(input) else {
        return;
    };
    let whole = feed([split.bytes].into_iter(), split.settings, false);
    let in_pieces = feed(split.pieces(), split.settings, true);
    assert_eq!(in_pieces, whole, "the pieces changed what was parsed");
}

/// Feeds `pieces` as the connection does, with `parse_detailed` when
/// `detailed` (checking what it shows against its events) and `parse`
/// otherwise, then tells the parser the server closed.
fn feed<'a>(pieces: impl Iterator<Item = &'a [u8]>, head_bits: u8, detailed: bool) -> Outcome {
    let mut parser = ResponseParser::new(head_bits & 1 != 0);
    let mut checks = Checks::default();
    let mut buffer: Vec<u8> = Vec::new();
    let mut fed = 0;
    for piece in pieces {
        buffer.extend_from_slice(piece);
        fed += piece.len();
        let mut consumed = 0;
        while consumed < buffer.len() {
            if parser.is_idle() {
                let head = head_bits & (1 << (checks.responses % 8)) != 0;
                parser.expect_head_response(head);
            }
            let rest = &buffer[consumed..];
            let used = if detailed {
                parser.parse_detailed(rest, &mut |parsed| checks.on_parsed(parsed))
            } else {
                parser.parse(rest, &mut |event| checks.on_event(event))
            };
            let used = match used {
                Ok(used) => used,
                Err(_) => return checks.outcome(true),
            };
            assert!(
                used <= rest.len(),
                "consumed {used} of {} bytes",
                rest.len()
            );
            if used == 0 {
                break;
            }
            consumed += used;
        }
        buffer.drain(..consumed);
        assert!(
            buffer.len() <= MOST_UNCONSUMED,
            "{} bytes left unconsumed",
            buffer.len()
        );
        assert!(checks.body_bytes <= fed, "more body than bytes fed");
    }
    let finished = parser.finish(&mut |event| checks.on_event(event));
    checks.outcome(finished.is_err())
}

#[derive(Default)]
struct Checks {
    events: Vec<Event>,
    /// Responses whose head was seen and that have not completed yet.
    open: usize,
    responses: usize,
    body_bytes: usize,
    /// What `parse_detailed` showed and is to be matched by the next event.
    shown_fields: Option<(u16, usize)>,
    shown_body: Option<usize>,
}

impl Checks {
    fn on_parsed(&mut self, parsed: Parsed<'_>) {
        match parsed {
            Parsed::Fields { status, fields } => {
                let bytes = fields.iter().map(|f| f.name.len() + f.value.len()).sum();
                assert!(self.shown_fields.replace((status, bytes)).is_none());
            }
            Parsed::Body(chunk) => {
                assert!(!chunk.is_empty(), "an empty body chunk");
                assert!(self.shown_body.replace(chunk.len()).is_none());
            }
            Parsed::Event(event) => {
                match event {
                    Event::Head {
                        status,
                        header_bytes,
                    } => assert_eq!(self.shown_fields.take(), Some((status, header_bytes))),
                    Event::Data(n) => assert_eq!(self.shown_body.take(), Some(n)),
                    Event::Complete { .. } => {}
                }
                assert!(self.shown_fields.is_none() && self.shown_body.is_none());
                self.on_event(event);
            }
        }
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Head { .. } => {
                assert_eq!(self.open, 0, "a head inside a response");
                self.open = 1;
            }
            Event::Data(n) => {
                assert!(n > 0, "an empty Data event");
                assert_eq!(self.open, 1, "body bytes outside a response");
                self.body_bytes += n;
            }
            Event::Complete { .. } => {
                assert_eq!(self.open, 1, "a response completed without a head");
                self.open = 0;
                self.responses += 1;
            }
        }
        match (self.events.last_mut(), event) {
            (Some(Event::Data(total)), Event::Data(n)) => *total += n,
            _ => self.events.push(event),
        }
    }

    fn outcome(self, failed: bool) -> Outcome {
        Outcome {
            events: self.events,
            failed,
        }
    }
}
