//! Servers that misbehave on purpose, so that tests can show what a client
//! does with a broken peer: one [`Fault`] per listener, started on loopback
//! with [`FaultServer::start`] or from `loadgen serve --fault NAME`.
//!
//! Each fault is one small function over a blocking socket; a thread per
//! connection is plenty for the handful of connections a test opens, and
//! keeps every misbehaviour readable as straight-line code.

mod h2c;
mod http1;
mod server;

pub use server::FaultServer;

use std::io;
use std::net::TcpStream;

/// A way for a server to break the protocol or the connection. HTTP/1.1
/// faults answer every request the same way; HTTP/2 faults speak h2c with
/// prior knowledge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Fault {
    /// HTTP/1.1: a status line whose code is not three digits.
    MalformedStatusLine,
    /// HTTP/1.1: `Content-Length` that is not a number.
    BadContentLength,
    /// HTTP/1.1: two `Content-Length` headers that disagree.
    ConflictingContentLength,
    /// HTTP/1.1: a chunked body whose chunk size is not hexadecimal.
    BadChunkSize,
    /// HTTP/1.1: a chunked body cut off in its first chunk, then close.
    TruncatedChunkedBody,
    /// HTTP/1.1: the status line, then a TCP reset.
    ResetAfterStatusLine,
    /// Every connection is closed as soon as it is accepted.
    CloseOnAccept,
    /// HTTP/1.1: a 100 kB response head in one write.
    OversizedHeaderWhole,
    /// HTTP/1.1: a 100 kB response head in many small writes.
    OversizedHeaderSplit,
    /// HTTP/1.1: every response is followed by a second one nobody asked for.
    UnsolicitedResponse,
    /// HTTP/1.1: 100 Continue and 103 Early Hints before each 200.
    InterimBeforeFinal,
    /// HTTP/1.1: 204 No Content with a body.
    NoContentWithBody,
    /// h2c: a response head that never ends, HEADERS then CONTINUATION
    /// frames, up to 50 MB per connection.
    ContinuationFlood,
    /// h2c: after three responses on a connection, GOAWAY refuses the
    /// streams opened after them.
    GoawayMidRun,
    /// h2c: every stream is answered with RST_STREAM.
    RstStreamEveryStream,
    /// h2c: a PING frame 7 bytes long, a connection error.
    MalformedFrame,
    /// h2c: the connection is accepted and read, but the server never
    /// sends its SETTINGS, nor anything else.
    NoSettings,
}

impl Fault {
    pub const ALL: [Fault; 17] = [
        Fault::MalformedStatusLine,
        Fault::BadContentLength,
        Fault::ConflictingContentLength,
        Fault::BadChunkSize,
        Fault::TruncatedChunkedBody,
        Fault::ResetAfterStatusLine,
        Fault::CloseOnAccept,
        Fault::OversizedHeaderWhole,
        Fault::OversizedHeaderSplit,
        Fault::UnsolicitedResponse,
        Fault::InterimBeforeFinal,
        Fault::NoContentWithBody,
        Fault::ContinuationFlood,
        Fault::GoawayMidRun,
        Fault::RstStreamEveryStream,
        Fault::MalformedFrame,
        Fault::NoSettings,
    ];

    /// The name `serve --fault` takes.
    pub fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self)
            .map(|value| value.get_name().to_string())
            .unwrap_or_default()
    }

    /// Whether a client has to speak h2c (prior knowledge) to meet it.
    pub fn is_http2(self) -> bool {
        matches!(
            self,
            Fault::ContinuationFlood
                | Fault::GoawayMidRun
                | Fault::RstStreamEveryStream
                | Fault::MalformedFrame
                | Fault::NoSettings
        )
    }

    /// Serves one accepted connection the faulty way. An error only ends
    /// this connection: the client going away is the usual end.
    fn serve(self, stream: TcpStream) -> io::Result<()> {
        match self {
            Fault::MalformedStatusLine => http1::malformed_status_line(stream),
            Fault::BadContentLength => http1::bad_content_length(stream),
            Fault::ConflictingContentLength => http1::conflicting_content_length(stream),
            Fault::BadChunkSize => http1::bad_chunk_size(stream),
            Fault::TruncatedChunkedBody => http1::truncated_chunked_body(stream),
            Fault::ResetAfterStatusLine => http1::reset_after_status_line(stream),
            Fault::CloseOnAccept => close_on_accept(stream),
            Fault::OversizedHeaderWhole => http1::oversized_header_whole(stream),
            Fault::OversizedHeaderSplit => http1::oversized_header_split(stream),
            Fault::UnsolicitedResponse => http1::unsolicited_response(stream),
            Fault::InterimBeforeFinal => http1::interim_before_final(stream),
            Fault::NoContentWithBody => http1::no_content_with_body(stream),
            Fault::ContinuationFlood => h2c::continuation_flood(stream),
            Fault::GoawayMidRun => h2c::goaway_mid_run(stream),
            Fault::RstStreamEveryStream => h2c::rst_stream_every_stream(stream),
            Fault::MalformedFrame => h2c::malformed_frame(stream),
            Fault::NoSettings => h2c::no_settings(stream),
        }
    }
}

fn close_on_accept(stream: TcpStream) -> io::Result<()> {
    drop(stream);
    Ok(())
}

#[cfg(test)]
mod tests;
