//! The worker's answers: JSON, but for a run's stream of events
//! ([`super::stream`]), and every refusal one line in an [`ErrorReply`].

use crate::protocol::ErrorReply;
use bytes::Bytes;
use http::{header, Response, StatusCode};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use serde::Serialize;
use std::convert::Infallible;

/// The body of every answer.
pub type Body = UnsyncBoxBody<Bytes, Infallible>;

/// Why a run was not started: the answer's status and one line.
pub type Refusal = (StatusCode, String);

/// A JSON answer.
pub fn json(status: StatusCode, value: &impl Serialize) -> Response<Body> {
    let mut body = serde_json::to_vec(value).expect("replies serialize");
    body.push(b'\n');
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)).boxed_unsync())
        .expect("a valid response")
}

/// A refusal: `{"error": "..."}` on one line.
pub fn refusal(status: StatusCode, message: &str) -> Response<Body> {
    json(
        status,
        &ErrorReply {
            error: message.replace('\n', " "),
        },
    )
}
