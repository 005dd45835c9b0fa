//! Extended CONNECT (RFC 8441): a stream that stays open both ways, its
//! bytes sent as the caller hands them over and within the windows.

use super::*;
use crate::{hpack, Deliver, Received};

const BOTH_WAYS: Deliver = Deliver {
    headers: true,
    body: true,
    head: false,
    grpc_status: false,
};

fn harness_allowing_connect() -> Harness {
    let mut h = Harness::new(Config {
        keep_header_fields: true,
        ..Config::default()
    });
    assert!(!h.connection.has_peer_settings());
    h.feed(&server_settings(&[(setting::ENABLE_CONNECT_PROTOCOL, 1)]))
        .unwrap();
    assert!(h.connection.has_peer_settings());
    assert!(h.connection.allows_extended_connect());
    h.written();
    h
}

fn connect_block() -> Vec<u8> {
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
    block
}

/// Feeds server bytes, collecting what the detailed receive reports.
fn feed_detailed(h: &mut Harness, bytes: &[u8]) -> Vec<String> {
    let mut seen = Vec::new();
    let used = h
        .connection
        .receive_detailed(bytes, &mut |received| {
            seen.push(match received {
                Received::Head { status, .. } => format!("head {status}"),
                Received::Data { chunk, .. } => {
                    format!("data {}", String::from_utf8_lossy(chunk))
                }
                Received::Ended(Event::Response { .. }) => "ended".into(),
                Received::Ended(Event::Failed { error, .. }) => format!("failed {error}"),
                Received::GrpcMessage { .. } => "grpc".into(),
            })
        })
        .unwrap();
    assert_eq!(used, bytes.len());
    seen
}

#[test]
fn the_server_settings_say_whether_extended_connect_is_allowed() {
    let mut h = Harness::new(Config::default());
    h.feed(&server_settings(&[])).unwrap();
    assert!(h.connection.has_peer_settings());
    assert!(!h.connection.allows_extended_connect());
    let mut h = Harness::new(Config::default());
    let error = h
        .feed(&server_settings(&[(setting::ENABLE_CONNECT_PROTOCOL, 2)]))
        .unwrap_err();
    assert_eq!(error.code, code::PROTOCOL_ERROR);
}

#[test]
fn the_connect_block_leads_with_method_and_protocol() {
    let block = connect_block();
    let mut decoder = hpack::Decoder::keeping_fields(4096);
    let mut fields = Vec::new();
    decoder
        .decode_fields(&block, &mut |name, value| {
            fields.push((
                String::from_utf8_lossy(name).into_owned(),
                String::from_utf8_lossy(value).into_owned(),
            ))
        })
        .unwrap();
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            ":method",
            ":protocol",
            ":scheme",
            ":authority",
            ":path",
            "sec-websocket-version"
        ]
    );
    assert_eq!(fields[0].1, "CONNECT");
    assert_eq!(fields[1].1, "websocket");
}

#[test]
fn a_tunnel_stays_open_and_carries_bytes_both_ways() {
    let mut h = harness_allowing_connect();
    let id = h.connection.open_tunnel(&connect_block(), 7, BOTH_WAYS);
    let frames = h.written();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].0, kind::HEADERS);
    assert_eq!(
        frames[0].1 & flag::END_STREAM,
        0,
        "the CONNECT leaves the stream open"
    );

    h.connection.send_on_tunnel(id, b"hello");
    h.connection.send_on_tunnel(id, b"again");
    let frames = h.written();
    let data: Vec<&[u8]> = frames.iter().map(|f| f.3.as_slice()).collect();
    assert_eq!(data, [b"hello".as_slice(), b"again"]);
    assert!(frames.iter().all(|f| f.0 == kind::DATA && f.1 == 0));

    let mut server = frame_bytes(kind::HEADERS, flag::END_HEADERS, id, STATUS_200);
    server.extend(frame_bytes(kind::DATA, 0, id, b"echo"));
    assert_eq!(feed_detailed(&mut h, &server), ["head 200", "data echo"]);
    assert_eq!(h.connection.open_streams(), 1);

    h.connection.end_tunnel(id);
    let frames = h.written();
    assert_eq!(frames.len(), 1);
    assert_eq!((frames[0].0, frames[0].1), (kind::DATA, flag::END_STREAM));
    assert!(frames[0].3.is_empty());
    // Sends after our end go nowhere.
    h.connection.send_on_tunnel(id, b"late");
    assert!(h.written().is_empty());

    let end = frame_bytes(kind::DATA, flag::END_STREAM, id, b"");
    assert_eq!(feed_detailed(&mut h, &end), ["ended"]);
    assert_eq!(h.connection.open_streams(), 0);
    assert!(h.written().is_empty(), "both sides ended: nothing to reset");
}

#[test]
fn tunnel_bytes_wait_for_window_in_order() {
    let mut h = harness_allowing_connect();
    let id = h.connection.open_tunnel(&connect_block(), 1, BOTH_WAYS);
    h.written();
    h.connection.send_on_tunnel(id, &vec![b'a'; 65_535]);
    h.connection.send_on_tunnel(id, b"bcd");
    let sent: usize = h.written().iter().map(|f| f.3.len()).sum();
    assert_eq!(sent, 65_535);
    h.feed(&frame_bytes(
        kind::WINDOW_UPDATE,
        0,
        id,
        &2u32.to_be_bytes(),
    ))
    .unwrap();
    h.feed(&frame_bytes(kind::WINDOW_UPDATE, 0, 0, &2u32.to_be_bytes()))
        .unwrap();
    let frames = h.written();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].3, b"bc");
    h.connection.end_tunnel(id);
    assert!(
        h.written().is_empty(),
        "END_STREAM waits behind the held bytes"
    );
    h.feed(&frame_bytes(
        kind::WINDOW_UPDATE,
        0,
        id,
        &10u32.to_be_bytes(),
    ))
    .unwrap();
    h.feed(&frame_bytes(
        kind::WINDOW_UPDATE,
        0,
        0,
        &10u32.to_be_bytes(),
    ))
    .unwrap();
    let frames = h.written();
    assert_eq!(frames.len(), 1);
    assert_eq!(
        (frames[0].1, frames[0].3.as_slice()),
        (flag::END_STREAM, b"d".as_slice())
    );
}

#[test]
fn a_server_ending_the_tunnel_first_gets_it_reset() {
    let mut h = harness_allowing_connect();
    let id = h.connection.open_tunnel(&connect_block(), 1, BOTH_WAYS);
    h.written();
    let mut server = frame_bytes(kind::HEADERS, flag::END_HEADERS, id, STATUS_200);
    server.extend(frame_bytes(kind::DATA, flag::END_STREAM, id, b"bye"));
    assert_eq!(
        feed_detailed(&mut h, &server),
        ["head 200", "data bye", "ended"]
    );
    let frames = h.written();
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].0, kind::RST_STREAM);
    assert_eq!(frames[0].3, code::NO_ERROR.to_be_bytes());
}

#[test]
fn a_refused_connect_ends_with_its_status() {
    let mut h = harness_allowing_connect();
    let id = h.connection.open_tunnel(&connect_block(), 1, BOTH_WAYS);
    h.written();
    let head = literal(":status", "501");
    let server = frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        id,
        &head,
    );
    assert_eq!(feed_detailed(&mut h, &server), ["head 501", "ended"]);
}
