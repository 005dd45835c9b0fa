//! A run's requests encoded once for HTTP/3: each request's HEADERS frame,
//! and a body's DATA frame header, are made when the run is prepared, so
//! starting a request clones `Bytes` and encodes nothing.

use super::stream::{self, Outgoing};
use super::{qpack, Http3Connection};
use crate::driver::{Driver, OpenContext, Prepared};
use crate::request::{is_connection_specific, Request};
use crate::transport::Link;

/// A request's frames, encoded once: sending it clones two `Bytes`.
pub(super) struct Template {
    headers: bytes::Bytes,
    body: Option<(bytes::Bytes, bytes::Bytes)>,
}

impl Template {
    pub(super) fn outgoing(&self) -> Outgoing {
        Outgoing {
            headers: self.headers.clone(),
            body: self.body.clone(),
        }
    }
}

/// Requests reach drivers validated ([`crate::request::validate`]), with
/// lower-case header names.
pub(super) fn template(request: &Request, scheme: &str) -> Template {
    let fields = request
        .headers
        .iter()
        .filter(|(name, _)| !is_connection_specific(name))
        .map(|(name, value)| (name.as_str(), value.as_str()));
    let section = qpack::encode_request(
        &request.method,
        scheme,
        &request.authority,
        &request.path,
        fields,
    );
    let Outgoing { headers, body } = stream::outgoing(&section, request.body.as_ref());
    Template { headers, body }
}

/// The run's requests for HTTP/3.
pub(super) struct Templates {
    pub(super) per_request: Vec<Template>,
    pub(super) scheme: &'static str,
    /// gRPC calls: every response's trailers are read for `grpc-status`.
    pub(super) grpc: bool,
}

impl Prepared for Templates {
    fn open<'a>(&'a self, link: Link, _context: OpenContext<'a>) -> Box<dyn Driver + 'a> {
        let Link::Quic(quic) = link else {
            unreachable!("HTTP/3 runs on QUIC")
        };
        Box::new(Http3Connection::open(*quic, self))
    }
}
