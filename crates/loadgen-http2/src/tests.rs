//! The connection against a scripted server, without sockets.

use crate::frame::{self, code, flag, kind, setting, FrameHeader};
use crate::{Config, Connection, Event, StreamError};
use bytes::Bytes;

/// `:status: 200`, indexed from the static table.
const STATUS_200: &[u8] = &[0x88];
/// `:status: 100`: a literal with the static name `:status` (index 8).
const STATUS_100: &[u8] = &[0x08, 0x03, b'1', b'0', b'0'];

fn frame_bytes(kind: u8, flags: u8, stream_id: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    FrameHeader {
        length: payload.len() as u32,
        kind,
        flags,
        stream_id,
    }
    .write(&mut out);
    out.extend_from_slice(payload);
    out
}

fn server_settings(settings: &[(u16, u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    frame::write_settings(&mut out, settings);
    out
}

/// A literal header field without indexing, new name, no Huffman.
fn literal(name: &str, value: &str) -> Vec<u8> {
    let mut out = vec![0x00, name.len() as u8];
    out.extend_from_slice(name.as_bytes());
    out.push(value.len() as u8);
    out.extend_from_slice(value.as_bytes());
    out
}

/// Parses the frames a connection wrote: (kind, flags, stream, payload).
fn frames_in(mut bytes: &[u8]) -> Vec<(u8, u8, u32, Vec<u8>)> {
    if bytes.starts_with(frame::CLIENT_PREFACE) {
        bytes = &bytes[frame::CLIENT_PREFACE.len()..];
    }
    let mut frames = Vec::new();
    while !bytes.is_empty() {
        let h = FrameHeader::parse(bytes[..9].try_into().unwrap());
        let end = 9 + h.length as usize;
        frames.push((h.kind, h.flags, h.stream_id, bytes[9..end].to_vec()));
        bytes = &bytes[end..];
    }
    frames
}

struct Harness {
    connection: Connection<u32>,
    events: Vec<Event<u32>>,
    /// Bytes from the server not yet used by the connection.
    pending: Vec<u8>,
}

impl Harness {
    fn new(config: Config) -> Self {
        Harness {
            connection: Connection::new(config),
            events: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Feeds bytes as a socket would, keeping what the connection leaves.
    fn feed(&mut self, bytes: &[u8]) -> Result<(), crate::ConnectionError> {
        self.pending.extend_from_slice(bytes);
        let events = &mut self.events;
        let used = self
            .connection
            .receive(&self.pending, &mut |e| events.push(e))?;
        self.pending.drain(..used);
        Ok(())
    }

    fn written(&mut self) -> Vec<(u8, u8, u32, Vec<u8>)> {
        let out = self.connection.output().to_vec();
        self.connection.consume_output(out.len());
        frames_in(&out)
    }

    fn started(&mut self, user: u32) -> u32 {
        self.connection
            .start_request(&[0x82, 0x86, 0x84], None, user)
    }
}

fn settled() -> Harness {
    let mut h = Harness::new(Config::default());
    h.feed(&server_settings(&[])).unwrap();
    h.written();
    h
}

fn response(status: &[u8], id: u32, body: &[u8]) -> Vec<u8> {
    let mut out = frame_bytes(kind::HEADERS, flag::END_HEADERS, id, status);
    out.extend(frame_bytes(kind::DATA, flag::END_STREAM, id, body));
    out
}

#[test]
fn preface_settings_and_connection_window_go_out_first() {
    let mut h = Harness::new(Config {
        stream_window: (1 << 30) - 1,
        connection_window: (1 << 30) - 1,
        ..Config::default()
    });
    assert!(h.connection.output().starts_with(frame::CLIENT_PREFACE));
    let frames = h.written();
    assert_eq!(frames[0].0, kind::SETTINGS);
    assert!(frames[0].3.windows(6).any(|s| s
        == [
            0,
            setting::INITIAL_WINDOW_SIZE as u8,
            0x3f,
            0xff,
            0xff,
            0xff
        ]));
    assert_eq!(
        frames[1],
        (
            kind::WINDOW_UPDATE,
            0,
            0,
            ((1u32 << 30) - 1 - 65_535).to_be_bytes().to_vec()
        )
    );
}

#[test]
fn a_response_completes_its_stream_with_status_and_sizes() {
    let mut h = settled();
    let id = h.started(7);
    assert_eq!(id, 1);
    let frames = h.written();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].0, kind::HEADERS);
    assert_eq!(frames[0].1, flag::END_HEADERS | flag::END_STREAM);
    h.feed(&response(STATUS_200, 1, b"hello")).unwrap();
    assert_eq!(
        h.events,
        [Event::Response {
            user: 7,
            status: 200,
            header_bytes: 1,
            header_bytes_uncompressed: 10,
            data_bytes: 5,
            grpc_status: None,
        }]
    );
    assert_eq!(h.connection.open_streams(), 0);
}

#[test]
fn any_split_of_the_server_bytes_gives_the_same_events() {
    let mut server = server_settings(&[(setting::MAX_CONCURRENT_STREAMS, 100)]);
    let mut padded_data = vec![3];
    padded_data.extend_from_slice(b"abcdef");
    padded_data.extend_from_slice(&[0, 0, 0]);
    for id in [1, 3, 5] {
        let mut head = STATUS_200.to_vec();
        head.extend(literal("x-a", "1"));
        server.extend(frame_bytes(kind::HEADERS, 0, id, &head[..1]));
        server.extend(frame_bytes(
            kind::CONTINUATION,
            flag::END_HEADERS,
            id,
            &head[1..],
        ));
        server.extend(frame_bytes(kind::DATA, flag::PADDED, id, &padded_data));
        server.extend(frame_bytes(kind::DATA, flag::END_STREAM, id, b"gh"));
    }
    for piece in [1, 2, 3, 7, 9, 10, 13, server.len()] {
        let mut h = Harness::new(Config::default());
        for user in 0..3 {
            h.started(user);
        }
        for chunk in server.chunks(piece) {
            h.feed(chunk).unwrap();
        }
        let expected: Vec<_> = (0..3)
            .map(|user| Event::Response {
                user,
                status: 200,
                header_bytes: 1 + 7,
                header_bytes_uncompressed: 10 + 4,
                data_bytes: 8,
                grpc_status: None,
            })
            .collect();
        assert_eq!(h.events, expected, "pieces of {piece} bytes");
        assert!(h.pending.is_empty());
    }
}

#[test]
fn interim_responses_and_trailers_are_part_of_the_exchange() {
    let mut h = settled();
    h.started(1);
    let mut server = frame_bytes(kind::HEADERS, flag::END_HEADERS, 1, STATUS_100);
    server.extend(frame_bytes(kind::HEADERS, flag::END_HEADERS, 1, STATUS_200));
    server.extend(frame_bytes(kind::DATA, 0, 1, b"body"));
    server.extend(frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        &literal("grpc-status", "0"),
    ));
    h.feed(&server).unwrap();
    assert_eq!(
        h.events,
        [Event::Response {
            user: 1,
            status: 200,
            header_bytes: 5 + 1 + 15,
            header_bytes_uncompressed: 10 + 10 + 12,
            data_bytes: 4,
            grpc_status: None,
        }]
    );
}

#[test]
fn go_away_refuses_the_streams_the_server_did_not_take() {
    let mut h = settled();
    for user in 0..3 {
        h.started(user);
    }
    let mut payload = 3u32.to_be_bytes().to_vec();
    payload.extend(code::NO_ERROR.to_be_bytes());
    h.feed(&frame_bytes(kind::GOAWAY, 0, 0, &payload)).unwrap();
    assert_eq!(
        h.events,
        [Event::Failed {
            user: 2,
            error: StreamError::Refused,
        }]
    );
    assert!(h.connection.is_closing());
    assert!(!h.connection.can_start_request());
    h.feed(&response(STATUS_200, 1, b"")).unwrap();
    h.feed(&response(STATUS_200, 3, b"")).unwrap();
    assert_eq!(h.events.len(), 3);
    assert_eq!(h.connection.open_streams(), 0);
}

#[test]
fn a_reset_stream_fails_alone() {
    let mut h = settled();
    h.started(1);
    h.started(2);
    h.feed(&frame_bytes(
        kind::RST_STREAM,
        0,
        3,
        &code::REFUSED_STREAM.to_be_bytes(),
    ))
    .unwrap();
    assert_eq!(
        h.events,
        [Event::Failed {
            user: 2,
            error: StreamError::Reset(code::REFUSED_STREAM),
        }]
    );
    assert_eq!(h.connection.open_streams(), 1);
}

#[test]
fn a_server_that_is_not_http2_is_a_connection_error() {
    let mut h = Harness::new(Config::default());
    h.started(1);
    let error = h
        .feed(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
        .unwrap_err();
    assert!(error.is_not_http2(), "{error}");
    assert_eq!(h.connection.take_streams().collect::<Vec<_>>(), [1]);
}

#[test]
fn settings_are_acknowledged_and_limit_new_streams() {
    let mut h = Harness::new(Config::default());
    h.written();
    h.feed(&server_settings(&[(setting::MAX_CONCURRENT_STREAMS, 2)]))
        .unwrap();
    assert_eq!(h.written(), [(kind::SETTINGS, flag::ACK, 0, vec![])]);
    h.started(1);
    assert!(h.connection.can_start_request());
    h.started(2);
    assert!(!h.connection.can_start_request());
    h.feed(&response(STATUS_200, 1, b"")).unwrap();
    assert!(h.connection.can_start_request());
}

#[test]
fn pings_are_answered() {
    let mut h = settled();
    h.feed(&frame_bytes(kind::PING, 0, 0, b"12345678")).unwrap();
    assert_eq!(
        h.written(),
        [(kind::PING, flag::ACK, 0, b"12345678".to_vec())]
    );
}

/// Feeds `frame` until the connection refuses it, never writing its
/// output (a server that sends and does not read); returns the error, how
/// many were taken and the output's largest size.
fn flood(h: &mut Harness, frame: &[u8]) -> (crate::ConnectionError, usize, usize) {
    let mut largest = 0;
    // 10,000 would be 170 kB of acknowledgements for PINGs, if nothing stopped them.
    for taken in 0..10_000 {
        if let Err(error) = h.feed(frame) {
            return (error, taken, largest);
        }
        largest = largest.max(h.connection.output().len());
    }
    panic!("the flood was never refused");
}

#[test]
fn a_ping_flood_the_server_does_not_read_ends_the_connection() {
    let mut h = settled();
    h.started(1);
    let ping = frame_bytes(kind::PING, 0, 0, b"12345678");
    let (error, taken, largest) = flood(&mut h, &ping);
    assert_eq!(error.code, code::ENHANCE_YOUR_CALM, "{error}");
    assert!(error.to_string().contains("PING"), "{error}");
    assert_eq!(taken, crate::acks::MOST_QUEUED);
    // The request's HEADERS, then one acknowledgement per PING taken.
    assert!(
        largest <= 64 + taken * ping.len(),
        "{largest} bytes of output"
    );
    assert_eq!(h.connection.take_streams().collect::<Vec<_>>(), [1]);
}

#[test]
fn a_settings_flood_the_server_does_not_read_ends_the_connection() {
    let mut h = settled();
    let settings = server_settings(&[(setting::MAX_CONCURRENT_STREAMS, 100)]);
    let (error, taken, largest) = flood(&mut h, &settings);
    assert_eq!(error.code, code::ENHANCE_YOUR_CALM, "{error}");
    assert!(error.to_string().contains("SETTINGS"), "{error}");
    assert_eq!(taken, crate::acks::MOST_QUEUED);
    assert!(
        largest <= taken * frame::HEADER_LEN,
        "{largest} bytes of output"
    );
}

#[test]
fn acknowledgements_written_make_room_for_more() {
    let mut h = settled();
    let ping = frame_bytes(kind::PING, 0, 0, b"12345678");
    for _ in 0..3 * crate::acks::MOST_QUEUED {
        h.feed(&ping).unwrap();
        // Half of each acknowledgement is written: it still waits, the one before does not.
        let half = h.connection.output().len() - 8;
        h.connection.consume_output(half);
    }
    // What waits: the last acknowledgement's unwritten half.
    assert_eq!(h.connection.output().len(), 8);
}

#[test]
fn a_body_waits_for_window_and_goes_on_when_it_opens() {
    let mut h = settled();
    let body = Bytes::from(vec![b'x'; 100_000]);
    h.connection.start_request(&[0x83], Some(&body), 1);
    let sent: usize = h
        .written()
        .iter()
        .filter(|f| f.0 == kind::DATA)
        .map(|f| f.3.len())
        .sum();
    assert_eq!(sent, 65_535);
    // The stream window opens first: the connection window still holds it back.
    h.feed(&frame_bytes(
        kind::WINDOW_UPDATE,
        0,
        1,
        &50_000u32.to_be_bytes(),
    ))
    .unwrap();
    assert!(h.written().is_empty());
    h.feed(&frame_bytes(
        kind::WINDOW_UPDATE,
        0,
        0,
        &50_000u32.to_be_bytes(),
    ))
    .unwrap();
    let frames = h.written();
    let sent: usize = frames.iter().map(|f| f.3.len()).sum();
    assert_eq!(sent, 100_000 - 65_535);
    assert_eq!(frames.last().unwrap().1, flag::END_STREAM);
    assert!(frames.iter().all(|f| f.3.len() <= 16_384));
}

#[test]
fn received_data_is_granted_back_at_half_the_window() {
    let mut h = Harness::new(Config {
        stream_window: 65_535,
        connection_window: 65_535,
        ..Config::default()
    });
    h.feed(&server_settings(&[])).unwrap();
    h.written();
    h.started(1);
    h.written();
    h.feed(&frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS,
        1,
        STATUS_200,
    ))
    .unwrap();
    h.feed(&frame_bytes(kind::DATA, 0, 1, &[0; 16_000]))
        .unwrap();
    h.feed(&frame_bytes(kind::DATA, 0, 1, &[0; 16_000]))
        .unwrap();
    assert!(h.written().is_empty());
    h.feed(&frame_bytes(kind::DATA, 0, 1, &[0; 2_000])).unwrap();
    let updates = h.written();
    assert_eq!(
        updates,
        [
            (kind::WINDOW_UPDATE, 0, 0, 34_000u32.to_be_bytes().to_vec()),
            (kind::WINDOW_UPDATE, 0, 1, 34_000u32.to_be_bytes().to_vec()),
        ]
    );
}

#[test]
fn a_cancelled_stream_is_reset_and_its_late_frames_ignored() {
    let mut h = settled();
    h.started(1);
    h.written();
    assert_eq!(h.connection.cancel(1), Some(1));
    assert_eq!(
        h.written(),
        [(kind::RST_STREAM, 0, 1, code::CANCEL.to_be_bytes().to_vec())]
    );
    h.feed(&response(STATUS_200, 1, b"late")).unwrap();
    assert!(h.events.is_empty());
}

#[test]
fn frames_for_streams_never_opened_are_connection_errors() {
    let mut h = settled();
    assert!(h.feed(&response(STATUS_200, 1, b"")).is_err());
    let mut h = settled();
    h.started(1);
    assert!(h
        .feed(&frame_bytes(
            kind::PUSH_PROMISE,
            flag::END_HEADERS,
            1,
            &[0, 0, 0, 2, 0x82]
        ))
        .is_err());
}

#[test]
fn a_response_without_status_fails_its_stream() {
    let mut h = settled();
    h.started(1);
    h.written();
    h.feed(&frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        &literal("x", "y"),
    ))
    .unwrap();
    assert!(matches!(
        h.events[..],
        [Event::Failed {
            user: 1,
            error: StreamError::Malformed(_)
        }]
    ));
    assert_eq!(h.written()[0].0, kind::RST_STREAM);
}

