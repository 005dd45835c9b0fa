//! The request direction's dynamic table through the connection: the
//! blocks it writes, and the size update a server's lower
//! SETTINGS_HEADER_TABLE_SIZE calls for.

use super::*;
use crate::hpack::{Decoder, RequestBlocks, RequestFields};
use crate::Deliver;

fn blocks(headers: &[(String, String)]) -> RequestBlocks {
    RequestBlocks::encode(&[RequestFields {
        method: "GET",
        scheme: "http",
        authority: "127.0.0.1:8080",
        path: "/",
        headers,
    }])
}

fn user_agent() -> Vec<(String, String)> {
    vec![("user-agent".to_string(), "loadgen/0.1.0".to_string())]
}

/// The header blocks of the HEADERS frames written since the last call.
fn header_blocks(h: &mut Harness) -> Vec<Vec<u8>> {
    h.written()
        .into_iter()
        .filter(|(kind, ..)| *kind == kind::HEADERS)
        .map(|(.., payload)| payload)
        .collect()
}

fn start(h: &mut Harness, blocks: &RequestBlocks, user: u32) {
    h.connection
        .start_request_with(blocks.get(0), None, user, Deliver::default());
}

#[test]
fn the_first_request_adds_the_fields_and_the_rest_name_them_in_a_byte() {
    let blocks = blocks(&user_agent());
    let mut h = settled();
    for user in 0..3 {
        start(&mut h, &blocks, user);
    }
    let sent = header_blocks(&mut h);
    let later = [0x82, 0x86, 0x80 | 63, 0x84, 0x80 | 62];
    assert_eq!(sent[1], later);
    assert_eq!(sent[2], later);
    let mut server = Decoder::keeping_fields(4096);
    let mut fields = Vec::new();
    for block in &sent {
        server
            .decode_fields(block, &mut |n, v| fields.push((n.to_vec(), v.to_vec())))
            .unwrap();
    }
    assert_eq!(fields.len(), 15);
    assert_eq!(
        fields[14],
        (b"user-agent".to_vec(), b"loadgen/0.1.0".to_vec())
    );
}

#[test]
fn a_lower_server_table_size_is_announced_before_the_next_block() {
    let blocks = blocks(&user_agent());
    let mut h = Harness::new(Config::default());
    // Sent before the server's SETTINGS: the table starts at 4,096.
    start(&mut h, &blocks, 0);
    h.feed(&server_settings(&[(setting::HEADER_TABLE_SIZE, 0)]))
        .unwrap();
    start(&mut h, &blocks, 1);
    start(&mut h, &blocks, 2);
    let sent = header_blocks(&mut h);
    assert_eq!(sent[0][2], 0x41, "the first block indexes :authority");
    assert_eq!(sent[1][0], 0x20, "a size update to 0 opens the next block");
    assert_eq!(&sent[1][1..], blocks.get(0).plain);
    assert_eq!(sent[2], blocks.get(0).plain);
    // The server's decoder, which applies its setting once it reads our
    // acknowledgement (queued before the second block), agrees.
    let mut server = Decoder::keeping_fields(4096);
    server.decode_fields(&sent[0], &mut |_, _| {}).unwrap();
    server.set_max_table_size(0);
    for block in &sent[1..] {
        server.decode_fields(block, &mut |_, _| {}).unwrap();
    }
    assert_eq!(server.table_len(), 0);
}

#[test]
fn plain_blocks_carry_the_size_update_too() {
    let mut h = settled();
    h.feed(&server_settings(&[(setting::HEADER_TABLE_SIZE, 100)]))
        .unwrap();
    h.started(0);
    h.started(1);
    let sent = header_blocks(&mut h);
    assert_eq!(sent[0], [0x3f, 100 - 31, 0x82, 0x86, 0x84]);
    assert_eq!(sent[1], [0x82, 0x86, 0x84]);
}

#[test]
fn a_size_update_before_a_block_larger_than_a_frame_spans_its_continuation() {
    let mut out = Vec::new();
    let block: Vec<u8> = (0..10).collect();
    frame::write_headers_after(&mut out, 1, &[0x20], &block, true, 4);
    let frames = frames_in(&out);
    let kinds: Vec<_> = frames.iter().map(|f| (f.0, f.1)).collect();
    assert_eq!(
        kinds,
        [
            (kind::HEADERS, flag::END_STREAM),
            (kind::CONTINUATION, 0),
            (kind::CONTINUATION, flag::END_HEADERS),
        ]
    );
    let joined: Vec<u8> = frames.iter().flat_map(|f| f.3.clone()).collect();
    assert_eq!(joined[0], 0x20);
    assert_eq!(&joined[1..], block);
}
