//! The per-request handler: the benchmark responses, and the dispatch of
//! the scenario app's paths to `app` and of gRPC calls to `grpc`. Only the
//! app's requests and unary gRPC calls are read whole; a streaming gRPC
//! call is answered as it arrives.

use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use futures_util::future::ready;
use futures_util::StreamExt;
use http::header::{HeaderValue, ALT_SVC, CONTENT_TYPE};
use http::request::Parts;
use http::{Method, Request, Response, StatusCode, Uri, Version};
use http_body_util::{BodyExt, BodyStream};
use hyper::body::{Body as _, Incoming};

use crate::app::{self, BoundedBody};
use crate::body::Body;
use crate::grpc::{self, Upload};
use crate::query::{parse_duration, parse_query};
use crate::stall::Stall;
use crate::state::State;

/// Same body as the nginx configuration used in the benchmarks.
pub(crate) const DEFAULT_BODY: &str = "hello, world\n";

pub(crate) async fn handle(
    req: Request<Incoming>,
    state: Arc<State>,
    alt_svc: Option<HeaderValue>,
) -> Result<Response<Body>, hyper::Error> {
    if req.uri().path() == crate::websocket::PATH {
        return Ok(crate::websocket::respond(req, state));
    }
    if req.extensions().get::<hyper::ext::Protocol>().is_some() {
        // An extended CONNECT elsewhere would get a page as its tunnel's bytes.
        return Ok(crate::websocket::elsewhere());
    }
    let (parts, mut body) = req.into_parts();
    let mut response = if grpc::is_stream(&parts) {
        let requests = BodyStream::new(body).filter_map(|frame| {
            ready(match frame {
                Ok(frame) => frame.into_data().ok().map(Ok),
                Err(_) => Some(Err(())),
            })
        });
        grpc::serve_stream(&parts, requests, state.clone()).await
    } else if grpc::is_grpc(&parts.headers) {
        let mut upload = grpc::Upload::default();
        while let Some(frame) = body.frame().await {
            // Past the bound the rest is left unread: the call fails anyway.
            if let Ok(data) = frame?.into_data() {
                if !upload.push(data) {
                    break;
                }
            }
        }
        respond_grpc(&parts, upload, &state).await
    } else if app::serves(parts.uri.path()) {
        let mut received = BoundedBody::default();
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame?.into_data() {
                received.push(data);
            }
        }
        respond_app(&parts, received, &state).await
    } else {
        let received = drain(body).await?;
        respond(&parts.uri, &parts.method, parts.version, received, &state).await
    };
    if let Some(alt_svc) = alt_svc {
        response.headers_mut().insert(ALT_SVC, alt_svc);
    }
    Ok(response)
}

/// The response to a request whose body (`received` bytes) was read to the
/// end, whatever protocol carried it; counts it by `version`. While the
/// server is stalled the response is held until the stall ends; the control
/// paths (`/__stats`, `/__stall`) answer at once and are not counted.
pub(crate) async fn respond(
    uri: &Uri,
    method: &Method,
    version: Version,
    received: u64,
    state: &State,
) -> Response<Body> {
    let counters = &state.counters;
    match uri.path() {
        "/__stats" => return json(&counters.snapshot()),
        "/__stats/reset" => return json(&counters.reset()),
        "/__stall" => return stall_now(uri.query().unwrap_or(""), &state.stall),
        _ => {}
    }

    let shape = parse_query(uri.query().unwrap_or(""));
    state.stall.wait().await;
    if let Some(capacity) = &state.capacity {
        capacity.wait().await;
    }

    let (status, body) = match shape {
        Ok(shape) => {
            if let Some(delay) = shape.delay {
                tokio::time::sleep(delay).await;
                // A stall that began during the delay holds this response too.
                state.stall.wait().await;
            }
            let body = match shape.size {
                // These statuses have no content (RFC 9110 § 15.3.5, § 15.4.5).
                _ if matches!(
                    shape.status,
                    StatusCode::NO_CONTENT | StatusCode::NOT_MODIFIED
                ) =>
                {
                    Body::from_static("")
                }
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

    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    count(state, method, version, received, &response);
    response
}

/// The response to a request for one of the app's paths, with its head and
/// its body (kept up to a bound), whatever protocol carried it; held during
/// stalls and counted like every other response.
pub(crate) async fn respond_app(head: &Parts, body: BoundedBody, state: &State) -> Response<Body> {
    state.stall.wait().await;
    let received = body.received();
    let response = state.app.respond(head, body, &state.counters.app);
    count(state, &head.method, head.version, received, &response);
    response
}

/// The response to a gRPC call, whatever protocol carried it; held during
/// stalls and by `max_rate`, like the benchmark responses, and counted.
pub(crate) async fn respond_grpc(head: &Parts, upload: Upload, state: &State) -> Response<Body> {
    state.stall.wait().await;
    if let Some(capacity) = &state.capacity {
        capacity.wait().await;
    }
    let received = upload.received();
    let response = grpc::respond(head, upload);
    count(state, &head.method, head.version, received, &response);
    response
}

fn count(
    state: &State,
    method: &Method,
    version: Version,
    received: u64,
    response: &Response<Body>,
) {
    let status = response.status();
    // hyper never sends a body for these, so don't count one.
    let no_body = method == Method::HEAD
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED;
    let sent = if no_body { 0 } else { response.body().len() };
    state.counters.record(version, received, sent);
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

/// `/__stall?for=DURATION`: starts a stall now and says when it ends, as
/// milliseconds since the Unix epoch and from now.
fn stall_now(query: &str, stall: &Stall) -> Response<Body> {
    // The last `for=` wins, as for the response parameters.
    let value = query
        .split('&')
        .rev()
        .find_map(|pair| pair.strip_prefix("for="));
    let Some(length) = value.and_then(parse_duration) else {
        let message = match value {
            Some(value) => {
                format!("invalid for={value:?}: expected a duration up to 1h like 500ms, 1s or 2\n")
            }
            None => "missing for=DURATION, e.g. /__stall?for=1s\n".to_string(),
        };
        let mut response = Response::new(Body::bytes(message.into()));
        *response.status_mut() = StatusCode::BAD_REQUEST;
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        return response;
    };
    let end = stall.stall_for(length);
    let remaining = end.saturating_duration_since(Instant::now());
    let until = (SystemTime::now() + remaining)
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    json(&serde_json::json!({
        "stalled_until_ms": until.as_millis() as u64,
        "remaining_ms": remaining.as_millis() as u64,
    }))
}

fn json<T: serde::Serialize>(value: &T) -> Response<Body> {
    let mut text = serde_json::to_vec(value).expect("serializes to JSON");
    text.push(b'\n');
    let mut response = Response::new(Body::bytes(Bytes::from(text)));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
