//! HTTP/2 over loadgen's own sans-IO connection (`loadgen-http2`): this
//! file owns the socket, the connection owns the protocol.
//!
//! The `h2` crate did this job first; it spent about 60% more instructions
//! per request than h2load, most of them building `http` types for each
//! request and decoding every response header (docs/performance.md). Here
//! each request's header blocks are encoded once per run (the fields every
//! request repeats indexed after a connection's first request, as h2load's
//! nghttp2 does) and a response is decoded only as far as its status and
//! sizes, unless the request asks for its headers.

use crate::driver::{Driver, Lost, OpenContext, Prepared, Protocol};
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange, Head, Header, Response};
use crate::grpc;
use crate::plan::{Http2Options, Plan};
use crate::plan_error::PlanError;
use crate::request::{is_connection_specific, Request, RequestRef};
use crate::transport::{Carrier, Link, Transport};
use bytes::Bytes;
use loadgen_http2::{
    hpack, Config, Connection, ConnectionError, Deliver, Event, Received, StreamError,
};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::io::AsyncWrite;

/// Read buffers start small and double whenever a read fills them; a
/// frame other than DATA must fit whole, so they may grow to the largest
/// frame the plan allows.
const FIRST_READ_BUFFER: usize = 4 * 1024;
const LARGEST_READ_BUFFER: usize = 64 * 1024;

/// The protocol as registered.
pub struct Http2;

impl Protocol for Http2 {
    fn alpn(&self) -> &'static str {
        "h2"
    }

    fn cleartext_name(&self) -> Option<&'static str> {
        Some("h2c")
    }

    fn carrier(&self) -> Carrier {
        Carrier::Stream
    }

    fn prepare(&self, plan: &Plan, requests: &[Request]) -> Result<Box<dyn Prepared>, PlanError> {
        let scheme = plan.endpoint.scheme.as_str();
        let headers: Vec<Vec<(String, String)>> = requests.iter().map(sent_headers).collect();
        let fields: Vec<hpack::RequestFields<'_>> = requests
            .iter()
            .zip(&headers)
            .map(|(request, headers)| request_fields(request, scheme, headers))
            .collect();
        Ok(Box::new(HeaderBlocks {
            blocks: hpack::RequestBlocks::encode(&fields),
            per_request: requests
                .iter()
                .map(|r| Listed {
                    body: r.body.clone(),
                    head: r.is_head(),
                })
                .collect(),
            scheme,
            settings: plan.http2,
            grpc: plan.grpc,
        }))
    }
}

/// Each of the run's requests as HPACK header blocks, encoded once: the
/// fields every request repeats go into the dynamic table with a
/// connection's first request, and later ones refer to them.
pub struct HeaderBlocks {
    blocks: hpack::RequestBlocks,
    per_request: Vec<Listed>,
    scheme: &'static str,
    settings: Http2Options,
    /// gRPC calls: every stream reads its `grpc-status`.
    grpc: bool,
}

/// What else the connection needs of one of the run's requests.
struct Listed {
    body: Option<Bytes>,
    /// A HEAD request: its response has no body whatever its content-length.
    head: bool,
}

/// The header fields HTTP/2 sends: none of HTTP/1.1's connection-specific ones.
fn sent_headers(request: &Request) -> Vec<(String, String)> {
    request
        .headers
        .iter()
        .filter(|(name, _)| !is_connection_specific(name))
        .cloned()
        .collect()
}

fn request_fields<'a>(
    request: &'a Request,
    scheme: &'a str,
    headers: &'a [(String, String)],
) -> hpack::RequestFields<'a> {
    hpack::RequestFields {
        method: &request.method,
        scheme,
        authority: &request.authority,
        path: &request.path,
        headers,
    }
}

/// A request made for one send: static table and literals only, so that
/// it never depends on what the connection's table holds.
fn header_block(request: &Request, scheme: &str) -> Box<[u8]> {
    let headers = sent_headers(request);
    let mut block = Vec::new();
    hpack::encode_request(
        &request.method,
        scheme,
        &request.authority,
        &request.path,
        &headers,
        &mut block,
    );
    block.into_boxed_slice()
}

