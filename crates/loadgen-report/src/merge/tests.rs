//! The merge on synthetic reports: each made by `Report::new` from a
//! recorder that was given known request times, as a run gives them, so
//! the truth (the histogram of all the values) is known.

use super::*;
use hdrhistogram::Histogram;
use loadgen_core::histogram;
use loadgen_core::interval::{Interval, IntervalRow, Window};
use loadgen_core::plan::{Mode, PlanInput};
use loadgen_core::recorder::{ClientRate, Recorder};
use loadgen_core::report::{SpreadStats, TimeStats};
use loadgen_core::runner::RunResult;
use loadgen_core::ticket::Ticket;
use std::time::{Duration, Instant, SystemTime};

const URI: &str = "http://127.0.0.1:8080/";

/// 2026-11-22T02:34:36.000Z: a whole second, so offsets from it say where
/// a report's rows fall.
fn t0() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_314_876)
}

/// What one synthetic run did.
struct Shard {
    uri: &'static str,
    started_at: SystemTime,
    elapsed: Duration,
    /// Request times in µs, one response each, per one-second row.
    rows: Vec<Vec<u64>>,
    /// Each client's responses and seconds.
    clients: Vec<(u64, f64)>,
}

impl Shard {
    fn new(started_after_ms: u64, rows: Vec<Vec<u64>>) -> Shard {
        let responses: u64 = rows.iter().map(|r| r.len() as u64).sum();
        let seconds = rows.len() as f64;
        Shard {
            uri: URI,
            started_at: t0() + Duration::from_millis(started_after_ms),
            elapsed: Duration::from_secs_f64(seconds),
            rows,
            clients: vec![
                (responses / 2, seconds),
                (responses - responses / 2, seconds),
            ],
        }
    }

    fn report(&self) -> Report {
        let responses: u64 = self.rows.iter().map(|r| r.len() as u64).sum();
        let plan = PlanInput {
            uris: vec![self.uri.to_string()],
            clients: self.clients.len(),
            mode: Mode::Requests(responses),
            ..PlanInput::default()
        }
        .build()
        .expect("a valid plan");
        let mut recorder = Recorder::new();
        let sent = Instant::now();
        let ticket = Ticket {
            request: 0,
            recorded: true,
            intended: sent,
            scheduled: false,
        };
        for (i, us) in self.rows.iter().flatten().enumerate() {
            recorder.request_started(&ticket, sent);
            // Every tenth response is a 503, so the status counts have two codes.
            let status = if i % 10 == 9 { 503 } else { 200 };
            recorder.response(status, &ticket, sent, sent + Duration::from_micros(*us));
        }
        for _ in &self.clients {
            recorder.connected(Duration::from_micros(300), "h2c", || None);
        }
        for (requests, seconds) in &self.clients {
            recorder.client_finished(ClientRate {
                requests: *requests,
                seconds: *seconds,
            });
        }
        recorder.bytes.total = responses * 100;
        recorder.bytes.headers = responses * 10;
        recorder.bytes.headers_uncompressed = responses * 40;
        recorder.bytes.data = responses * 13;
        let intervals = self
            .rows
            .iter()
            .enumerate()
            .map(|(index, values)| {
                let mut window = Window::default();
                for us in values {
                    let d = Duration::from_micros(*us);
                    window.record_response(200, d, d);
                }
                window.counters.bytes_received = values.len() as u64 * 100;
                window.counters.connections = self.clients.len() as u64;
                window.protocol = Some("h2c");
                let offset = Duration::from_secs(index as u64);
                IntervalRow::of(&Interval {
                    index: index as u32,
                    offset,
                    started_at: self.started_at + offset,
                    length: Duration::from_secs(1).min(self.elapsed - offset),
                    window,
                })
            })
            .collect();
        let run = RunResult {
            recorder,
            started_at: self.started_at,
            ended_at: self.started_at + self.elapsed,
            elapsed: self.elapsed,
            intervals,
            log_error: None,
            cancelled: false,
        };
        Report::new(&plan, &run).with_histograms(&run)
    }

    fn source(&self, name: &str) -> Source {
        Source {
            name: name.to_string(),
            report: self.report(),
        }
    }
}

