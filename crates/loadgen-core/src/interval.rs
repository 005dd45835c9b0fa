//! Time series: each worker thread closes a [`Window`] every second and
//! sends it to the runner, which adds up the windows of all threads with the
//! same index into one [`Interval`]. Nothing crosses threads per request.

mod run_counters;
mod step_row;

pub use run_counters::RunCounters;
pub use step_row::StepRow;

use crate::error_kind::ErrorKind;
use crate::histogram::{self, micros, record};
use crate::histogram_codec;
use crate::server_usage::IntervalServer;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::{Duration, Instant, SystemTime};

pub const INTERVAL: Duration = Duration::from_secs(1);

/// What one thread recorded since the last interval boundary.
#[derive(Clone, Debug)]
pub struct Window {
    pub request_time: Histogram<u64>,
    pub request_time_raw: Histogram<u64>,
    pub connect_time: Histogram<u64>,
    pub first_byte_time: Histogram<u64>,
    /// Requests that got a response, whatever its status.
    pub responses: u64,
    /// Requests that ended in an error or a timeout, started or not.
    pub errors: u64,
    /// Responses by status class: index 1 is 1xx … 5 is 5xx (0 holds
    /// anything outside 100..=599).
    pub status_classes: [u64; 6],
    /// `errors` by kind, indexed by `ErrorKind as usize`.
    pub error_kinds: [u64; ErrorKind::ALL.len()],
    /// Bytes, late, unsent and dropped counts, and the connections and
    /// virtual users open when the window closed.
    pub counters: RunCounters,
    /// What the thread's requests go over, as the report names it
    /// (`application_protocol`, or `grpc` for gRPC calls); `None` before
    /// the thread's first connection.
    pub protocol: Option<&'static str>,
    /// A scenario run's steps, in the suite's order; empty otherwise.
    pub steps: Vec<StepWindow>,
    /// A scenario run's checks, in the suite's order; empty otherwise.
    pub checks: Vec<CheckWindow>,
}

/// One scenario step in a window, under the step's name: its latencies
/// and how it ended, as the report's `scenario.steps` count them.
#[derive(Clone, Debug)]
pub struct StepWindow {
    pub name: String,
    /// The scenarios whose steps go by this name, joined by `,`.
    pub scenario: String,
    pub duration: Histogram<u64>,
    pub duration_raw: Histogram<u64>,
    pub status_classes: [u64; 6],
    pub error_kinds: [u64; ErrorKind::ALL.len()],
}

/// One scenario check in a window: its passes and fails. A worker's rows
/// carry it as it is ([`IntervalRow::checks`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckWindow {
    pub step: String,
    pub scenario: String,
    pub name: String,
    pub passes: u64,
    pub fails: u64,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            request_time: histogram::for_request_times(),
            request_time_raw: histogram::for_request_times(),
            connect_time: histogram::new(),
            first_byte_time: histogram::for_request_times(),
            responses: 0,
            errors: 0,
            status_classes: [0; 6],
            error_kinds: [0; ErrorKind::ALL.len()],
            counters: RunCounters::default(),
            protocol: None,
            steps: Vec::new(),
            checks: Vec::new(),
        }
    }
}

impl Window {
    pub fn merge(&mut self, other: &Window) {
        let pairs = [
            (&mut self.request_time, &other.request_time),
            (&mut self.request_time_raw, &other.request_time_raw),
            (&mut self.connect_time, &other.connect_time),
            (&mut self.first_byte_time, &other.first_byte_time),
        ];
        for (mine, theirs) in pairs {
            mine.add(theirs).expect("histograms share bounds");
        }
        self.responses += other.responses;
        self.errors += other.errors;
        add_up(&mut self.status_classes, &other.status_classes);
        add_up(&mut self.error_kinds, &other.error_kinds);
        // Gauges of threads (or workers) at the same moment add up.
        self.counters.merge(&other.counters);
        self.protocol = self.protocol.or(other.protocol);
        merge_named(
            &mut self.steps,
            &other.steps,
            |a, b| a.name == b.name && a.scenario == b.scenario,
            StepWindow::add,
        );
        merge_named(
            &mut self.checks,
            &other.checks,
            |a, b| a.name == b.name && a.step == b.step && a.scenario == b.scenario,
            |mine, theirs| {
                mine.passes += theirs.passes;
                mine.fails += theirs.fails;
            },
        );
    }