impl Prepared for HeaderBlocks {
    fn open<'a>(&'a self, link: Link, context: OpenContext<'a>) -> Box<dyn Driver + 'a> {
        let Link::Stream(transport) = link else {
            unreachable!("HTTP/2 runs on a byte stream")
        };
        let settings = &self.settings;
        let config = Config {
            stream_window: settings.stream_window(),
            connection_window: settings.connection_window(),
            max_frame_size: settings.max_frame_size,
            header_table_size: settings.header_table_size,
            // A call's status is a header field's value, so the HPACK
            // table must keep values for gRPC too.
            keep_header_fields: context.headers_wanted || self.grpc,
            ..Config::default()
        };
        Box::new(Http2Connection {
            transport,
            blocks: self,
            connection: Connection::new(config),
            read_buf: Vec::with_capacity(FIRST_READ_BUFFER),
            expired: Vec::new(),
        })
    }
}

struct Http2Connection<'a> {
    transport: Transport,
    blocks: &'a HeaderBlocks,
    connection: Connection<Exchange>,
    read_buf: Vec<u8>,
    /// Streams past their request timeout, kept to reuse the storage.
    expired: Vec<u32>,
}

/// Writes what `connection` has for the server, as far as the socket takes it.
pub(crate) fn write_output<T>(
    connection: &mut Connection<T>,
    transport: &mut Transport,
    cx: &mut Context<'_>,
    events: &mut Events<'_>,
) -> std::io::Result<()> {
    while !connection.output().is_empty() {
        match Pin::new(&mut *transport).poll_write(cx, connection.output()) {
            Poll::Ready(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
            Poll::Ready(Ok(n)) => {
                connection.consume_output(n);
                events.wrote(n);
            }
            Poll::Ready(Err(e)) => return Err(e),
            Poll::Pending => return Ok(()),
        }
    }
    transport.push_out(cx)
}

/// Reads what the server sent after what `read_buf` holds; the buffer
/// grows with the reads that fill it.
pub(crate) fn read_more(
    transport: &mut Transport,
    read_buf: &mut Vec<u8>,
    cx: &mut Context<'_>,
) -> Poll<std::io::Result<usize>> {
    let spare = read_buf.capacity() - read_buf.len();
    if spare < FIRST_READ_BUFFER / 4 {
        read_buf.reserve(FIRST_READ_BUFFER);
    }
    let offered = read_buf.capacity() - read_buf.len();
    let read = transport.poll_read_append(cx, read_buf);
    if matches!(read, Poll::Ready(Ok(n)) if n == offered)
        && read_buf.capacity() < LARGEST_READ_BUFFER
    {
        read_buf.reserve(read_buf.capacity());
    }
    read
}

impl Http2Connection<'_> {
    fn poll_write(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> std::io::Result<()> {
        write_output(&mut self.connection, &mut self.transport, cx, events)
    }

    /// `Ok(true)`: bytes were read and handled; `Ok(false)`: nothing yet.
    fn poll_read(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Result<bool, Lost> {
        let n = match read_more(&mut self.transport, &mut self.read_buf, cx) {
            Poll::Pending => return Ok(false),
            Poll::Ready(Err(e)) => {
                return Err(Lost::new(ErrorKind::Reset, format!("read failed: {e}")));
            }
            Poll::Ready(Ok(n)) => n,
        };
        let now = Instant::now();
        if n == 0 {
            events.active(now);
            let open = self.connection.open_streams();
            return Err(Lost::new(
                ErrorKind::Reset,
                format!("server closed the connection with {open} stream(s) open"),
            ));
        }
        events.read(n, now);
        match self.receive(now, events) {
            Ok(()) => Ok(true),
            Err(e) => Err(Lost::new(ErrorKind::Protocol, describe(&e))),
        }
    }

    /// Hands what was read to the connection and reports the streams that ended.
    fn receive(&mut self, now: Instant, events: &mut Events<'_>) -> Result<(), ConnectionError> {
        let grpc = self.blocks.grpc;
        let Self {
            connection,
            read_buf,
            ..
        } = self;
        let consumed = connection.receive_detailed(read_buf, &mut |received| match received {
            Received::Ended(Event::Response {
                user,
                status,
                header_bytes,
                header_bytes_uncompressed,
                data_bytes,
                grpc_status,
            }) => {
                let response = Response {
                    status,
                    header_bytes,
                    header_bytes_uncompressed,
                    data_bytes,
                    grpc_status: grpc.then(|| grpc::call_status(status, grpc_status)),
                };
                events.complete(&user, &response, now);
            }
            Received::Ended(Event::Failed { user, error }) => {
                let kind = match error {
                    StreamError::Malformed(_) => ErrorKind::Protocol,
                    StreamError::Reset(_) | StreamError::Refused => ErrorKind::Reset,
                };
                events.failed(&user, kind, || format!("HTTP/2: {error}"));
            }
            Received::Head {
                user,
                status,
                fields,
            } => {
                let headers: Vec<Header<'_>> = fields
                    .iter()
                    .filter(|(name, _)| !name.starts_with(b":"))
                    .map(|&(name, value)| Header { name, value })
                    .collect();
                events.head(
                    user,
                    &Head {
                        status,
                        headers: &headers,
                    },
                );
            }
            Received::Data { user, chunk } => events.body(user, chunk),
            Received::GrpcMessage {
                user,
                grpc_status,
                message,
            } => events.grpc_message(user, grpc_status, message),
        })?;
        if consumed == read_buf.len() {
            read_buf.clear();
        } else {
            read_buf.drain(..consumed);
        }
        Ok(())
    }
}

impl Driver for Http2Connection<'_> {
    fn can_start(&self) -> bool {
        self.connection.can_start_request()
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        let mut deliver = Deliver {
            headers: exchange.wants.headers,
            body: exchange.wants.body,
            head: false,
            grpc_status: self.blocks.grpc,
        };
        match request {
            RequestRef::Listed(index) => {
                let listed = &self.blocks.per_request[index];
                deliver.head = listed.head;
                self.connection.start_request_with(
                    self.blocks.blocks.get(index),
                    listed.body.as_ref(),
                    exchange,
                    deliver,
                );
            }
            RequestRef::Made(request) => {
                let block = header_block(request, self.blocks.scheme);
                deliver.head = request.is_head();
                self.connection.start_request_delivering(
                    &block,
                    request.body.as_ref(),
                    exchange,
                    deliver,
                );
            }
        }
    }

    fn in_flight(&self) -> usize {
        self.connection.open_streams()
    }

    fn is_closing(&self) -> bool {
        self.connection.is_closing()
    }

    fn poll(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>> {
        if let Err(e) = self.poll_write(cx, events) {
            return Poll::Ready(Err(Lost::new(
                ErrorKind::Reset,
                format!("write failed: {e}"),
            )));
        }
        match self.poll_read(cx, events) {
            Ok(true) => Poll::Ready(Ok(())),
            Ok(false) => Poll::Pending,
            Err(lost) => Poll::Ready(Err(lost)),
        }
    }

    fn oldest_sent(&self) -> Option<Instant> {
        self.connection.streams().map(|(_, s)| s.sent).min()
    }

    fn time_out(&mut self, cutoff: Instant, events: &mut Events<'_>) -> Result<(), Lost> {
        // Reset the expired streams and keep the rest.
        self.expired.clear();
        self.expired.extend(
            self.connection
                .streams()
                .filter(|(_, s)| s.sent <= cutoff)
                .map(|(id, _)| id),
        );
        for id in self.expired.drain(..) {
            if let Some(expired) = self.connection.cancel(id) {
                events.failed(&expired, ErrorKind::Timeout, || "request timed out".into());
            }
        }
        Ok(())
    }

    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        for lost in self.connection.take_streams() {
            each(lost);
        }
    }
}

fn describe(error: &ConnectionError) -> String {
    if error.is_not_http2() {
        format!(
            "HTTP/2 protocol error: {error} (does the server speak HTTP/2? \
             for cleartext HTTP/1.1 use -p http/1.1 or --h1)"
        )
    } else {
        format!("HTTP/2 protocol error: {error}")
    }
}
