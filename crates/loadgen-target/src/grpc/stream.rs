//! Streaming calls (reflection's `ServerReflectionInfo`): the response
//! starts at once and each request is answered as soon as it has arrived
//! whole, whatever protocol carries the stream.

use std::sync::Arc;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use http::request::Parts;
use http::Response;
use hyper::body::Frame;
use tokio::sync::mpsc;

use super::reflection::Session;
use super::{grpc_response, trailers};
use crate::body::Body;
use crate::state::State;

/// Answers the request body's pieces `requests` (an `Err` when the client
/// broke the stream off). The call is counted when it ends, however.
pub(crate) async fn serve<S>(head: &Parts, requests: S, state: Arc<State>) -> Response<Body>
where
    S: Stream<Item = Result<Bytes, ()>> + Send + 'static,
{
    state.stall.wait().await;
    if let Some(capacity) = &state.capacity {
        capacity.wait().await;
    }
    // A few answers in flight are enough: a client reads each one anyway.
    let (frames, body) = mpsc::channel(4);
    let version = head.version;
    tokio::spawn(async move {
        let mut requests = std::pin::pin!(requests);
        let mut session = Session::default();
        let (mut received, mut sent) = (0, 0);
        // None when the client broke the stream off: no one is left to answer.
        let result = loop {
            let Some(piece) = requests.next().await else {
                break Some(session.end());
            };
            let Ok(piece) = piece else { break None };
            received += piece.len() as u64;
            match session.push(piece) {
                Ok(answers) if answers.is_empty() => {}
                Ok(answers) => {
                    sent += answers.len() as u64;
                    if frames.send(Frame::data(answers)).await.is_err() {
                        break None;
                    }
                }
                Err(status) => break Some(Err(status)),
            }
        };
        // Counted before the trailers, so a client that saw the end of its
        // call finds it in the stats; one-shot clients often cancel the
        // stream after their answer, and those calls count too.
        state.counters.record(version, received, sent);
        if let Some(result) = result {
            let _ = frames.send(Frame::trailers(trailers(result))).await;
        }
    });
    grpc_response(Body::channel(body))
}
