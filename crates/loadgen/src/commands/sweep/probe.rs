//! One run of a sweep: the point's flags to a plan, the run, its report
//! with histograms (for the page's spectra), and a line on stderr.

use crate::args::bench::BenchArgs;
use crate::commands::bench::prepare_failure;
use crate::pipeline::signals::Stopped;
use loadgen_core::protocols::Protocols;
use loadgen_core::{CancelHandle, Report, Run, RunOptions};
use loadgen_report::sweep::succeeded_per_s;
use loadgen_report::units::{dtos, duration_us};

pub struct Prober {
    cancel: CancelHandle,
    stopped: Stopped,
    quiet: bool,
}

impl Prober {
    pub fn new(cancel: CancelHandle, stopped: Stopped, quiet: bool) -> Prober {
        Prober {
            cancel,
            stopped,
            quiet,
        }
    }

    /// The exit code of the signal that stopped the sweep, if one did.
    pub fn stopped(&self) -> Option<u8> {
        self.stopped.exit_code()
    }

    /// The run's report; `None` when a signal stopped the sweep (a run it
    /// cut short is left out: its figures describe no point). The error
    /// is the exit code and its one line.
    pub fn run(&mut self, bench: &BenchArgs, label: &str) -> Result<Option<Report>, (u8, String)> {
        if self.stopped().is_some() {
            return Ok(None);
        }
        let plan = bench.to_plan().map_err(|m| (2, m))?;
        let run = Run::prepare(&plan, &Protocols::standard()).map_err(|e| {
            let failure = prepare_failure(bench, e);
            (failure.code, failure.message)
        })?;
        let result = run
            .execute(RunOptions {
                cancel: Some(self.cancel.clone()),
                stop_grace: bench.stop.get(),
                ..RunOptions::default()
            })
            .map_err(|m| (1, m))?;
        if self.stopped().is_some() {
            return Ok(None);
        }
        let report = Report::new(&plan, &result).with_histograms(&result);
        if !self.quiet {
            eprintln!(
                "sweep: {label}: {} req/s ({} succeeded), p50 {}, p99 {}, {} errors, {} failed",
                dtos(report.req_per_s),
                dtos(succeeded_per_s(&report)),
                duration_us(report.request_time.p50_us as f64),
                duration_us(report.request_time.p99_us as f64),
                report.requests.errored,
                report.requests.failed
            );
        }
        Ok(Some(report))
    }
}
