//! A response's DATA against its `content-length`, as nghttp2 holds them:
//! a body shorter or longer than announced is a malformed response, the
//! stream's error only; a response that cannot have a body (to HEAD, 204,
//! 304) has none.

use super::*;
use crate::Deliver;

/// `:status: 200` and `content-length: {n}` (static name, raw value).
fn head_with_length(n: &str) -> Vec<u8> {
    let mut block = STATUS_200.to_vec();
    block.extend_from_slice(&[0x0f, 28 - 15, n.len() as u8]);
    block.extend_from_slice(n.as_bytes());
    block
}

fn malformed(h: &Harness) -> Vec<&'static str> {
    h.events
        .iter()
        .filter_map(|e| match e {
            Event::Failed {
                error: StreamError::Malformed(what),
                ..
            } => Some(*what),
            _ => None,
        })
        .collect()
}

#[test]
fn a_body_of_the_announced_length_completes() {
    let mut h = settled();
    let id = h.started(1);
    let mut bytes = frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS,
        id,
        &head_with_length("10"),
    );
    bytes.extend(frame_bytes(kind::DATA, 0, id, b"hello"));
    bytes.extend(frame_bytes(kind::DATA, flag::END_STREAM, id, b"world"));
    h.feed(&bytes).unwrap();
    assert!(
        matches!(h.events[..], [Event::Response { data_bytes: 10, .. }]),
        "{:?}",
        h.events
    );
}

#[test]
fn a_shorter_body_fails_the_stream_only() {
    let mut h = settled();
    let short = h.started(1);
    let fine = h.started(2);
    let mut bytes = frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS,
        short,
        &head_with_length("13"),
    );
    bytes.extend(frame_bytes(kind::DATA, flag::END_STREAM, short, b"hello"));
    bytes.extend(response(STATUS_200, fine, b"ok"));
    h.feed(&bytes).unwrap();
    assert_eq!(
        malformed(&h),
        ["the stream ended before the response's content-length"]
    );
    assert!(matches!(
        h.events[1],
        Event::Response {
            user: 2,
            data_bytes: 2,
            ..
        }
    ));
    // Both sides had ended the stream: nothing to reset.
    assert!(h.written().iter().all(|f| f.0 != kind::RST_STREAM));
}

#[test]
fn a_stream_that_ends_with_its_head_but_announced_a_body_fails() {
    let mut h = settled();
    let id = h.started(1);
    let bytes = frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        id,
        &head_with_length("5"),
    );
    h.feed(&bytes).unwrap();
    assert_eq!(malformed(&h).len(), 1);
}

#[test]
fn a_longer_body_is_reset_at_the_frame_that_goes_beyond() {
    let mut h = settled();
    let id = h.started(1);
    let mut bytes = frame_bytes(kind::HEADERS, flag::END_HEADERS, id, &head_with_length("4"));
    bytes.extend(frame_bytes(kind::DATA, 0, id, b"four"));
    bytes.extend(frame_bytes(kind::DATA, flag::END_STREAM, id, b"more"));
    h.feed(&bytes).unwrap();
    assert_eq!(malformed(&h), ["DATA beyond the response's content-length"]);
    let resets: Vec<_> = h
        .written()
        .into_iter()
        .filter(|f| f.0 == kind::RST_STREAM)
        .collect();
    assert_eq!(
        resets,
        [(
            kind::RST_STREAM,
            0,
            id,
            code::PROTOCOL_ERROR.to_be_bytes().to_vec()
        )]
    );
    // The connection goes on.
    let next = h.started(2);
    h.feed(&response(STATUS_200, next, b"")).unwrap();
    assert!(matches!(
        h.events.last(),
        Some(Event::Response { user: 2, .. })
    ));
}

#[test]
fn responses_without_a_body_take_no_data() {
    // 204 and 304 have no body whatever their content-length says.
    for status in [&[0x89u8][..], &[0x8b]] {
        let mut h = settled();
        let id = h.started(1);
        let mut block = status.to_vec();
        block.extend_from_slice(&[0x0f, 28 - 15, 0x01, b'5']);
        let mut bytes = frame_bytes(kind::HEADERS, flag::END_HEADERS, id, &block);
        bytes.extend(frame_bytes(kind::DATA, flag::END_STREAM, id, b"hello"));
        h.feed(&bytes).unwrap();
        assert_eq!(malformed(&h).len(), 1, "{status:?}");
    }
    // A HEAD's response announces the length of the GET's body.
    let mut h = settled();
    let id = h.connection.start_request_delivering(
        &[0x82, 0x86, 0x84],
        None,
        1,
        Deliver {
            head: true,
            ..Deliver::default()
        },
    );
    let bytes = frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        id,
        &head_with_length("615"),
    );
    h.feed(&bytes).unwrap();
    assert!(
        matches!(h.events[..], [Event::Response { data_bytes: 0, .. }]),
        "{:?}",
        h.events
    );
}

#[test]
fn a_malformed_content_length_fails_the_stream() {
    let mut h = settled();
    let id = h.started(1);
    let bytes = frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        id,
        &head_with_length("1x"),
    );
    h.feed(&bytes).unwrap();
    assert_eq!(
        malformed(&h),
        ["malformed response: content-length is not a number"]
    );
}
