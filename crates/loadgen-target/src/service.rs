//! The per-request handler.

use std::sync::Arc;

use bytes::Bytes;
use http::header::{HeaderValue, ALT_SVC, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode, Uri, Version};
use http_body_util::BodyExt;
use hyper::body::{Body as _, Incoming};

use crate::body::Body;
use crate::query::parse_query;
use crate::stats::{Counters, Stats};

/// Same body as the nginx configuration used in the benchmarks.
pub(crate) const DEFAULT_BODY: &str = "hello, world\n";

pub(crate) async fn handle(
    req: Request<Incoming>,
    counters: Arc<Counters>,
    alt_svc: Option<HeaderValue>,
) -> Result<Response<Body>, hyper::Error> {
    let (parts, body) = req.into_parts();
    let received = drain(body).await?;
    let mut response = respond(
        &parts.uri,
        &parts.method,
        parts.version,
        received,
        &counters,
    )
    .await;
    if let Some(alt_svc) = alt_svc {
        response.headers_mut().insert(ALT_SVC, alt_svc);
    }
    Ok(response)
}

/// The response to a request whose body (`received` bytes) was read to the
/// end, whatever protocol carried it; counts it by `version`.
pub(crate) async fn respond(
    uri: &Uri,
    method: &Method,
    version: Version,
    received: u64,
    counters: &Counters,
) -> Response<Body> {
    match uri.path() {
        "/__stats" => return json(counters.snapshot()),
        "/__stats/reset" => return json(counters.reset()),
        _ => {}
    }

    let head_only = method == Method::HEAD;
    let shape = parse_query(uri.query().unwrap_or(""));

    let (status, body) = match shape {
        Ok(shape) => {
            if let Some(delay) = shape.delay {
                tokio::time::sleep(delay).await;
            }
            let body = match shape.size {
                Some(size) => Body::filler(size),
                None => Body::from_static(DEFAULT_BODY),
            };
            (shape.status, body)
        }
        Err(err) => (
            StatusCode::BAD_REQUEST,
            Body::bytes(format!("{err}\n").into()),
        ),
    };

    // hyper never sends a body for these, so don't count one.
    let no_body =
        head_only || status == StatusCode::NO_CONTENT || status == StatusCode::NOT_MODIFIED;
    counters.record(version, received, if no_body { 0 } else { body.len() });

    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

/// Reads the request body to the end (clients must see their upload
/// accepted before the response) and returns its length.
async fn drain(mut body: Incoming) -> Result<u64, hyper::Error> {
    let mut received = 0;
    while !body.is_end_stream() {
        match body.frame().await {
            Some(frame) => {
                if let Some(data) = frame?.data_ref() {
                    received += data.len() as u64;
                }
            }
            None => break,
        }
    }
    Ok(received)
}

fn json(stats: Stats) -> Response<Body> {
    let mut text = serde_json::to_vec(&stats).expect("Stats serializes to JSON");
    text.push(b'\n');
    let mut response = Response::new(Body::bytes(Bytes::from(text)));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
