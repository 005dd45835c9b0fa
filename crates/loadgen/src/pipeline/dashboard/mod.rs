//! `--dashboard`: the run's live page, served on a thread of its own.
//!
//! The pipeline hands over each merged second ([`Feed`], once per second,
//! on the calling thread, as the live line gets it) and, at the end, the
//! finished report. The server draws the page from that state only when a
//! browser asks for it, so a dashboard nobody opens costs the run a lock
//! and a histogram addition per second, and nothing per request.

mod server;

use loadgen_core::interval::Interval;
use loadgen_core::report::RunConfig;
use loadgen_core::{CancelHandle, Plan, Report};
use loadgen_report::html::dashboard;
use loadgen_report::html::ThresholdRow;
use loadgen_report::k6_threshold::K6Threshold;
use loadgen_report::live::LiveRun;
use loadgen_report::threshold::{self, Threshold, ThresholdResult};
use serde_json::Value;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::watch;

/// The server and what it shows.
pub struct Dashboard {
    shared: Arc<Shared>,
    address: SocketAddr,
    closing: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
    linger: Duration,
}

/// What the pipeline and the server share: the state under a lock taken
/// once per second by the pipeline, and a count of its changes that the
/// event streams wait on.
struct Shared {
    state: Mutex<State>,
    changes: watch::Sender<u64>,
    thresholds: Criteria,
}

/// The thresholds whose state the page shows: the benchmark's
/// (`--threshold`) or a scenario file's, in k6's grammar.
#[derive(Clone)]
pub enum Criteria {
    Flags(Vec<Threshold>),
    Scenario(Vec<K6Threshold>),
}

#[derive(Default)]
struct State {
    live: Option<LiveRun>,
    ended: Option<Ended>,
}

/// The finished report, as the dashboard offers it: drawn when asked
/// for, so that a dashboard nobody opens adds no page to the run's end.
struct Ended {
    html: Box<dyn Fn() -> String + Send>,
    document: Value,
    thresholds: Vec<ThresholdRow>,
}

/// What an event stream sends next: the rows it has not sent yet, each a
/// JSON object of the report's `intervals`, and the parts of the page.
struct Update {
    rows: Vec<String>,
    view: String,
    ended: bool,
}

/// The pipeline's side: each merged second, once per second.
pub struct Feed(Arc<Shared>);

impl Dashboard {
    /// Binds `address` (an error is the user's: a port taken, an address
    /// not this machine's) and serves on a thread of its own.
    pub fn start(
        address: SocketAddr,
        linger: Duration,
        thresholds: Criteria,
    ) -> Result<Dashboard, String> {
        let listener = TcpListener::bind(address)
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|e| format!("--dashboard: cannot listen on {address}: {e}"))?;
        let address = listener
            .local_addr()
            .map_err(|e| format!("--dashboard: {e}"))?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changes: watch::channel(0).0,
            thresholds,
        });
        let (closing, closed) = watch::channel(false);
        let serving = shared.clone();
        let thread = std::thread::Builder::new()
            .name("loadgen-dashboard".into())
            .spawn(move || server::serve(listener, serving, closed))
            .map_err(|e| format!("--dashboard: cannot start its thread: {e}"))?;
        Ok(Dashboard {
            shared,
            address,
            closing,
            thread: Some(thread),
            linger,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    pub fn feed(&self) -> Feed {
        Feed(self.shared.clone())
    }

    /// The finished report: its JSON document, how to draw its HTML page,
    /// and the thresholds' verdicts.
    pub fn finish(
        &self,
        document: Value,
        html: impl Fn() -> String + Send + 'static,
        results: &[ThresholdResult],
    ) {
        let ended = Ended {
            html: Box::new(html),
            document,
            thresholds: results.iter().map(ThresholdRow::of).collect(),
        };
        self.shared.change(|state| state.ended = Some(ended));
    }

    /// Serves on for `--dashboard-linger`, or until `stop` is cancelled
    /// (a signal), then stops the server.
    pub fn close(self, stop: &CancelHandle) {
        let until = Instant::now() + self.linger;
        while !stop.is_cancelled() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(Duration::from_millis(50)));
        }
    }
}

