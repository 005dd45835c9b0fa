//! What a connection reports to its caller about streams, and what a
//! stream asks to be told.

use crate::frame;

/// How a stream ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<T> {
    /// The final response arrived whole.
    Response {
        user: T,
        status: u16,
        /// HEADERS and CONTINUATION payload bytes (HPACK-compressed).
        header_bytes: u64,
        /// Names and values of every header field received, as nghttp2 counts them.
        header_bytes_uncompressed: u64,
        data_bytes: u64,
        /// The `grpc-status` field of the response's last header block
        /// (trailers, or a Trailers-Only head), for streams that asked
        /// ([`Deliver::grpc_status`]); `u16::MAX` when it is not a number.
        grpc_status: Option<u16>,
    },
    /// The stream ended without a complete response.
    Failed { user: T, error: StreamError },
}

/// What [`crate::Connection::receive_detailed`] reports: each stream's end, and
/// for the streams that asked, their final head and body bytes as they come.
#[derive(Debug, PartialEq, Eq)]
pub enum Received<'a, T> {
    Ended(Event<T>),
    /// The final response head of a stream that asked for its fields.
    Head {
        user: &'a T,
        status: u16,
        fields: &'a [(&'a [u8], &'a [u8])],
    },
    /// Body bytes of a stream that asked for them.
    Data {
        user: &'a T,
        chunk: &'a [u8],
    },
    /// A `grpc-message` field (as sent: percent-encoded) of a stream that
    /// reads its gRPC status, with the status known so far.
    GrpcMessage {
        user: &'a T,
        grpc_status: Option<u16>,
        message: &'a [u8],
    },
}

/// What a stream wants delivered besides its end, and what its response
/// may hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deliver {
    /// The final head's fields; needs [`crate::Config::keep_header_fields`].
    pub headers: bool,
    pub body: bool,
    /// The request is a HEAD: its response has no body, whatever its
    /// `content-length` says.
    pub head: bool,
    /// Read `grpc-status` from the response's header blocks (a gRPC call);
    /// needs [`crate::Config::keep_header_fields`].
    pub grpc_status: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// The server reset the stream with this error code.
    Reset(u32),
    /// The server's GOAWAY said it will not process this stream.
    Refused,
    /// The server broke the protocol on this stream; we reset it.
    Malformed(&'static str),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::Reset(code) => write!(
                f,
                "the server reset the stream ({})",
                frame::error_code_name(*code)
            ),
            StreamError::Refused => {
                f.write_str("the server sent GOAWAY before processing the stream")
            }
            StreamError::Malformed(what) => write!(f, "malformed response: {what}"),
        }
    }
}

/// The server's GOAWAY.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoAway {
    pub last_stream_id: u32,
    pub code: u32,
}