#[test]
fn oversized_frames_are_refused_before_they_are_buffered() {
    let mut h = settled();
    h.started(1);
    let mut header = Vec::new();
    FrameHeader {
        length: 20_000,
        kind: kind::HEADERS,
        flags: flag::END_HEADERS,
        stream_id: 1,
    }
    .write(&mut header);
    let error = h.feed(&header).unwrap_err();
    assert_eq!(error.code, code::FRAME_SIZE_ERROR);
}

/// A literal header field without indexing, new name, no Huffman, of any
/// length (RFC 7541 section 5.1 integers with a 7-bit prefix).
fn long_literal(name: &[u8], value: &[u8]) -> Vec<u8> {
    let mut out = vec![0x00];
    for string in [name, value] {
        push_length(&mut out, string.len());
        out.extend_from_slice(string);
    }
    out
}

fn push_length(out: &mut Vec<u8>, mut length: usize) {
    if length < 127 {
        out.push(length as u8);
        return;
    }
    out.push(127);
    length -= 127;
    while length >= 128 {
        out.push((length % 128) as u8 | 0x80);
        length /= 128;
    }
    out.push(length as u8);
}

/// A header block as HEADERS and CONTINUATION frames of `piece` bytes.
fn split_head(id: u32, block: &[u8], piece: usize, end_stream: bool) -> Vec<u8> {
    let mut out = Vec::new();
    frame::write_headers(&mut out, id, block, end_stream, piece);
    out
}