impl Drop for Dashboard {
    /// The server stops with its connections, streams open or not.
    fn drop(&mut self) {
        let _ = self.closing.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Feed {
    /// The run's plan: what the charts mark (warm-up, ramps, the rate).
    pub fn begin(&self, plan: &Plan) {
        self.begin_run(RunConfig::new(plan));
    }

    /// The configuration of a run made without a plan (a scenario's), as
    /// its report will show it.
    pub fn begin_run(&self, config: RunConfig) {
        let live = LiveRun::new(config, SystemTime::now());
        self.0.change(|state| state.live = Some(live));
    }

    pub fn interval(&self, interval: &Interval) {
        self.0.change(|state| {
            if let Some(live) = &mut state.live {
                live.add(interval);
            }
        });
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere leaves the state whole: each change is one
        // assignment or one addition.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn change(&self, change: impl FnOnce(&mut State)) {
        change(&mut self.lock());
        self.changes.send_modify(|n| *n += 1);
    }

    /// What a stream that has sent `sent` rows sends next. The state is
    /// copied under the lock and drawn outside it.
    fn update(&self, sent: usize) -> Update {
        let (live, ended) = {
            let state = self.lock();
            let ended = state.ended.as_ref().map(|e| e.thresholds.clone());
            (state.live.clone(), ended)
        };
        let live = live.unwrap_or_else(|| LiveRun::new(empty_config(), SystemTime::now()));
        let rows = live.rows()[sent.min(live.rows().len())..]
            .iter()
            .map(|row| serde_json::to_string(row).expect("a row serializes"))
            .collect();
        let thresholds = match &ended {
            Some(rows) => rows.clone(),
            None if self.thresholds.is_empty() || live.rows().is_empty() => Vec::new(),
            None => self.thresholds.judge(&live.so_far()),
        };
        let view = dashboard::view(&live, &thresholds, ended.is_some());
        Update {
            rows,
            view: view.to_string(),
            ended: ended.is_some(),
        }
    }

    /// The page's title: the run's URIs, once its plan is known.
    fn title(&self) -> String {
        match &self.lock().live {
            Some(live) => format!("loadgen live: {}", live.config().uris.join(" ")),
            None => "loadgen live".to_string(),
        }
    }

    fn report(&self, html: bool) -> Option<String> {
        let state = self.lock();
        let ended = state.ended.as_ref()?;
        Some(if html {
            (ended.html)()
        } else {
            loadgen_report::json_pretty(&ended.document)
        })
    }
}

impl Criteria {
    fn is_empty(&self) -> bool {
        match self {
            Criteria::Flags(all) => all.is_empty(),
            Criteria::Scenario(all) => all.is_empty(),
        }
    }

    /// The state of each threshold by the seconds so far. A scenario's
    /// threshold that the seconds do not hold (checks, iterations, a
    /// step's failures) or that has nothing measured yet is pending: its
    /// verdict comes with the finished report.
    fn judge(&self, so_far: &Report) -> Vec<ThresholdRow> {
        match self {
            Criteria::Flags(all) => threshold::evaluate_all(all, so_far)
                .iter()
                .map(|(t, o)| ThresholdRow::of(&t.result(o)))
                .collect(),
            Criteria::Scenario(all) => all
                .iter()
                .map(|t| {
                    if !t.reads_seconds() {
                        return ThresholdRow::pending(&t.name(), "counted at the end");
                    }
                    let outcome = t.evaluate(so_far);
                    match outcome.value {
                        Some(_) => ThresholdRow::of(&t.result(&outcome)),
                        None => ThresholdRow::pending(&t.name(), &outcome.actual),
                    }
                })
                .collect(),
        }
    }
}

/// The configuration of a run not begun: a dashboard opened before its
/// plan is known shows the wait.
fn empty_config() -> RunConfig {
    RunConfig {
        uris: Vec::new(),
        method: String::new(),
        clients: 0,
        threads: 0,
        max_concurrent_streams: 0,
        mode: String::new(),
        requests: None,
        duration_s: None,
        warm_up_s: None,
        load_model: String::new(),
        rate_per_s: None,
        rps_per_client: None,
        segment: None,
        load_profile: Vec::new(),
        wake_coalescing_us: None,
    }
}
