//! The controller: the benchmark command and `loadgen run` with
//! `--workers`. It splits the plan or the scenario into equal execution
//! segments, one per worker ([`segments`], [`ScenarioJob::shard`]),
//! connects to every worker and measures its clock ([`Controller::connect`]),
//! tells each to start at one instant on its own clock, adds their seconds
//! up live for the [`Watcher`], and merges their reports exactly at the end
//! ([`Controller::run`], [`Controller::run_scenario`]). A worker lost on
//! the way is named to the watcher, and the seconds it streamed before
//! the loss are merged as its part (`partial.rs`); what the loss means for
//! the exit code is the caller's policy (`--on-worker-loss` in the binary).

mod address;
mod clock;
mod connection;
mod error;
mod hdr_log;
mod lines;
mod live;
mod outcome;
mod partial;
mod progress;
mod table;
mod tls;

pub use address::WorkerAddress;
pub use clock::Offset;
pub use error::ControllerError;
pub use hdr_log::write_rows as write_hdr_log;
pub use outcome::{Outcome, PartialPart, WorkerEnd, WorkerResult};
pub use tls::client_config;

use crate::protocol::{
    micros_since_epoch, time_of_micros, Event, RunRequest, ScenarioRunRequest, CANCEL_PATH,
    RUN_PATH, RUN_SCENARIO_PATH,
};
use crate::scenario_job::ScenarioJob;
use crate::token::Token;
use connection::{read_whole, refusal_text, Connection};
use futures_util::future::join_all;
use http::{Method, StatusCode};
use hyper::body::Incoming;
use lines::Lines;
use live::{window_of, LiveMerger};
use loadgen_core::interval::{Interval, IntervalRow, KeptRow};
use loadgen_core::kept_rows::KeptRows;
use loadgen_core::report::{rfc3339, RunConfig};
use loadgen_core::segment::ExecutionSegment;
use loadgen_core::{CancelHandle, Observer, Plan, PlanError, PlanInput, Report};
use loadgen_report::merge::{self, MergeOptions, Source};
use progress::Steps;
use rustls::ClientConfig;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How far ahead of the slowest round trip the start is set, so that
/// every worker has its run request well before the instant.
const START_MARGIN: Duration = Duration::from_secs(1);

pub struct ControllerOptions {
    pub workers: Vec<WorkerAddress>,
    pub token: Token,
    pub tls: Arc<ClientConfig>,
    /// After a cancel, how long the workers' requests in flight may finish.
    pub stop_grace: Duration,
}

/// What a controller reports while the run goes on: the merged seconds and
/// progress, as a local run's observer gets them, and each worker lost.
pub trait Watcher: Observer {
    fn worker_lost(&mut self, worker: &str, segment: &str, why: &str);
}

/// `plan` split into `count` equal segments of one sequence, each checked.
pub fn segments(plan: &Plan, count: usize) -> Result<Vec<Plan>, PlanError> {
    let input: PlanInput = (**plan).clone();
    (0..count as u64)
        .map(|index| {
            let segment =
                ExecutionSegment::shard(index, count as u64).expect("an index below the count");
            PlanInput {
                segment: Some(segment),
                ..input.clone()
            }
            .build()
        })
        .collect()
}

struct Connected {
    address: WorkerAddress,
    connection: Connection,
    offset: Offset,
}

/// Connected to every worker, clocks measured, nothing started yet.
pub struct Controller {
    runtime: tokio::runtime::Runtime,
    options: ControllerOptions,
    workers: Vec<Connected>,
}

