//! Runs a prepared plan: one thread per `-t`, each with its own
//! current-thread runtime, clients and recorder. Threads start together,
//! follow the same phase clock, and hand their recorders back to be merged
//! at the end. The calling thread meanwhile merges each second's windows
//! and passes them, and the progress, to the observer.

use crate::cancel::CancelHandle;
use crate::client::run_client;
use crate::interval::{Interval, IntervalRow, Merger, Window, WindowMessage, INTERVAL};
use crate::plan::{Mode, Pacing, Plan};
use crate::plan_error::PlanError;
use crate::protocols::RunProtocols;
use crate::recorder::Recorder;
use crate::request_log::{LogFile, RequestLog};
use crate::scheduler::alarms::Alarms;
use crate::scheduler::arrivals::Arrivals;
use crate::scheduler::ScheduleContext;
use crate::ticket::Phase;
use crate::transport::Connector;
use crate::worker::Worker;
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::cell::{Cell, RefCell};
use std::pin::pin;
use std::sync::{mpsc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

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

/// What a run reports while it goes on, on the thread that runs it.
pub trait Observer {
    /// One second of the measured part, once every worker thread has closed it.
    fn interval(&mut self, _interval: &Interval) {}
    /// h2load's progress, in steps of 10%: by requests done in count mode,
    /// by time in duration mode.
    fn progress(&mut self, _percent: u32) {}
}

/// What a prepared run is made of, borrowed for its length.
pub(crate) struct Parts<'r> {
    pub plan: &'r Plan,
    pub protocols: &'r RunProtocols,
    pub connector: &'r Connector,
    pub log_file: Option<LogFile>,
}

/// What worker threads tell the calling thread while they run.
// Not boxed: a box would be one more allocation on the worker thread per
// window, and a window is sent only once a second.
#[allow(clippy::large_enum_variant)]
enum Message {
    /// A thread closed an interval's window.
    Window(WindowMessage),
    /// The first thread's progress, in steps of 10%.
    Progress(u32),
}

/// Runs the prepared parts; see [`crate::run::Run::execute`].
pub(crate) fn execute(
    parts: Parts<'_>,
    mut observer: Option<&mut dyn Observer>,
    cancel: CancelHandle,
    start_at: Option<SystemTime>,
    interval_histograms: bool,
    stop_grace: Duration,
) -> Result<RunResult, String> {
    let Parts {
        plan,
        protocols,
        connector,
        log_file,
    } = parts;
    let gate = StartGate::default();
    let (messages, received) = mpsc::channel::<Message>();
    let mut intervals = Vec::new();
    let outcomes: Vec<Result<(Recorder, Instant), String>> = std::thread::scope(|scope| {
        let mut first_client = 0;
        let mut handles = Vec::with_capacity(plan.threads);
        let mut spawn_error = None;
        for thread in 0..plan.threads {
            let clients = first_client..first_client + plan.clients_of_thread(thread);
            first_client = clients.end;
            let (gate, log_file) = (&gate, &log_file);
            let (messages, cancel) = (messages.clone(), cancel.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("loadgen-worker-{thread}"))
                .spawn_scoped(scope, move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| format!("cannot start worker thread {thread}: {e}"))?;
                    let Some((start, wall_start)) = gate.wait() else {
                        return Err(String::new());
                    };
                    let log = log_file
                        .as_ref()
                        .map(|file| file.thread_log(start, wall_start));
                    let context = ThreadContext {
                        thread,
                        clients,
                        start,
                        messages,
                        log,
                        cancel,
                        stop_grace,
                    };
                    Ok(runtime.block_on(run_thread(plan, protocols, connector, context)))
                });
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    spawn_error = Some(format!("cannot start worker thread {thread}: {e}"));
                    break;
                }
            }
        }
        if spawn_error.is_none() {
            if let Some(at) = start_at {
                wait_until(at, &cancel);
            }
        }
        gate.open(spawn_error.is_none());
        drop(messages);
        if spawn_error.is_none() {
            let (start, wall_start) = gate.wait().expect("the gate opened");
            let mut merger = Merger::new(
                plan.threads,
                start + plan.warm_up(),
                wall_start + plan.warm_up(),
            );
            let mut publish = |interval: Interval, observer: &mut Option<&mut dyn Observer>| {
                // A run that ends on a boundary leaves an empty last window.
                if !interval.length.is_zero() {
                    if let Some(observer) = observer {
                        observer.interval(&interval);
                    }
                    intervals.push(if interval_histograms {
                        IntervalRow::of(&interval)
                    } else {
                        IntervalRow::summary(&interval)
                    });
                }
            };
            // Ends when every worker thread has dropped its sender.
            for message in received.iter() {
                match message {
                    Message::Window(window) => {
                        for interval in merger.add(window) {
                            publish(interval, &mut observer);
                        }
                    }
                    Message::Progress(percent) => {
                        if let Some(observer) = &mut observer {
                            observer.progress(percent);
                        }
                    }
                }
            }
            for interval in merger.finish() {
                publish(interval, &mut observer);
            }
        }
        let joined: Vec<_> = handles
            .into_iter()
            // Where panics unwind (a library build), a panic is an error
            // of the run, not of the process that asked for it.
            .map(|h| h.join().unwrap_or_else(|panic| Err(panicked(&*panic))))
            .collect();
        match spawn_error {
            Some(error) => vec![Err(error)],
            None => joined,
        }
    });
    // The first thread's recorder is the base the others are added to: a
    // fresh one would copy every histogram of a one-thread run once more.
    let mut merged: Option<Recorder> = None;
    let mut last_end = None;
    let mut log_error = None;
    for outcome in outcomes {
        let (mut recorder, end) = outcome?;
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
    let (start, wall_start) = gate.wait().expect("the gate opened");
    let measure_start = start + plan.warm_up();
    let elapsed = last_end
        .map(|end| end.saturating_duration_since(measure_start))
        .unwrap_or_default();
    let started_at = wall_start + plan.warm_up();
    Ok(RunResult {
        recorder: merged,
        started_at,
        ended_at: started_at + elapsed,
        elapsed,
        intervals,
        log_error: log_file.and_then(|file| file.finish(log_error)),
        cancelled: cancel.is_cancelled(),
    })
}