    pub fn record_response(&mut self, status: u16, corrected: Duration, raw: Duration) {
        self.record_response_us(status, micros(corrected).max(1), micros(raw).max(1));
    }

    /// [`Window::record_response`] with the times already in whole microseconds.
    pub fn record_response_us(&mut self, status: u16, corrected_us: u64, raw_us: u64) {
        record(&mut self.request_time, corrected_us);
        record(&mut self.request_time_raw, raw_us);
        self.count_response(status);
    }

    /// A response, in the counts only: its times went in apart.
    pub fn count_response(&mut self, status: u16) {
        self.responses += 1;
        let class = usize::from(status / 100);
        self.status_classes[if class < 6 { class } else { 0 }] += 1;
    }

    /// The responses that succeeded, as the final report counts them
    /// ([`Recorder::response`](crate::recorder::Recorder::response)): 2xx
    /// and 3xx, and a WebSocket run's messages, which carry the upgrade's
    /// 101 (no other status is recorded in such a run). Any other 1xx,
    /// 4xx, 5xx and a status outside 100-599 failed. A gRPC call's
    /// status is not in a window: its calls count here by their HTTP status.
    pub fn succeeded(&self, websocket: bool) -> u64 {
        let classes = &self.status_classes;
        let messages = if websocket { classes[1] } else { 0 };
        classes[2] + classes[3] + messages
    }

    pub fn record_errors(&mut self, kind: ErrorKind, count: u64) {
        self.errors += count;
        self.error_kinds[kind as usize] += count;
    }
}

impl StepWindow {
    fn add(&mut self, other: &StepWindow) {
        self.duration
            .add(&other.duration)
            .expect("histograms share bounds");
        self.duration_raw
            .add(&other.duration_raw)
            .expect("histograms share bounds");
        add_up(&mut self.status_classes, &other.status_classes);
        add_up(&mut self.error_kinds, &other.error_kinds);
    }
}

/// Adds each of `theirs` to the one of `mine` it is the `same` as, or
/// appends it. Every thread (and every worker) of a run runs one suite, so
/// the lists agree place by place and the search is for rows from
/// elsewhere only.
fn merge_named<T: Clone>(
    mine: &mut Vec<T>,
    theirs: &[T],
    same: impl Fn(&T, &T) -> bool,
    add: impl Fn(&mut T, &T),
) {
    for (at, item) in theirs.iter().enumerate() {
        let found = match mine.get(at) {
            Some(here) if same(here, item) => Some(at),
            _ => mine.iter().position(|m| same(m, item)),
        };
        match found {
            Some(index) => add(&mut mine[index], item),
            None => mine.push(item.clone()),
        }
    }
}

fn add_up<const N: usize>(mine: &mut [u64; N], theirs: &[u64; N]) {
    for (mine, theirs) in mine.iter_mut().zip(theirs) {
        *mine += theirs;
    }
}

/// One second of the whole run (the last one may be shorter).
pub struct Interval {
    pub index: u32,
    /// From the start of measurement to the start of this interval.
    pub offset: Duration,
    /// Wall-clock time of the interval's start.
    pub started_at: SystemTime,
    pub length: Duration,
    pub window: Window,
}

