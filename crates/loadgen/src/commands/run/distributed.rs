//! `loadgen run FILE --workers URL,...`: a scenario split into equal
//! execution segments, one per `loadgen worker`, started at one instant;
//! the summary, `--json`, `-o` and the thresholds come from the workers'
//! reports merged exactly (steps' histograms added, checks' counters
//! added), and a table shows each worker's iterations and checks.
//! The scenario travels with the files it names: the workers read nothing
//! from their own disks.

use super::args::RunArgs;
use crate::commands::distributed::{controller_failure, controller_options, finish};
use crate::failure::Failure;
use crate::pipeline::dashboard::Criteria;
use crate::pipeline::{Finished, Pipeline};
use loadgen_dist::controller::{Controller, Offset};
use loadgen_dist::scenario_job::{JobError, ScenarioJob};
use loadgen_metrics::totals::Workload;
use loadgen_report::k6_threshold;
use loadgen_scenario::file::Bundle;
use loadgen_scenario::run::report_config;
use loadgen_scenario::suite::Suite;
use std::process::ExitCode;

pub fn run(args: &RunArgs, pipeline: Pipeline) -> Result<ExitCode, Failure> {
    let bundle = Bundle::read(&args.file).map_err(|error| Failure::usage(error.to_string()))?;
    let job = ScenarioJob {
        bundle,
        env: args.env.clone(),
        vus: args.vus,
        duration_ms: args.run_time.duration.map(|d| d.as_millis() as u64),
        iterations: args.iterations,
        threads: args.threads.threads,
        segment: None,
    };
    let count = args.split.workers.len();
    let jobs: Vec<ScenarioJob> = (0..count).map(|i| job.shard(i, count)).collect();
    // Compiled here as each worker will compile it: a mistake is a usage
    // error before anything is sent.
    let compile = |job: &ScenarioJob| {
        job.compile().map_err(|error| match error {
            JobError::Scenario(message) => Failure::usage(message),
            JobError::Segment(error) => Failure::usage(args.split.explain(&error)),
        })
    };
    let suites = jobs
        .iter()
        .map(compile)
        .collect::<Result<Vec<Suite>, _>>()?;
    if suites[0].connection.tls.ca_file.is_some() {
        return Err(Failure::usage(
            "defaults.ca_file: not available with --workers: the workers cannot read a file on this machine",
        ));
    }
    let k6_thresholds = k6_threshold::parse_all(&suites[0].thresholds).map_err(Failure::usage)?;
    let options = controller_options(&args.split, args.stop.get()).map_err(Failure::usage)?;
    // The whole run's configuration, as the merged report shows it.
    let config = report_config(&compile(&job)?, args.threads.threads);
    let judged = Criteria::Scenario(k6_thresholds.clone());
    let pipeline = pipeline.with_dashboard_judging(&args.dashboard, judged)?;
    pipeline
        .with_metrics(&args.metrics, Workload::Scenario)?
        .run(|running| {
            running.progress.begin_run(config);
            let controller = Controller::connect(options).map_err(controller_failure)?;
            // Written from the merged seconds at the end, not as they come.
            let hdr_log = running.progress.hdr_log.take();
            if !args.output.json {
                print!("{}", preamble(&suites, &controller.clocks()));
            }
            let outcome =
                controller.run_scenario(&jobs, &mut running.progress, running.cancel.clone());
            Ok(Finished {
                k6_thresholds,
                ..finish(outcome, hdr_log, args.split.on_worker_loss)?
            })
        })
}

/// What is printed before the run: each worker's part and clock.
fn preamble(suites: &[Suite], clocks: &[(String, Offset)]) -> String {
    let name = suites.first().map_or("", |s| s.name.as_str());
    let mut out = format!("running {name} on {} workers...\n", suites.len());
    for (index, (suite, (url, offset))) in suites.iter().zip(clocks).enumerate() {
        let segment = suite
            .segment
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        let parts: Vec<String> = suite
            .parts()
            .iter()
            .map(|p| {
                let counted = match (p.iterations, p.arrivals) {
                    (Some(n), _) => format!(", {n} iterations"),
                    (None, Some(n)) => format!(", {n} arrivals"),
                    (None, None) => String::new(),
                };
                format!("{} {} VUs{counted}", p.scenario, p.vus)
            })
            .collect();
        out.push_str(&format!(
            "worker #{index} {url}: segment {segment}: {}; clock offset {:+.3}ms (round trip {:.3}ms)\n",
            parts.join("; "),
            offset.offset_us as f64 / 1000.0,
            offset.round_trip.as_secs_f64() * 1000.0
        ));
    }
    out
}