fn recorded(values: impl IntoIterator<Item = u64>) -> Histogram<u64> {
    let mut h = histogram::new();
    for v in values {
        histogram::record(&mut h, v);
    }
    h
}

/// Request times spread over three orders of magnitude, different per shard.
fn times(seed: u64, count: u64) -> Vec<u64> {
    (0..count)
        .map(|i| 50 + (i * 7919 + seed * 104_729) % 20_000 + (i % 97) * (i % 89) * seed)
        .collect()
}

fn merged(shards: &[&Shard]) -> Report {
    let sources: Vec<Source> = shards
        .iter()
        .enumerate()
        .map(|(i, s)| s.source(&format!("shard{i}.json")))
        .collect();
    merge(&sources, MergeOptions::default()).expect("the shards merge")
}

#[test]
fn percentiles_are_those_of_all_the_values() {
    let a = Shard::new(0, vec![times(1, 3000), times(2, 1000)]);
    let b = Shard::new(0, vec![times(3, 500), times(4, 2500)]);
    let c = Shard::new(0, vec![times(5, 10)]);
    let report = merged(&[&a, &b, &c]);
    let all = recorded(
        a.rows
            .iter()
            .chain(&b.rows)
            .chain(&c.rows)
            .flatten()
            .copied(),
    );
    assert_eq!(all.len(), 7010);
    let truth = TimeStats::of(&all);
    assert_eq!(report.request_time, truth);
    assert_eq!(report.request_time_raw, truth);
    assert_eq!(
        (report.request_time.p50_us, report.request_time.p99_us),
        (all.value_at_quantile(0.5), all.value_at_quantile(0.99))
    );
    let connects = recorded(vec![300; 6]);
    assert_eq!(report.connect_time, TimeStats::of(&connects));
    assert_eq!(report.queue_delay, TimeStats::default());
    // The merged report carries the sum, which decodes to the same histogram.
    let carried = report.histograms.as_ref().expect("merged histograms");
    assert_eq!(
        loadgen_core::histogram_codec::decode(&carried.request_time).unwrap(),
        all
    );
}

#[test]
fn counts_add_up() {
    let a = Shard::new(0, vec![times(1, 2000)]);
    let b = Shard::new(0, vec![times(2, 1000), times(3, 1000)]);
    let (ra, rb) = (a.report(), b.report());
    let report = merged(&[&a, &b]);
    let r = &report.requests;
    assert_eq!(r.succeeded, ra.requests.succeeded + rb.requests.succeeded);
    assert_eq!(r.failed_status, 400);
    assert_eq!(
        (r.total, r.started, r.done, r.failed),
        (4000, 4000, 4000, 400)
    );
    assert_eq!(report.status_codes.class_2xx, 3600);
    assert_eq!(report.status_codes.class_5xx, 400);
    assert_eq!(report.status_codes.by_code["200"], 3600);
    assert_eq!(report.status_codes.by_code["503"], 400);
    assert_eq!(report.bytes.total, 400_000);
    assert_eq!(report.bytes.data, 4000 * 13);
    assert_eq!(report.bytes.header_compression_savings_pct, 75.0);
    assert_eq!(report.connections, 4);
    let c = &report.config;
    assert_eq!((c.clients, c.threads, c.requests), (4, 2, Some(4000)));
    assert_eq!(c.uris, [URI]);
    assert_eq!(report.application_protocol.as_deref(), Some("h2c"));
    assert!(report.responses() > 0);
}

#[test]
fn rates_come_from_the_wall_clock_span() {
    // `a` runs 2 s from t0, `b` 1 s from t0 + 1.5 s: together 2.5 s.
    let a = Shard::new(0, vec![times(1, 1000), times(2, 1000)]);
    let b = Shard::new(1500, vec![times(3, 500)]);
    let report = merged(&[&b, &a]);
    assert_eq!(report.started_at, "2026-11-22T02:34:36.000Z");
    assert_eq!(report.ended_at, "2026-11-22T02:34:38.500Z");
    assert!(
        (report.elapsed_s - 2.5).abs() < 1e-9,
        "{}",
        report.elapsed_s
    );
    assert!((report.req_per_s - 2500.0 / 2.5).abs() < 1e-6);
    assert!((report.throughput_bytes_per_s - 250_000.0 / 2.5).abs() < 1e-6);
}

