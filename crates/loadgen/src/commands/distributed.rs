//! The benchmark command with `--workers`: the same flags, outputs and exit
//! codes as a local run, the load made by `loadgen worker`s
//! (`loadgen_dist::controller`), and a per-worker table under the report.

use crate::args::bench::BenchArgs;
use crate::args::split::{OnWorkerLoss, SplitArgs};
use crate::failure::Failure;
use crate::pipeline::{Finished, Pipeline};
use loadgen_core::plan::Mode;
use loadgen_core::protocols::Protocols;
use loadgen_core::{PlanError, PlanField, Run};
use loadgen_dist::controller::{
    self, client_config, Controller, ControllerError, ControllerOptions, Offset, Outcome,
    WorkerAddress,
};
use loadgen_dist::token::Token;
use loadgen_metrics::totals::Workload;
use loadgen_report::HdrLog;
use std::process::ExitCode;
use std::time::Duration;

pub fn run(args: &BenchArgs) -> Result<ExitCode, Failure> {
    let plan = args.to_plan().map_err(Failure::usage)?;
    if let Some(message) = local_only(args) {
        return Err(Failure::usage(message));
    }
    let pipeline =
        Pipeline::validate(&args.output, &args.thresholds.thresholds, "distributed run")?
            .with_dashboard(&args.dashboard)?;
    let options = controller_options(&args.split, args.stop.get()).map_err(Failure::usage)?;
    // Every segment checked here first: a bad flag is a usage error before
    // anything is sent. A target this machine cannot resolve may still be
    // one the workers can.
    let explain = |error: &PlanError| match error.field {
        PlanField::ExecutionSegment => error.render(|_| "--workers".to_string()),
        _ => args.explain(error),
    };
    let plans = controller::segments(&plan, options.workers.len())
        .map_err(|error| Failure::usage(explain(&error)))?;
    for segment in &plans {
        if let Err(loadgen_core::PrepareError::Invalid(error)) =
            Run::prepare(segment, &Protocols::standard())
        {
            return Err(Failure::usage(explain(&error)));
        }
    }
    pipeline
        .with_metrics(&args.metrics, Workload::Requests)?
        .run(|running| {
            let controller = Controller::connect(options).map_err(controller_failure)?;
            // Written from the merged seconds at the end, not as they come.
            let hdr_log = running.progress.hdr_log.take();
            if !args.output.json {
                print!("{}", preamble(&plans, &controller.clocks()));
            }
            running.progress.show(&plan, args.quiet);
            let outcome = controller.run(&plans, &mut running.progress, running.cancel.clone());
            finish(outcome, hdr_log, args.split.on_worker_loss)
        })
}

/// A controller's error: the user's (exit 2) or the workers' (exit 1).
pub(crate) fn controller_failure(error: ControllerError) -> Failure {
    Failure {
        code: if error.usage { 2 } else { 1 },
        message: error.message,
    }
}

/// `--workers`, `--token-file` and `--worker-ca`, read; errors name the flag.
pub(crate) fn controller_options(
    split: &SplitArgs,
    stop_grace: Duration,
) -> Result<ControllerOptions, String> {
    let token_file = split
        .token
        .token_file
        .as_deref()
        .expect("clap requires it with --workers");
    let workers = split
        .workers
        .iter()
        .map(|url| WorkerAddress::parse(url))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ControllerOptions {
        workers,
        token: Token::read(token_file)?,
        tls: client_config(split.worker_ca.as_deref())?,
        stop_grace,
    })
}

/// What a distributed run's outcome leaves to report: its merged report
/// (the lost workers' seconds up to their loss included), the workers'
/// table and reports, the outputs already lost (the `--hdr-log` written
/// from the merged seconds), and what the lost workers do to the exit
/// code under `policy`; or why there is nothing to report.
pub(crate) fn finish(
    outcome: Result<Outcome, ControllerError>,
    hdr_log: Option<HdrLog>,
    policy: Option<OnWorkerLoss>,
) -> Result<Finished, Failure> {
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            discard(hdr_log);
            return Err(controller_failure(error));
        }
    };
    let lost = outcome.lost().count();
    let Some(report) = &outcome.report else {
        discard(hdr_log);
        return Err(Failure::run(format!(
            "all {lost} workers were lost before a second of their runs; there is no report"
        )));
    };
    let partial = outcome.partial();
    let mut unwritten = Vec::new();
    if let Some(mut log) = hdr_log {
        for part in &partial {
            log.comment(&format!(
                "partial: worker #{} {} (segment {}) lost at {}, its first {} s {}",
                part.worker,
                part.address,
                part.segment,
                part.lost_at,
                part.seconds_received,
                if part.merged {
                    "counted"
                } else {
                    "not counted"
                }
            ));
        }
        match controller::write_hdr_log(report, &mut log) {
            Ok(()) => unwritten.extend(log.finish().err()),
            Err(message) => {
                log.discard();
                unwritten.push(message);
            }
        }
    }
    let policy = policy.unwrap_or_default();
    let workers = outcome.workers.len();
    let stopped = outcome.interrupted();
    let workers_lost = (lost > 0).then(|| {
        let what = format!("{lost} of {workers} workers lost; the report is marked partial");
        ended_early(what, policy, lost == workers)
    });
    let workers_stopped = (stopped > 0).then(|| {
        let what = format!(
            "{stopped} of {workers} workers stopped before the run's end (stopped on their \
             machines); the report is marked interrupted"
        );
        ended_early(what, policy, stopped + lost == workers)
    });
    Ok(Finished {
        report: report.clone(),
        unwritten,
        k6_thresholds: Vec::new(),
        workers: Some((outcome.table_text(), outcome.table_json())),
        worker_reports: outcome
            .worker_reports()
            .into_iter()
            .map(|r| r.cloned())
            .collect(),
        workers_lost,
        workers_stopped,
    })
}

/// The line said for workers whose part of the run ended early, and the
/// exit code `policy` calls for; 1 whatever the policy when `none_left`
/// went on to the end, since there is no run to go on with.
fn ended_early(what: String, policy: OnWorkerLoss, none_left: bool) -> (String, Option<u8>) {
    let code = if none_left {
        Some(1)
    } else {
        policy.exit_code()
    };
    (format!("{what} (--on-worker-loss {})", policy.name()), code)
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
    } else if let Some(flag) = args.server.given() {
        (
            flag,
            "a distributed run's seconds are the workers'; run loadgen without --workers to read a server on this machine",
        )
    } else {
        return None;
    };
    Some(format!("{flag}: not available with --workers: {why}"))
}

fn discard(log: Option<HdrLog>) {
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
