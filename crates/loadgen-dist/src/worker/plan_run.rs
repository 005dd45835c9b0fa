//! `POST /v1/run`: a plan segment. The plan is checked (valid, within the
//! worker's bounds and allowed targets, no file of the worker's named),
//! prepared on the run's thread (a name that does not resolve is refused
//! before the start), then run at its start time.

use super::reply::{Body, Refusal};
use super::run::{check_timing, launch, read_body, Launched, Streamer};
use super::state::State;
use super::stream;
use crate::bounds::check_no_local_files;
use crate::protocol::{micros_since_epoch, time_of_micros, Event, RunRequest};
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use loadgen_core::plan::Mode;
use loadgen_core::protocols::Protocols;
use loadgen_core::{Plan, PrepareError, Report, Run, RunOptions};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

pub async fn start(
    request: Request<Incoming>,
    peer: SocketAddr,
    state: Arc<State>,
) -> Result<Response<Body>, Refusal> {
    let body = read_body(request, state.bounds.max_request).await?;
    let asked: RunRequest = serde_json::from_slice(&body).map_err(|e| {
        (
            StatusCode::BAD_REQUEST,
            format!("not a run request ({{\"plan\": {{...}}, \"start_at_us\": N}}): {e}"),
        )
    })?;
    let plan = check(&asked, &state)?;
    let start_at = time_of_micros(asked.start_at_us);
    let stop_grace = Duration::from_millis(asked.stop_grace_ms);
    // A run by count has no duration of its own: the worker bounds it.
    let by_count = matches!(asked.plan.mode, Mode::Requests(_));
    let deadline = by_count.then_some((start_at, state.bounds.max_duration));
    launch(state, deadline, move |launched| {
        run(plan, start_at, stop_grace, launched, peer)
    })
    .await
}

/// The plan of `asked`, if this worker runs it.
fn check(asked: &RunRequest, state: &State) -> Result<Plan, Refusal> {
    let unprocessable = |message: String| (StatusCode::UNPROCESSABLE_ENTITY, message);
    let plan = asked
        .plan
        .clone()
        .build()
        .map_err(|e| unprocessable(e.render(|field| field.path().to_string())))?;
    check_no_local_files(&plan).map_err(|m| (StatusCode::FORBIDDEN, m))?;
    state
        .allow
        .check(&plan.endpoint.connect)
        .map_err(|m| (StatusCode::FORBIDDEN, m))?;
    state.bounds.check(&plan).map_err(unprocessable)?;
    check_timing(asked.start_at_us, asked.stop_grace_ms)?;
    Ok(plan)
}

/// The run's own thread: prepare, say so, run, report.
fn run(
    plan: Plan,
    start_at: SystemTime,
    stop_grace: Duration,
    launched: Launched,
    peer: SocketAddr,
) {
    let Launched {
        stopper,
        lines,
        prepared,
    } = launched;
    let run = match Run::prepare(&plan, &Protocols::standard()) {
        Ok(run) => run,
        Err(error) => {
            let status = match error {
                PrepareError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
                PrepareError::Unreachable(_) => StatusCode::BAD_GATEWAY,
            };
            let message = match &error {
                PrepareError::Invalid(e) => e.render(|field| field.path().to_string()),
                PrepareError::Unreachable(m) => m.clone(),
            };
            let _ = prepared.send(Err((status, message)));
            return;
        }
    };
    let segment = plan.segment.as_ref().map(ToString::to_string);
    let _ = lines.send(stream::line(&Event::Accepted {
        start_at_us: micros_since_epoch(start_at),
        segment: segment.clone(),
    }));
    let _ = prepared.send(Ok(()));
    let mut observer = Streamer {
        lines: lines.clone(),
    };
    let result = run.execute(RunOptions {
        observer: Some(&mut observer),
        cancel: Some(stopper.cancel.clone()),
        start_at: Some(start_at),
        // The rows go out as the seconds close, each with its histograms
        // (the streamer makes them), and the report is sent without rows:
        // histograms kept here too would only add to every second's cost
        // in memory and time.
        interval_histograms: false,
        stop_grace,
    });
    let what = segment.map_or_else(|| "the whole plan".to_string(), |s| format!("segment {s}"));
    let target = plan.uris.first().cloned().unwrap_or_default();
    match result {
        Ok(result) => {
            let mut report = Report::new(&plan, &result).with_histograms(&result);
            // Its rows went out one by one as interval events; sent
            // again they would double the last line's size for nothing.
            report.intervals.clear();
            eprintln!(
                "loadgen worker: run from {peer}: {what} of {target}: {} requests done, {} errored in {:.3}s; {}",
                report.requests.done,
                report.requests.errored,
                report.elapsed_s,
                stopper.ending()
            );
            let _ = lines.send(stream::line(&Event::Report {
                measured_start_us: micros_since_epoch(result.started_at),
                report: Box::new(report),
            }));
        }
        Err(error) => {
            eprintln!("loadgen worker: run from {peer}: {what} of {target}: failed: {error}");
            let _ = lines.send(stream::line(&Event::Failed { error }));
        }
    }
}
