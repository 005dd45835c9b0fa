//! One request on its own QUIC stream: the HEADERS frame (encoded once per
//! run) and body written, then the response read to the stream's end, as
//! quinn-proto hands the stream's data over.

use super::frame::{self, Field, ResponseError, ResponseReader, ResponseSink};
use crate::events::Exchange;
use crate::request::Wants;
use bytes::Bytes;
use quinn_proto::{ReadError, RecvStream, SendStream, WriteError};

/// What one request brought back.
#[derive(Default)]
pub(super) struct Exchanged {
    pub status: u16,
    /// The QPACK-encoded field section's length.
    pub header_bytes: u64,
    /// `:status` and the fields' names and values, as nghttp3 counts them.
    pub uncompressed_header_bytes: u64,
    pub data_bytes: u64,
    /// The response's fields, when the request wants them.
    pub headers: Option<Vec<Field>>,
    /// The body's pieces, when the request wants them.
    pub body: Vec<Bytes>,
    /// A gRPC call's `grpc-status`, from the trailers or a Trailers-Only head.
    pub grpc_status: Option<u16>,
    /// Its `grpc-message`, as sent.
    pub grpc_message: Option<Bytes>,
}

/// Why a request ended without a response.
pub(super) enum Failure {
    /// The server reset the stream with this HTTP/3 error code.
    Reset(u64),
    /// What came back is not a valid response.
    Response(ResponseError),
    /// quinn-proto refused a use of the stream that this client does not
    /// make (a closed stream), as quinn-proto words it.
    Local(String),
}

/// What is written for one request: the HEADERS frame, and a body with
/// its DATA frame header.
pub(super) struct Outgoing {
    pub headers: Bytes,
    pub body: Option<(Bytes, Bytes)>,
}

/// A request in flight on its stream.
pub(super) struct RequestStream {
    pub exchange: Exchange,
    /// The request's frames; those before `written` are quinn-proto's.
    unsent: [Bytes; 3],
    written: usize,
    count: usize,
    reader: ResponseReader,
    response: Collect,
}

impl RequestStream {
    pub fn new(exchange: Exchange, outgoing: Outgoing, grpc: bool) -> RequestStream {
        let (unsent, count) = match outgoing.body {
            Some((data_header, body)) => ([outgoing.headers, data_header, body], 3),
            None => ([outgoing.headers, Bytes::new(), Bytes::new()], 1),
        };
        RequestStream {
            response: Collect::new(exchange.wants, grpc),
            exchange,
            unsent,
            written: 0,
            count,
            reader: ResponseReader::new(),
        }
    }

    /// Whether the whole request is written (or the server stopped it).
    pub fn is_written(&self) -> bool {
        self.written == self.count
    }

    /// Writes what quinn-proto's flow control lets through, and finishes
    /// the stream after the last byte.
    pub fn write(&mut self, mut send: SendStream<'_>) -> Result<(), Failure> {
        // Until all is written or quinn-proto refuses: only a write that
        // takes nothing registers the stream for a Writable event.
        while !self.is_written() {
            match send.write_chunks(&mut self.unsent[self.written..self.count]) {
                Ok(written) => self.written += written.chunks,
                Err(WriteError::Blocked) => return Ok(()),
                // A server may answer without reading the whole body; the
                // stream's read side says how the request ended.
                Err(WriteError::Stopped(_)) => {
                    self.written = self.count;
                    return Ok(());
                }
                Err(e @ WriteError::ClosedStream) => return Err(Failure::Local(e.to_string())),
            }
            if self.is_written() {
                self.unsent = Default::default();
                let _ = send.finish();
            }
        }
        Ok(())
    }

    /// Reads what has arrived; `Some` once the response has ended, well
    /// or not.
    pub fn read(&mut self, mut recv: RecvStream<'_>) -> Option<Result<(), Failure>> {
        let mut chunks = match recv.read(true) {
            Ok(chunks) => chunks,
            Err(e) => return Some(Err(Failure::Local(e.to_string()))),
        };
        let end = loop {
            match chunks.next(usize::MAX) {
                Ok(Some(chunk)) => {
                    if let Err(e) = self.reader.push(chunk.bytes, &mut self.response) {
                        break Some(Err(Failure::Response(e)));
                    }
                }
                Ok(None) => break Some(self.reader.finish().map_err(Failure::Response)),
                Err(ReadError::Blocked) => break None,
                Err(ReadError::Reset(code)) => break Some(Err(Failure::Reset(code.into_inner()))),
            }
        };
        // Credit for the server is sent with the connection's next packet.
        let _ = chunks.finalize();
        end
    }

    /// What the response brought, once it has ended.
    pub fn into_exchanged(self) -> Exchanged {
        self.response.done
    }
}

/// Gathers what the request wants as the reader hands it on.
struct Collect {
    wants: Wants,
    grpc: bool,
    done: Exchanged,
}

impl Collect {
    fn new(wants: Wants, grpc: bool) -> Self {
        Collect {
            wants,
            grpc,
            done: Exchanged::default(),
        }
    }

    /// Notes `grpc-status` and `grpc-message`, from the head or the trailers.
    fn grpc_field(&mut self, name: &[u8], value: &[u8]) {
        match name {
            b"grpc-status" => {
                let status = std::str::from_utf8(value)
                    .ok()
                    .and_then(|text| text.parse().ok())
                    .unwrap_or(u16::MAX);
                self.done.grpc_status = Some(status);
            }
            b"grpc-message" => self.done.grpc_message = Some(Bytes::copy_from_slice(value)),
            _ => {}
        }
    }
}

impl ResponseSink for Collect {
    fn field(&mut self, name: &[u8], value: &[u8]) {
        self.done.uncompressed_header_bytes += (name.len() + value.len()) as u64;
        if self.grpc {
            self.grpc_field(name, value);
        }
        if self.wants.headers {
            self.done
                .headers
                .get_or_insert_with(Vec::new)
                .push((Bytes::copy_from_slice(name), Bytes::copy_from_slice(value)));
        }
    }

    fn head(&mut self, status: u16, encoded_len: u64) {
        self.done.status = status;
        self.done.header_bytes = encoded_len;
        // `:status` and its three digits, as nghttp3 counts them.
        self.done.uncompressed_header_bytes += 10;
        if self.wants.headers {
            self.done.headers.get_or_insert_with(Vec::new);
        }
    }

    fn data(&mut self, piece: Bytes) {
        self.done.data_bytes += piece.len() as u64;
        if self.wants.body {
            self.done.body.push(piece);
        }
    }

    fn trailer(&mut self, name: &[u8], value: &[u8]) {
        if self.grpc {
            self.grpc_field(name, value);
        }
    }
}

/// The frames of a request: its field section in a HEADERS frame, and the
/// DATA frame header for its body.
pub(super) fn outgoing(section: &[u8], body: Option<&Bytes>) -> Outgoing {
    Outgoing {
        headers: Bytes::from(frame::frame(frame::HEADERS, section)),
        body: body.map(|body| (frame::data_header(body.len()), body.clone())),
    }
}
