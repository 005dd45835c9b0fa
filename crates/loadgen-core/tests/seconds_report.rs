//! A report built from a run's one-second windows (a live view's, a lost
//! worker's part) counts requests as the run's final report does: the
//! same succeeded and failed over the same seconds, for an HTTP run with
//! 4xx and 5xx responses and for a WebSocket run, whose messages carry
//! the upgrade's 101.

use loadgen_core::interval::{Interval, IntervalRow, Window};
use loadgen_core::plan::{Mode, PlanInput};
use loadgen_core::report::seconds::SecondsClock;
use loadgen_core::report::RunConfig;
use loadgen_core::{Observer, Report};
use loadgen_target::{Target, TargetConfig};
use std::time::SystemTime;

#[derive(Default)]
struct Seconds {
    total: Window,
    rows: Vec<IntervalRow>,
    elapsed_s: f64,
}

impl Observer for Seconds {
    fn interval(&mut self, interval: &Interval) {
        self.total.merge(&interval.window);
        self.rows.push(IntervalRow::summary(interval));
        self.elapsed_s = (interval.offset + interval.length).as_secs_f64();
    }
}

/// The final report of a run of `uris` and the report of its seconds.
fn both_reports(uris: Vec<String>) -> (Report, Report) {
    let plan = PlanInput {
        uris,
        clients: 4,
        threads: 2,
        mode: Mode::Requests(300),
        ..PlanInput::default()
    }
    .build()
    .expect("a valid plan");
    let mut seconds = Seconds::default();
    let run = loadgen_core::run(&plan, Some(&mut seconds)).expect("the run");
    let last = Report::new(&plan, &run);
    let clock = SecondsClock {
        started_at: run.started_at,
        ended_at: SystemTime::now(),
        elapsed_s: seconds.elapsed_s,
    };
    let of_seconds = Report::of_seconds(RunConfig::new(&plan), &seconds.total, seconds.rows, clock);
    (last, of_seconds)
}

fn assert_same_counts(last: &Report, of_seconds: &Report) {
    let (a, b) = (&last.requests, &of_seconds.requests);
    assert_eq!(
        (a.done, a.succeeded, a.failed, a.failed_status, a.errored),
        (b.done, b.succeeded, b.failed, b.failed_status, b.errored),
        "final {a:?}, of the seconds {b:?}"
    );
    assert_eq!(last.responses(), of_seconds.responses());
    let classes = |r: &Report| {
        let s = &r.status_codes;
        [
            s.class_1xx,
            s.class_2xx,
            s.class_3xx,
            s.class_4xx,
            s.class_5xx,
        ]
    };
    assert_eq!(classes(last), classes(of_seconds));
    assert_eq!(last.request_time.count, of_seconds.request_time.count);
}

fn target() -> Target {
    Target::start(TargetConfig {
        clear_addr: Some(([127, 0, 0, 1], 0).into()),
        threads: 1,
        ..TargetConfig::default()
    })
    .expect("target")
}

#[test]
fn an_http_run_with_4xx_and_5xx_counts_the_same() {
    let target = target();
    let addr = target.clear_addr().unwrap();
    let uris = ["200", "201", "404", "500", "503"]
        .iter()
        .map(|status| format!("http://{addr}/?status={status}"))
        .collect();
    let (last, of_seconds) = both_reports(uris);
    assert_same_counts(&last, &of_seconds);
    let r = &last.requests;
    // Each URI in turn: 2 of 5 succeed, 3 fail by their status.
    assert_eq!(
        (r.done, r.succeeded, r.failed_status, r.errored),
        (300, 120, 180, 0)
    );
    target.shutdown();
}

#[test]
fn a_websocket_run_counts_the_same() {
    let target = target();
    let uri = format!("ws://{}/ws", target.clear_addr().unwrap());
    let (last, of_seconds) = both_reports(vec![uri]);
    assert_same_counts(&last, &of_seconds);
    let r = &last.requests;
    assert_eq!((r.done, r.succeeded, r.failed), (300, 300, 0));
    assert_eq!(last.status_codes.class_1xx, 300);
    target.shutdown();
}
