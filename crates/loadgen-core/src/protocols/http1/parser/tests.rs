use super::*;

/// Feeds `input` in pieces of the given sizes (cycled) the way a connection
/// would: unconsumed bytes stay in the buffer and new bytes are appended.
fn feed(input: &[u8], pieces: &[usize], head_request: bool) -> Result<Vec<Event>, ParseError> {
    let mut parser = ResponseParser::new(head_request);
    let mut events = Vec::new();
    let mut buffer: Vec<u8> = Vec::new();
    let mut offset = 0;
    let mut piece = 0;
    while offset < input.len() {
        let n = pieces[piece % pieces.len()].min(input.len() - offset);
        piece += 1;
        buffer.extend_from_slice(&input[offset..offset + n]);
        offset += n;
        loop {
            let used = parser.parse(&buffer, &mut |e| events.push(e))?;
            buffer.drain(..used);
            if used == 0 || buffer.is_empty() {
                break;
            }
        }
    }
    parser.finish(&mut |e| events.push(e))?;
    assert!(
        buffer.is_empty(),
        "left over: {:?}",
        String::from_utf8_lossy(&buffer)
    );
    Ok(merge_data(events))
}

/// Data events depend on how input was split; add adjacent ones up.
fn merge_data(events: Vec<Event>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for e in events {
        match (out.last_mut(), e) {
            (Some(Event::Data(total)), Event::Data(n)) => *total += n,
            _ => out.push(e),
        }
    }
    out
}

fn all_splits(input: &[u8], head_request: bool) -> Vec<Event> {
    let whole = feed(input, &[input.len()], head_request).unwrap();
    for pieces in [&[1][..], &[2], &[3], &[7], &[1, 5, 2], &[13, 1]] {
        assert_eq!(
            feed(input, pieces, head_request).unwrap(),
            whole,
            "split {pieces:?}"
        );
    }
    whole
}

const LENGTH: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\nServer: x\r\n\r\nhello, world\n";

#[test]
fn content_length_byte_by_byte() {
    let events = all_splits(LENGTH, false);
    assert_eq!(
        events,
        vec![
            Event::Head {
                status: 200,
                header_bytes: 14 + 2 + 6 + 1
            },
            Event::Data(13),
            Event::Complete { close: false }
        ]
    );
}

#[test]
fn pipelined_responses() {
    let mut input = LENGTH.to_vec();
    input.extend_from_slice(b"HTTP/1.1 503 Busy\r\ncontent-length: 0\r\n\r\n");
    input.extend_from_slice(LENGTH);
    let events = all_splits(&input, false);
    let statuses: Vec<u16> = events
        .iter()
        .filter_map(|e| match e {
            Event::Head { status, .. } => Some(*status),
            _ => None,
        })
        .collect();
    assert_eq!(statuses, [200, 503, 200]);
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Complete { .. }))
            .count(),
        3
    );
}

#[test]
fn chunked_with_extensions_and_trailers() {
    let input = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n\
        5;name=value\r\nhello\r\n\
        A\r\n0123456789\r\n\
        0\r\nx-checksum: abc\r\nx-other: 1\r\n\r\n";
    let events = all_splits(input, false);
    assert_eq!(
        events[1..],
        [Event::Data(15), Event::Complete { close: false }]
    );
}

#[test]
fn chunked_empty_body() {
    let events = all_splits(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        false,
    );
    assert_eq!(events[1..], [Event::Complete { close: false }]);
}

#[test]
fn chunked_not_last_coding_is_close_delimited() {
    let events = all_splits(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nraw",
        false,
    );
    assert_eq!(
        events[1..],
        [Event::Data(3), Event::Complete { close: true }]
    );
}

