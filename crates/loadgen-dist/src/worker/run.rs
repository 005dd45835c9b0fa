//! What every run of a worker shares, whatever it runs (a plan,
//! [`super::plan_run`], or a scenario, [`super::scenario_run`]): reading
//! the request within the worker's bound, the start-time and stop-grace
//! checks, the worker's one run slot, a thread of the run's own, the
//! answer's stream of events, and stopping the run when its controller
//! goes away, when asked, or at the worker's longest duration.

use super::reply::{Body, Refusal};
use super::state::{State, Stopper};
use super::stream;
use crate::bounds::MAX_START_AHEAD;
use crate::protocol::{time_of_micros, Event, EVENTS_CONTENT_TYPE};
use bytes::Bytes;
use http::{header, Request, Response, StatusCode};
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::Incoming;
use loadgen_core::interval::{Interval, IntervalRow};
use loadgen_core::Observer;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::sync::{mpsc, oneshot};

/// The longest stop grace a run may ask for.
const MAX_STOP_GRACE: Duration = Duration::from_secs(60);

/// Frees the run slot when the run's thread ends, however it ends.
struct Slot(Arc<State>);

impl Drop for Slot {
    fn drop(&mut self) {
        *self.0.current.lock().expect("run slot lock") = None;
    }
}

/// The body of a run request, read within the worker's `--max-request`.
pub async fn read_body(request: Request<Incoming>, limit: u64) -> Result<Bytes, Refusal> {
    Limited::new(request.into_body(), limit as usize)
        .collect()
        .await
        .map(|collected| collected.to_bytes())
        .map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the request is larger than this worker's bound of {limit} bytes (--max-request)"),
                )
            } else {
                (StatusCode::BAD_REQUEST, format!("cannot read the request: {e}"))
            }
        })
}

/// Refuses a start too far ahead (a start time is a coordinated start a
/// second or two ahead, not a way to hold a worker) or a long stop grace.
pub fn check_timing(start_at_us: u64, stop_grace_ms: u64) -> Result<(), Refusal> {
    let unprocessable = |message: String| (StatusCode::UNPROCESSABLE_ENTITY, message);
    let ahead = time_of_micros(start_at_us)
        .duration_since(SystemTime::now())
        .unwrap_or_default();
    if ahead > MAX_START_AHEAD {
        return Err(unprocessable(format!(
            "start_at_us: {}s ahead of this worker's clock; at most {}s",
            ahead.as_secs(),
            MAX_START_AHEAD.as_secs()
        )));
    }
    if Duration::from_millis(stop_grace_ms) > MAX_STOP_GRACE {
        return Err(unprocessable(format!(
            "stop_grace_ms: at most {}",
            MAX_STOP_GRACE.as_millis()
        )));
    }
    Ok(())
}

/// What a run's own thread is given.
pub struct Launched {
    pub stopper: Stopper,
    /// The stream's lines: the run's events, each made with [`stream::line`].
    pub lines: mpsc::UnboundedSender<Bytes>,
    /// Said once, before the run starts: whether it could be prepared.
    pub prepared: oneshot::Sender<Result<(), Refusal>>,
}

/// Takes the worker's run slot, runs `job` on a thread of its own, waits
/// until it says whether the run could be prepared, and answers with the
/// stream of its events. `deadline`: the run is stopped when it has run
/// this long from this start.
pub async fn launch(
    state: Arc<State>,
    deadline: Option<(SystemTime, Duration)>,
    job: impl FnOnce(Launched) + Send + 'static,
) -> Result<Response<Body>, Refusal> {
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
    let slot = Slot(state);
    let (lines, received) = mpsc::unbounded_channel();
    let (prepared, ready) = oneshot::channel();
    let (ended, finished) = oneshot::channel();
    let watched = lines.clone();
    let launched = Launched {
        stopper: stopper.clone(),
        lines,
        prepared,
    };
    std::thread::Builder::new()
        .name("loadgen-worker-run".into())
        .spawn(move || {
            let _slot = slot;
            job(launched);
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
    tokio::spawn(watch(stopper, watched, finished, deadline));
    let body = StreamBody::new(stream::events(received)).boxed_unsync();
    Ok(Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, EVENTS_CONTENT_TYPE)
        .body(body)
        .expect("a valid response"))
}

/// Stops the run when its stream's receiver is gone (the controller went
/// away), or at its deadline; returns when the run ends.
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

/// Sends each second of the run as it closes, with its histograms and a
/// scenario's steps and checks.
pub struct Streamer {
    pub lines: mpsc::UnboundedSender<Bytes>,
}

impl Observer for Streamer {
    fn interval(&mut self, interval: &Interval) {
        let _ = self.lines.send(stream::line(&Event::Interval {
            index: interval.index,
            row: Box::new(IntervalRow::with_steps(interval)),
        }));
    }
}