impl Controller {
    /// Connects to every worker and measures its clock; fails on the first
    /// worker that cannot be reached or refuses the token.
    pub fn connect(options: ControllerOptions) -> Result<Controller, ControllerError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ControllerError::failure(format!("cannot start a runtime: {e}")))?;
        let connected = runtime.block_on(join_all(options.workers.iter().map(|address| {
            let (tls, token) = (&options.tls, &options.token);
            async move {
                let url = address.to_string();
                let mut connection = Connection::open(address, tls, token)
                    .await
                    .map_err(|e| ControllerError::failure(e).of_worker(&url))?;
                let offset = clock::measure(&mut connection)
                    .await
                    .map_err(|e| e.of_worker(&url))?;
                Ok(Connected {
                    address: address.clone(),
                    connection,
                    offset,
                })
            }
        })));
        let workers = connected.into_iter().collect::<Result<Vec<_>, _>>()?;
        Ok(Controller {
            runtime,
            options,
            workers,
        })
    }

    /// Each worker's URL and clock offset, in `--workers` order.
    pub fn clocks(&self) -> Vec<(String, Offset)> {
        self.workers
            .iter()
            .map(|w| (w.address.to_string(), w.offset))
            .collect()
    }

    /// Runs `plans[i]` on worker `i`, all starting at one instant; returns
    /// when every worker has reported or been lost. A refusal by any
    /// worker is an error, and nothing runs: the connections close, and
    /// workers that had accepted stop before their start.
    pub fn run(
        self,
        plans: &[Plan],
        watcher: &mut dyn Watcher,
        cancel: CancelHandle,
    ) -> Result<Outcome, ControllerError> {
        assert_eq!(plans.len(), self.workers.len(), "one plan per worker");
        let parts = plans
            .iter()
            .map(|plan| Part {
                path: RUN_PATH,
                segment: segment_name(plan.segment.as_ref()),
                config: Some(RunConfig::new(plan)),
                request: Box::new(move |start_at_us, stop_grace_ms| {
                    serde_json::to_vec(&RunRequest {
                        plan: (**plan).clone(),
                        start_at_us,
                        stop_grace_ms,
                    })
                    .expect("a run request serializes")
                }),
            })
            .collect();
        let run_shape = Shape {
            warm_up: plans[0].warm_up(),
            steps: Steps::new(plans),
        };
        self.run_parts(parts, run_shape, watcher, cancel)
    }

    /// Runs `jobs[i]`, a scenario's segment, on worker `i`, as [`Controller::run`]
    /// runs plans. A scenario run has no progress steps: its executors'
    /// times are not one duration.
    pub fn run_scenario(
        self,
        jobs: &[ScenarioJob],
        watcher: &mut dyn Watcher,
        cancel: CancelHandle,
    ) -> Result<Outcome, ControllerError> {
        assert_eq!(jobs.len(), self.workers.len(), "one job per worker");
        let parts = jobs
            .iter()
            .map(|job| Part {
                path: RUN_SCENARIO_PATH,
                segment: segment_name(job.segment.as_ref()),
                config: None,
                request: Box::new(move |start_at_us, stop_grace_ms| {
                    serde_json::to_vec(&ScenarioRunRequest {
                        scenario: job.clone(),
                        start_at_us,
                        stop_grace_ms,
                    })
                    .expect("a scenario run request serializes")
                }),
            })
            .collect();
        let run_shape = Shape {
            warm_up: Duration::ZERO,
            steps: Steps::none(),
        };
        self.run_parts(parts, run_shape, watcher, cancel)
    }

    fn run_parts(
        self,
        parts: Vec<Part<'_>>,
        shape: Shape,
        watcher: &mut dyn Watcher,
        cancel: CancelHandle,
    ) -> Result<Outcome, ControllerError> {
        let Controller {
            runtime,
            options,
            workers,
        } = self;
        runtime.block_on(run(options, workers, parts, shape, watcher, cancel))
    }
}

/// One worker's part of a run: where its request goes, and the request
/// for a start time on the worker's clock and a stop grace.
struct Part<'p> {
    path: &'static str,
    segment: String,
    /// What a report of this part's seconds shows as its configuration,
    /// should the worker be lost: a plan's; `None` for a scenario's.
    config: Option<RunConfig>,
    request: Box<dyn Fn(u64, u64) -> Vec<u8> + 'p>,
}

