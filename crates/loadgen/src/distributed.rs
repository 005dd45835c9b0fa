//! The benchmark command with `--workers`: the same flags, outputs and exit
//! codes as a local run, the load made by `loadgen worker`s
//! (`loadgen_dist::controller`), and a per-worker table under the report.

use crate::bench::Progress;
use crate::cli::{BenchArgs, OnWorkerLoss};
use crate::fail;
use crate::live::Live;
use crate::report_output::ReportOutput;
use crate::signals;
use loadgen_core::interval::Interval;
use loadgen_core::plan::Mode;
use loadgen_core::protocols::Protocols;
use loadgen_core::whole_file;
use loadgen_core::Report;
use loadgen_core::{CancelHandle, Observer, PlanError, PlanField, PrepareError, Run};
use loadgen_dist::controller::{
    self, client_config, Controller, ControllerError, ControllerOptions, Offset, Outcome, Watcher,
    WorkerAddress,
};
use loadgen_dist::token::Token;
use loadgen_report::{threshold, HdrLog};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

pub fn main(args: &BenchArgs) -> ExitCode {
    let plan = match args.to_plan() {
        Ok(plan) => plan,
        Err(message) => return fail(2, &message),
    };
    if let Some(message) = local_only(args) {
        return fail(2, &message);
    }
    let histograms = match args.histograms() {
        Ok(histograms) => histograms,
        Err(message) => return fail(2, &message),
    };
    let thresholds = match threshold::parse_all(&args.thresholds) {
        Ok(thresholds) => thresholds,
        Err(message) => return fail(2, &message),
    };
    if let Some(path) = &args.output {
        if let Err(e) = whole_file::check_writable(path) {
            return fail(2, &format!("-o: cannot write '{}': {e}", path.display()));
        }
    }
    if let Err(message) = args.pages.check_writable() {
        return fail(2, &message);
    }
    let token_file = args.token_file.as_deref().expect("clap requires it");
    let options = match controller_options(
        &args.workers,
        token_file,
        args.worker_ca.as_deref(),
        args.stop_grace.0,
    ) {
        Ok(options) => options,
        Err(message) => return fail(2, &message),
    };
    // Every segment checked here first: a bad flag is a usage error before
    // anything is sent. A target this machine cannot resolve may still be
    // one the workers can.
    let explain = |error: &PlanError| match error.field {
        PlanField::ExecutionSegment => error.render(|_| "--workers".to_string()),
        _ => args.explain(error),
    };
    let plans = match controller::segments(&plan, options.workers.len()) {
        Ok(plans) => plans,
        Err(error) => return fail(2, &explain(&error)),
    };
    for segment in &plans {
        if let Err(PrepareError::Invalid(error)) = Run::prepare(segment, &Protocols::standard()) {
            return fail(2, &explain(&error));
        }
    }
    let hdr_log = match args.hdr_log.as_deref().map(HdrLog::create).transpose() {
        Ok(log) => log,
        Err(message) => return fail(2, &message),
    };
    let cancel = CancelHandle::new();
    let stopped = match signals::watch(cancel.clone()) {
        Ok(stopped) => stopped,
        Err(message) => return fail(1, &message),
    };
    let controller = match Controller::connect(options) {
        Ok(controller) => controller,
        Err(error) => {
            discard(hdr_log);
            return fail(if error.usage { 2 } else { 1 }, &error.message);
        }
    };
    if !args.json {
        print!("{}", preamble(&plans, &controller.clocks()));
    }
    let live = if args.quiet { None } else { Live::start(&plan) };
    let mut watch = Watch(Progress {
        print_progress: !args.quiet && live.is_none(),
        live,
        hdr_log: None,
    });
    let outcome = controller.run(&plans, &mut watch, cancel);
    if let Some(live) = watch.0.live {
        live.finish();
    }
    let (outcome, report, unwritten) = match finish(&outcome, hdr_log, args.on_worker_loss) {
        Ok(finished) => finished,
        Err(code) => return code,
    };
    let output = ReportOutput {
        json: args.json,
        histograms,
        file: args
            .output
            .as_deref()
            .map(|path| (path, args.file_format())),
        thresholds: &thresholds,
        k6_thresholds: &[],
        workers: Some((outcome.table_text(), outcome.table_json())),
        worker_reports: outcome.worker_reports(),
        pages: &args.pages,
        label: "distributed run",
    };
    output.emit(report, unwritten, stopped.exit_code())
}

