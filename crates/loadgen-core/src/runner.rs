//! Runs a prepared plan: one thread per `-t`, each with its own
//! current-thread runtime, clients and recorder. Threads start together,
//! follow the same phase clock, and hand their recorders back to be merged
//! at the end. The calling thread meanwhile merges each second's windows
//! and passes them, and the progress, to the observer ([`crate::threads`]).

use crate::cancel::CancelHandle;
use crate::client::run_client;
use crate::connections::Connections;
use crate::interval::{IntervalRow, WindowMessage};
use crate::plan::{Mode, Pacing, Plan};
use crate::plan_error::PlanError;
use crate::recorder::Recorder;
use crate::request_log::{LogFile, RequestLog};
use crate::scheduler::alarms::Alarms;
use crate::scheduler::arrivals::Arrivals;
use crate::scheduler::ScheduleContext;
use crate::threads::{close_windows, run_on_threads, Reports, ThreadStart, ThreadsConfig};
use crate::ticket::Phase;
use crate::wake_coalescing;
use crate::worker::Worker;
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::cell::{Cell, RefCell};
use std::pin::pin;
use std::time::{Duration, Instant, SystemTime};

pub use crate::threads::Observer;

/// What a finished run measured, merged across threads.
pub struct RunResult {
    pub recorder: Recorder,
    /// Wall-clock start and end of the measured part of the run.
    pub started_at: SystemTime,
    pub ended_at: SystemTime,
    /// Length of the measured part: from its start to the last response
    /// (count mode) or to the end of `-D` (duration mode).
    pub elapsed: Duration,
    /// One row per second of the measured part.
    pub intervals: Vec<IntervalRow>,
    /// Why the request log (`--log-file`) is incomplete, if it is.
    pub log_error: Option<PlanError>,
    /// The run was cancelled before its end.
    pub cancelled: bool,
}

/// What a prepared run is made of, borrowed for its length.
pub(crate) struct Parts<'r> {
    pub plan: &'r Plan,
    pub connections: &'r Connections,
    pub log_file: Option<LogFile>,
}

/// Runs the prepared parts; see [`crate::run::Run::execute`].
pub(crate) fn execute(
    parts: Parts<'_>,
    observer: Option<&mut dyn Observer>,
    cancel: CancelHandle,
    start_at: Option<SystemTime>,
    interval_histograms: bool,
    stop_grace: Duration,
) -> Result<RunResult, String> {
    let Parts {
        plan,
        connections,
        log_file,
    } = parts;
    let config = ThreadsConfig {
        threads: plan.threads,
        start_at,
        measure_after: plan.warm_up(),
        interval_histograms,
    };
    let joined = run_on_threads(config, observer, &cancel, |start: ThreadStart| {
        let first_client: usize = (0..start.thread).map(|t| plan.clients_of_thread(t)).sum();
        let clients = first_client..first_client + plan.clients_of_thread(start.thread);
        let log = log_file
            .as_ref()
            .map(|file| file.thread_log(start.start, start.wall_start));
        run_thread(plan, connections, clients, log, start, stop_grace)
    })?;
    // The first thread's recorder is the base the others are added to: a
    // fresh one would copy every histogram of a one-thread run once more.
    let mut merged: Option<Recorder> = None;
    let mut last_end = None;
    let mut log_error = None;
    for (mut recorder, end) in joined.results {
        if let Some(mut log) = recorder.log.take() {
            log.flush();
            log_error = log_error.or_else(|| log.error().map(str::to_string));
        }
        match &mut merged {
            Some(merged) => merged.merge(&recorder),
            None => merged = Some(recorder),
        }
        last_end = last_end.max(Some(end));
    }
    let merged = merged.unwrap_or_default();
    let measure_start = joined.start + plan.warm_up();
    let elapsed = last_end
        .map(|end| end.saturating_duration_since(measure_start))
        .unwrap_or_default();
    let started_at = joined.wall_start + plan.warm_up();
    Ok(RunResult {
        recorder: merged,
        started_at,
        ended_at: started_at + elapsed,
        elapsed,
        intervals: joined.intervals,
        log_error: log_file.and_then(|file| file.finish(log_error)),
        cancelled: cancel.is_cancelled(),
    })
}