/// A worker thread's panic as the run's error.
fn panicked(panic: &(dyn std::any::Any + Send)) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message");
    format!("a worker thread panicked ({what}); this is a bug in loadgen")
}

/// Sleeps until the wall clock reads `at`, or the run is cancelled.
fn wait_until(at: SystemTime, cancel: &CancelHandle) {
    // Short naps: a cancel is seen within one, and the wall clock may be set
    // while waiting.
    const NAP: Duration = Duration::from_millis(50);
    while !cancel.is_cancelled() {
        match at.duration_since(SystemTime::now()) {
            Ok(left) if !left.is_zero() => std::thread::sleep(left.min(NAP)),
            _ => return,
        }
    }
}

/// Holds worker threads until all of them exist, then releases them with
/// one shared start time, or tells them to quit if a thread failed to spawn.
#[derive(Default)]
struct StartGate {
    state: Mutex<Option<Option<(Instant, SystemTime)>>>,
    opened: Condvar,
}

impl StartGate {
    fn open(&self, go: bool) {
        let start = go.then(|| (Instant::now(), SystemTime::now()));
        *self.state.lock().expect("start gate lock") = Some(start);
        self.opened.notify_all();
    }

    fn wait(&self) -> Option<(Instant, SystemTime)> {
        let state = self.state.lock().expect("start gate lock");
        let state = self
            .opened
            .wait_while(state, |s| s.is_none())
            .expect("start gate lock");
        state.expect("the gate is open")
    }
}

/// What a worker thread gets besides the run's shared, read-only parts.
struct ThreadContext {
    thread: usize,
    clients: std::ops::Range<usize>,
    start: Instant,
    messages: mpsc::Sender<Message>,
    log: Option<RequestLog>,
    cancel: CancelHandle,
    /// How long requests in flight may go on after a cancel.
    stop_grace: Duration,
}

/// One worker thread: its clients run as futures of a single task, so they
/// can borrow the thread's state without reference counting.
async fn run_thread(
    plan: &Plan,
    protocols: &RunProtocols,
    connector: &Connector,
    context: ThreadContext,
) -> (Recorder, Instant) {
    let ThreadContext {
        thread,
        clients,
        start,
        messages,
        log,
        cancel,
        stop_grace,
    } = context;
    // h2load judges progress on the first thread.
    let progress = (thread == 0).then_some(&messages);
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
    let worker = Worker {
        thread,
        first_client: clients.start,
        plan,
        protocols,
        connector,
        recorder: RefCell::new(Recorder {
            log,
            ..Recorder::new()
        }),
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
        let pacer = async {
            match (&worker.schedule.arrivals, &worker.schedule.alarms) {
                (Some(arrivals), _) => arrivals.pace().await,
                (None, Some(alarms)) => alarms.drive().await,
                (None, None) => std::future::pending().await,
            }
        };
        let interval_clock =
            close_windows(&worker, start + plan.warm_up(), &messages, &open_window);
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
            _ = pacer => unreachable!("pacing never ends"),
            _ = &mut interval_clock => unreachable!("the interval clock never ends"),
        }
    };
    // Due requests still queued at a timed stop are reported, never lost silently.
    if let Some(arrivals) = &worker.schedule.arrivals {
        if worker.schedule.phase.get() == Phase::Stopped {
            worker.recorder.borrow_mut().unsent_at_end += arrivals.backlog(end);
        }
    }
    // The last window closes with the thread's part of the run.
    let index = open_window.get();
    let window = std::mem::take(&mut worker.recorder.borrow_mut().window);
    let _ = messages.send(Message::Window(WindowMessage {
        index,
        closed_at: end,
        window,
    }));
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

/// Sends the thread's window to the runner at every interval boundary.
/// `open_window` is the index of the window being filled.
async fn close_windows(
    worker: &Worker<'_>,
    measure_start: Instant,
    messages: &mpsc::Sender<Message>,
    open_window: &Cell<u32>,
) {
    loop {
        let index = open_window.get();
        let closes = measure_start + INTERVAL * (index + 1);
        tokio::time::sleep_until(closes.into()).await;
        let window = std::mem::take(&mut worker.recorder.borrow_mut().window);
        let _ = messages.send(Message::Window(WindowMessage {
            index,
            closed_at: closes,
            window,
        }));
        open_window.set(index + 1);
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
                worker.recorder.borrow_mut().window = Window::default();
            }
            phase.set(Phase::Measuring);
            let stop = measure_start + duration;
            tokio::time::sleep_until(stop.into()).await;
            phase.set(Phase::Stopped);
            stop
        }
    }
}

/// h2load's "progress: N% done" lines, by requests done in count mode and
/// by time in duration mode, judged on the first thread as h2load does.
async fn report_progress(
    worker: &Worker<'_>,
    start: Instant,
    quota: u64,
    progress: Option<&mpsc::Sender<Message>>,
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
                let recorder = worker.recorder.borrow();
                let ended = recorder.outcomes.done() + recorder.outcomes.not_started;
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
fn announce(progress: &mpsc::Sender<Message>, reported: &Cell<u32>, percent: u32) {
    while reported.get() + 10 <= percent.min(100) {
        reported.set(reported.get() + 10);
        let _ = progress.send(Message::Progress(reported.get()));
    }
}