/// One `intervals` row of the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntervalRow {
    pub start_s: f64,
    pub duration_s: f64,
    pub requests: u64,
    pub errors: u64,
    pub req_per_s: f64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub p50_raw_us: u64,
    pub p99_raw_us: u64,
    /// Responses by status class (`2xx`, `5xx`, …), only the classes seen;
    /// empty in a row of a report written before rows carried them.
    #[serde(default)]
    pub status_codes: BTreeMap<String, u64>,
    /// `errors` by kind (`connect`, `reset`, …), only the kinds seen.
    #[serde(default)]
    pub error_kinds: BTreeMap<String, u64>,
    /// `bytes_received`, `bytes_sent`, `connections` (open at the row's
    /// end), `started_late`, `unsent_at_end`, and in scenario runs `vus`
    /// (at the row's end) and `dropped_iterations`: fields of the row.
    #[serde(flatten)]
    pub counters: RunCounters,
    /// What the requests went over (`h2`, `http/1.1`, ..., `grpc`);
    /// absent before the first connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// The interval's histograms; `None` in a row read back from an
    /// output that leaves them out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histograms: Option<IntervalHistograms>,
    /// The server's CPU % and memory in this interval (`--server-pid`,
    /// `--server-cgroup`); absent otherwise. Boxed: rows travel in
    /// enums (a worker's events) that a wider row would unbalance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<Box<IntervalServer>>,
    /// A worker's rows of a scenario run: each step of the second, in the
    /// suite's order. A report's rows leave them out (its
    /// `scenario.steps` has the run's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepRow>,
    /// A worker's rows of a scenario run: each check of the second.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckWindow>,
}

/// The histograms of one interval's [`Window`], each encoded by
/// [`histogram_codec::encode`]: values in microseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntervalHistograms {
    pub request_time: String,
    pub request_time_raw: String,
    pub connect_time: String,
    pub first_byte_time: String,
}

impl IntervalHistograms {
    pub fn of(w: &Window) -> IntervalHistograms {
        IntervalHistograms {
            request_time: histogram_codec::encode(&w.request_time),
            request_time_raw: histogram_codec::encode(&w.request_time_raw),
            connect_time: histogram_codec::encode(&w.connect_time),
            first_byte_time: histogram_codec::encode(&w.first_byte_time),
        }
    }
}

impl IntervalRow {
    /// The row of `interval`, its histograms included.
    pub fn of(interval: &Interval) -> IntervalRow {
        KeptRow::of(interval, true).into_row()
    }

    /// The row of `interval` with its histograms and, in a scenario run,
    /// each step and check of the second: what a worker streams, so that
    /// its controller's seconds have them as a local run's have.
    pub fn with_steps(interval: &Interval) -> IntervalRow {
        let w = &interval.window;
        IntervalRow {
            steps: w.steps.iter().map(StepRow::of).collect(),
            checks: w.checks.clone(),
            ..IntervalRow::of(interval)
        }
    }

    /// The row's counts as a [`Window`] holds them, histograms, steps and
    /// checks left empty, so rows from elsewhere (a worker's) add up as
    /// windows.
    ///
    /// Its histograms start at their smallest, not sized for request times
    /// as a recording window's are: a controller makes one of these for
    /// every worker's row each second and puts the row's decoded
    /// histograms in their place.
    pub fn counts_window(&self) -> Window {
        let (status_classes, error_kinds) = self.window_counts();
        Window {
            request_time: histogram::new(),
            request_time_raw: histogram::new(),
            connect_time: histogram::new(),
            first_byte_time: histogram::new(),
            responses: self.requests,
            errors: self.errors,
            status_classes,
            error_kinds,
            counters: self.counters,
            protocol: self.protocol.as_deref().and_then(protocol_name),
            steps: Vec::new(),
            checks: Vec::new(),
        }
    }

    /// The row's counts by status class and by error kind as a [`Window`]
    /// holds them, so rows from elsewhere (a worker's) add up as windows.
    pub fn window_counts(&self) -> ([u64; 6], [u64; ErrorKind::ALL.len()]) {
        (
            class_counts(&self.status_codes),
            kind_counts(&self.error_kinds),
        )
    }

    /// The row without its histograms: encoding them costs more than
    /// the rest of the row, and a text report never shows them.
    pub fn summary(interval: &Interval) -> IntervalRow {
        KeptRow::of(interval, false).into_row()
    }
}