/// One worker thread: its clients run as futures of a single task, so they
/// can borrow the thread's state without reference counting.
async fn run_thread(
    plan: &Plan,
    connections: &Connections,
    clients: std::ops::Range<usize>,
    log: Option<RequestLog>,
    thread_start: ThreadStart,
    stop_grace: Duration,
) -> (Recorder, Instant) {
    let ThreadStart {
        thread,
        start,
        reports,
        cancel,
        ..
    } = thread_start;
    // h2load judges progress on the first thread.
    let progress = (thread == 0).then_some(&reports);
    let initial_phase = if plan.warm_up().is_zero() {
        Phase::Measuring
    } else {
        Phase::WarmUp
    };
    let quota: u64 = clients
        .clone()
        .filter_map(|c| plan.requests_of_client(c))
        .sum();
    let arrivals = match &plan.load.pacing {
        Pacing::Open { profile } if !plan.stripe.is_whole() => Some(Arrivals::striped(
            profile,
            &plan.stripe,
            thread,
            plan.threads,
            start,
            plan.requests_here(),
            clients.clone(),
        )),
        Pacing::Open { profile } => Some(Arrivals::new(
            profile,
            clients.len() as f64 / plan.clients as f64,
            thread as f64 / plan.threads as f64,
            start,
            matches!(plan.mode, Mode::Requests(_)).then_some(quota),
            clients.clone(),
        )),
        _ => None,
    };
    let mut recorder = Recorder::new();
    recorder.log = log;
    let worker = Worker {
        thread,
        first_client: clients.start,
        plan,
        connections,
        recorder: RefCell::new(recorder),
        schedule: ScheduleContext {
            phase: Cell::new(initial_phase),
            pacing: &plan.load.pacing,
            arrivals,
            alarms: matches!(plan.load.pacing, Pacing::Script { .. })
                .then(|| Alarms::new(clients.clone())),
            active_clients: plan.load.active_clients.as_ref(),
            start,
        },
        read_buffer: RefCell::new(Vec::new()),
        timeouts: Cell::new(plan.timeouts),
    };
    let first_client = clients.start;
    let mut running: FuturesUnordered<_> = clients
        .map(|id| {
            run_client(
                &worker,
                id,
                start + connection_delay(plan, thread, id - first_client),
            )
        })
        .collect();
    let reported = Cell::new(0);
    let open_window = Cell::new(0);
    let end = {
        // Out of tokio's cooperative budget: it is per task, and all the
        // thread's clients share this one. Once 128 socket operations had
        // used it up, every other client's read came back Pending with a
        // deferred wake-up, to be polled again for nothing: at 10,000
        // connections that took most of the CPU and held connects back by
        // seconds. FuturesUnordered still yields after polling each ready
        // client once, so the clocks below and spawned tasks keep their turn.
        let all_done =
            tokio::task::unconstrained(async { while running.next().await.is_some() {} });
        let clock = phase_clock(&worker, start);
        let reporter = report_progress(&worker, start, quota, progress, &reported);
        let coalescing = reckon_wake_coalescing(&worker);
        let pacer = async {
            match (&worker.schedule.arrivals, &worker.schedule.alarms) {
                (Some(arrivals), _) => arrivals.pace().await,
                (None, Some(alarms)) => alarms.drive().await,
                (None, None) => std::future::pending().await,
            }
        };
        let measure_start = start + plan.warm_up();
        let run_ends = match plan.mode {
            Mode::Duration { duration, .. } => Some(measure_start + duration),
            Mode::Requests(_) => None,
        };
        let interval_clock = close_windows(
            || worker.recorder.borrow_mut().take_window(worker.plan.grpc),
            measure_start,
            run_ends,
            &reports,
            &open_window,
        );
        let mut all_done = pin!(all_done);
        let mut interval_clock = pin!(interval_clock);
        tokio::select! {
            _ = &mut all_done => Instant::now(),
            end = clock => end,
            () = cancel.cancelled() => {
                // No request starts any more; those in flight get the
                // grace to end, while the windows keep closing.
                worker.schedule.phase.set(Phase::Stopped);
                let finishing = async {
                    tokio::select! {
                        _ = &mut all_done => {}
                        () = nothing_in_flight(&worker) => {}
                        _ = &mut interval_clock => unreachable!("the interval clock never ends"),
                    }
                };
                let _ = tokio::time::timeout(stop_grace, finishing).await;
                Instant::now()
            }
            _ = reporter => unreachable!("progress reporting never ends"),
            _ = coalescing => unreachable!("the coalescing window is reckoned until the end"),
            _ = pacer => unreachable!("pacing never ends"),
            _ = &mut interval_clock => unreachable!("the interval clock never ends"),
        }
    };
    wake_coalescing::set_window(Duration::ZERO);
    // Due requests still queued at a timed stop are reported, never lost silently.
    if let Some(arrivals) = &worker.schedule.arrivals {
        if worker.schedule.phase.get() == Phase::Stopped {
            worker
                .recorder
                .borrow_mut()
                .unsent_at_end(arrivals.backlog(end));
        }
    }
    // The last window closes with the thread's part of the run.
    let index = open_window.get();
    let window = worker.recorder.borrow_mut().take_window(worker.plan.grpc);
    reports.window(WindowMessage {
        index,
        closed_at: end,
        window,
    });
    // Cancels clients still running at the end of a timed run; their
    // in-flight requests stay started but not done, as in h2load.
    drop(running);
    if let Some(progress) = progress {
        if matches!(plan.mode, Mode::Requests(_)) {
            announce(progress, &reported, 100);
        }
    }
    (worker.recorder.into_inner(), end)
}

