//! `POST /v1/run-scenario`: a scenario file's segment. The scenario
//! travels with the files it names and is compiled here as the controller
//! compiled it; it is refused when it names a file of the worker's, when
//! one of the origins it names is not an allowed target, or when its part
//! here is over the worker's bounds. While it runs, every origin a request
//! or a redirect leads to is checked against the allowed targets too: a
//! refused one is an error of its step, and nothing is sent there.

use super::reply::{Body, Refusal};
use super::run::{check_timing, launch, read_body, Launched, Streamer};
use super::state::State;
use super::stream;
use crate::allow::AllowList;
use crate::protocol::{micros_since_epoch, time_of_micros, Event, ScenarioRunRequest};
use crate::scenario_bounds::check_no_local_files;
use crate::scenario_job::JobError;
use http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use loadgen_core::uri::ConnectTo;
use loadgen_scenario::origin::{self, named_origins, OriginGuard, OriginKey};
use loadgen_scenario::run::{run_measured, ScenarioOptions};
use loadgen_scenario::suite::Suite;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

pub async fn start(
    request: Request<Incoming>,
    peer: SocketAddr,
    state: Arc<State>,
) -> Result<Response<Body>, Refusal> {
    let body = read_body(request, state.bounds.max_request).await?;
    let asked: ScenarioRunRequest = serde_json::from_slice(&body).map_err(|e| {
        (
            StatusCode::BAD_REQUEST,
            format!(
                "not a scenario run request ({{\"scenario\": {{\"bundle\": {{...}}}}, \"start_at_us\": N}}): {e}"
            ),
        )
    })?;
    let suite = check(&asked, &state)?;
    let threads = asked.scenario.threads;
    let start_at = time_of_micros(asked.start_at_us);
    let stop_grace = Duration::from_millis(asked.stop_grace_ms);
    let guard = guard(state.allow.clone());
    // Its executors end it; the worker's longest duration bounds it anyway.
    let deadline = Some((start_at, state.bounds.max_duration));
    launch(state, deadline, move |launched| {
        let run = ScenarioThread {
            suite,
            threads,
            start_at,
            stop_grace,
            guard,
            peer,
        };
        run.run(launched);
    })
    .await
}

/// The suite of `asked`, if this worker runs it.
fn check(asked: &ScenarioRunRequest, state: &State) -> Result<Suite, Refusal> {
    let unprocessable = |message: String| (StatusCode::UNPROCESSABLE_ENTITY, message);
    let suite = asked.scenario.compile().map_err(|e| match e {
        JobError::Scenario(message) => unprocessable(message),
        JobError::Segment(e) => unprocessable(e.render(|_| "segment".to_string())),
    })?;
    check_no_local_files(&suite).map_err(|m| (StatusCode::FORBIDDEN, m))?;
    for url in named_origins(&suite) {
        state
            .allow
            .check(&connect_to(&OriginKey::of(&url)))
            .map_err(|m| (StatusCode::FORBIDDEN, format!("{}: {m}", suite.name)))?;
    }
    state
        .bounds
        .check_scenario(&suite, asked.scenario.threads)
        .map_err(unprocessable)?;
    check_timing(asked.start_at_us, asked.stop_grace_ms)?;
    Ok(suite)
}

/// Where a connection to `key` goes, as the allow-list compares it.
fn connect_to(key: &OriginKey) -> ConnectTo {
    ConnectTo::Tcp {
        host: key
            .host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string(),
        port: key.port,
    }
}

/// Refuses, at run time, what the allowed targets do not allow.
fn guard(allow: AllowList) -> Option<OriginGuard> {
    if allow.allows_any() {
        return None;
    }
    Some(Arc::new(move |key: &OriginKey| {
        allow.check(&connect_to(key))
    }))
}

/// What the run's own thread needs.
struct ScenarioThread {
    suite: Suite,
    threads: usize,
    start_at: SystemTime,
    stop_grace: Duration,
    guard: Option<OriginGuard>,
    peer: SocketAddr,
}

impl ScenarioThread {
    /// Prepares the origins the scenario names (a name that does not
    /// resolve is refused before the start), says so, runs, reports.
    fn run(self, launched: Launched) {
        let Launched {
            stopper,
            lines,
            prepared,
        } = launched;
        let suite = &self.suite;
        for url in named_origins(suite) {
            if let Err(why) = origin::prepare(&OriginKey::of(&url), &suite.connection) {
                let _ = prepared.send(Err((StatusCode::BAD_GATEWAY, why)));
                return;
            }
        }
        let segment = suite.segment.as_ref().map(ToString::to_string);
        let _ = lines.send(stream::line(&Event::Accepted {
            start_at_us: micros_since_epoch(self.start_at),
            segment: segment.clone(),
        }));
        let _ = prepared.send(Ok(()));
        let mut observer = Streamer {
            lines: lines.clone(),
        };
        let result = run_measured(
            suite,
            ScenarioOptions {
                threads: self.threads,
                observer: Some(&mut observer),
                cancel: Some(stopper.cancel.clone()),
                start_at: Some(self.start_at),
                stop_grace: self.stop_grace,
                histograms: true,
                // As for a plan: the streamer sends each row with its
                // histograms, and the report goes without rows.
                interval_histograms: false,
                origin_guard: self.guard.clone(),
            },
        );
        let what = segment.map_or_else(|| "all".to_string(), |s| format!("segment {s}"));
        let peer = self.peer;
        match result {
            Ok((mut report, started)) => {
                // Its rows went out one by one as interval events.
                report.intervals.clear();
                let iterations = report
                    .scenario
                    .as_ref()
                    .map_or(0, |s| s.iterations.completed);
                eprintln!(
                    "loadgen worker: run from {peer}: {what} of scenario {}: {iterations} iterations, {} requests done, {} errored in {:.3}s; {}",
                    suite.name,
                    report.requests.done,
                    report.requests.errored,
                    report.elapsed_s,
                    stopper.ending()
                );
                let _ = lines.send(stream::line(&Event::Report {
                    measured_start_us: micros_since_epoch(started),
                    report: Box::new(report),
                }));
            }
            Err(error) => {
                eprintln!(
                    "loadgen worker: run from {peer}: {what} of scenario {}: failed: {error}",
                    suite.name
                );
                let _ = lines.send(stream::line(&Event::Failed { error }));
            }
        }
    }
}
