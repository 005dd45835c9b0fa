//! An extended CONNECT tunnel (RFC 8441) of the HTTP/2 client connection
//! against arbitrary server bytes: the stream a WebSocket over HTTP/2
//! rides on.
//!
//! Input: a settings byte (bits 0-1: how many bytes the client hands to
//! the tunnel after each piece it reads: 0, 1, 100 or 70,000, more than a
//! default window; bit 2: the client ends its side after its first send;
//! bit 3: a 16-byte stream window; bit 4: the server's first SETTINGS,
//! which the harness sends, leave extended CONNECT off), a seed for the
//! piece sizes, then the rest of the server's bytes, fed in pieces. The
//! tunnel (stream 1) opens as soon as the server's SETTINGS allow
//! extended CONNECT: with bit 4 clear, before the first piece. Nothing the
//! connection writes is ever taken.
//!
//! Invariants: no panic; `receive` never uses more than it was given, and
//! what it leaves is less than one frame; the tunnel's end comes back at
//! most once, its head and bytes only before it, and a completed
//! response counts the bytes delivered; after a connection error
//! `take_streams` hands back the tunnel exactly when it had not ended;
//! and the output grows only as far as the bytes handed over, their
//! frames, window updates and the capped acknowledgements allow.

use crate::{http2_feed, pieces};

use loadgen_http2::frame::{self, setting, DEFAULT_WINDOW, HEADER_LEN};
use loadgen_http2::{hpack, Config, Connection, Deliver, Event, Received};

const BOTH_WAYS: Deliver = Deliver {
    headers: true,
    body: true,
    head: false,
    grpc_status: false,
};
/// The codec's cap on acknowledgements queued and not written.
const MOST_QUEUED_ACKS: usize = 1000;
const ACK_LEN: usize = HEADER_LEN + 8;
/// RST_STREAM and WINDOW_UPDATE frames.
const SMALL_FRAME_LEN: usize = HEADER_LEN + 4;

pub fn check(input: &[u8]) {
    let Some(split) = pieces::Split::new(input) else {
        return;
    };
    let settings = split.settings;
    let per_piece = [0, 1, 100, DEFAULT_WINDOW as usize + 4_465][usize::from(settings & 0b11)];
    let end_after_send = settings & 0b100 != 0;
    let config = Config {
        keep_header_fields: true,
        stream_window: if settings & 0b1000 != 0 {
            16
        } else {
            DEFAULT_WINDOW
        },
        ..Config::default()
    };
    let mut preface = Vec::new();
    let allowed = u32::from(settings & 0b1_0000 == 0);
    frame::write_settings(&mut preface, &[(setting::ENABLE_CONNECT_PROTOCOL, allowed)]);
    let mut connection: Connection<u8> = Connection::new(config);
    let mut block = Vec::new();
    let headers = [("sec-websocket-version".to_string(), "13".to_string())];
    hpack::encode_extended_connect(
        "websocket",
        "http",
        "example.com",
        "/ws",
        &headers,
        &mut block,
    );
    let payload = vec![b'w'; per_piece];

    let written_before = connection.output().len();
    let mut tunnel = None;
    let mut seen = Seen::default();
    let mut handed_over = 0;
    let mut pending: Vec<u8> = Vec::new();
    let mut fed = 0;
    let mut failed = false;
    for piece in std::iter::once(preface.as_slice()).chain(split.pieces()) {
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
        if tunnel.is_none()
            && connection.has_peer_settings()
            && connection.allows_extended_connect()
            && connection.can_start_request()
        {
            tunnel = Some(connection.open_tunnel(&block, 0, BOTH_WAYS));
        }
        if let Some(id) = tunnel {
            if !seen.ended && !seen.client_ended {
                connection.send_on_tunnel(id, &payload);
                handed_over += payload.len();
                if end_after_send {
                    connection.end_tunnel(id);
                    seen.client_ended = true;
                }
            }
        }
        let grants = 2 * (fed / (config.stream_window as usize / 2).max(1) + 2);
        // Bytes may go out one at a time, each in a DATA frame of its own.
        let most = written_before
            + HEADER_LEN
            + block.len()
            + handed_over * (HEADER_LEN + 1)
            + 2 * SMALL_FRAME_LEN
            + HEADER_LEN
            + grants * SMALL_FRAME_LEN
            + (MOST_QUEUED_ACKS + 1) * ACK_LEN;
        assert!(
            connection.output().len() <= most,
            "{} bytes of output, at most {most} expected",
            connection.output().len()
        );
    }
    let left: Vec<u8> = if failed {
        connection.take_streams().collect()
    } else {
        Vec::new()
    };
    let open = if failed {
        left.len()
    } else {
        connection.open_streams()
    };
    let expected = usize::from(tunnel.is_some() && !seen.ended);
    assert_eq!(open, expected, "the tunnel lost or kept twice");
}

/// What came back for the tunnel.
#[derive(Default)]
struct Seen {
    ended: bool,
    head: bool,
    data_bytes: u64,
    /// The client sent its END_STREAM: nothing more goes out.
    client_ended: bool,
}

impl Seen {
    fn on_received(&mut self, received: Received<'_, u8>) {
        match received {
            Received::Ended(Event::Response { data_bytes, .. }) => {
                assert!(!self.ended, "the tunnel ended twice");
                assert_eq!(self.data_bytes, data_bytes);
                self.ended = true;
            }
            Received::Ended(Event::Failed { .. }) => {
                assert!(!self.ended, "the tunnel ended twice");
                self.ended = true;
            }
            Received::Head { .. } => {
                assert!(!self.ended, "a head after the tunnel ended");
                assert!(!self.head, "two final heads for the tunnel");
                self.head = true;
            }
            Received::Data { chunk, .. } => {
                assert!(!self.ended, "bytes after the tunnel ended");
                assert!(!chunk.is_empty(), "an empty chunk");
                self.data_bytes += chunk.len() as u64;
            }
            Received::GrpcMessage { .. } => panic!("a grpc-message for a stream that did not ask"),
        }
    }
}