#[test]
fn our_settings_advertise_the_header_list_limit() {
    let mut h = Harness::new(Config {
        max_header_list_size: 10_000,
        ..Config::default()
    });
    let settings = &h.written()[0];
    assert_eq!(settings.0, kind::SETTINGS);
    let mut advertised = settings.3.chunks_exact(6).filter_map(|entry| {
        let id = u16::from_be_bytes([entry[0], entry[1]]);
        (id == setting::MAX_HEADER_LIST_SIZE)
            .then(|| u32::from_be_bytes([entry[2], entry[3], entry[4], entry[5]]))
    });
    assert_eq!(advertised.next(), Some(10_000));
    assert_eq!(Config::default().max_header_list_size, 64 * 1024);
}

#[test]
fn a_continuation_flood_ends_the_connection_at_the_limit() {
    let limit = Config::default().max_header_list_size as usize;
    let mut h = settled();
    h.started(1);
    h.started(2);
    h.feed(&frame_bytes(kind::HEADERS, 0, 1, STATUS_200))
        .unwrap();
    let payload = vec![0u8; 16_000];
    let mut sent = STATUS_200.len();
    let mut refused = None;
    // 160 MB if nothing stopped it.
    for _ in 0..10_000 {
        let result = h.feed(&frame_bytes(kind::CONTINUATION, 0, 1, &payload));
        assert!(
            h.connection.buffered_header_block() <= limit,
            "{} bytes buffered after {sent} sent",
            h.connection.buffered_header_block()
        );
        sent += payload.len();
        if let Err(error) = result {
            refused = Some(error);
            break;
        }
    }
    let error = refused.expect("the flood was never refused");
    assert_eq!(error.code, code::ENHANCE_YOUR_CALM, "{error}");
    assert!(
        error.to_string().contains("SETTINGS_MAX_HEADER_LIST_SIZE"),
        "{error}"
    );
    assert!(
        sent <= limit + payload.len(),
        "refused only after {sent} bytes"
    );
    let mut lost: Vec<u32> = h.connection.take_streams().collect();
    lost.sort();
    assert_eq!(lost, [1, 2]);
    assert!(h.events.is_empty());
}