#[test]
fn rows_add_up_per_wall_clock_second() {
    // `b` starts 0.3 s after `a`: its rows go to a's seconds. `c` starts
    // 0.7 s after: nearer the next second.
    let a = Shard::new(0, vec![times(1, 100), times(2, 200)]);
    let b = Shard::new(300, vec![times(3, 30), times(4, 40)]);
    let c = Shard::new(700, vec![times(5, 5)]);
    let report = merged(&[&a, &b, &c]);
    let rows = &report.intervals;
    let requests: Vec<u64> = rows.iter().map(|r| r.requests).collect();
    assert_eq!(requests, [130, 245]);
    assert_eq!(rows[0].start_s, 0.0);
    assert!((rows[0].duration_s - 1.3).abs() < 1e-9, "{rows:?}");
    // The second row starts with c's row, at 0.7 s, and ends with b's, at 2.3 s.
    assert!((rows[1].start_s - 0.7).abs() < 1e-9, "{rows:?}");
    assert!((rows[1].duration_s - 1.6).abs() < 1e-9, "{rows:?}");
    // Each row's rate was over its own second: the rates add.
    assert_eq!(rows[0].req_per_s, 130.0);
    assert_eq!(rows[1].req_per_s, 245.0);
    let second = recorded(
        a.rows[1]
            .iter()
            .chain(&b.rows[1])
            .chain(&c.rows[0])
            .copied(),
    );
    assert_eq!(rows[1].p99_us, second.value_at_quantile(0.99));
    let carried = rows[1].histograms.as_ref().unwrap();
    assert_eq!(
        loadgen_core::histogram_codec::decode(&carried.request_time).unwrap(),
        second
    );
    // The rows add up to the whole.
    let sum: u64 = rows.iter().map(|r| r.requests).sum();
    assert_eq!(sum, report.request_time.count);
    let bytes: u64 = rows.iter().map(|r| r.counters.bytes_received).sum();
    assert_eq!(bytes, report.bytes.total);
    // Connections open at the end of each of a second's rows add up.
    let open = |s: &Shard| s.clients.len() as u64;
    assert_eq!(rows[0].counters.connections, open(&a) + open(&b));
    assert_eq!(rows[1].protocol.as_deref(), Some("h2c"));
}

#[test]
fn client_spread_is_rebuilt_from_each_report() {
    let mut a = Shard::new(0, vec![times(1, 100)]);
    a.clients = vec![(40, 1.0), (60, 1.0)];
    let mut b = Shard::new(0, vec![times(2, 100)]);
    b.clients = vec![(10, 0.5), (30, 0.5), (60, 0.5)];
    b.rows = vec![times(2, 100)];
    let report = merged(&[&a, &b]);
    let truth = SpreadStats::of(&[40.0, 60.0, 20.0, 60.0, 120.0]);
    let s = report.per_client_req_per_s;
    assert_eq!((s.min, s.max), (truth.min, truth.max));
    assert!((s.mean - truth.mean).abs() < 1e-9);
    assert!((s.stdev - truth.stdev).abs() < 1e-9);
}

#[test]
fn one_report_merges_into_itself() {
    let a = Shard::new(123, vec![times(1, 1000), times(2, 10)]);
    let original = a.report();
    let report = merged(&[&a]);
    assert_eq!(report.started_at, original.started_at);
    assert_eq!(report.ended_at, original.ended_at);
    assert_eq!(report.requests, original.requests);
    assert_eq!(report.request_time, original.request_time);
    assert_eq!(report.connect_time, original.connect_time);
    // The same histograms, though not always the same text: an encoding
    // records the range a histogram had grown to, which decoding resets.
    let decoded = |h: &Option<loadgen_core::report::ReportHistograms>| {
        let h = h.as_ref().expect("histograms");
        [&h.request_time, &h.connect_time, &h.queue_delay]
            .map(|text| loadgen_core::histogram_codec::decode(text).unwrap())
    };
    assert_eq!(decoded(&report.histograms), decoded(&original.histograms));
    assert_eq!(report.intervals.len(), original.intervals.len());
    for (merged, row) in report.intervals.iter().zip(&original.intervals) {
        let request_time = |r: &IntervalRow| {
            let text = &r.histograms.as_ref().expect("row histograms").request_time;
            loadgen_core::histogram_codec::decode(text).unwrap()
        };
        assert_eq!(request_time(merged), request_time(row));
        assert_eq!((merged.requests, merged.p99_us), (row.requests, row.p99_us));
        assert!((merged.start_s - row.start_s).abs() < 1e-9);
        assert!((merged.duration_s - row.duration_s).abs() < 1e-9);
    }
}

