//! One request on its own QUIC stream: the HEADERS frame (encoded once per
//! run) and body written, then the response read to the stream's end.

use super::frame::{self, Field, ResponseError, ResponseReader, ResponseSink};
use crate::request::Wants;
use bytes::Bytes;
use quinn::{ReadError, VarInt, WriteError};
use std::time::Duration;

/// H3_REQUEST_CANCELLED: a response this client will not read further.
const H3_REQUEST_CANCELLED: u32 = 0x10c;

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
    /// The connection ended.
    Connection(quinn::ConnectionError),
    /// What came back is not a valid response.
    Response(ResponseError),
    /// quinn refused a use of the stream that this client does not make
    /// (a closed stream, 0-RTT), as quinn words it.
    Local(String),
    /// The request's timeout, which ran out.
    Timeout(Duration),
}

/// What is written for one request: the HEADERS frame, and a body with
/// its DATA frame header.
pub(super) struct Outgoing {
    pub headers: Bytes,
    pub body: Option<(Bytes, Bytes)>,
}

/// One request from HEADERS sent to the end of the response.
pub(super) async fn exchange_one(
    connection: quinn::Connection,
    outgoing: Outgoing,
    wants: Wants,
    grpc: bool,
) -> Result<Exchanged, Failure> {
    // Waits while the server's stream limit is reached.
    let (mut send, mut recv) = connection.open_bi().await.map_err(Failure::Connection)?;
    drop(connection);
    let written = match outgoing.body {
        Some((data_header, body)) => {
            send.write_all_chunks(&mut [outgoing.headers, data_header, body])
                .await
        }
        None => send.write_all_chunks(&mut [outgoing.headers]).await,
    };
    match written {
        // A server may answer without reading the whole body; the stream's
        // read side says how the request ended.
        Ok(()) | Err(WriteError::Stopped(_)) => {}
        Err(WriteError::ConnectionLost(e)) => return Err(Failure::Connection(e)),
        Err(e @ (WriteError::ClosedStream | WriteError::ZeroRttRejected)) => {
            return Err(Failure::Local(e.to_string()))
        }
    }
    let _ = send.finish();
    let mut reader = ResponseReader::new();
    let mut response = Collect::new(wants, grpc);
    loop {
        match recv.read_chunk(usize::MAX, true).await {
            Ok(Some(chunk)) => {
                if let Err(e) = reader.push(chunk.bytes, &mut response) {
                    let _ = recv.stop(VarInt::from_u32(H3_REQUEST_CANCELLED));
                    return Err(Failure::Response(e));
                }
            }
            Ok(None) => break,
            Err(ReadError::Reset(code)) => return Err(Failure::Reset(code.into_inner())),
            Err(ReadError::ConnectionLost(e)) => return Err(Failure::Connection(e)),
            Err(
                e @ (ReadError::ClosedStream
                | ReadError::IllegalOrderedRead
                | ReadError::ZeroRttRejected),
            ) => return Err(Failure::Local(e.to_string())),
        }
    }
    reader.finish().map_err(Failure::Response)?;
    Ok(response.done)
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
            done: Exchanged {
                status: 0,
                header_bytes: 0,
                uncompressed_header_bytes: 0,
                data_bytes: 0,
                headers: None,
                body: Vec::new(),
                grpc_status: None,
                grpc_message: None,
            },
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