#[test]
fn one_headers_frame_beyond_the_limit_is_refused() {
    let mut h = Harness::new(Config {
        max_header_list_size: 1_000,
        ..Config::default()
    });
    h.feed(&server_settings(&[])).unwrap();
    h.started(1);
    let mut block = STATUS_200.to_vec();
    block.extend(long_literal(b"x-big", &[b'a'; 2_000]));
    let error = h
        .feed(&frame_bytes(kind::HEADERS, flag::END_HEADERS, 1, &block))
        .unwrap_err();
    assert_eq!(error.code, code::ENHANCE_YOUR_CALM, "{error}");
}

#[test]
fn a_head_within_the_limit_may_span_many_continuations() {
    let limit = Config::default().max_header_list_size as usize;
    // `:status: 200` counts 10 + 32 and the big field 5 + 32 besides its value.
    let value = vec![b'v'; limit - (10 + 32) - (5 + 32)];
    let mut block = STATUS_200.to_vec();
    block.extend(long_literal(b"x-big", &value));
    assert!(block.len() <= limit);
    let mut h = settled();
    h.started(1);
    h.feed(&split_head(1, &block, 1_000, true)).unwrap();
    assert!(matches!(
        h.events[..],
        [Event::Response {
            user: 1,
            status: 200,
            ..
        }]
    ));
}