#[test]
fn a_report_without_histograms_is_refused() {
    let a = Shard::new(0, vec![times(1, 10)]);
    let mut bare = a.source("bare.json");
    bare.report.histograms = None;
    let err = merge(&[a.source("a.json"), bare], MergeOptions::default()).unwrap_err();
    assert!(matches!(&err, MergeError::NoHistograms { name } if name == "bare.json"));
    let message = err.to_string();
    assert!(
        message.contains("'bare.json'") && message.contains("-o FILE.json"),
        "{message}"
    );
}

#[test]
fn an_altered_report_is_refused() {
    let a = Shard::new(0, vec![times(1, 10)]);
    let mut altered = a.source("altered.json");
    altered.report.request_time.count += 1;
    let err = merge(&[altered], MergeOptions::default()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("'altered.json'") && message.contains("request_time.count"),
        "{message}"
    );
    let mut late = a.source("late.json");
    late.report.started_at = "yesterday".into();
    let err = merge(&[late], MergeOptions::default()).unwrap_err();
    assert!(err.to_string().contains("started_at"), "{err}");
    assert!(matches!(
        merge(&[], MergeOptions::default()),
        Err(MergeError::NoInput)
    ));
}

#[test]
fn other_tests_are_refused_unless_forced() {
    let a = Shard::new(0, vec![times(1, 10)]);
    let mut b = Shard::new(0, vec![times(2, 10)]);
    b.uri = "http://127.0.0.1:8080/other";
    let sources = [a.source("a.json"), b.source("b.json")];
    let err = merge(&sources, MergeOptions::default()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("'b.json'") && message.contains("URIs") && message.contains("--force"),
        "{message}"
    );
    let forced = merge(&sources, MergeOptions { force: true }).unwrap();
    assert_eq!(forced.config.uris, [URI, "http://127.0.0.1:8080/other"]);
    assert_eq!(forced.request_time.count, 20);

    let mut h1 = a.source("h1.json");
    h1.report.application_protocol = Some("http/1.1".into());
    let mut failed = a.source("failed.json");
    failed.report.application_protocol = None;
    // A report that never connected is no other test; the protocol after it is.
    let err = merge(&[failed, a.source("a.json"), h1], MergeOptions::default()).unwrap_err();
    assert!(
        matches!(&err, MergeError::Mismatch { field: "protocol", first, .. } if first == "a.json"),
        "{err}"
    );
}

#[test]
fn counts_past_what_any_run_counts_are_refused() {
    // Found by the merge_input fuzz target: sums that would wrap around.
    let a = Shard::new(0, vec![times(1, 10)]);
    let mut huge = a.source("huge.json");
    huge.report.requests.total = u64::MAX;
    let err = merge(&[huge.clone(), a.source("a.json")], MergeOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            MergeError::TooLarge {
                field: "requests.total"
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("altered"), "{err}");
    let mut clients = a.source("clients.json");
    clients.report.config.clients = usize::MAX;
    let err = merge(&[clients.clone(), clients], MergeOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            MergeError::TooLarge {
                field: "config.clients"
            }
        ),
        "{err}"
    );
}

#[test]
fn times_no_clock_can_show_are_refused() {
    // Found by the merge_input fuzz target: SystemTime + Duration panicked.
    let a = Shard::new(0, vec![times(1, 10)]);
    let mut long = a.source("long.json");
    long.report.elapsed_s = 1.5e19;
    let err = merge(&[long], MergeOptions::default()).unwrap_err();
    assert!(err.to_string().contains("'long.json': elapsed_s:"), "{err}");
    let mut late_row = a.source("row.json");
    late_row.report.intervals[0].start_s = 1e19;
    let err = merge(&[late_row], MergeOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("'row.json': intervals[0].start_s:"),
        "{err}"
    );
}
