//! gRPC on the HTTP/2 (cleartext and TLS) and HTTP/3 listeners: the echo
//! service of proto/echo.proto and server reflection. Requests are told
//! apart by their `content-type`. Unary calls' bodies are read whole (up
//! to [`framing::MAX_REQUEST`]) before the call is answered; streaming
//! calls ([`is_stream`]) are answered as their requests arrive.
//!
//! A unary call that succeeds is answered with headers, its framed reply
//! and trailers carrying `grpc-status: 0`; one that fails with a
//! Trailers-Only response: one HEADERS with `grpc-status` and
//! `grpc-message` and no body. A stream always ends with trailers.

mod descriptor;
mod echo;
mod framing;
mod reflection;
mod status;
mod stream;

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::request::Parts;
use http::{HeaderMap, Method, Response, StatusCode, Version};

use crate::body::Body;
pub(crate) use descriptor::ECHO_DESCRIPTOR_SET;
pub(crate) use framing::Upload;
use status::{Status, OK, UNIMPLEMENTED};
pub(crate) use stream::serve as serve_stream;

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

/// True for a call to be served by [`serve_stream`] as its body arrives;
/// every other gRPC request is read whole and answered by [`respond`].
pub(crate) fn is_stream(head: &Parts) -> bool {
    let path = head.uri.path();
    let streaming = reflection::SERVICES.iter().any(|service| {
        path.strip_prefix('/')
            .and_then(|p| p.strip_prefix(service))
            .and_then(|p| p.strip_prefix('/'))
            == Some(reflection::METHOD)
    });
    // Anything else about the request is refused by `respond`.
    streaming
        && head.version >= Version::HTTP_2
        && head.method == Method::POST
        && matches!(sub_type(&head.headers), Some("" | "+proto"))
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
        Ok(replies) => grpc_response(Body::with_trailers(
            framing::frame(&replies),
            trailers(Ok(())),
        )),
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
    add_status(response.headers_mut(), status);
    response
}

/// The trailers that end a call.
fn trailers(result: Result<(), Status>) -> HeaderMap {
    let mut trailers = HeaderMap::new();
    match result {
        Ok(()) => {
            trailers.insert("grpc-status", HeaderValue::from(OK));
        }
        Err(status) => add_status(&mut trailers, &status),
    }
    trailers
}

fn add_status(headers: &mut HeaderMap, status: &Status) {
    headers.insert("grpc-status", HeaderValue::from(status.code));
    if !status.message.is_empty() {
        // Percent-encoding leaves only printable ASCII.
        let message = HeaderValue::try_from(status.encoded_message())
            .expect("percent-encoded text is a valid header value");
        headers.insert("grpc-message", message);
    }
}

#[cfg(test)]
mod tests;
