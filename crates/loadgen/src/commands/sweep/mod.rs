//! `loadgen sweep`: the benchmark run at several loads, each point
//! repeated (`--runs`), with one JSON Lines row per run or one CSV row per
//! point (`-o`), a table on stdout and an HTML page (`--html`); or, with
//! `--slo`, the search for the highest `--rate` that meets them.

mod outputs;
mod probe;
pub mod swept;
mod unseen_failures;

use crate::args::bench::BenchArgs;
use crate::failure::fail;
use crate::pipeline::signals;
use clap::Args;
use loadgen_core::CancelHandle;
use loadgen_report::sweep::knee::KneeSearch;
use loadgen_report::sweep::{quarters, Dimension, SweepRun};
use loadgen_report::threshold::{self, Threshold};
use loadgen_report::FileFormat;
use outputs::{KneeOutcome, Outputs};
use probe::Prober;
use std::process::ExitCode;
use std::time::Duration;
pub use swept::{take_swept, Swept};
use unseen_failures::UnseenFailures;

/// A knee search's probe, when `-D` does not say: long enough for queues
/// to build past an objective when the rate is beyond what the server
/// sustains, after a warm-up that fills the connections.
const PROBE: Duration = Duration::from_secs(5);
const PROBE_WARM_UP: Duration = Duration::from_secs(1);

/// The search stops when the failing rate is within 2% of the passing one.
const KNEE_RESOLUTION: f64 = 0.02;

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The benchmark's flags; one of -c, -m or --rate takes a list (2,4,6,8) or a range
    /// (LOW:HIGH:STEP), the points of the sweep.
    #[command(flatten)]
    pub bench: BenchArgs,

    /// Sweep h2load-benchmarks' points: a quarter, half, three quarters and all of -c.
    #[arg(long)]
    pub batch: bool,

    /// Runs per point; each point shows the median, min, max and 95th percentile over them.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub runs: usize,

    /// Search the highest open-model rate within --rate LOW:HIGH that meets this objective, in
    /// --threshold's syntax ('p99<50ms', 'errors<0.1%'); repeatable.
    #[arg(long = "slo", value_name = "EXPR")]
    pub slos: Vec<String>,
}

pub fn main(args: &SweepArgs, swept: &Swept) -> ExitCode {
    match plan(args, swept) {
        Ok(Plan::Points { dimension, values }) => sweep(args, dimension, &values),
        Ok(Plan::Knee { low, high, slos }) => knee(args, low, high, &slos),
        Err(message) => fail(2, &message),
    }
}

enum Plan {
    Points {
        dimension: Dimension,
        values: Vec<f64>,
    },
    Knee {
        low: f64,
        high: f64,
        slos: Vec<Threshold>,
    },
}

/// What to sweep, or why the command line does not say.
fn plan(args: &SweepArgs, swept: &Swept) -> Result<Plan, String> {
    let b = &args.bench;
    let refused = [
        ("--json", b.output.json),
        ("--hdr-log", b.output.hdr_log.is_some()),
        ("--log-file", b.log_file.is_some()),
        ("--percentiles-file", b.output.percentiles_file.is_some()),
        ("--threshold", !b.thresholds.thresholds.is_empty()),
        ("--metrics-push", !b.metrics.metrics_push.is_empty()),
        ("--metrics-listen", b.metrics.metrics_listen.is_some()),
        ("--server-pid", !b.server.server_pids.is_empty()),
        ("--server-cgroup", b.server.server_cgroup.is_some()),
        ("--dashboard", b.dashboard.dashboard.is_some()),
    ];
    if let Some((flag, _)) = refused.iter().find(|(_, given)| *given) {
        return Err(format!(
            "{flag}: not for a sweep; a sweep writes -o (JSON Lines rows or CSV points) and --html"
        ));
    }
    let per_run = matches!(b.output.file_format(), FileFormat::Jsonl | FileFormat::Csv);
    if b.output.output().is_some() && !per_run {
        return Err(
            "-o: a sweep writes JSON Lines (one row per run, .jsonl) or CSV (one row per point, .csv); \
             name the file so or give --format"
                .into(),
        );
    }
    if args.runs == 0 {
        return Err("--runs: at least one run per point".into());
    }
    let mut dimensions: Vec<(Dimension, String)> = swept.found.clone();
    if args.batch && dimensions.iter().any(|(d, _)| *d == Dimension::Clients) {
        return Err("--batch: sweeps the quarters of -c, which takes one number with it".into());
    }
    if args.batch {
        let clients = quarters(b.clients.clients)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",");
        dimensions.push((Dimension::Clients, clients));
    }
    let (dimension, text) = match dimensions.as_slice() {
        [one] => one.clone(),
        [] => {
            return Err(
                "say what to sweep: -c LIST, --batch, -m LIST or --rate LOW:HIGH:STEP \
                 (or --rate LOW:HIGH with --slo)"
                    .into(),
            )
        }
        [first, second, ..] => {
            return Err(format!(
                "{}: a sweep varies one thing; {} is swept too",
                second.0.flag(),
                first.0.flag()
            ))
        }
    };
    if args.slos.is_empty() {
        let values = swept::values(dimension.flag(), &text)?;
        let counted = matches!(dimension, Dimension::Clients | Dimension::Streams);
        if let Some(bad) = values
            .iter()
            .find(|v| counted && (v.fract() != 0.0 || **v < 1.0))
        {
            return Err(format!(
                "{}: {bad} is not a whole number of at least 1 (in '{text}')",
                dimension.flag()
            ));
        }
        return Ok(Plan::Points { dimension, values });
    }
    if dimension != Dimension::Rate {
        return Err("--slo: searches the open model's --rate LOW:HIGH, not -c or -m".into());
    }
    let (low, high) = swept::bounds(&text)?;
    let slos =
        threshold::parse_all(&args.slos).map_err(|e| e.replacen("--threshold", "--slo", 1))?;
    if b.requests.is_some() && b.run_time.duration.is_none() {
        return Err("--slo: each probe runs for a time; give -D rather than -n".into());
    }
    Ok(Plan::Knee { low, high, slos })
}

