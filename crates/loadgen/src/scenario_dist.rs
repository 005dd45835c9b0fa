//! `loadgen run FILE --workers URL,...`: a scenario split into equal
//! execution segments, one per `loadgen worker`, started at one instant;
//! the summary, `--json`, `-o` and the thresholds come from the workers'
//! reports merged exactly (steps' histograms added, checks' counters
//! added), and a table shows each worker's iterations and checks.
//! The scenario travels with the files it names: the workers read nothing
//! from their own disks.

use crate::bench::Progress;
use crate::distributed::{controller_options, discard, finish, Watch};
use crate::fail;
use crate::report_output::ReportOutput;
use crate::scenario_cmd::RunArgs;
use crate::signals;
use loadgen_core::CancelHandle;
use loadgen_dist::controller::{Controller, Offset};
use loadgen_dist::scenario_job::{JobError, ScenarioJob};
use loadgen_report::{k6_threshold, HdrLog, Histograms};
use loadgen_scenario::file::Bundle;
use loadgen_scenario::suite::Suite;
use std::process::ExitCode;

pub fn main(args: &RunArgs, histograms: Histograms) -> ExitCode {
    let bundle = match Bundle::read(&args.file) {
        Ok(bundle) => bundle,
        Err(error) => return fail(2, &error.to_string()),
    };
    let job = ScenarioJob {
        bundle,
        env: args.env.clone(),
        vus: args.vus,
        duration_ms: args.duration.as_ref().map(|d| d.0.as_millis() as u64),
        iterations: args.iterations,
        threads: args.threads as usize,
        segment: None,
    };
    let count = args.split.workers.len();
    let jobs: Vec<ScenarioJob> = (0..count).map(|i| job.shard(i, count)).collect();
    // Compiled here as each worker will compile it: a mistake is a usage
    // error before anything is sent.
    let mut suites: Vec<Suite> = Vec::with_capacity(count);
    for job in &jobs {
        match job.compile() {
            Ok(suite) => suites.push(suite),
            Err(JobError::Scenario(message)) => return fail(2, &message),
            Err(JobError::Segment(error)) => return fail(2, &args.split.explain(&error)),
        }
    }
    if suites[0].connection.tls.ca_file.is_some() {
        return fail(
            2,
            "defaults.ca_file: not available with --workers: the workers cannot read a file on this machine",
        );
    }
    let k6_thresholds = match k6_threshold::parse_all(&suites[0].thresholds) {
        Ok(thresholds) => thresholds,
        Err(message) => return fail(2, &message),
    };
    let token_file = args.split.token_file.as_deref().expect("clap requires it");
    let options = match controller_options(
        &args.split.workers,
        token_file,
        args.split.worker_ca.as_deref(),
        args.stop_grace.0,
    ) {
        Ok(options) => options,
        Err(message) => return fail(2, &message),
    };
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
        print!("{}", preamble(&suites, &controller.clocks()));
    }
    let mut watch = Watch(Progress {
        live: None,
        print_progress: false,
        hdr_log: None,
    });
    let outcome = controller.run_scenario(&jobs, &mut watch, cancel);
    let (outcome, report, unwritten) = match finish(&outcome, hdr_log, args.split.on_worker_loss) {
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
        thresholds: &[],
        k6_thresholds: &k6_thresholds,
        workers: Some((outcome.table_text(), outcome.table_json())),
        worker_reports: outcome.worker_reports(),
        pages: &args.pages,
        label: "distributed scenario run",
    };
    output.emit(report, unwritten, stopped.exit_code())
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
