//! `POST /v1/run`: check the plan, take the worker's one run slot, prepare
//! the run on a thread of its own, answer with the stream of its events,
//! and stop it when its controller goes away, when asked, or when a run by
//! count reaches the worker's longest duration.

use super::api::{Body, State};
use super::stream;
use crate::bounds::{check_no_local_files, MAX_START_AHEAD};
use crate::protocol::{micros_since_epoch, time_of_micros, Event, RunRequest, EVENTS_CONTENT_TYPE};
use bytes::Bytes;
use http::{header, Request, Response, StatusCode};
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::Incoming;
use loadgen_core::interval::{Interval, IntervalRow};
use loadgen_core::plan::Mode;
use loadgen_core::protocols::Protocols;
use loadgen_core::{CancelHandle, Observer, Plan, PrepareError, Report, Run, RunOptions};
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};
use tokio::sync::{mpsc, oneshot};

/// The longest stop grace a run may ask for.
const MAX_STOP_GRACE: Duration = Duration::from_secs(60);

type Refusal = (StatusCode, String);

/// Stops a run, remembering the first reason it was stopped for.
#[derive(Clone)]
pub struct Stopper {
    cancel: CancelHandle,
    reason: Arc<OnceLock<&'static str>>,
}

impl Stopper {
    fn new() -> Stopper {
        Stopper {
            cancel: CancelHandle::new(),
            reason: Arc::new(OnceLock::new()),
        }
    }

    pub fn stop(&self, reason: &'static str) {
        let _ = self.reason.set(reason);
        self.cancel.cancel();
    }

    fn reason(&self) -> Option<&'static str> {
        self.reason.get().copied()
    }
}

/// Frees the run slot when the run's thread ends, however it ends.
struct Slot(Arc<State>);

impl Drop for Slot {
    fn drop(&mut self) {
        *self.0.current.lock().expect("run slot lock") = None;
    }
}

pub async fn start(
    request: Request<Incoming>,
    peer: SocketAddr,
    state: Arc<State>,
) -> Result<Response<Body>, Refusal> {
    let limit = state.bounds.max_request;
    let body = Limited::new(request.into_body(), limit as usize)
        .collect()
        .await
        .map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the request is larger than this worker's bound of {limit} bytes (--max-request)"),
                )
            } else {
                (StatusCode::BAD_REQUEST, format!("cannot read the request: {e}"))
            }
        })?
        .to_bytes();
    let asked: RunRequest = serde_json::from_slice(&body).map_err(|e| {
        (
            StatusCode::BAD_REQUEST,
            format!("not a run request ({{\"plan\": {{...}}, \"start_at_us\": N}}): {e}"),
        )
    })?;
    let plan = check(&asked, &state)?;
    let start_at = time_of_micros(asked.start_at_us);
    let stop_grace = Duration::from_millis(asked.stop_grace_ms);
    let stopper = Stopper::new();
    {
        let mut current = state.current.lock().expect("run slot lock");
        if current.is_some() {
            return Err((
                StatusCode::CONFLICT,
                "this worker is running another plan; it runs one at a time".into(),
            ));
        }
        *current = Some(stopper.clone());
    }
    let slot = Slot(state.clone());
    let (lines, received) = mpsc::unbounded_channel();
    let (prepared, ready) = oneshot::channel();
    let (ended, finished) = oneshot::channel();
    let watched = lines.clone();
    let thread = RunThread {
        plan,
        start_at,
        stop_grace,
        stopper: stopper.clone(),
        lines,
        prepared,
        peer,
    };
    std::thread::Builder::new()
        .name("loadgen-worker-run".into())
        .spawn(move || {
            let _slot = slot;
            thread.run();
            let _ = ended.send(());
        })
        .map_err(|e| {
            (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("cannot start a run thread: {e}"),
            )
        })?;
    match ready.await {
        Ok(Ok(())) => {}
        Ok(Err(refusal)) => return Err(refusal),
        Err(_) => {
            return Err((
                StatusCode::INTERNAL_SERVER_ERROR,
                "the run thread ended before the run was prepared".into(),
            ))
        }
    }
    let longest = state.bounds.max_duration;
    let by_count = matches!(asked.plan.mode, Mode::Requests(_));
    tokio::spawn(watch(
        stopper,
        watched,
        finished,
        by_count.then_some((start_at, longest)),
    ));
    let body = StreamBody::new(stream::events(received)).boxed_unsync();
    Ok(Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, EVENTS_CONTENT_TYPE)
        .body(body)
        .expect("a valid response"))
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
    let ahead = time_of_micros(asked.start_at_us)
        .duration_since(SystemTime::now())
        .unwrap_or_default();
    if ahead > MAX_START_AHEAD {
        return Err(unprocessable(format!(
            "start_at_us: {}s ahead of this worker's clock; at most {}s",
            ahead.as_secs(),
            MAX_START_AHEAD.as_secs()
        )));
    }
    if Duration::from_millis(asked.stop_grace_ms) > MAX_STOP_GRACE {
        return Err(unprocessable(format!(
            "stop_grace_ms: at most {}",
            MAX_STOP_GRACE.as_millis()
        )));
    }
    Ok(plan)
}

/// Stops the run when its stream's receiver is gone (the controller went
/// away), or, for a run by count, when it has run for the worker's longest
/// duration; returns when the run ends.
async fn watch(
    stopper: Stopper,
    lines: mpsc::UnboundedSender<Bytes>,
    finished: oneshot::Receiver<()>,
    deadline: Option<(SystemTime, Duration)>,
) {
    let deadline = async {
        match deadline {
            Some((start, longest)) => {
                let end = start + longest;
                let left = end.duration_since(SystemTime::now()).unwrap_or_default();
                tokio::time::sleep(left).await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = finished => {}
        () = lines.closed() => stopper.stop("cancelled: the controller went away"),
        () = deadline => stopper.stop("stopped at this worker's longest duration (--max-duration)"),
    }
    // Dropping `lines` here lets the stream end after the run's last line.
}

/// What the run's own thread needs.
struct RunThread {
    plan: Plan,
    start_at: SystemTime,
    stop_grace: Duration,
    stopper: Stopper,
    lines: mpsc::UnboundedSender<Bytes>,
    prepared: oneshot::Sender<Result<(), Refusal>>,
    peer: SocketAddr,
}

impl RunThread {
    fn run(self) {
        let RunThread {
            plan,
            start_at,
            stop_grace,
            stopper,
            lines,
            prepared,
            peer,
        } = self;
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
            interval_histograms: true,
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
                let ending = stopper.reason().unwrap_or("completed");
                eprintln!(
                    "loadgen worker: run from {peer}: {what} of {target}: {} requests done, {} errored in {:.3}s; {ending}",
                    report.requests.done, report.requests.errored, report.elapsed_s
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
}

/// Sends each second of the run as it closes, with its histograms.
struct Streamer {
    lines: mpsc::UnboundedSender<Bytes>,
}

impl Observer for Streamer {
    fn interval(&mut self, interval: &Interval) {
        let _ = self.lines.send(stream::line(&Event::Interval {
            index: interval.index,
            row: IntervalRow::of(interval),
        }));
    }
}
