//! k6's executors on the built-in target: counts that must be exact are,
//! arrival-rate schedules start what they promise or count it as dropped,
//! and a stalled target shows in the corrected latency of an arrival-rate
//! step as the schedule predicts.

mod common;

use common::{run_text, run_with, step, Served};
use loadgen_scenario::run::ScenarioOptions;
use std::thread;
use std::time::{Duration, Instant};

fn one_step(base: &str, executor: &str, path: &str) -> String {
    format!(
        "\
defaults:
  base_url: {base}
scenarios:
  load:
{executor}
    steps:
      - name: get
        url: {path}
"
    )
}

#[test]
fn per_vu_iterations_run_each_vus_count_exactly() {
    let target = Served::start();
    let executor = "    executor: per-vu-iterations\n    vus: 7\n    iterations: 13";
    let report = run_text(&one_step(&target.http(), executor, "/"));
    let scenario = report.scenario.as_ref().unwrap();
    assert_eq!(scenario.iterations.completed, 91);
    assert_eq!(scenario.vus_max, 7);
    assert_eq!(step(scenario, "get").requests.succeeded, 91);
    assert_eq!(target.served(), 91);
}

#[test]
fn shared_iterations_add_up_to_the_total_across_threads() {
    let target = Served::start();
    let executor = "    executor: shared-iterations\n    vus: 5\n    iterations: 101";
    let report = run_with(
        &one_step(&target.http(), executor, "/"),
        ScenarioOptions {
            threads: 2,
            ..ScenarioOptions::default()
        },
    );
    let scenario = report.scenario.as_ref().unwrap();
    assert_eq!(scenario.iterations.completed, 101, "{scenario:#?}");
    assert_eq!(target.served(), 101);
}

#[test]
fn constant_vus_and_ramping_vus_reach_their_targets() {
    let target = Served::start();
    let text = format!(
        "\
defaults:
  base_url: {}
scenarios:
  steady:
    executor: constant-vus
    vus: 3
    duration: 1s
    steps:
      - {{name: a, url: '/?delay=20ms'}}
  ramp:
    executor: ramping-vus
    startVUs: 1
    stages:
      - {{duration: 500ms, target: 6}}
      - {{duration: 500ms, target: 6}}
      - {{duration: 500ms, target: 2}}
    gracefulRampDown: 0s
    steps:
      - {{name: b, url: '/?delay=20ms'}}
",
        target.http()
    );
    let report = run_text(&text);
    let scenario = report.scenario.as_ref().unwrap();
    let of = |name: &str| {
        scenario
            .scenarios
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("{name} in {scenario:#?}"))
    };
    assert_eq!(of("steady").vus_max, 3);
    assert_eq!(of("ramp").vus_max, 6);
    assert_eq!(scenario.vus_max, 9);
    assert!(of("steady").iterations.completed > 0);
    assert!(of("ramp").iterations.completed > 0);
    // Every iteration is counted once, however it ended.
    let iterations = &scenario.iterations;
    assert_eq!(
        iterations.completed + iterations.interrupted,
        step(scenario, "a").requests.total + step(scenario, "b").requests.total,
        "{scenario:#?}"
    );
}

#[test]
fn constant_arrival_rate_starts_every_scheduled_iteration_when_vus_suffice() {
    const RATE: u64 = 200;
    const SECONDS: u64 = 5;
    let target = Served::start();
    let executor = format!(
        "    executor: constant-arrival-rate\n    rate: {RATE}\n    timeUnit: 1s\n    duration: {SECONDS}s\n    preAllocatedVUs: 20\n    maxVUs: 100"
    );
    let report = run_text(&one_step(&target.http(), &executor, "/"));
    let scenario = report.scenario.as_ref().unwrap();
    let i = &scenario.iterations;
    let scheduled = RATE * SECONDS;
    // The schedule's count, within 2%; nothing dropped on a fast target.
    let started = i.completed + i.interrupted + i.dropped;
    assert!(
        started.abs_diff(scheduled) * 50 <= scheduled,
        "{started} of {scheduled}: {scenario:#?}"
    );
    assert_eq!(i.dropped, 0, "{scenario:#?}");
    assert_eq!(step(scenario, "get").requests.succeeded, i.completed);
}