/// An interval's row as a run keeps it until its report is made: the
/// counts by status class and error kind in fixed arrays, the histograms
/// behind one pointer. A run keeps one per second; as an [`IntervalRow`]
/// (two maps, their keys and the histograms' four strings inline) a row
/// took about 600 bytes of heap a second, so that a half-hour run grew by
/// a megabyte for its rows alone (docs/reliability.md, "Soak"); this form
/// takes about 200 and allocates nothing more without histograms.
#[derive(Clone, Debug)]
pub struct KeptRow {
    start_s: f64,
    duration_s: f64,
    requests: u64,
    errors: u64,
    p50_us: u64,
    p99_us: u64,
    p50_raw_us: u64,
    p99_raw_us: u64,
    status_classes: [u64; 6],
    error_kinds: [u64; ErrorKind::ALL.len()],
    counters: RunCounters,
    /// Borrowed from the protocols' names but for a name this build does
    /// not know (a worker's of another version).
    protocol: Option<Cow<'static, str>>,
    histograms: Option<Box<IntervalHistograms>>,
    server: Option<Box<IntervalServer>>,
}

impl KeptRow {
    /// The row of `interval`, with its histograms encoded when `histograms`.
    pub fn of(interval: &Interval, histograms: bool) -> KeptRow {
        let w = &interval.window;
        KeptRow {
            start_s: interval.offset.as_secs_f64(),
            duration_s: interval.length.as_secs_f64(),
            requests: w.responses,
            errors: w.errors,
            p50_us: w.request_time.value_at_quantile(0.5),
            p99_us: w.request_time.value_at_quantile(0.99),
            p50_raw_us: w.request_time_raw.value_at_quantile(0.5),
            p99_raw_us: w.request_time_raw.value_at_quantile(0.99),
            status_classes: w.status_classes,
            error_kinds: w.error_kinds,
            counters: w.counters,
            protocol: w.protocol.map(Cow::Borrowed),
            histograms: histograms.then(|| Box::new(IntervalHistograms::of(w))),
            server: None,
        }
    }

    /// A row read from elsewhere (a worker's stream), kept in this form.
    /// Its steps and checks are not kept: they went into the live merge,
    /// and a report's rows have none.
    pub fn of_row(row: IntervalRow) -> KeptRow {
        let (status_classes, error_kinds) = row.window_counts();
        KeptRow {
            start_s: row.start_s,
            duration_s: row.duration_s,
            requests: row.requests,
            errors: row.errors,
            p50_us: row.p50_us,
            p99_us: row.p99_us,
            p50_raw_us: row.p50_raw_us,
            p99_raw_us: row.p99_raw_us,
            status_classes,
            error_kinds,
            counters: row.counters,
            protocol: row.protocol.map(|name| match protocol_name(&name) {
                Some(known) => Cow::Borrowed(known),
                None => Cow::Owned(name),
            }),
            histograms: row.histograms.map(Box::new),
            server: row.server,
        }
    }

    /// The report's row.
    pub fn into_row(self) -> IntervalRow {
        let seconds = self.duration_s;
        IntervalRow {
            start_s: self.start_s,
            duration_s: seconds,
            requests: self.requests,
            errors: self.errors,
            req_per_s: if seconds > 0.0 {
                self.requests as f64 / seconds
            } else {
                0.0
            },
            p50_us: self.p50_us,
            p99_us: self.p99_us,
            p50_raw_us: self.p50_raw_us,
            p99_raw_us: self.p99_raw_us,
            status_codes: class_map(&self.status_classes),
            error_kinds: kind_map(&self.error_kinds),
            counters: self.counters,
            protocol: self.protocol.map(Cow::into_owned),
            histograms: self.histograms.map(|h| *h),
            server: self.server,
            steps: Vec::new(),
            checks: Vec::new(),
        }
    }
}

/// The protocols the standard drivers speak, as the report names them, and
/// `grpc`: a row read back names one of them.
pub const PROTOCOLS: [&str; 7] = [
    "http/1.1",
    "h2",
    "h2c",
    "h3",
    "websocket",
    "websocket/h2",
    "grpc",
];

fn protocol_name(name: &str) -> Option<&'static str> {
    PROTOCOLS.iter().copied().find(|p| *p == name)
}

/// `[other, 1xx, …, 5xx]` as the report names classes, without the empty ones.
fn class_map(counts: &[u64; 6]) -> BTreeMap<String, u64> {
    counts
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(class, n)| {
            let name = if class == 0 {
                "other".to_string()
            } else {
                format!("{class}xx")
            };
            (name, *n)
        })
        .collect()
}

