//! The per-request handler.

use std::sync::Arc;

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode};
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
) -> Result<Response<Body>, hyper::Error> {
    match req.uri().path() {
        "/__stats" => {
            drain(req.into_body()).await?;
            return Ok(json(counters.snapshot()));
        }
        "/__stats/reset" => {
            drain(req.into_body()).await?;
            return Ok(json(counters.reset()));
        }
        _ => {}
    }

    let version = req.version();
    let head_only = req.method() == Method::HEAD;
    let shape = parse_query(req.uri().query().unwrap_or(""));
    let received = drain(req.into_body()).await?;

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
    Ok(response)
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