#[test]
fn an_iteration_that_finds_no_free_vu_is_dropped_not_queued() {
    let target = Served::start();
    // Two VUs of 200 ms iterations can start at most 10 a second of the 50.
    let executor = "    executor: constant-arrival-rate\n    rate: 50\n    timeUnit: 1s\n    duration: 2s\n    preAllocatedVUs: 1\n    maxVUs: 2";
    let report = run_text(&one_step(&target.http(), executor, "/?delay=200ms"));
    let scenario = report.scenario.as_ref().unwrap();
    let i = &scenario.iterations;
    assert_eq!(scenario.vus_max, 2, "{scenario:#?}");
    assert!(i.dropped >= 50, "{scenario:#?}");
    let started = i.completed + i.interrupted + i.dropped;
    assert!(started.abs_diff(100) <= 2, "{scenario:#?}");
    // What ran was not queued behind the drops: at most two at a time.
    assert!(
        i.completed + i.interrupted <= 2 * 2 * 5 + 2,
        "{scenario:#?}"
    );
    assert_eq!(
        step(scenario, "get").requests.started,
        i.completed + i.interrupted
    );
}

#[test]
fn a_stall_shows_in_the_corrected_latency_of_an_arrival_rate_step() {
    const RATE: f64 = 100.0;
    const SECONDS: f64 = 5.0;
    let target = Served::start();
    let executor = format!(
        "    executor: constant-arrival-rate\n    rate: {RATE}\n    timeUnit: 1s\n    duration: {SECONDS}s\n    preAllocatedVUs: 150\n    maxVUs: 200"
    );
    let text = one_step(&target.http(), &executor, "/");
    let (report, stall) = thread::scope(|scope| {
        let run = scope.spawn(|| run_text(&text));
        // Well inside the run: two seconds after its first request.
        let deadline = Instant::now() + Duration::from_secs(10);
        while target.served() == 0 && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        thread::sleep(Duration::from_secs(2));
        let started = Instant::now();
        let end = target.target.stall_for(Duration::from_secs(1));
        let report = run.join().expect("the run ends");
        (report, end.duration_since(started))
    });
    let scenario = report.scenario.as_ref().unwrap();
    assert_eq!(scenario.iterations.dropped, 0, "{scenario:#?}");
    let get = step(scenario, "get");
    let n = get.duration.count as f64;
    // The requests due during a stall of S wait out its rest: the slowest
    // fraction 1 - q of the N waited at least S - (1 - q) * N / RATE.
    let expect = |q: f64| (stall.as_secs_f64() - (1.0 - q) * n / RATE) * 1e6;
    eprintln!(
        "stall of {stall:?} in {n} iterations: corrected p99 {:.1} ms (expected {:.1}), p90 {:.1} ms (expected {:.1}); raw p99 {:.1} ms",
        get.duration.p99_us as f64 / 1e3,
        expect(0.99) / 1e3,
        get.duration.p90_us as f64 / 1e3,
        expect(0.90) / 1e3,
        get.duration_raw.p99_us as f64 / 1e3,
    );
    for (q, measured) in [(0.99, get.duration.p99_us), (0.90, get.duration.p90_us)] {
        let expected = expect(q);
        assert!(
            (measured as f64 - expected).abs() <= expected * 0.10,
            "p{}: {measured} µs, expected {expected:.0} µs within 10%: {get:#?}",
            q * 100.0
        );
    }
    // Raw latency, from the actual send, is reported beside it.
    assert_eq!(get.duration_raw.count, get.duration.count);
    assert!(get.duration_raw.p99_us <= get.duration.p99_us, "{get:#?}");
}