#[test]
fn bad_chunks_are_errors() {
    for input in [
        &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"[..],
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
    ] {
        assert!(
            feed(input, &[input.len()], false).is_err(),
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn close_delimited_body_ends_at_eof() {
    let events = all_splits(b"HTTP/1.1 200 OK\r\nServer: x\r\n\r\nabcdef", false);
    assert_eq!(
        events[1..],
        [Event::Data(6), Event::Complete { close: true }]
    );
}

#[test]
fn truncated_body_is_an_error() {
    let input = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
    assert!(feed(input, &[1], false).is_err());
}

#[test]
fn connection_close_and_http10() {
    let events = all_splits(
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\na",
        false,
    );
    assert_eq!(events.last(), Some(&Event::Complete { close: true }));
    let events = all_splits(b"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\na", false);
    assert_eq!(events.last(), Some(&Event::Complete { close: true }));
    let events = all_splits(
        b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\na",
        false,
    );
    assert_eq!(events.last(), Some(&Event::Complete { close: false }));
}

#[test]
fn interim_responses_are_skipped() {
    let input = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: x\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n";
    let events = all_splits(input, false);
    assert_eq!(
        events,
        [
            Event::Head {
                status: 201,
                header_bytes: 15
            },
            Event::Complete { close: false }
        ]
    );
}

#[test]
fn bodiless_statuses_and_head() {
    let events = all_splits(
        b"HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n",
        false,
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Complete { .. }))
            .count(),
        2
    );
    let events = all_splits(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n", true);
    assert_eq!(events[1..], [Event::Complete { close: false }]);
}

#[test]
fn malformed_heads_are_errors() {
    for input in [
        &b"HTTX/1.1 200 OK\r\n\r\n"[..],
        b"HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
    ] {
        assert!(feed(input, &[input.len()], false).is_err());
    }
}

#[test]
fn oversized_head_is_an_error() {
    let mut input = b"HTTP/1.1 200 OK\r\n".to_vec();
    input.extend(std::iter::repeat_n(b'a', MAX_HEAD_BYTES + 10));
    assert!(feed(&input, &[4096], false).is_err());
}

/// A complete response whose head (status line to blank line) is `head_len`
/// bytes, most of them one header's value, followed by a 2-byte body.
fn response_with_head_of(head_len: usize) -> Vec<u8> {
    let start = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Big: ";
    let end = b"\r\n\r\n";
    let mut input = start.to_vec();
    input.extend(std::iter::repeat_n(
        b'a',
        head_len - start.len() - end.len(),
    ));
    input.extend_from_slice(end);
    assert_eq!(input.len(), head_len);
    input.extend_from_slice(b"ok");
    input
}

/// Whole, in socket-sized reads, and byte by byte near the limit.
const HEAD_SPLITS: [&[usize]; 4] = [
    &[usize::MAX],
    &[16 * 1024],
    &[4096, 1],
    &[MAX_HEAD_BYTES - 3, 1],
];

#[test]
fn a_head_over_the_limit_is_refused_however_it_arrives() {
    for head_len in [MAX_HEAD_BYTES + 1, 100 * 1000] {
        let input = response_with_head_of(head_len);
        for pieces in HEAD_SPLITS {
            let error = feed(&input, pieces, false).unwrap_err();
            assert_eq!(
                error,
                head_too_large(),
                "{head_len}-byte head in pieces of {pieces:?}"
            );
        }
    }
}

#[test]
fn a_head_at_the_limit_passes_however_it_arrives() {
    for head_len in [MAX_HEAD_BYTES - 1, MAX_HEAD_BYTES] {
        let input = response_with_head_of(head_len);
        for pieces in HEAD_SPLITS {
            let events = feed(&input, pieces, false)
                .unwrap_or_else(|e| panic!("{head_len}-byte head in pieces of {pieces:?}: {e}"));
            assert_eq!(
                events[1..],
                [Event::Data(2), Event::Complete { close: false }],
                "{head_len}-byte head in pieces of {pieces:?}"
            );
        }
    }
}

/// A chunked response with a 2-byte chunk whose size line, extension and
/// CR included, is `line_len` bytes before its LF.
fn chunked_with_size_line_of(line_len: usize) -> Vec<u8> {
    let mut input = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    let size_and_extension = b"2;x=";
    input.extend_from_slice(size_and_extension);
    input.extend(std::iter::repeat_n(
        b'a',
        line_len - size_and_extension.len() - 1,
    ));
    input.extend_from_slice(b"\r\nok\r\n0\r\n\r\n");
    input
}

/// Whole, and in pieces that end inside the line or just before its LF.
const LINE_SPLITS: [&[usize]; 3] = [&[usize::MAX], &[1024], &[MAX_LINE_BYTES + 40, 1]];

// Found through the fuzz target http1_response_parser's invariant that
// the pieces do not change what is parsed: a size line over the limit was
// refused when it came in pieces and taken when it came whole.
#[test]
fn a_chunk_line_over_the_limit_is_refused_however_it_arrives() {
    for line_len in [MAX_LINE_BYTES + 1, 5000] {
        let input = chunked_with_size_line_of(line_len);
        for pieces in LINE_SPLITS {
            let error = feed(&input, pieces, false).unwrap_err();
            assert_eq!(
                error.0, "chunk line too long",
                "{line_len}-byte line in pieces of {pieces:?}"
            );
        }
    }
}

#[test]
fn a_chunk_line_at_the_limit_passes_however_it_arrives() {
    let input = chunked_with_size_line_of(MAX_LINE_BYTES);
    for pieces in LINE_SPLITS {
        let events =
            feed(&input, pieces, false).unwrap_or_else(|e| panic!("pieces of {pieces:?}: {e}"));
        assert_eq!(
            events[1..],
            [Event::Data(2), Event::Complete { close: false }],
            "pieces of {pieces:?}"
        );
    }
}

#[test]
fn many_headers_take_the_larger_set() {
    let mut input = b"HTTP/1.1 200 OK\r\n".to_vec();
    for i in 0..40 {
        input.extend_from_slice(format!("x-h{i}: v\r\n").as_bytes());
    }
    input.extend_from_slice(b"Content-Length: 2\r\n\r\nok");
    let events = all_splits(&input, false);
    assert_eq!(
        events[1..],
        [Event::Data(2), Event::Complete { close: false }]
    );
    let mut too_many = b"HTTP/1.1 200 OK\r\n".to_vec();
    for i in 0..200 {
        too_many.extend_from_slice(format!("x-h{i}: v\r\n").as_bytes());
    }
    too_many.extend_from_slice(b"\r\n");
    assert!(feed(&too_many, &[too_many.len()], false).is_err());
}

/// RFC 9112 section 5.2: obs-fold in a response is accepted, read as spaces.
const FOLDED: &[u8] =
    b"HTTP/1.1 200 OK\r\nX-Folded: one\r\n  two\r\nContent-Length:\r\n 13\r\n\r\nhello, world\n";

#[test]
fn an_obs_fold_is_accepted_however_it_arrives() {
    let events = all_splits(FOLDED, false);
    assert_eq!(
        events,
        vec![
            Event::Head {
                status: 200,
                header_bytes: 8 + 10 + 14 + 2
            },
            Event::Data(13),
            Event::Complete { close: false }
        ]
    );
}

#[test]
fn an_obs_fold_is_shown_as_spaces() {
    let mut parser = ResponseParser::new(false);
    let mut shown = Vec::new();
    parser
        .parse_detailed(FOLDED, &mut |parsed| {
            if let Parsed::Fields { fields, .. } = parsed {
                for field in fields {
                    shown.push((field.name.to_string(), field.value.to_vec()));
                }
            }
        })
        .unwrap();
    assert_eq!(
        shown,
        [
            ("X-Folded".to_string(), b"one    two".to_vec()),
            ("Content-Length".to_string(), b"13".to_vec()),
        ]
    );
}

#[test]
fn a_bad_header_name_is_still_refused() {
    // Parsed again for folds, it is refused all the same.
    let input = b"HTTP/1.1 200 OK\r\nBad Name: x\r\ncontent-length: 0\r\n\r\n";
    let err = feed(input, &[input.len()], false).unwrap_err();
    assert!(err.0.contains("malformed response head"), "{err}");
    let folded_first = b"HTTP/1.1 200 OK\r\n folded-first: x\r\ncontent-length: 0\r\n\r\n";
    assert!(feed(folded_first, &[folded_first.len()], false).is_err());
}

/// Parses `input` whole with a new parser, as the next response of a
/// thread whose memo holds whatever it parsed last.
fn parse_whole(input: &[u8], head_request: bool) -> Result<Vec<Event>, ParseError> {
    feed(input, &[input.len()], head_request)
}

#[test]
fn a_head_seen_before_parses_as_it_did_the_first_time() {
    let first = parse_whole(LENGTH, false).unwrap();
    assert_eq!(parse_whole(LENGTH, false).unwrap(), first);
    // What follows the head is read afresh, not taken from the memo.
    let mut pipelined = LENGTH.to_vec();
    pipelined.extend_from_slice(
        b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\nServer: x\r\n\r\nhello, again\n",
    );
    assert_eq!(
        parse_whole(&pipelined, false).unwrap(),
        [&first[..], &first[..]].concat()
    );
    // The same head answering a HEAD request has no body.
    parse_whole(LENGTH, false).unwrap();
    let head = b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\nServer: x\r\n\r\n";
    assert_eq!(
        parse_whole(head, true).unwrap(),
        [
            Event::Head {
                status: 200,
                header_bytes: 23
            },
            Event::Complete { close: false }
        ]
    );
}

#[test]
fn a_head_seen_before_does_not_hide_a_different_one() {
    parse_whole(LENGTH, false).unwrap();
    // The same start, then a header of its own.
    let close = b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\nServer: x\r\nConnection: close\r\n\r\nhello, world\n";
    assert_eq!(
        parse_whole(close, false).unwrap().last(),
        Some(&Event::Complete { close: true })
    );
    parse_whole(LENGTH, false).unwrap();
    let bad = b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\nServer: x\r\nContent-Length: 14\r\n\r\nhello, world\n";
    assert!(parse_whole(bad, false).is_err());
    // A head cut short is not taken for the whole one it starts like.
    parse_whole(LENGTH, false).unwrap();
    let mut parser = ResponseParser::new(false);
    let mut events = Vec::new();
    assert_eq!(parser.parse(&LENGTH[..30], &mut |e| events.push(e)), Ok(0));
    assert!(events.is_empty());
}