/// [`class_map`] read back; a name it does not make counts as `other`.
fn class_counts(named: &BTreeMap<String, u64>) -> [u64; 6] {
    let mut classes = [0; 6];
    for (name, n) in named {
        let class = name
            .strip_suffix("xx")
            .and_then(|c| c.parse::<usize>().ok())
            .filter(|c| (1..6).contains(c))
            .unwrap_or(0);
        classes[class] += n;
    }
    classes
}

/// Errors by the kind's name, without the kinds not seen.
fn kind_map(counts: &[u64; ErrorKind::ALL.len()]) -> BTreeMap<String, u64> {
    ErrorKind::ALL
        .iter()
        .filter(|k| counts[**k as usize] > 0)
        .map(|k| (k.name().to_string(), counts[*k as usize]))
        .collect()
}

/// [`kind_map`] read back; a name of no kind this build knows is left out.
fn kind_counts(named: &BTreeMap<String, u64>) -> [u64; ErrorKind::ALL.len()] {
    let mut kinds = [0; ErrorKind::ALL.len()];
    for kind in ErrorKind::ALL {
        kinds[kind as usize] = named.get(kind.name()).copied().unwrap_or(0);
    }
    kinds
}

/// A closed window on its way from a worker thread to the runner.
pub struct WindowMessage {
    pub index: u32,
    /// When the window closed; the last one of a thread closes early.
    pub closed_at: Instant,
    pub window: Window,
}

/// Adds up the windows of every thread, interval by interval.
pub struct Merger {
    threads: usize,
    measure_start: Instant,
    wall_measure_start: SystemTime,
    pending: BTreeMap<u32, (usize, Instant, Window)>,
    next: u32,
}

impl Merger {
    pub fn new(threads: usize, measure_start: Instant, wall_measure_start: SystemTime) -> Self {
        Merger {
            threads,
            measure_start,
            wall_measure_start,
            pending: BTreeMap::new(),
            next: 0,
        }
    }

    /// Adds one thread's window; returns the intervals every thread has now closed.
    pub fn add(&mut self, message: WindowMessage) -> Vec<Interval> {
        let entry = self
            .pending
            .entry(message.index)
            .or_insert_with(|| (0, message.closed_at, Window::default()));
        entry.0 += 1;
        entry.1 = entry.1.max(message.closed_at);
        entry.2.merge(&message.window);
        let mut complete = Vec::new();
        while let Some((count, _, _)) = self.pending.get(&self.next) {
            if *count < self.threads {
                break;
            }
            complete.push(self.take(self.next));
        }
        complete
    }

    /// The intervals left once every thread has finished.
    pub fn finish(&mut self) -> Vec<Interval> {
        let indexes: Vec<u32> = self.pending.keys().copied().collect();
        indexes.into_iter().map(|i| self.take(i)).collect()
    }