/// What the run is like, whatever its parts are.
struct Shape {
    /// Before the measured part, which starts on a whole second.
    warm_up: Duration,
    steps: Steps,
}

fn segment_name(segment: Option<&ExecutionSegment>) -> String {
    segment.map(ToString::to_string).unwrap_or_default()
}

/// The intended start of the measured part: at least [`START_MARGIN`] and
/// the slowest round trip ahead, on a whole second of the controller's
/// clock, so that the workers' one-second rows fall in the same wall-clock
/// seconds however they are rounded.
fn measure_start_us(now_us: u64, slowest: Duration, warm_up: Duration) -> u64 {
    let earliest = now_us + (START_MARGIN + slowest + warm_up).as_micros() as u64;
    earliest.div_ceil(1_000_000) * 1_000_000
}

/// What a worker's reader tells the run.
enum Heard {
    Event(Box<Event>),
    Lost(String),
}

async fn run(
    options: ControllerOptions,
    mut workers: Vec<Connected>,
    parts: Vec<Part<'_>>,
    shape: Shape,
    watcher: &mut dyn Watcher,
    cancel: CancelHandle,
) -> Result<Outcome, ControllerError> {
    let Shape { warm_up, mut steps } = shape;
    let slowest = workers
        .iter()
        .map(|w| w.offset.round_trip)
        .max()
        .unwrap_or_default();
    let measure_start = measure_start_us(micros_since_epoch(SystemTime::now()), slowest, warm_up);
    let start = measure_start - warm_up.as_micros() as u64;
    let stop_grace_ms = options.stop_grace.as_millis() as u64;
    let streams = join_all(
        workers
            .iter_mut()
            .zip(&parts)
            .map(|(worker, part)| async move {
                let url = worker.address.to_string();
                let body = (part.request)(worker.offset.to_worker(start), stop_grace_ms);
                let response = worker
                    .connection
                    .call(Method::POST, part.path, Some(body))
                    .await
                    .map_err(|e| ControllerError::failure(e).of_worker(&url))?;
                let status = response.status();
                if status != StatusCode::OK {
                    let said = read_whole(response.into_body()).await.unwrap_or_default();
                    return Err(
                        ControllerError::refused(status, refusal_text(status, &said))
                            .of_worker(&url),
                    );
                }
                Ok(response.into_body())
            }),
    )
    .await
    .into_iter()
    .collect::<Result<Vec<Incoming>, _>>()?;

    let (heard, mut hearing) = mpsc::unbounded_channel();
    let mut names = Vec::with_capacity(workers.len());
    let mut readers: Vec<JoinHandle<()>> = Vec::with_capacity(workers.len());
    for (index, (worker, body)) in workers.into_iter().zip(streams).enumerate() {
        names.push((
            worker.address.clone(),
            parts[index].segment.clone(),
            worker.offset,
        ));
        readers.push(tokio::spawn(read_stream(
            index,
            worker.connection,
            body,
            heard.clone(),
        )));
    }
    drop(heard);

    let mut live = LiveMerger::new(names.len(), time_of_micros(measure_start));
    // Each worker's seconds, to merge exactly at the end: a run keeps one
    // per worker per second, out of memory where it can.
    let mut rows: Vec<KeptRows> = names.iter().map(|_| KeptRows::new()).collect();
    let mut ends: Vec<Option<WorkerEnd>> = vec![None; names.len()];
    let publish = |intervals: Vec<Interval>, watcher: &mut dyn Watcher, steps: &mut Steps| {
        for interval in intervals {
            watcher.interval(&interval);
            for percent in steps.after(&interval) {
                watcher.progress(percent);
            }
        }
    };
    let mut cancel_sent = false;
    while ends.iter().any(Option::is_none) {
        let (index, what) = tokio::select! {
            next = hearing.recv() => match next {
                Some(next) => next,
                // Every reader has ended; those that said nothing are lost.
                None => break,
            },
            () = cancel.cancelled(), if !cancel_sent => {
                cancel_sent = true;
                for (index, (address, _, _)) in names.iter().enumerate() {
                    if ends[index].is_none() {
                        tokio::spawn(ask_to_cancel(address.clone(), options.tls.clone(), options.token.clone()));
                    }
                }
                continue;
            }
        };
        if ends[index].is_some() {
            continue;
        }
        let lost = match what {
            Heard::Lost(why) => Some(why),
            Heard::Event(event) => match *event {
                Event::Accepted { .. } | Event::Alive { .. } => None,
                Event::Interval { index: second, row } => match window_of(&row) {
                    Ok(window) => {
                        let done = live.add(index, second, &row, window);
                        rows[index].push(KeptRow::of_row(*row));
                        publish(done, watcher, &mut steps);
                        None
                    }
                    Err(why) => Some(why),
                },
                Event::Report {
                    measured_start_us,
                    report,
                } => {
                    let offset = names[index].2;
                    let started = offset.to_controller(measured_start_us);
                    let report = on_controller_clock(
                        *report,
                        rows_of(std::mem::take(&mut rows[index]))?,
                        started,
                    );
                    ends[index] = Some(WorkerEnd::Reported {
                        report: Box::new(report),
                        start_skew_us: started as i64 - measure_start as i64,
                    });
                    publish(live.stop(index), watcher, &mut steps);
                    None
                }
                Event::Failed { error } => Some(format!("its run failed: {error}")),
            },
        };
        if let Some(why) = lost {
            readers[index].abort();
            let (address, segment, _) = &names[index];
            watcher.worker_lost(&address.to_string(), segment, &why);
            let seconds = rows_of(std::mem::take(&mut rows[index]))?;
            ends[index] = Some(lost_end(why, seconds, &parts[index], measure_start)?);
            publish(live.stop(index), watcher, &mut steps);
        }
    }
    for (index, end) in ends.iter_mut().enumerate() {
        if end.is_none() {
            let why = "its stream ended before its report".to_string();
            let (address, segment, _) = &names[index];
            watcher.worker_lost(&address.to_string(), segment, &why);
            let seconds = rows_of(std::mem::take(&mut rows[index]))?;
            *end = Some(lost_end(why, seconds, &parts[index], measure_start)?);
        }
    }
    publish(live.finish(), watcher, &mut steps);
    for percent in steps.end() {
        watcher.progress(percent);
    }
    let workers: Vec<WorkerResult> = names
        .into_iter()
        .zip(ends)
        .map(|((address, segment, offset), end)| WorkerResult {
            url: address.to_string(),
            segment,
            offset,
            end: end.expect("every worker ended"),
        })
        .collect();
    let sources: Vec<Source> = workers
        .iter()
        .filter_map(|w| match &w.end {
            WorkerEnd::Reported { report, .. } => Some(Source {
                name: w.url.clone(),
                report: (**report).clone(),
            }),
            WorkerEnd::Lost { part, .. } => part.as_ref().map(|part| Source {
                name: w.url.clone(),
                report: (**part).clone(),
            }),
        })
        .collect();
    let report = if sources.is_empty() {
        None
    } else {
        // Parts of one plan by construction: merged even where the workers
        // negotiated differently.
        Some(
            merge::merge(&sources, MergeOptions { force: true }).map_err(|e| {
                ControllerError::failure(format!("cannot merge the workers' reports: {e}"))
            })?,
        )
    };
    Ok(Outcome { workers, report })
}