/// Completes once every recorded request the thread started has ended.
/// Clients that wait for their next request (the open model's idle ones,
/// a timing script's) are not woken by a stop, so their end is not
/// awaited: only the requests are. Looked at every 10 ms, during the stop
/// grace only.
async fn nothing_in_flight(worker: &Worker<'_>) {
    loop {
        let outcomes = worker.recorder.borrow().outcomes;
        if outcomes.started == outcomes.done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// h2load's `-r`: client `local` of this thread makes its first connection
/// in period `local / per_period`, the rate split among threads. A segment
/// of a run split between machines takes its clients' periods in the whole
/// run's order, so that all machines together keep to the rate.
fn connection_delay(plan: &Plan, thread: usize, local: usize) -> Duration {
    let Some(rate) = plan.load.connection_rate else {
        return Duration::ZERO;
    };
    if !plan.stripe.is_whole() {
        let first: usize = (0..thread).map(|t| plan.clients_of_thread(t)).sum();
        let rank = plan.rank_of_client(first + local);
        return rate.period * (rank / rate.per_period) as u32;
    }
    let threads = plan.threads;
    let per_thread =
        (rate.per_period / threads + usize::from(thread < rate.per_period % threads)).max(1);
    rate.period * (local / per_thread) as u32
}

/// Moves the thread through warm-up and measurement; returns when `-D` ends.
async fn phase_clock(worker: &Worker<'_>, start: Instant) -> Instant {
    let phase = &worker.schedule.phase;
    match worker.plan.mode {
        Mode::Requests(_) => std::future::pending().await,
        Mode::Duration { duration, warm_up } => {
            let measure_start = start + warm_up;
            tokio::time::sleep_until(measure_start.into()).await;
            if !warm_up.is_zero() {
                // What warm-up left in the window (connections) is in no
                // interval. Cleared in the step that starts measuring: a timer
                // fires a millisecond or more late, and clearing it then would
                // drop the first measured responses from the intervals.
                worker.recorder.borrow_mut().discard_window();
            }
            phase.set(Phase::Measuring);
            let stop = measure_start + duration;
            tokio::time::sleep_until(stop.into()).await;
            phase.set(Phase::Stopped);
            stop
        }
    }
}

/// Works the thread's wake-up coalescing window out again every few
/// milliseconds from its requests in flight and those completed since
/// ([`wake_coalescing`]), in the runs that take one
/// ([`Plan::wake_coalescing_ceiling`]).
async fn reckon_wake_coalescing(worker: &Worker<'_>) {
    let Some(longest) = worker.plan.wake_coalescing_ceiling() else {
        return std::future::pending().await;
    };
    let mut ticker = tokio::time::interval(wake_coalescing::RECKONED_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let (mut then, mut done_then) = (Instant::now(), 0);
    loop {
        ticker.tick().await;
        let now = Instant::now();
        let outcomes = worker.recorder.borrow().outcomes;
        let done = outcomes.done();
        wake_coalescing::set_window(wake_coalescing::window_for(
            outcomes.started.saturating_sub(done),
            done.saturating_sub(done_then),
            now - then,
            longest,
        ));
        (then, done_then) = (now, done);
    }
}

/// h2load's "progress: N% done" lines, by requests done in count mode and
/// by time in duration mode, judged on the first thread as h2load does.
async fn report_progress(
    worker: &Worker<'_>,
    start: Instant,
    quota: u64,
    progress: Option<&Reports>,
    reported: &Cell<u32>,
) {
    let Some(progress) = progress else {
        return std::future::pending().await;
    };
    let mut ticker = tokio::time::interval(Duration::from_millis(100));
    loop {
        ticker.tick().await;
        let percent = match worker.plan.mode {
            Mode::Requests(_) => {
                let ended = worker.recorder.borrow().outcomes.ended();
                (ended * 100 / quota.max(1)) as u32
            }
            Mode::Duration { duration, warm_up } => {
                let measured = start.elapsed().saturating_sub(warm_up);
                (measured.as_secs_f64() * 100.0 / duration.as_secs_f64()) as u32
            }
        };
        announce(progress, reported, percent);
    }
}

/// Reports every 10% step up to `percent` not reported yet.
fn announce(progress: &Reports, reported: &Cell<u32>, percent: u32) {
    while reported.get() + 10 <= percent.min(100) {
        reported.set(reported.get() + 10);
        progress.progress(reported.get());
    }
}
