//! The HTTP/3 response reader of a request stream against arbitrary server
//! bytes.
//!
//! Input: a settings byte (bit 0: the body is kept, as a scenario that
//! reads it keeps it), a seed for the piece sizes, then the stream's bytes.
//! They are read in pieces the way quinn hands them over, and once whole.
//! Invariants: no panic; what is read does not depend on the pieces; the
//! reader never holds more than a field section and a frame header; the
//! DATA bytes counted are never more than the bytes fed, and a kept body
//! is exactly them; at most one final head, and a stream without an error
//! had one; no trailers or body before it.

use crate::pieces;

use loadgen_core::protocols::http3::fuzzing::{read_response, Read, MOST_BUFFERED};

pub fn check(input: &[u8]) {
    let Some(split) = pieces::Split::new(input) else {
        return;
    };
    let keep_body = split.settings & 1 == 1;
    let whole = read_response([split.bytes], keep_body);
    let in_pieces = read_response(split.pieces(), keep_body);
    for read in [&whole, &in_pieces] {
        holds(read, split.bytes.len(), keep_body);
    }
    assert_eq!(
        Read {
            most_buffered: 0,
            ..in_pieces
        },
        Read {
            most_buffered: 0,
            ..whole
        },
        "the pieces changed what was read"
    );
}

fn holds(read: &Read, fed: usize, keep_body: bool) {
    assert!(
        read.most_buffered <= MOST_BUFFERED,
        "held {} bytes",
        read.most_buffered
    );
    assert!(read.data_bytes <= fed as u64, "more DATA bytes than fed");
    let kept = if keep_body { read.data_bytes } else { 0 };
    assert_eq!(
        read.body.len() as u64,
        kept,
        "the body is not its DATA bytes"
    );
    assert!(read.heads.len() <= 1, "more than one final head");
    if read.error.is_none() {
        assert_eq!(read.heads.len(), 1, "a whole response without a head");
    }
    if read.heads.is_empty() {
        assert!(
            read.trailers.is_empty() && read.data_bytes == 0,
            "trailers or a body before a head"
        );
        // A head's fields are handed on as they are decoded, and the head
        // once its section ends: a section that breaks after some fields
        // leaves them without one.
        assert!(
            read.fields.is_empty() || read.error.is_some(),
            "fields of a head that never came"
        );
    }
}