/// `--workers`, `--token-file` and `--worker-ca`, read; errors name the flag.
pub(crate) fn controller_options(
    workers: &[String],
    token_file: &Path,
    worker_ca: Option<&Path>,
    stop_grace: Duration,
) -> Result<ControllerOptions, String> {
    let workers = workers
        .iter()
        .map(|url| WorkerAddress::parse(url))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ControllerOptions {
        workers,
        token: Token::read(token_file)?,
        tls: client_config(worker_ca)?,
        stop_grace,
    })
}

/// What a distributed run's outcome leaves to report: the outcome, its
/// merged report and the outputs already lost (the `--hdr-log` written from the merged
/// seconds, the lost workers under `--on-worker-loss fail`); or the exit
/// code when there is nothing to report.
pub(crate) fn finish(
    outcome: &Result<Outcome, ControllerError>,
    mut hdr_log: Option<HdrLog>,
    policy: Option<OnWorkerLoss>,
) -> Result<(&Outcome, &Report, Vec<String>), ExitCode> {
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            discard(hdr_log);
            return Err(fail(if error.usage { 2 } else { 1 }, &error.message));
        }
    };
    let lost = outcome.lost().count();
    let Some(report) = &outcome.report else {
        discard(hdr_log);
        return Err(fail(
            1,
            &format!("all {lost} workers were lost; there is no report"),
        ));
    };
    let mut unwritten = Vec::new();
    if let Some(mut log) = hdr_log.take() {
        match controller::write_hdr_log(report, &mut log) {
            Ok(()) => unwritten.extend(log.finish().err()),
            Err(message) => {
                log.discard();
                unwritten.push(message);
            }
        }
    }
    if lost > 0 && policy.unwrap_or_default() == OnWorkerLoss::Fail {
        unwritten.push(format!(
            "{lost} of {} workers lost, their data left out (--on-worker-loss fail)",
            outcome.workers.len()
        ));
    }
    Ok((outcome, report, unwritten))
}

/// Flags that name files on this machine, which the workers cannot read
/// or write, or that split the run, which `--workers` does itself.
fn local_only(args: &BenchArgs) -> Option<String> {
    let (flag, why) = if args.log_file.is_some() {
        (
            "--log-file",
            "each worker would write it on its own machine",
        )
    } else if args.qlog_file_base.is_some() {
        (
            "--qlog-file-base",
            "each worker would write it on its own machine",
        )
    } else if args.tls_ca.is_some() {
        ("--tls-ca", "the workers cannot read a file on this machine")
    } else {
        return None;
    };
    Some(format!("{flag}: not available with --workers: {why}"))
}

pub(crate) fn discard(log: Option<HdrLog>) {
    if let Some(log) = log {
        log.discard();
    }
}

/// What is printed before the run: each worker's part and clock.
fn preamble(plans: &[loadgen_core::Plan], clocks: &[(String, Offset)]) -> String {
    let mut out = format!("starting benchmark on {} workers...\n", plans.len());
    for (index, (plan, (url, offset))) in plans.iter().zip(clocks).enumerate() {
        let segment = plan
            .segment
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        let requests = match plan.mode {
            Mode::Requests(_) => format!(", {} requests", plan.requests_here().unwrap_or(0)),
            Mode::Duration { .. } => String::new(),
        };
        out.push_str(&format!(
            "worker #{index} {url}: segment {segment}, {} client(s){requests}, clock offset {:+.3}ms (round trip {:.3}ms)\n",
            plan.clients_here(),
            offset.offset_us as f64 / 1000.0,
            offset.round_trip.as_secs_f64() * 1000.0
        ));
    }
    out
}

/// A local run's progress, plus each worker lost named on stderr.
pub(crate) struct Watch(pub(crate) Progress);

impl Observer for Watch {
    fn interval(&mut self, interval: &Interval) {
        self.0.interval(interval);
    }

    fn progress(&mut self, percent: u32) {
        self.0.progress(percent);
    }
}

impl Watcher for Watch {
    fn worker_lost(&mut self, worker: &str, segment: &str, why: &str) {
        eprintln!("loadgen: worker {worker} (segment {segment}) lost: {why}; its data is left out");
    }
}
