//! How a request ended, recorded: a response's figures and headers, or the
//! failure with its kind; and why a connection was lost.

use super::frame::H3_REQUEST_REJECTED;
use super::stream::{Exchanged, Failure};
use super::Http3Connection;
use crate::driver::Lost;
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange, Head, Header, Response};
use crate::grpc;
use crate::quic::{describe_error, h3_code_name};
use quinn_proto::ConnectionError;
use std::time::Instant;

impl Http3Connection<'_> {
    /// Records how a request ended.
    pub(super) fn report(
        &mut self,
        exchange: Exchange,
        result: Result<Exchanged, Failure>,
        events: &mut Events<'_>,
    ) {
        let now = Instant::now();
        events.active(now);
        match result {
            Ok(done) => {
                // h2load takes HTTP/3's first byte at the end of the first stream.
                events.first_byte(now);
                if let Some(headers) = &done.headers {
                    let fields: Vec<Header<'_>> = headers
                        .iter()
                        .map(|(name, value)| Header { name, value })
                        .collect();
                    let head = Head {
                        status: done.status,
                        headers: &fields,
                    };
                    events.head(&exchange, &head);
                }
                for piece in &done.body {
                    events.body(&exchange, piece);
                }
                if let Some(message) = &done.grpc_message {
                    events.grpc_message(&exchange, done.grpc_status, message);
                }
                let response = Response {
                    status: done.status,
                    header_bytes: done.header_bytes,
                    header_bytes_uncompressed: done.uncompressed_header_bytes,
                    data_bytes: done.data_bytes,
                    grpc_status: self
                        .templates
                        .grpc
                        .then(|| grpc::call_status(done.status, done.grpc_status)),
                };
                events.complete(&exchange, &response, now);
            }
            Err(Failure::Reset(code)) => {
                // Refused unprocessed: the server is going away.
                if code == H3_REQUEST_REJECTED {
                    self.going_away = true;
                }
                events.failed(&exchange, ErrorKind::Reset, || {
                    format!("the server reset the stream with {}", h3_code_name(code))
                });
            }
            Err(Failure::Response(e)) => {
                events.failed(&exchange, ErrorKind::Protocol, || e.to_string());
            }
            Err(Failure::Local(message)) => {
                events.failed(&exchange, ErrorKind::Other, || format!("HTTP/3: {message}"));
            }
        }
    }

    /// Why the connection is over, with what was in flight.
    pub(super) fn connection_lost(&self) -> Lost {
        let kind = match &self.closed {
            Some(ConnectionError::TimedOut) => ErrorKind::Timeout,
            _ => ErrorKind::Reset,
        };
        let message = match &self.closed {
            Some(reason) => format!("HTTP/3: {}", describe_error(reason)),
            None => "HTTP/3: the connection was lost".into(),
        };
        Lost::new(kind, message)
    }

    pub(super) fn socket_failed(error: std::io::Error) -> Lost {
        Lost::new(
            ErrorKind::Reset,
            format!("HTTP/3: the UDP socket failed: {error}"),
        )
    }
}
