//! One request on its own QUIC stream: the HEADERS frame (encoded once per
//! run) and body written, then the response read to the stream's end, as
//! quinn-proto hands the stream's data over.

use super::frame::{self, Field, ResponseError, ResponseReader, ResponseSink};
use crate::events::Exchange;
use bytes::Bytes;
use quinn_proto::{ReadError, RecvStream, SendStream, StreamId, WriteError};

/// What one request brought back.
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

/// A request in flight on its stream: an entry of the connection's request
/// table ([`RequestTable`](super::table::RequestTable)).
///
/// Every packet that brings a piece of a response looks its stream up and
/// reads on. Under `-c 64 -m 64 -t 2` a worker thread holds about 2,000
/// of these, and the servers interleave them packet by packet, so nearly
/// every lookup starts from memory. So the entry is laid out for that path: the ID the lookup
/// compares, then the reader's state and byte count, on the entry's first
/// cache line; what only a request's start and end use comes after, and
/// what few requests need is boxed. 192 bytes on 64-bit Linux, where it was
/// 376 (docs/performance.md, "HTTP/3: the request table's entry").
#[repr(C, align(64))]
pub(super) struct RequestStream {
    pub id: StreamId,
    reader: ResponseReader,
    pub exchange: Exchange,
    response: Collect,
    /// What flow control has not taken yet of the request's frames: nearly
    /// always nothing once the stream opens.
    unsent: Option<Box<Unsent>>,
}

impl RequestStream {
    /// The request on its new stream `id`, written as far as quinn-proto's
    /// flow control lets it.
    pub fn open(
        id: StreamId,
        exchange: Exchange,
        outgoing: Outgoing,
        grpc: bool,
        send: SendStream<'_>,
    ) -> Result<RequestStream, Failure> {
        let mut unsent = Unsent::new(outgoing);
        unsent.write(send)?;
        Ok(RequestStream {
            id,
            reader: ResponseReader::new(exchange.wants.body),
            exchange,
            response: Collect::new(exchange.wants.headers, grpc),
            unsent: (!unsent.is_written()).then(|| Box::new(unsent)),
        })
    }

    /// Whether the whole request is written (or the server stopped it).
    pub fn is_written(&self) -> bool {
        self.unsent.is_none()
    }

    /// Writes more of the request, as flow control lets through.
    pub fn write(&mut self, send: SendStream<'_>) -> Result<(), Failure> {
        let Some(unsent) = &mut self.unsent else {
            return Ok(());
        };
        unsent.write(send)?;
        if unsent.is_written() {
            self.unsent = None;
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
        let response = self.response;
        let kept = response.kept.map(|kept| *kept).unwrap_or_default();
        Exchanged {
            status: response.status,
            header_bytes: response.header_bytes,
            uncompressed_header_bytes: response.uncompressed_header_bytes,
            data_bytes: self.reader.data_bytes(),
            headers: kept.headers,
            body: kept.body,
            grpc_status: response.grpc_status,
            grpc_message: kept.grpc_message,
        }
    }
}

/// The request's frames that quinn-proto has not taken yet.
struct Unsent {
    /// Those before `written` are quinn-proto's.
    chunks: [Bytes; 3],
    written: usize,
    count: usize,
}

impl Unsent {
    fn new(outgoing: Outgoing) -> Self {
        let (chunks, count) = match outgoing.body {
            Some((data_header, body)) => ([outgoing.headers, data_header, body], 3),
            None => ([outgoing.headers, Bytes::new(), Bytes::new()], 1),
        };
        Unsent {
            chunks,
            written: 0,
            count,
        }
    }

    fn is_written(&self) -> bool {
        self.written == self.count
    }

    /// Writes what quinn-proto's flow control lets through, and finishes
    /// the stream after the last byte.
    fn write(&mut self, mut send: SendStream<'_>) -> Result<(), Failure> {
        // Until all is written or quinn-proto refuses: only a write that
        // takes nothing registers the stream for a Writable event.
        while !self.is_written() {
            match send.write_chunks(&mut self.chunks[self.written..self.count]) {
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
                let _ = send.finish();
            }
        }
        Ok(())
    }
}

/// Gathers what the request wants as the reader hands it on.
struct Collect {
    header_bytes: u64,
    uncompressed_header_bytes: u64,
    /// Fields and a `grpc-message`, for the requests that keep them.
    kept: Option<Box<Kept>>,
    status: u16,
    /// A gRPC call's `grpc-status`, from the trailers or a Trailers-Only head.
    grpc_status: Option<u16>,
    keep_headers: bool,
    grpc: bool,
}

/// What a response brought beyond its figures.
#[derive(Default)]
struct Kept {
    headers: Option<Vec<Field>>,
    body: Vec<Bytes>,
    grpc_message: Option<Bytes>,
}

impl Collect {
    fn new(keep_headers: bool, grpc: bool) -> Self {
        Collect {
            header_bytes: 0,
            uncompressed_header_bytes: 0,
            kept: None,
            status: 0,
            grpc_status: None,
            keep_headers,
            grpc,
        }
    }

    fn kept(&mut self) -> &mut Kept {
        self.kept.get_or_insert_with(Box::default)
    }

    /// Notes `grpc-status` and `grpc-message`, from the head or the trailers.
    fn grpc_field(&mut self, name: &[u8], value: &[u8]) {
        match name {
            b"grpc-status" => {
                let status = std::str::from_utf8(value)
                    .ok()
                    .and_then(|text| text.parse().ok())
                    .unwrap_or(u16::MAX);
                self.grpc_status = Some(status);
            }
            b"grpc-message" => self.kept().grpc_message = Some(Bytes::copy_from_slice(value)),
            _ => {}
        }
    }
}

impl ResponseSink for Collect {
    fn field(&mut self, name: &[u8], value: &[u8]) {
        self.uncompressed_header_bytes += (name.len() + value.len()) as u64;
        if self.grpc {
            self.grpc_field(name, value);
        }
        if self.keep_headers {
            self.kept()
                .headers
                .get_or_insert_with(Vec::new)
                .push((Bytes::copy_from_slice(name), Bytes::copy_from_slice(value)));
        }
    }

    fn head(&mut self, status: u16, encoded_len: u64) {
        self.status = status;
        self.header_bytes = encoded_len;
        // `:status` and its three digits, as nghttp3 counts them.
        self.uncompressed_header_bytes += 10;
        if self.keep_headers {
            self.kept().headers.get_or_insert_with(Vec::new);
        }
    }

    // Not inlined: inlined into the reader, its load of `kept` was hoisted
    // above the reader's check of `keep_body`, and every piece of every
    // body touched the entry's last cache line.
    #[inline(never)]
    fn data(&mut self, piece: Bytes) {
        self.kept().body.push(piece);
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

#[cfg(all(test, target_os = "linux", target_pointer_width = "64"))]
mod tests {
    use super::*;

    /// The layout the packet path counts on; a field added to the entry
    /// belongs after the first line, or boxed.
    #[test]
    fn an_entry_is_three_cache_lines_the_first_one_hot() {
        assert_eq!(std::mem::size_of::<RequestStream>(), 192);
        assert_eq!(std::mem::align_of::<RequestStream>(), 64);
        assert_eq!(std::mem::offset_of!(RequestStream, reader), 8);
    }
}
