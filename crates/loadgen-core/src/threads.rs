//! The thread-per-core harness every kind of run shares: `-t` worker
//! threads, each with its own current-thread runtime, released together by
//! one start gate (or at a given wall-clock time), each second's windows
//! merged on the calling thread and handed to the observer, and the
//! threads' results joined at the end. A panic on a worker thread becomes
//! the run's error where panics unwind.
//!
//! What a thread does is the caller's: the benchmark's clients
//! ([`crate::runner`]) or a scenario's virtual users.

use crate::cancel::CancelHandle;
use crate::interval::{Interval, IntervalRow, KeptRow, Merger, Window, WindowMessage, INTERVAL};
use crate::kept_rows::KeptRows;
use std::cell::Cell;
use std::future::Future;
use std::sync::{mpsc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// What a run reports while it goes on, on the thread that runs it.
pub trait Observer {
    /// One second of the measured part, once every worker thread has closed it.
    fn interval(&mut self, _interval: &Interval) {}
    /// h2load's progress, in steps of 10%: by requests done in count mode,
    /// by time in duration mode.
    fn progress(&mut self, _percent: u32) {}
    /// The measured part starts at this instant (after the warm-up), the
    /// origin of every interval; heard once, as the threads start.
    fn measuring(&mut self, _at: Instant) {}
}

/// How the threads of a run are started and observed.
#[derive(Clone, Copy, Debug)]
pub struct ThreadsConfig {
    pub threads: usize,
    /// Start at this wall-clock time rather than at once.
    pub start_at: Option<SystemTime>,
    /// From the start to the measured part (warm-up): intervals count from there.
    pub measure_after: Duration,
    /// Keep each second's histograms in its interval row.
    pub interval_histograms: bool,
}

/// What a worker thread is given once every thread exists.
pub struct ThreadStart {
    pub thread: usize,
    /// The run's start, the same on every thread.
    pub start: Instant,
    pub wall_start: SystemTime,
    pub reports: Reports,
    pub cancel: CancelHandle,
}

/// A worker thread's way to the calling thread: its closed windows and,
/// for the first thread, the progress.
pub struct Reports {
    messages: mpsc::Sender<Message>,
}

impl Reports {
    /// A window of the thread's recorder closed.
    pub fn window(&self, message: WindowMessage) {
        // The calling thread only stops listening when every thread is done.
        let _ = self.messages.send(Message::Window(message));
    }

    /// h2load's progress, in percent.
    pub fn progress(&self, percent: u32) {
        let _ = self.messages.send(Message::Progress(percent));
    }
}

/// What the threads of a run produced.
pub struct Joined<T> {
    /// Each thread's result, in thread order.
    pub results: Vec<T>,
    pub start: Instant,
    pub wall_start: SystemTime,
    /// One row per second of the measured part.
    pub intervals: Vec<IntervalRow>,
}

// Not boxed: a box would be one more allocation on the worker thread per
// window, and a window is sent only once a second.
#[allow(clippy::large_enum_variant)]
enum Message {
    Window(WindowMessage),
    Progress(u32),
}

/// Runs `job` on `config.threads` worker threads, each inside its own
/// current-thread runtime, and returns what they produced. The observer
/// hears the merged intervals and the progress on the calling thread.
pub fn run_on_threads<T, F, Fut>(
    config: ThreadsConfig,
    mut observer: Option<&mut dyn Observer>,
    cancel: &CancelHandle,
    job: F,
) -> Result<Joined<T>, String>
where
    T: Send,
    F: Fn(ThreadStart) -> Fut + Sync,
    Fut: Future<Output = T>,
{
    let gate = StartGate::default();
    let (messages, received) = mpsc::channel::<Message>();
    let mut intervals = KeptRows::new();
    let outcomes: Vec<Result<T, String>> = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(config.threads);
        let mut spawn_error = None;
        for thread in 0..config.threads {
            let (gate, job) = (&gate, &job);
            let (messages, cancel) = (messages.clone(), cancel.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("loadgen-worker-{thread}"))
                .spawn_scoped(scope, move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .on_thread_park(crate::wake_coalescing::before_park)
                        .build()
                        .map_err(|e| format!("cannot start worker thread {thread}: {e}"))?;
                    let Some((start, wall_start)) = gate.wait() else {
                        return Err(String::new());
                    };
                    let start = ThreadStart {
                        thread,
                        start,
                        wall_start,
                        reports: Reports { messages },
                        cancel,
                    };
                    Ok(runtime.block_on(job(start)))
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
            if let Some(at) = config.start_at {
                wait_until(at, cancel);
            }
        }
        gate.open(spawn_error.is_none());
        drop(messages);
        if spawn_error.is_none() {
            let (start, wall_start) = gate.wait().expect("the gate opened");
            if let Some(observer) = &mut observer {
                observer.measuring(start + config.measure_after);
            }
            let mut merger = Merger::new(
                config.threads,
                start + config.measure_after,
                wall_start + config.measure_after,
            );
            let mut publish = |interval: Interval, observer: &mut Option<&mut dyn Observer>| {
                // A run that ends on a boundary leaves an empty last window.
                if !interval.length.is_zero() {
                    if let Some(observer) = observer {
                        observer.interval(&interval);
                    }
                    intervals.push(KeptRow::of(&interval, config.interval_histograms));
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
    let results = outcomes.into_iter().collect::<Result<Vec<T>, String>>()?;
    let (start, wall_start) = gate.wait().expect("the gate opened");
    Ok(Joined {
        results,
        start,
        wall_start,
        intervals: intervals.into_rows()?,
    })
}

/// Sends a thread's window, as `take_window` empties it, to the calling
/// thread at every interval boundary before `run_ends` (a timed run's
/// end). `open_window` is the index of the window being filled.
///
/// The window the run ends in is left to the caller to close with the run:
/// when the run ends on a boundary, its last responses (recorded as the
/// stop takes effect, after that boundary's timer has fired) stay in the
/// last second instead of opening an empty one that would be dropped.
pub async fn close_windows(
    take_window: impl Fn() -> Window,
    measure_start: Instant,
    run_ends: Option<Instant>,
    reports: &Reports,
    open_window: &Cell<u32>,
) {
    loop {
        let index = open_window.get();
        let closes = measure_start + INTERVAL * (index + 1);
        if run_ends.is_some_and(|ends| closes >= ends) {
            return std::future::pending().await;
        }
        tokio::time::sleep_until(closes.into()).await;
        let window = take_window();
        reports.window(WindowMessage {
            index,
            closed_at: closes,
            window,
        });
        open_window.set(index + 1);
    }
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