    fn take(&mut self, index: u32) -> Interval {
        let (_, closed_at, window) = self.pending.remove(&index).expect("interval is pending");
        self.next = self.next.max(index + 1);
        let offset = INTERVAL * index;
        let end = closed_at
            .saturating_duration_since(self.measure_start)
            .min(offset + INTERVAL);
        Interval {
            index,
            offset,
            started_at: self.wall_measure_start + offset,
            length: end.saturating_sub(offset),
            window,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(index: u32, at: Instant, responses: u64) -> WindowMessage {
        let mut window = Window::default();
        for _ in 0..responses {
            window.record_response(200, Duration::from_millis(2), Duration::from_millis(1));
        }
        WindowMessage {
            index,
            closed_at: at,
            window,
        }
    }

    #[test]
    fn a_kept_row_becomes_the_row_it_was_made_from() {
        let start = Instant::now();
        let mut window = message(0, start, 7).window;
        window.record_response(503, Duration::from_millis(40), Duration::from_millis(30));
        window.record_response(99, Duration::from_millis(1), Duration::from_millis(1));
        window.record_errors(ErrorKind::ALL[1], 3);
        let interval = Interval {
            index: 4,
            offset: Duration::from_secs(4),
            started_at: SystemTime::now(),
            length: Duration::from_millis(750),
            window,
        };
        let row = IntervalRow::of(&interval);
        assert_eq!(row.requests, 9);
        assert_eq!(row.req_per_s, 12.0);
        assert_eq!(row.status_codes.len(), 3);
        assert_eq!(row.error_kinds.len(), 1);
        assert!(row.histograms.is_some());
        assert_eq!(KeptRow::of(&interval, true).into_row(), row);
        assert_eq!(KeptRow::of_row(row.clone()).into_row(), row);
        let summary = KeptRow::of(&interval, false).into_row();
        assert_eq!(
            summary,
            IntervalRow {
                histograms: None,
                ..row
            }
        );
    }

    #[test]
    fn intervals_complete_when_every_thread_reported() {
        let start = Instant::now();
        let mut merger = Merger::new(2, start, SystemTime::now());
        assert!(merger.add(message(0, start + INTERVAL, 10)).is_empty());
        assert!(merger
            .add(message(1, start + Duration::from_millis(1500), 5))
            .is_empty());
        let done = merger.add(message(0, start + INTERVAL, 20));
        assert_eq!(done.len(), 1);
        let row = IntervalRow::of(&done[0]);
        assert_eq!((row.requests, row.start_s, row.duration_s), (30, 0.0, 1.0));
        assert_eq!(row.req_per_s, 30.0);
        assert!((1990..=2010).contains(&row.p50_us));
        assert_eq!(row.status_codes, BTreeMap::from([("2xx".to_string(), 30)]));
        assert!(row.error_kinds.is_empty());
        let (classes, kinds) = row.window_counts();
        assert_eq!(
            (classes, kinds),
            (done[0].window.status_classes, done[0].window.error_kinds)
        );
        // The second thread ended without closing interval 1: it is half long.
        let rest = merger.finish();
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].length, Duration::from_millis(500));
        assert_eq!(IntervalRow::of(&rest[0]).req_per_s, 10.0);
    }

    #[test]
    fn rows_carry_the_windows_counts_and_gauges() {
        let start = Instant::now();
        let mut merger = Merger::new(2, start, SystemTime::now());
        let traffic = |received, connections| {
            let mut m = message(0, start + INTERVAL, 1);
            m.window.counters = RunCounters {
                bytes_received: received,
                bytes_sent: 10,
                connections,
                vus: 1,
                dropped_iterations: 3,
                ..RunCounters::default()
            };
            m
        };
        let mut first = traffic(100, 2);
        first.window.protocol = Some("h2c");
        merger.add(first);
        let done = merger.add(traffic(50, 1));
        let row = IntervalRow::of(&done[0]);
        assert_eq!(
            (
                row.counters.bytes_received,
                row.counters.bytes_sent,
                row.counters.connections
            ),
            (150, 20, 3)
        );
        assert_eq!((row.counters.vus, row.counters.dropped_iterations), (2, 6));
        assert_eq!(row.protocol.as_deref(), Some("h2c"));
        let back = row.counts_window();
        assert_eq!(
            (
                back.counters.bytes_received,
                back.counters.connections,
                back.protocol
            ),
            (150, 3, Some("h2c"))
        );
        // What is 0 is left out of a row, and reads back as 0.
        let value = serde_json::to_value(&row).unwrap();
        assert!(value.get("unsent_at_end").is_none());
        let read: IntervalRow = serde_json::from_value(value).unwrap();
        assert_eq!(read, row);
    }

    fn step(name: &str, statuses: &[u16], timeouts: u64) -> StepWindow {
        let mut taken = Window::default();
        for status in statuses {
            taken.record_response(*status, Duration::from_millis(3), Duration::from_millis(2));
        }
        taken.record_errors(ErrorKind::Timeout, timeouts);
        StepWindow {
            name: name.to_string(),
            scenario: "login".to_string(),
            duration: taken.request_time,
            duration_raw: taken.request_time_raw,
            status_classes: taken.status_classes,
            error_kinds: taken.error_kinds,
        }
    }

    fn check(name: &str, passes: u64, fails: u64) -> CheckWindow {
        CheckWindow {
            step: "log in".to_string(),
            scenario: "login".to_string(),
            name: name.to_string(),
            passes,
            fails,
        }
    }

