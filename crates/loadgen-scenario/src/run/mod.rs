//! The entry point: runs a [`Suite`] on `-t` worker threads (the engine's
//! thread harness, as a benchmark runs) and makes its report: every
//! request and connection as a benchmark reports them, plus the scenario
//! section (steps, checks, iterations).

pub mod arrival;
pub mod closed;

use crate::executor::ExecutorSpec;
use crate::metrics::Metrics;
use crate::origin::{named_origins, OriginGuard};
use crate::scenario_clock::ScenarioClock;
use crate::share::Share;
use crate::suite::Suite;
use crate::thread::ThreadContext;
use futures_util::future::join_all;
use loadgen_core::interval::{CheckWindow, StepWindow, Window, WindowMessage};
use loadgen_core::profile::{Profile, ProfilePiece};
use loadgen_core::recorder::Recorder;
use loadgen_core::report::RunConfig;
use loadgen_core::runner::{Observer, RunResult};
use loadgen_core::threads::{close_windows, run_on_threads, ThreadStart, ThreadsConfig};
use loadgen_core::ticket::Phase;
use loadgen_core::{CancelHandle, Report};
use std::cell::Cell;
use std::pin::pin;
use std::time::{Duration, Instant, SystemTime};

/// How to run a suite.
pub struct ScenarioOptions<'o> {
    pub threads: usize,
    pub observer: Option<&'o mut dyn Observer>,
    pub cancel: Option<CancelHandle>,
    /// Start at this wall-clock time instead of at once.
    pub start_at: Option<SystemTime>,
    /// After a cancel, how long running iterations may go on.
    pub stop_grace: Duration,
    /// Keep the histograms in the report (for `-o` and merging).
    pub histograms: bool,
    pub interval_histograms: bool,
    /// Refuses origins the run may not reach (a worker's allowed targets).
    pub origin_guard: Option<OriginGuard>,
}

impl Default for ScenarioOptions<'_> {
    fn default() -> Self {
        ScenarioOptions {
            threads: 1,
            observer: None,
            cancel: None,
            start_at: None,
            stop_grace: Duration::from_secs(1),
            histograms: false,
            interval_histograms: false,
            origin_guard: None,
        }
    }
}

/// Runs `suite` to its end (or its cancellation) and reports it.
pub fn run(suite: &Suite, options: ScenarioOptions<'_>) -> Result<Report, String> {
    run_measured(suite, options).map(|(report, _)| report)
}

/// [`run`], and when its measured part started on the wall clock (a
/// distributed worker tells its controller, to the microsecond).
pub fn run_measured(
    suite: &Suite,
    options: ScenarioOptions<'_>,
) -> Result<(Report, SystemTime), String> {
    let threads = options.threads.max(1);
    let cancel = options.cancel.unwrap_or_default();
    let config = ThreadsConfig {
        threads,
        start_at: options.start_at,
        measure_after: Duration::ZERO,
        interval_histograms: options.interval_histograms,
    };
    let stop_grace = options.stop_grace;
    let guard = options.origin_guard;
    let joined = run_on_threads(config, options.observer, &cancel, |start: ThreadStart| {
        run_thread(suite, threads, start, stop_grace, guard.clone())
    })?;
    let mut overall: Option<Recorder> = None;
    let mut metrics: Option<Metrics> = None;
    let mut last_end = joined.start;
    for (recorder, thread_metrics, end) in joined.results {
        match &mut overall {
            Some(merged) => merged.merge(&recorder),
            None => overall = Some(recorder),
        }
        match &mut metrics {
            Some(merged) => merged.merge(&thread_metrics),
            None => metrics = Some(thread_metrics),
        }
        last_end = last_end.max(end);
    }
    let recorder = overall.unwrap_or_default();
    let metrics = metrics.unwrap_or_else(|| Metrics::new(suite));
    let elapsed = last_end.saturating_duration_since(joined.start);
    let result = RunResult {
        recorder,
        started_at: joined.wall_start,
        ended_at: joined.wall_start + elapsed,
        elapsed,
        intervals: joined.intervals,
        log_error: None,
        cancelled: cancel.is_cancelled(),
    };
    let mut report = Report::of_run(report_config(suite, threads), None, &result);
    if options.histograms {
        report = report.with_histograms(&result);
    }
    report.scenario = Some(metrics.report(suite, options.histograms));
    Ok((report, result.started_at))
}

