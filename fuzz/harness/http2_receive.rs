//! The HTTP/2 client connection's receive path against arbitrary server
//! bytes.
//!
//! Input: a settings byte (bits 0-1: one to four streams started before
//! the server's bytes; bit 2: the connection keeps header fields and odd
//! streams ask for their heads; bit 3: even streams ask for their bodies;
//! bit 4: every request has a body larger than the default window; bit 5:
//! a 16-byte stream window; bit 6: a 256-byte header table; bit 7: the
//! first stream is a HEAD request), a seed for
//! the piece sizes, then the server's bytes, fed in pieces the way the
//! connection's driver feeds them. Nothing the connection writes is ever
//! taken, as with a server that does not read.
//!
//! Invariants: no panic; `receive` never uses more than it was given, and
//! what it leaves is less than one frame; every started stream's value
//! comes back at most once, a head and body bytes only before it does;
//! a stream's response counts the body bytes delivered to it; and the
//! output grows only as far as the requests, their streams, the data
//! received and the capped acknowledgements allow.

use crate::{http2_feed, pieces};

use bytes::Bytes;
use loadgen_http2::frame::{DEFAULT_WINDOW, HEADER_LEN};
use loadgen_http2::{hpack, Config, Connection, Deliver, Event, Received};

/// A request body one byte larger than the default stream window, so that
/// part of it waits for the server's WINDOW_UPDATE.
const BODY_LEN: usize = DEFAULT_WINDOW as usize + 1;
/// The codec's cap on acknowledgements (PING and SETTINGS) that were
/// queued and not written: nghttp2's default of 1000.
const MOST_QUEUED_ACKS: usize = 1000;
/// A PING acknowledgement, the larger of the two.
const ACK_LEN: usize = HEADER_LEN + 8;
/// RST_STREAM and WINDOW_UPDATE frames.
const SMALL_FRAME_LEN: usize = HEADER_LEN + 4;

pub fn check(input: &[u8]) {
    let Some(split) = pieces::Split::new(input) else {
        return;
    };
    let settings = split.settings;
    let streams = 1 + usize::from(settings & 0b11);
    let keep_fields = settings & 0b100 != 0;
    let config = Config {
        keep_header_fields: keep_fields,
        stream_window: if settings & 0b10_0000 != 0 {
            16
        } else {
            DEFAULT_WINDOW
        },
        header_table_size: if settings & 0b100_0000 != 0 {
            256
        } else {
            4096
        },
        ..Config::default()
    };
    let body = (settings & 0b1_0000 != 0).then(|| Bytes::from(vec![b'x'; BODY_LEN]));
    let mut connection: Connection<usize> = Connection::new(config);
    let mut block = Vec::new();
    hpack::encode_request("GET", "http", "example.com", "/", &[], &mut block);
    for user in 0..streams {
        let deliver = Deliver {
            headers: keep_fields && user % 2 == 1,
            body: settings & 0b1000 != 0 && user % 2 == 0,
            head: settings & 0b1000_0000 != 0 && user == 0,
            // gRPC calls read their status from every header block.
            grpc_status: keep_fields && user % 3 == 2,
        };
        connection.start_request_delivering(&block, body.as_ref(), user, deliver);
    }

    let written_before = connection.output().len();
    let mut seen = Seen::new(streams);
    let mut pending: Vec<u8> = Vec::new();
    let mut fed = 0;
    let mut failed = false;
    for piece in split.pieces() {
        fed += piece.len();
        if !http2_feed::feed(
            &mut connection,
            &mut pending,
            piece,
            config.max_frame_size,
            &mut |r| seen.on_received(r),
        ) {
            failed = true;
            break;
        }
        // Window updates are granted for every half window received.
        let grants = 2 * (fed / (config.stream_window as usize / 2).max(1) + streams + 1);
        // A body may go out a byte at a time, each in its own DATA frame.
        let bodies = streams * body.as_ref().map_or(0, |b| b.len() * (HEADER_LEN + 1));
        let most = written_before
            + bodies
            + streams * 2 * SMALL_FRAME_LEN
            + grants * SMALL_FRAME_LEN
            + (MOST_QUEUED_ACKS + 1) * ACK_LEN;
        assert!(
            connection.output().len() <= most,
            "{} bytes of output, at most {most} expected",
            connection.output().len()
        );
    }
    if failed {
        // The connection is unusable: what it still holds is handed back.
        for user in connection.take_streams() {
            seen.ended(user);
        }
        assert!(seen.ended.iter().all(|&ended| ended), "a stream was lost");
    } else {
        assert_eq!(
            connection.open_streams(),
            seen.ended.iter().filter(|&&ended| !ended).count()
        );
    }
}

/// What came back for each stream.
struct Seen {
    ended: Vec<bool>,
    heads: Vec<bool>,
    body_bytes: Vec<u64>,
}

impl Seen {
    fn new(streams: usize) -> Seen {
        Seen {
            ended: vec![false; streams],
            heads: vec![false; streams],
            body_bytes: vec![0; streams],
        }
    }

    fn ended(&mut self, user: usize) {
        assert!(!self.ended[user], "stream {user} came back twice");
        self.ended[user] = true;
    }

    fn on_received(&mut self, received: Received<'_, usize>) {
        match received {
            Received::Ended(Event::Response {
                user, data_bytes, ..
            }) => {
                if self.body_bytes[user] > 0 {
                    assert_eq!(self.body_bytes[user], data_bytes);
                }
                self.ended(user);
            }
            Received::Ended(Event::Failed { user, .. }) => self.ended(user),
            Received::Head { user, .. } => {
                assert!(!self.ended[*user], "a head after the stream ended");
                assert!(!self.heads[*user], "two final heads for one stream");
                self.heads[*user] = true;
            }
            Received::Data { user, chunk } => {
                assert!(!self.ended[*user], "body bytes after the stream ended");
                assert!(!chunk.is_empty(), "an empty body chunk");
                self.body_bytes[*user] += chunk.len() as u64;
            }
            Received::GrpcMessage { user, message, .. } => {
                assert!(!self.ended[*user], "a grpc-message after the stream ended");
                assert!(!message.is_empty(), "an empty grpc-message");
            }
        }
    }
}
