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
mod tls;

pub use server::FaultServer;

use std::io;
use std::net::TcpStream;

/// A way for a server to break the protocol or the connection. HTTP/1.1
/// faults answer every request the same way; HTTP/2 faults speak h2c with
/// prior knowledge; TLS faults break the handshake.
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
    /// HTTP/1.1: status 999, outside the 100-599 that RFC 9110 defines.
    StatusOutOfRange,
    /// HTTP/1.1: header lines folded the obsolete way, Content-Length's
    /// value on its continuation line.
    ObsFold,
    /// HTTP/1.1: a close-delimited body (`Transfer-Encoding: gzip`) cut
    /// off, on a connection that stays open.
    CloseDelimitedStall,
    /// HTTP/1.1: every request is read, none is answered.
    Stall,
    /// HTTP/1.1: every request is answered properly, a byte at a time,
    /// 10 ms apart.
    Slowloris,
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
    /// h2c: DATA shorter than the response's content-length.
    ContentLengthShort,
    /// h2c: DATA longer than the response's content-length.
    ContentLengthLong,
    /// h2c: SETTINGS_INITIAL_WINDOW_SIZE 0 and never a WINDOW_UPDATE, so
    /// that no request body larger than the 65,535 bytes allowed before
    /// the SETTINGS can be sent whole; no request is answered.
    ZeroWindow,
    /// h2c: after the first request, 50 MB of PINGs, and nothing read.
    PingFlood,
    /// h2c: after the first request, 50 MB of SETTINGS frames, and
    /// nothing read.
    SettingsFlood,
    /// TLS: the connection is accepted and the ClientHello read, but no
    /// ServerHello ever comes.
    TlsHandshakeStall,
    /// TLS: the handshake completes with no ALPN protocol selected.
    AlpnNone,
    /// TLS: the server supports only `spdy/3.1` and refuses the handshake
    /// with the `no_application_protocol` alert.
    AlpnRefused,
    /// TLS: a ServerHello that selects `spdy/3.1`, which the client did
    /// not offer.
    AlpnUnoffered,
    /// TLS: a certificate that expired at the start of 2021.
    ExpiredCertificate,
}

impl Fault {
    pub const ALL: [Fault; 32] = [
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
        Fault::StatusOutOfRange,
        Fault::ObsFold,
        Fault::CloseDelimitedStall,
        Fault::Stall,
        Fault::Slowloris,
        Fault::ContinuationFlood,
        Fault::GoawayMidRun,
        Fault::RstStreamEveryStream,
        Fault::MalformedFrame,
        Fault::NoSettings,
        Fault::ContentLengthShort,
        Fault::ContentLengthLong,
        Fault::ZeroWindow,
        Fault::PingFlood,
        Fault::SettingsFlood,
        Fault::TlsHandshakeStall,
        Fault::AlpnNone,
        Fault::AlpnRefused,
        Fault::AlpnUnoffered,
        Fault::ExpiredCertificate,
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
                | Fault::ContentLengthShort
                | Fault::ContentLengthLong
                | Fault::ZeroWindow
                | Fault::PingFlood
                | Fault::SettingsFlood
        )
    }

    /// Whether a client has to speak TLS to meet it.
    pub fn is_tls(self) -> bool {
        matches!(
            self,
            Fault::TlsHandshakeStall
                | Fault::AlpnNone
                | Fault::AlpnRefused
                | Fault::AlpnUnoffered
                | Fault::ExpiredCertificate
        )
    }

    /// What a client speaks to meet it: `http/1.1`, `h2c` or `tls`.
    pub fn protocol(self) -> &'static str {
        if self.is_tls() {
            "tls"
        } else if self.is_http2() {
            "h2c"
        } else {
            "http/1.1"
        }
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
            Fault::StatusOutOfRange => http1::status_out_of_range(stream),
            Fault::ObsFold => http1::obs_fold(stream),
            Fault::CloseDelimitedStall => http1::close_delimited_stall(stream),
            Fault::Stall => http1::stall(stream),
            Fault::Slowloris => http1::slowloris(stream),
            Fault::ContinuationFlood => h2c::continuation_flood(stream),
            Fault::GoawayMidRun => h2c::goaway_mid_run(stream),
            Fault::RstStreamEveryStream => h2c::rst_stream_every_stream(stream),
            Fault::MalformedFrame => h2c::malformed_frame(stream),
            Fault::NoSettings => h2c::no_settings(stream),
            Fault::ContentLengthShort => h2c::content_length_short(stream),
            Fault::ContentLengthLong => h2c::content_length_long(stream),
            Fault::ZeroWindow => h2c::zero_window(stream),
            Fault::PingFlood => h2c::ping_flood(stream),
            Fault::SettingsFlood => h2c::settings_flood(stream),
            Fault::TlsHandshakeStall => tls::handshake_stall(stream),
            Fault::AlpnNone => tls::alpn_none(stream),
            Fault::AlpnRefused => tls::alpn_refused(stream),
            Fault::AlpnUnoffered => tls::alpn_unoffered(stream),
            Fault::ExpiredCertificate => tls::expired_certificate(stream),
        }
    }
}

fn close_on_accept(stream: TcpStream) -> io::Result<()> {
    drop(stream);
    Ok(())
}

#[cfg(test)]
mod tests;