async fn run_thread(
    suite: &Suite,
    threads: usize,
    start: ThreadStart,
    stop_grace: Duration,
    guard: Option<OriginGuard>,
) -> (Recorder, Metrics, Instant) {
    let context = ThreadContext::new(start.thread, threads, suite, guard);
    let share = Share {
        thread: start.thread,
        threads,
        stripe: &suite.stripe,
    };
    let clocks: Vec<ScenarioClock<'_>> = suite
        .scenarios
        .iter()
        .map(|s| {
            ScenarioClock::new(
                start.start + s.start_time,
                s.executor.length(),
                s.graceful_stop,
                &start.cancel,
                stop_grace,
            )
        })
        .collect();
    let scenarios = join_all(suite.scenarios.iter().enumerate().map(|(index, scenario)| {
        let (context, clock) = (&context, &clocks[index]);
        async move {
            clock.wait_for_begin().await;
            match scenario.executor {
                ExecutorSpec::ConstantArrivalRate { .. }
                | ExecutorSpec::RampingArrivalRate { .. } => {
                    arrival::run(context, index, share, clock).await
                }
                _ => closed::run(context, index, share, clock).await,
            }
        }
    }));
    let open_window = Cell::new(0);
    let windows = close_windows(
        || take_window(&context),
        start.start,
        None,
        &start.reports,
        &open_window,
    );
    let end = {
        let mut windows = pin!(windows);
        tokio::select! {
            _ = scenarios => Instant::now(),
            () = &mut windows => unreachable!("the interval clock never ends"),
        }
    };
    context.phase.set(Phase::Stopped);
    let window = take_window(&context);
    start.reports.window(WindowMessage {
        index: open_window.get(),
        closed_at: end,
        window,
    });
    drop(clocks);
    let ThreadContext {
        recorder, metrics, ..
    } = context;
    (recorder.into_inner(), metrics.into_inner(), end)
}

/// The thread's window, with each step's latencies and ends and each
/// check's results in it under their names, and its virtual users.
fn take_window(context: &ThreadContext<'_>) -> Window {
    let suite = context.suite;
    let mut window = context.recorder.borrow_mut().take_window(false);
    let mut metrics = context.metrics.borrow_mut();
    let scenarios = step_scenarios(suite);
    window.steps = suite
        .steps
        .iter()
        .zip(&scenarios)
        .zip(metrics.steps.iter_mut())
        .map(|((name, scenario), step)| {
            let taken = step.recorder.take_window(false);
            StepWindow {
                name: name.clone(),
                scenario: scenario.clone(),
                duration: taken.request_time,
                duration_raw: taken.request_time_raw,
                status_classes: taken.status_classes,
                error_kinds: taken.error_kinds,
            }
        })
        .collect();
    let counts = std::mem::replace(&mut metrics.checks_window, vec![(0, 0); suite.checks.len()]);
    window.checks = suite
        .checks
        .iter()
        .zip(counts)
        .map(|((step, name), (passes, fails))| CheckWindow {
            step: suite.steps[*step].clone(),
            scenario: scenarios[*step].clone(),
            name: name.clone(),
            passes,
            fails,
        })
        .collect();
    window.counters.vus = metrics.vus_now();
    window
}

/// For each step (by slot), the scenarios whose steps go by its name,
/// joined by `,`: steps of one name are counted together.
fn step_scenarios(suite: &Suite) -> Vec<String> {
    let mut names: Vec<Vec<&str>> = vec![Vec::new(); suite.steps.len()];
    for scenario in &suite.scenarios {
        for step in &scenario.steps {
            let of_step = &mut names[step.slot];
            if !of_step.contains(&scenario.name.as_str()) {
                of_step.push(&scenario.name);
            }
        }
    }
    names.into_iter().map(|n| n.join(",")).collect()
}

