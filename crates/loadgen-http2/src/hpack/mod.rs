//! HPACK (RFC 7541), as much of it as a load-generating client needs:
//! request blocks encoded once per run (the fields every request repeats
//! indexed after a connection's first request, as nghttp2 does), and
//! response blocks decoded to their status and sizes while the dynamic
//! table tracks the server's.

pub mod huffman;

mod decoder;
mod dynamic_table;
mod encoder;
mod encoder_table;
pub mod integer;
mod meaning;
mod request_blocks;
mod static_table;

#[cfg(test)]
mod tests;

pub use decoder::{BlockSummary, Decoder};
pub use encoder::{encode_extended_connect, encode_request};
pub use request_blocks::{RequestBlock, RequestBlocks, RequestFields};

pub(crate) use encoder_table::EncoderTable;

use std::fmt;

/// A header block that cannot be decoded, or a response that is
/// malformed; the message says which and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HpackError(pub &'static str);

pub(crate) const BAD_STATUS: HpackError =
    HpackError("malformed response: :status is not 3 ASCII digits");
pub(crate) const DUPLICATE_STATUS: HpackError =
    HpackError("malformed response: more than one :status field");
pub(crate) const BAD_CONTENT_LENGTH: HpackError =
    HpackError("malformed response: content-length is not a number");
pub(crate) const DUPLICATE_CONTENT_LENGTH: HpackError =
    HpackError("malformed response: more than one content-length field");

impl HpackError {
    /// True when the block decoded fine but its fields make a malformed
    /// response (RFC 9113 section 8.1.1): a stream error, and the decoder
    /// is still in step with the peer. Any other error is a connection
    /// error of type COMPRESSION_ERROR.
    pub fn is_malformed_response(&self) -> bool {
        [
            BAD_STATUS,
            DUPLICATE_STATUS,
            BAD_CONTENT_LENGTH,
            DUPLICATE_CONTENT_LENGTH,
        ]
        .contains(self)
    }
}

impl fmt::Display for HpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for HpackError {}
