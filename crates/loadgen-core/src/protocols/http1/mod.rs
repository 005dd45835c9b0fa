//! HTTP/1.1: one TCP or TLS stream per connection, requests serialized
//! once per run, responses parsed by a sans-IO parser, pipelining up to
//! `-m` like h2load.

mod connection;
pub mod parser;

use crate::driver::{Driver, OpenContext, Prepared, Protocol};
use crate::plan::Plan;
use crate::plan_error::PlanError;
use crate::request::Request;
use crate::transport::{Carrier, Link};
use connection::Connection;

/// The protocol as registered.
pub struct Http1;

impl Protocol for Http1 {
    fn alpn(&self) -> &'static str {
        "http/1.1"
    }

    fn cleartext_name(&self) -> Option<&'static str> {
        Some("http/1.1")
    }

    fn carrier(&self) -> Carrier {
        Carrier::Stream
    }

    fn prepare(&self, _plan: &Plan, requests: &[Request]) -> Result<Box<dyn Prepared>, PlanError> {
        Ok(Box::new(RequestBytes::new(requests)))
    }
}

/// Each of the run's requests, head and body, serialized once.
pub struct RequestBytes {
    per_request: Vec<Box<[u8]>>,
    head: Vec<bool>,
    /// As in h2load, a request body turns pipelining off.
    has_body: bool,
}

impl RequestBytes {
    pub fn new(requests: &[Request]) -> Self {
        RequestBytes {
            per_request: requests
                .iter()
                .map(|request| {
                    let mut out = Vec::with_capacity(128);
                    serialize(request, &mut out);
                    out.into_boxed_slice()
                })
                .collect(),
            head: requests.iter().map(Request::is_head).collect(),
            has_body: requests.iter().any(|r| r.body.is_some()),
        }
    }

    pub fn get(&self, request: usize) -> &[u8] {
        &self.per_request[request]
    }
}

impl Prepared for RequestBytes {
    fn open<'a>(&'a self, link: Link, context: OpenContext<'a>) -> Box<dyn Driver + 'a> {
        let Link::Stream(transport) = link else {
            unreachable!("HTTP/1.1 runs on a byte stream")
        };
        Box::new(Connection::new(
            transport,
            self,
            context.read_buffer,
            context.watch_idle,
        ))
    }
}

/// A request's bytes on the wire.
pub(crate) fn serialize(request: &Request, out: &mut Vec<u8>) {
    out.extend_from_slice(request.method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(request.path.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\nHost: ");
    out.extend_from_slice(request.authority.as_bytes());
    out.extend_from_slice(b"\r\n");
    for (name, value) in &request.headers {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    if let Some(body) = &request.body {
        out.extend_from_slice(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_bytes_are_complete_http11() {
        let request = Request {
            method: "POST".into(),
            path: "/p?q=1".into(),
            authority: "h:8080".into(),
            headers: vec![
                ("user-agent".into(), "x".into()),
                ("content-length".into(), "2".into()),
            ],
            body: Some(bytes::Bytes::from_static(b"hi")),
        };
        let bytes = RequestBytes::new(&[request]);
        assert_eq!(
            bytes.get(0),
            b"POST /p?q=1 HTTP/1.1\r\nHost: h:8080\r\nuser-agent: x\r\ncontent-length: 2\r\n\r\nhi"
        );
    }
}