/// The report's `config` for a scenario run.
pub fn report_config(suite: &Suite, threads: usize) -> RunConfig {
    let uris = named_origins(suite)
        .iter()
        .map(|url| url.origin().ascii_serialization())
        .collect();
    let longest = suite
        .scenarios
        .iter()
        .map(|s| s.start_time + s.executor.length())
        .max()
        .unwrap_or_default();
    // The steps' methods, each once, in the order the file names them.
    let mut methods: Vec<&str> = Vec::new();
    for step in suite.scenarios.iter().flat_map(|s| &s.steps) {
        if !methods.contains(&step.method.as_str()) {
            methods.push(&step.method);
        }
    }
    RunConfig {
        uris,
        method: methods.join(","),
        // This machine's part: all of it unless the run is split.
        clients: suite.parts().iter().map(|p| p.vus as usize).sum(),
        threads,
        max_concurrent_streams: 1,
        mode: "scenario".to_string(),
        requests: None,
        duration_s: Some(longest.as_secs_f64()),
        warm_up_s: None,
        load_model: "scenario".to_string(),
        rate_per_s: None,
        rps_per_client: None,
        segment: suite.segment.as_ref().map(ToString::to_string),
        load_profile: load_profile(suite),
        wake_coalescing_us: None,
    }
}

/// The load curve of a run of one ramping scenario, from its stages: its
/// virtual users (`ramping-vus`) or iterations started per second
/// (`ramping-arrival-rate`), on the run's clock; a segment's share of it
/// when the run is split between machines, so that the parts' curves add
/// up to the whole. Empty for any other run: several scenarios' curves are
/// not one load.
fn load_profile(suite: &Suite) -> Vec<ProfilePiece> {
    let [scenario] = suite.scenarios.as_slice() else {
        return Vec::new();
    };
    let (start, stages) = match &scenario.executor {
        ExecutorSpec::RampingVus {
            start_vus, stages, ..
        } => (*start_vus as f64, stages),
        ExecutorSpec::RampingArrivalRate {
            start_rate, stages, ..
        } => (*start_rate, stages),
        _ => return Vec::new(),
    };
    let offset = scenario.start_time.as_secs_f64();
    let share = suite.stripe.fraction();
    let mut pieces = Profile::stages(start, stages).pieces();
    for piece in &mut pieces {
        piece.start_s += offset;
        piece.from *= share;
        piece.to *= share;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{compile, Options};
    use crate::file::parse;
    use loadgen_core::segment::ExecutionSegment;

    fn suite(scenarios: &str) -> Suite {
        let text = format!("defaults:\n  base_url: http://127.0.0.1:1\nscenarios:\n{scenarios}");
        let loaded = parse("t.yaml", &text, std::env::temp_dir()).expect("parses");
        compile(&loaded, &Options::default()).expect("compiles")
    }

    const RAMP: &str = "  ramp:
    executor: ramping-vus
    startVUs: 2
    startTime: 1s
    stages: [{duration: 2s, target: 10}, {duration: 1s, target: 10}]
    steps: [{name: home, url: /}]
";

    fn pieces(suite: &Suite) -> Vec<(f64, Option<f64>, f64, f64)> {
        load_profile(suite)
            .iter()
            .map(|p| (p.start_s, p.duration_s, p.from, p.to))
            .collect()
    }

    #[test]
    fn a_ramping_scenarios_stages_are_the_load_profile() {
        let whole = suite(RAMP);
        assert_eq!(
            pieces(&whole),
            [(1.0, Some(2.0), 2.0, 10.0), (3.0, Some(1.0), 10.0, 10.0)]
        );
        // Each half of a split run has half of the curve; they add up to it.
        let mut half = suite(RAMP);
        half.split(ExecutionSegment::shard(1, 2).unwrap()).unwrap();
        assert_eq!(
            pieces(&half),
            [(1.0, Some(2.0), 1.0, 5.0), (3.0, Some(1.0), 5.0, 5.0)]
        );
        let arrivals = suite(
            "  ramp:
    executor: ramping-arrival-rate
    startRate: 5
    preAllocatedVUs: 2
    stages: [{duration: 1s, target: 50}]
    steps: [{name: home, url: /}]
",
        );
        assert_eq!(pieces(&arrivals), [(0.0, Some(1.0), 5.0, 50.0)]);
    }

    #[test]
    fn other_runs_have_no_load_profile() {
        let constant = suite(
            "  steady:
    executor: constant-vus
    vus: 2
    duration: 1s
    steps: [{name: home, url: /}]
",
        );
        assert!(load_profile(&constant).is_empty());
        let two = suite(&format!(
            "{RAMP}  other:
    executor: ramping-vus
    stages: [{{duration: 1s, target: 3}}]
    steps: [{{name: other, url: /}}]
"
        ));
        assert!(load_profile(&two).is_empty());
    }
}