#[test]
fn a_header_list_that_decodes_beyond_the_limit_is_refused() {
    // One 4,000-byte value goes into the dynamic table; each later byte
    // 0xbe (index 62) repeats it, so 20 bytes decode to 80 kB.
    let mut block = STATUS_200.to_vec();
    block.push(0x40);
    push_length(&mut block, 1);
    block.push(b'x');
    push_length(&mut block, 4_000);
    block.extend(std::iter::repeat_n(b'a', 4_000));
    block.extend([0xbe; 20]);
    for keep_header_fields in [false, true] {
        let mut h = Harness::new(Config {
            keep_header_fields,
            ..Config::default()
        });
        h.feed(&server_settings(&[])).unwrap();
        h.connection.start_request_delivering(
            &[0x82, 0x86, 0x84],
            None,
            1,
            crate::Deliver {
                headers: keep_header_fields,
                ..crate::Deliver::default()
            },
        );
        let error = h
            .feed(&frame_bytes(
                kind::HEADERS,
                flag::END_HEADERS | flag::END_STREAM,
                1,
                &block,
            ))
            .unwrap_err();
        assert_eq!(error.code, code::ENHANCE_YOUR_CALM, "{error}");
        assert!(error.to_string().contains("decoded header list"), "{error}");
        assert!(h.connection.held_header_fields() <= 64 * 1024);
    }
}

mod content_length;
mod grpc_status;
mod header_table;
mod tunnel;