fn rows_of(kept: KeptRows) -> Result<Vec<IntervalRow>, ControllerError> {
    kept.into_rows().map_err(ControllerError::failure)
}

/// How a worker lost now ended: why, and the report of the seconds it
/// streamed before (`seconds`), when its part has a configuration.
fn lost_end(
    why: String,
    seconds: Vec<IntervalRow>,
    part: &Part<'_>,
    measure_start_us: u64,
) -> Result<WorkerEnd, ControllerError> {
    let seconds_received = seconds.len();
    let part = match &part.config {
        Some(config) => {
            partial::report_of_seconds(config.clone(), seconds, time_of_micros(measure_start_us))
                .map_err(|e| {
                    ControllerError::failure(format!("cannot count a lost worker's seconds: {e}"))
                })?
                .map(Box::new)
        }
        None => None,
    };
    Ok(WorkerEnd::Lost {
        why,
        lost_at: SystemTime::now(),
        seconds_received,
        part,
    })
}

/// A worker's report with the rows it streamed, its times on the
/// controller's clock (its measured part started at `started_us` there).
fn on_controller_clock(mut report: Report, rows: Vec<IntervalRow>, started_us: u64) -> Report {
    let started = time_of_micros(started_us);
    report.started_at = rfc3339(started);
    report.ended_at = rfc3339(started + Duration::from_secs_f64(report.elapsed_s.max(0.0)));
    report.intervals = rows;
    report
}

