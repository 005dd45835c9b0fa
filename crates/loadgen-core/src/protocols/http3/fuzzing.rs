//! What [`ResponseReader`](super::frame::ResponseReader) makes of a
//! request stream's bytes, fed in the given pieces: for the
//! `http3_response` fuzz target, which holds the reader to its invariants
//! (fuzz/harness/http3_response.rs), and for the replay of its corpus in
//! the stable test suite.

use super::frame::{ResponseReader, ResponseSink, MAX_FIELD_SECTION};
use bytes::Bytes;

/// The most a reader may hold between pieces: a whole field section and
/// the longest frame header (two eight-byte variable-length integers).
pub const MOST_BUFFERED: usize = MAX_FIELD_SECTION as usize + 16;

/// Everything the reader handed on, and how the stream ended.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Read {
    /// Final heads: status and encoded length.
    pub heads: Vec<(u16, u64)>,
    pub fields: Vec<(Vec<u8>, Vec<u8>)>,
    pub trailers: Vec<(Vec<u8>, Vec<u8>)>,
    /// The body's pieces, joined (empty unless the body is kept).
    pub body: Vec<u8>,
    /// DATA payload bytes, as the reader counts them.
    pub data_bytes: u64,
    /// The first error, from a piece or from the stream's end; `None` for
    /// a whole response.
    pub error: Option<String>,
    /// The most the reader held after any piece.
    pub most_buffered: usize,
}

impl ResponseSink for Read {
    fn field(&mut self, name: &[u8], value: &[u8]) {
        self.fields.push((name.to_vec(), value.to_vec()));
    }

    fn head(&mut self, status: u16, encoded_len: u64) {
        self.heads.push((status, encoded_len));
    }

    fn data(&mut self, piece: Bytes) {
        self.body.extend_from_slice(&piece);
    }

    fn trailer(&mut self, name: &[u8], value: &[u8]) {
        self.trailers.push((name.to_vec(), value.to_vec()));
    }
}

/// Reads a request stream that brings `pieces` and then ends, keeping the
/// body if `keep_body`; the first error stops it, as it stops the stream.
pub fn read_response<'a>(pieces: impl IntoIterator<Item = &'a [u8]>, keep_body: bool) -> Read {
    let mut reader = ResponseReader::new(keep_body);
    let mut read = Read::default();
    for piece in pieces {
        let pushed = reader.push(Bytes::copy_from_slice(piece), &mut read);
        read.most_buffered = read.most_buffered.max(reader.buffered());
        read.data_bytes = reader.data_bytes();
        if let Err(e) = pushed {
            read.error = Some(e.to_string());
            return read;
        }
    }
    read.error = reader.finish().err().map(|e| e.to_string());
    read
}
