//! `loadgen run FILE`: a scenario file run through the engine, summarized
//! as k6 does, written and judged as a benchmark's report is (`--json`,
//! `-o`, `--hdr-log`, `--html`, `--percentiles-file`, thresholds, exit
//! codes, `--dashboard`).

mod args;
mod distributed;

pub use args::RunArgs;

use crate::failure::{exit, Failure};
use crate::pipeline::dashboard::Criteria;
use crate::pipeline::{Finished, Pipeline};
use loadgen_metrics::totals::Workload;
use loadgen_report::k6_threshold;
use loadgen_scenario::compile;
use loadgen_scenario::run::{report_config, run, ScenarioOptions};
use std::process::ExitCode;

pub fn main(args: &RunArgs) -> ExitCode {
    exit(run_file(args))
}

fn run_file(args: &RunArgs) -> Result<ExitCode, Failure> {
    let options = args.options().map_err(Failure::usage)?;
    let label = if args.split.workers.is_empty() {
        "scenario"
    } else {
        "distributed scenario run"
    };
    let pipeline = Pipeline::validate(&args.output, &[], label)?;
    if !args.split.workers.is_empty() {
        return distributed::run(args, pipeline);
    }
    let segment = args.split.segment().map_err(Failure::usage)?;
    let mut suite = loadgen_scenario::file::read(&args.file)
        .and_then(|loaded| compile::compile(&loaded, &options))
        .map_err(|error| Failure::usage(error.to_string()))?;
    if let Some(segment) = segment {
        suite
            .split(segment)
            .map_err(|error| Failure::usage(args.split.explain(&error)))?;
    }
    let k6_thresholds = k6_threshold::parse_all(&suite.thresholds).map_err(Failure::usage)?;
    let interval_histograms =
        args.output.output().is_some() || pipeline.keeps_interval_histograms();
    let judged = Criteria::Scenario(k6_thresholds.clone());
    let pipeline = pipeline.with_dashboard_judging(&args.dashboard, judged)?;
    pipeline
        .with_metrics(&args.metrics, Workload::Scenario)?
        .run(|running| {
            running
                .progress
                .begin_run(report_config(&suite, args.threads.threads));
            // Kept always: a threshold's p(N) is exact from them, and -o needs them.
            let report = run(
                &suite,
                ScenarioOptions {
                    threads: args.threads.threads,
                    observer: Some(&mut running.progress),
                    cancel: Some(running.cancel.clone()),
                    stop_grace: args.stop.get(),
                    histograms: true,
                    interval_histograms,
                    ..ScenarioOptions::default()
                },
            )
            .map_err(Failure::run)?;
            Ok(Finished {
                k6_thresholds,
                ..Finished::of(report)
            })
        })
}