/// Reads a worker's stream to its end, passing every event on; the
/// connection closes when this returns or is aborted.
async fn read_stream(
    index: usize,
    connection: Connection,
    body: Incoming,
    heard: mpsc::UnboundedSender<(usize, Heard)>,
) {
    let _connection = connection;
    let mut lines = Lines::new(body);
    loop {
        let next = match lines.next().await {
            Ok(Some(event)) => Heard::Event(Box::new(event)),
            Ok(None) => Heard::Lost("its stream ended before its report".into()),
            Err(why) => Heard::Lost(why),
        };
        let last = !matches!(
            next,
            Heard::Event(ref e) if !matches!(**e, Event::Report { .. } | Event::Failed { .. })
        );
        if heard.send((index, next)).is_err() || last {
            return;
        }
    }
}

/// Asks a worker to stop its run, over a connection of its own (the
/// control connection is busy with the run's stream). Best effort: a
/// worker that cannot be told goes silent and is given up, and one whose
/// connection closes stops anyway.
async fn ask_to_cancel(address: WorkerAddress, tls: Arc<ClientConfig>, token: Token) {
    if let Ok(mut connection) = Connection::open(&address, &tls, &token).await {
        let _ = connection.call_whole(Method::POST, CANCEL_PATH, None).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_is_ahead_and_on_a_whole_second() {
        let now = 1_700_000_000_250_000;
        let at = measure_start_us(now, Duration::from_millis(3), Duration::ZERO);
        assert_eq!(at, 1_700_000_002_000_000);
        let at = measure_start_us(now, Duration::ZERO, Duration::from_millis(500));
        assert_eq!(at, 1_700_000_002_000_000);
        let exact = measure_start_us(1_000_000, Duration::ZERO, Duration::ZERO);
        assert_eq!(exact, 2_000_000);
    }

    #[test]
    fn segments_split_the_plan_into_equal_parts() {
        let plan = PlanInput {
            uris: vec!["http://127.0.0.1:1/".into()],
            clients: 5,
            mode: loadgen_core::plan::Mode::Requests(101),
            ..PlanInput::default()
        }
        .build()
        .unwrap();
        let parts = segments(&plan, 2).unwrap();
        assert_eq!(parts.len(), 2);
        let clients: usize = parts.iter().map(Plan::clients_here).sum();
        let requests: u64 = parts.iter().filter_map(Plan::requests_here).sum();
        assert_eq!((clients, requests), (5, 101));
        assert_eq!(parts[1].segment.as_ref().unwrap().to_string(), "1/2:1");
        let err = segments(&plan, 6).unwrap_err();
        assert_eq!(err.field, loadgen_core::PlanField::ExecutionSegment);
    }
}
