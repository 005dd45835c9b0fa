//! gRPC on the HTTP/2 (cleartext and TLS) and HTTP/3 listeners: the echo
//! service of proto/echo.proto and server reflection. Requests are told
//! apart by their `content-type`; their bodies are read whole (up to
//! [`framing::MAX_REQUEST`]) before the call is answered.
//!
//! A call that succeeds is answered with headers, its framed replies and
//! trailers carrying `grpc-status: 0`; a call that fails with a
//! Trailers-Only response: one HEADERS with `grpc-status` and
//! `grpc-message` and no body.

mod descriptor;
mod echo;
mod framing;
mod reflection;
mod status;

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::request::Parts;
use http::{HeaderMap, Method, Response, StatusCode, Version};

use crate::body::Body;
pub(crate) use descriptor::ECHO_DESCRIPTOR_SET;
pub(crate) use framing::Upload;
use status::{Status, OK, UNIMPLEMENTED};

/// The echo service's full name.
pub(crate) const ECHO_SERVICE: &str = "loadgen.echo.v1.Echo";
/// Its one method's path.
pub(crate) const ECHO_PATH: &str = "/loadgen.echo.v1.Echo/Echo";

/// True for a gRPC request (`application/grpc`, `application/grpc+proto`
/// or another sub-type, to be refused), not for gRPC-Web.
pub(crate) fn is_grpc(headers: &HeaderMap) -> bool {
    sub_type(headers).is_some()
}

/// What follows `application/grpc` in the content type: "" or "+proto"...
fn sub_type(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    let rest = value.strip_prefix("application/grpc")?;
    let rest = rest.split(';').next().unwrap_or("").trim();
    (rest.is_empty() || rest.starts_with('+')).then_some(rest)
}

/// The response to a gRPC request whose body was read into `upload`.
pub(crate) fn respond(head: &Parts, upload: Upload) -> Response<Body> {
    if !matches!(sub_type(&head.headers), Some("" | "+proto")) {
        // The spec's answer for a content type the server cannot read.
        let mut response = Response::new(Body::from_static("only application/grpc+proto\n"));
        *response.status_mut() = StatusCode::UNSUPPORTED_MEDIA_TYPE;
        return response;
    }
    match call(head, upload) {
        Ok(replies) => {
            let mut trailers = HeaderMap::new();
            trailers.insert("grpc-status", HeaderValue::from(OK));
            grpc_response(Body::with_trailers(framing::frame(&replies), trailers))
        }
        Err(status) => trailers_only(&status),
    }
}

fn call(head: &Parts, upload: Upload) -> Result<Vec<Bytes>, Status> {
    if head.version < Version::HTTP_2 {
        // Trailers would need chunked encoding, which gRPC clients don't do.
        return Err(Status::new(UNIMPLEMENTED, "gRPC needs HTTP/2 or HTTP/3"));
    }
    if head.method != Method::POST {
        return Err(Status::new(UNIMPLEMENTED, "gRPC calls are POSTs"));
    }
    let path = head.uri.path();
    let (service, method) = path
        .strip_prefix('/')
        .and_then(|p| p.split_once('/'))
        .unwrap_or((path, ""));
    let handler: fn(Vec<Bytes>) -> Result<Vec<Bytes>, Status> = match service {
        ECHO_SERVICE if method == "Echo" => echo::call,
        s if reflection::SERVICES.contains(&s) && method == reflection::METHOD => reflection::call,
        ECHO_SERVICE => return Err(unknown("method", path)),
        s if reflection::SERVICES.contains(&s) => return Err(unknown("method", path)),
        _ => return Err(unknown("service", service)),
    };
    handler(upload.messages()?)
}

fn unknown(what: &str, name: &str) -> Status {
    Status::new(UNIMPLEMENTED, format!("unknown {what} {name}"))
}

fn grpc_response(body: Body) -> Response<Body> {
    let mut response = Response::new(body);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/grpc"));
    response
}

fn trailers_only(status: &Status) -> Response<Body> {
    let mut response = grpc_response(Body::bytes(Bytes::new()));
    let headers = response.headers_mut();
    headers.insert("grpc-status", HeaderValue::from(status.code));
    if !status.message.is_empty() {
        // Percent-encoding leaves only printable ASCII.
        let message = HeaderValue::try_from(status.encoded_message())
            .expect("percent-encoded text is a valid header value");
        headers.insert("grpc-message", message);
    }
    response
}

#[cfg(test)]
mod tests;
