//! The worker's HTTP API: authentication first, then the route.

use super::reply::{json, refusal, Body};
use super::state::State;
use super::{plan_run, scenario_run};
use crate::protocol::{
    micros_since_epoch, CancelReply, ClockReply, CANCEL_PATH, CLOCK_PATH, RUN_PATH,
    RUN_SCENARIO_PATH,
};
use http::{header, Method, Request, Response, StatusCode};
use hyper::body::Incoming;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::SystemTime;

pub async fn handle(
    request: Request<Incoming>,
    peer: SocketAddr,
    state: Arc<State>,
) -> Result<Response<Body>, Infallible> {
    // Before anything else, and before the body is read: a caller without
    // the token learns nothing and costs nothing.
    if !state
        .token
        .accepts(request.headers().get(header::AUTHORIZATION))
    {
        if matches!(request.uri().path(), RUN_PATH | RUN_SCENARIO_PATH) {
            eprintln!("loadgen worker: refused a run from {peer}: 401 no valid bearer token");
        }
        let mut response = refusal(
            StatusCode::UNAUTHORIZED,
            "this worker needs Authorization: Bearer TOKEN with its token",
        );
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, "Bearer".parse().expect("static"));
        return Ok(response);
    }
    let path = request.uri().path().to_string();
    let allowed = match path.as_str() {
        CLOCK_PATH => Method::GET,
        RUN_PATH | RUN_SCENARIO_PATH | CANCEL_PATH => Method::POST,
        _ => {
            return Ok(refusal(
                StatusCode::NOT_FOUND,
                &format!("no such endpoint: {path}"),
            ))
        }
    };
    if request.method() != allowed {
        let mut response = refusal(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("{path} takes {allowed}"),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, allowed.as_str().parse().expect("a method"));
        return Ok(response);
    }
    Ok(match path.as_str() {
        CLOCK_PATH => json(
            StatusCode::OK,
            &ClockReply {
                time_us: micros_since_epoch(SystemTime::now()),
            },
        ),
        CANCEL_PATH => {
            let current = state.current.lock().expect("run slot lock").clone();
            if let Some(stopper) = &current {
                stopper.stop("cancelled by a call to /v1/cancel");
            }
            json(
                StatusCode::OK,
                &CancelReply {
                    cancelled: current.is_some(),
                },
            )
        }
        _ => match if path == RUN_PATH {
            plan_run::start(request, peer, state).await
        } else {
            scenario_run::start(request, peer, state).await
        } {
            Ok(response) => response,
            Err((status, message)) => {
                eprintln!(
                    "loadgen worker: refused a run from {peer}: {} {message}",
                    status.as_u16()
                );
                refusal(status, &message)
            }
        },
    })
}
