//! The benchmark command: flags to plan, plan to run, run to report, and
//! the exit code (2 for bad input, 1 when nothing could be done, 99 when a
//! `--threshold` failed, else 0).

use crate::cli::BenchArgs;
use crate::fail;
use crate::live::Live;
use crate::report_output::ReportOutput;
use crate::signals;
use loadgen_core::interval::Interval;
use loadgen_core::protocols::Protocols;
use loadgen_core::report::rfc3339;
use loadgen_core::whole_file;
use loadgen_core::{CancelHandle, Observer, PrepareError, Report, Run, RunOptions};
use loadgen_report::{self as output, threshold, FileFormat, HdrLog, Histograms};
use std::process::ExitCode;
use std::time::SystemTime;

pub fn main(args: &BenchArgs) -> ExitCode {
    if !args.workers.is_empty() {
        return crate::distributed::main(args);
    }
    let plan = match args.to_plan() {
        Ok(plan) => plan,
        Err(message) => return fail(2, &message),
    };
    let histograms = match args.histograms() {
        Ok(histograms) => histograms,
        Err(message) => return fail(2, &message),
    };
    let thresholds = match threshold::parse_all(&args.thresholds) {
        Ok(thresholds) => thresholds,
        Err(message) => return fail(2, &message),
    };
    if let Some(path) = &args.output {
        // Checked now, so that a run is never made for a report with nowhere to go.
        if let Err(e) = whole_file::check_writable(path) {
            return fail(2, &format!("-o: cannot write '{}': {e}", path.display()));
        }
    }
    if let Err(message) = args.pages.check_writable() {
        return fail(2, &message);
    }
    let protocols = match args
        .grpc_call
        .as_ref()
        .and_then(|call| call.per_call.as_ref())
    {
        Some(messages) => Protocols::standard().with_bodies(messages.0.clone()),
        None => Protocols::standard(),
    };
    let run = match Run::prepare(&plan, &protocols) {
        Ok(run) => run,
        Err(PrepareError::Invalid(error)) => return fail(2, &args.explain(&error)),
        Err(PrepareError::Unreachable(message)) => return fail(1, &message),
    };
    // Checked once the run is prepared, the last thing that may take time.
    if let Some(at) = args.start_at {
        match crate::start_at::wait_before(at, SystemTime::now()) {
            Ok(wait) if !args.quiet => eprintln!(
                "loadgen: starting at {} (in {:.3}s)",
                rfc3339(at),
                wait.as_secs_f64()
            ),
            Ok(_) => {}
            Err(message) => return fail(2, &message),
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
    if !args.json {
        print!("{}", output::text::preamble(&plan));
    }
    let live = if args.quiet { None } else { Live::start(&plan) };
    let mut observer = Progress {
        print_progress: !args.quiet && live.is_none(),
        live,
        hdr_log,
    };
    // Histograms cost their encoding: kept only for an output that shows them.
    let keep_histograms = histograms == Histograms::Include
        || (args.output.is_some() && args.file_format() == FileFormat::Json);
    let result = run.execute(RunOptions {
        observer: Some(&mut observer),
        cancel: Some(cancel),
        interval_histograms: keep_histograms,
        stop_grace: args.stop_grace.0,
        start_at: args.start_at,
    });
    if let Some(live) = observer.live {
        live.finish();
    }
    let result = match result {
        Ok(result) => result,
        Err(message) => {
            if let Some(log) = observer.hdr_log {
                log.discard();
            }
            return fail(1, &message);
        }
    };
    let report = Report::new(&plan, &result);
    let report = if keep_histograms || args.pages.need_histograms() {
        report.with_histograms(&result)
    } else {
        report
    };
    // Each output is written whatever became of the others; every failure is said.
    let mut unwritten = Vec::new();
    if let Some(log) = observer.hdr_log {
        unwritten.extend(log.finish().err());
    }
    unwritten.extend(result.log_error.as_ref().map(|e| args.explain(e)));
    let output = ReportOutput {
        json: args.json,
        histograms,
        file: args
            .output
            .as_deref()
            .map(|path| (path, args.file_format())),
        thresholds: &thresholds,
        pages: &args.pages,
        label: "run",
        k6_thresholds: &[],
        workers: None,
        worker_reports: Vec::new(),
    };
    output.emit(&report, unwritten, stopped.exit_code())
}

/// What the command shows while a run goes on: the live line or h2load's
/// progress lines, and the `--hdr-log` intervals.
pub(crate) struct Progress {
    pub live: Option<Live>,
    pub print_progress: bool,
    pub hdr_log: Option<HdrLog>,
}

impl Observer for Progress {
    fn interval(&mut self, interval: &Interval) {
        if let Some(live) = &mut self.live {
            live.interval(interval);
        }
        if let Some(log) = &mut self.hdr_log {
            log.write(interval);
        }
    }

    fn progress(&mut self, percent: u32) {
        if self.print_progress {
            eprintln!("progress: {percent}% done");
        }
    }
}
