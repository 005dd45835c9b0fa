//! The benchmark command: flags to plan, plan to run, run to report, and
//! the exit code (2 for bad input, 1 when nothing could be done, 99 when a
//! `--threshold` failed, else 0). With `--workers` the run step is
//! `distributed.rs`'s.

use crate::args::bench::BenchArgs;
use crate::failure::{exit, Failure};
use crate::pipeline::server_watch::ServerWatch;
use crate::pipeline::{Finished, Pipeline};
use loadgen_core::protocols::Protocols;
use loadgen_core::report::rfc3339;
use loadgen_core::{PrepareError, Report, Run, RunOptions};
use loadgen_metrics::totals::Workload;
use loadgen_report as output;
use std::process::ExitCode;
use std::time::SystemTime;

pub fn main(args: &BenchArgs) -> ExitCode {
    exit(bench(args))
}

fn bench(args: &BenchArgs) -> Result<ExitCode, Failure> {
    if !args.split.workers.is_empty() {
        return super::distributed::run(args);
    }
    let plan = args.to_plan().map_err(Failure::usage)?;
    let pipeline = Pipeline::validate(&args.output, &args.thresholds.thresholds, "run")?
        .with_dashboard(&args.dashboard)?;
    let server = ServerWatch::of(&args.server)?;
    let protocols = match args
        .grpc_call
        .as_ref()
        .and_then(|call| call.per_call.as_ref())
    {
        Some(messages) => Protocols::standard().with_bodies(messages.0.clone()),
        None => Protocols::standard(),
    };
    let run = Run::prepare(&plan, &protocols).map_err(|e| prepare_failure(args, e))?;
    // Checked once the run is prepared, the last thing that may take time.
    if let Some(at) = args.start_at {
        let wait =
            crate::args::start_at::wait_before(at, SystemTime::now()).map_err(Failure::usage)?;
        if !args.quiet {
            eprintln!(
                "loadgen: starting at {} (in {:.3}s)",
                rfc3339(at),
                wait.as_secs_f64()
            );
        }
    }
    // Histograms cost their encoding: kept only for an output that shows them.
    let keep_interval_histograms = pipeline.keeps_interval_histograms();
    let with_histograms = pipeline.needs_histograms();
    pipeline
        .with_metrics(&args.metrics, Workload::Requests)?
        .run(|running| {
            if !args.output.json {
                print!("{}", output::text::preamble(&plan));
            }
            running.progress.show(&plan, args.quiet);
            let server = server.start()?;
            let result = run
                .execute(RunOptions {
                    observer: Some(&mut server.observer(&mut running.progress)),
                    cancel: Some(running.cancel.clone()),
                    interval_histograms: keep_interval_histograms,
                    stop_grace: args.stop.get(),
                    start_at: args.start_at,
                })
                .map_err(Failure::run)?;
            let mut report = Report::new(&plan, &result);
            server.finish(&mut report);
            let mut finished = Finished::of(if with_histograms {
                report.with_histograms(&result)
            } else {
                report
            });
            finished
                .unwritten
                .extend(result.log_error.as_ref().map(|e| args.explain(e)));
            Ok(finished)
        })
}

/// A plan the engine refused, named by its flag (exit 2), or a target it
/// cannot reach (exit 1).
pub fn prepare_failure(args: &BenchArgs, error: PrepareError) -> Failure {
    match error {
        PrepareError::Invalid(error) => Failure::usage(args.explain(&error)),
        PrepareError::Unreachable(message) => Failure::run(message),
    }
}