/// The sweep's benchmark flags with `value` set on the swept one.
fn at_point(bench: &BenchArgs, dimension: Dimension, value: f64) -> BenchArgs {
    let mut point = bench.clone();
    match dimension {
        Dimension::Clients => point.clients.clients = value as usize,
        Dimension::Streams => point.max_concurrent_streams = value as usize,
        Dimension::Rate => point.load.rate = Some(value),
    }
    point
}

fn start(args: &SweepArgs) -> Result<(Outputs, Prober), ExitCode> {
    let outputs = Outputs::of(&args.bench).map_err(|m| fail(2, &m))?;
    let cancel = CancelHandle::new();
    let stopped = signals::watch(cancel.clone()).map_err(|m| fail(1, &m))?;
    Ok((outputs, Prober::new(cancel, stopped, args.bench.quiet)))
}

fn sweep(args: &SweepArgs, dimension: Dimension, values: &[f64]) -> ExitCode {
    let (outputs, mut prober) = match start(args) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let mut runs = Vec::new();
    'points: for (point, value) in values.iter().enumerate() {
        let bench = at_point(&args.bench, dimension, *value);
        for run in 0..args.runs {
            let label = format!(
                "{} {value}, run {}/{}",
                dimension.flag(),
                run + 1,
                args.runs
            );
            match prober.run(&bench, &label) {
                Ok(Some(report)) => runs.push(SweepRun {
                    point,
                    run,
                    value: *value,
                    report,
                }),
                Ok(None) => break 'points,
                Err((code, message)) => return fail(code, &message),
            }
        }
    }
    outputs.finish(dimension, &runs, None, prober.stopped())
}

fn knee(args: &SweepArgs, low: f64, high: f64, slos: &[Threshold]) -> ExitCode {
    let mut bench = args.bench.clone();
    if bench.run_time.duration.is_none() {
        bench.run_time.duration = Some(PROBE);
        bench.warm_up_time = bench.warm_up_time.or(Some(PROBE_WARM_UP));
    }
    let warm_up = bench.warm_up_time.unwrap_or_default();
    if !bench.quiet {
        eprintln!(
            "knee search between {low} and {high} req/s: each probe runs {} measured after a \
             {} warm-up (-D, --warm-up-time), {} run(s) per probe, until the rates that meet \
             and miss the objectives are within {}%",
            humantime(bench.run_time.duration.unwrap_or(PROBE)),
            humantime(warm_up),
            args.runs,
            KNEE_RESOLUTION * 100.0
        );
    }
    let (outputs, mut prober) = match start(args) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let mut search = KneeSearch::new(low, high, KNEE_RESOLUTION);
    let mut unseen = UnseenFailures::new(slos);
    let mut runs = Vec::new();
    'probes: while let Some(rate) = search.next() {
        let point = search.probes().len();
        let at = at_point(&bench, Dimension::Rate, rate);
        let mut passed = true;
        for run in 0..args.runs {
            let label = format!(
                "--rate {rate:.1}, probe {}, run {}/{}",
                point + 1,
                run + 1,
                args.runs
            );
            match prober.run(&at, &label) {
                Ok(Some(report)) => {
                    if let Some(warning) = unseen.check(rate, &report) {
                        eprintln!("loadgen: {warning}");
                    }
                    passed &= threshold::evaluate_all(slos, &report)
                        .iter()
                        .all(|(_, outcome)| outcome.passed);
                    runs.push(SweepRun {
                        point,
                        run,
                        value: rate,
                        report,
                    });
                }
                Ok(None) => break 'probes,
                Err((code, message)) => return fail(code, &message),
            }
        }
        search.record(rate, passed);
    }
    let objectives: Vec<String> = args.slos.iter().map(|s| s.replace(' ', "")).collect();
    let outcome = KneeOutcome {
        objectives,
        slos,
        search: &search,
    };
    outputs.finish(Dimension::Rate, &runs, Some(outcome), prober.stopped())
}

fn humantime(d: Duration) -> String {
    loadgen_report::units::duration_us(d.as_micros() as f64)
}