    #[test]
    fn steps_and_checks_add_up_by_name_whatever_their_order() {
        let mut mine = Window {
            steps: vec![step("a", &[200], 0), step("b", &[302], 1)],
            checks: vec![check("x", 1, 0)],
            ..Window::default()
        };
        let theirs = Window {
            steps: vec![step("b", &[503], 0), step("a", &[200, 200], 2)],
            checks: vec![check("y", 0, 4), check("x", 2, 1)],
            ..Window::default()
        };
        mine.merge(&theirs);
        let names: Vec<&str> = mine.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(mine.steps[0].status_classes[2], 3);
        assert_eq!(mine.steps[0].duration.len(), 3);
        assert_eq!(mine.steps[0].error_kinds[ErrorKind::Timeout as usize], 2);
        assert_eq!(
            (
                mine.steps[1].status_classes[3],
                mine.steps[1].status_classes[5]
            ),
            (1, 1)
        );
        assert_eq!(mine.checks, [check("x", 3, 1), check("y", 0, 4)]);
    }

    #[test]
    fn a_workers_row_carries_the_steps_and_checks_a_plain_row_leaves_out() {
        let window = Window {
            steps: vec![step("log in", &[200, 200, 404], 1), step("log out", &[], 0)],
            checks: vec![check("status_in [200]", 2, 1)],
            ..message(0, Instant::now(), 3).window
        };
        let interval = Interval {
            index: 0,
            offset: Duration::ZERO,
            started_at: SystemTime::now(),
            length: INTERVAL,
            window,
        };
        let row = IntervalRow::with_steps(&interval);
        let read: IntervalRow =
            serde_json::from_str(&serde_json::to_string(&row).unwrap()).unwrap();
        assert_eq!(read, row);
        let steps: Vec<StepWindow> = read.steps.iter().map(|s| s.window().unwrap()).collect();
        for (back, sent) in steps.iter().zip(&interval.window.steps) {
            assert_eq!(
                (
                    &back.name,
                    &back.scenario,
                    back.status_classes,
                    back.error_kinds
                ),
                (
                    &sent.name,
                    &sent.scenario,
                    sent.status_classes,
                    sent.error_kinds
                )
            );
            assert_eq!(back.duration, sent.duration);
            assert_eq!(back.duration_raw, sent.duration_raw);
        }
        assert_eq!(read.checks, interval.window.checks);

        // The report's rows, and the rows a run keeps, have none, and say
        // nothing of them.
        let plain = IntervalRow::of(&interval);
        let value = serde_json::to_value(&plain).unwrap();
        assert!(value.get("steps").is_none() && value.get("checks").is_none());
        assert_eq!(
            KeptRow::of_row(row.clone()).into_row(),
            IntervalRow {
                steps: Vec::new(),
                checks: Vec::new(),
                ..row
            }
        );
    }

    #[test]
    fn rows_carry_the_merged_windows_histograms() {
        let start = Instant::now();
        let mut merger = Merger::new(2, start, SystemTime::now());
        merger.add(message(0, start + INTERVAL, 10));
        let done = merger.add(message(0, start + INTERVAL, 20));
        let row = IntervalRow::of(&done[0]);
        let encoded = row
            .histograms
            .clone()
            .expect("a new row has its histograms");
        let request_time = histogram_codec::decode(&encoded.request_time).unwrap();
        assert_eq!(request_time, done[0].window.request_time);
        assert_eq!(request_time.len(), 30);
        let raw = histogram_codec::decode(&encoded.request_time_raw).unwrap();
        assert_eq!(raw, done[0].window.request_time_raw);
        assert!(histogram_codec::decode(&encoded.connect_time)
            .unwrap()
            .is_empty());

        // A row from an output that leaves them out still reads back.
        let mut value = serde_json::to_value(&row).unwrap();
        value.as_object_mut().unwrap().remove("histograms");
        let read: IntervalRow = serde_json::from_value(value).unwrap();
        assert_eq!(read.histograms, None);
        assert_eq!(read.requests, 30);
    }
}
