//! The one way every command that makes a report goes, each with its own
//! run step: validate → watch signals → run → emit outputs → exit code.
//!
//! ```text
//! Pipeline::validate(outputs, thresholds)   -o, --html, ... writable; --histograms; --threshold
//!   command's own checks                     its plan, scenario or workers (exit 2 on error)
//! Pipeline::with_dashboard(args)             --dashboard: its server started (dashboard/)
//! Pipeline::with_metrics(args)               --metrics-push, --metrics-listen (metrics.rs)
//! Pipeline::run(step)                        --hdr-log opened, signals watched (signals.rs),
//!   step(&mut Running) -> Finished           the command's run: local, on workers, a scenario
//!   emit (emit.rs)                           text or JSON, -o, pages, thresholds, exit code
//!   metrics::finish                          the final values pushed and served, at most the linger
//!   Dashboard::close                          the finished report offered, --dashboard-linger
//! ```
//!
//! A command that runs nothing (`merge`) skips the middle: [`Pipeline::emit`].

pub mod dashboard;
pub mod emit;
pub mod live;
pub mod metrics;
pub mod progress;
pub mod server_watch;
pub mod signals;
pub mod waiting;

use crate::args::dashboard::DashboardArgs;
use crate::args::output::OutputArgs;
use crate::failure::Failure;
use dashboard::{Criteria, Dashboard};
use emit::ReportOutput;
use loadgen_core::{CancelHandle, Report};
use loadgen_report::k6_threshold::K6Threshold;
use loadgen_report::threshold::{self, Threshold};
use loadgen_report::{FileFormat, HdrLog, Histograms};
use progress::Progress;
use std::process::ExitCode;

/// A command's outputs, checked before anything runs.
pub struct Pipeline<'a> {
    outputs: &'a OutputArgs,
    thresholds: Vec<Threshold>,
    histograms: Histograms,
    /// How the HTML page names the run.
    label: &'static str,
    /// `--metrics-push`, `--metrics-listen`: started, fed by the progress.
    metrics: Option<(loadgen_metrics::Exporter, std::time::Duration)>,
    /// `--dashboard`, serving from before the run to after the report.
    dashboard: Option<Dashboard>,
}

/// What a run step has while it runs.
pub struct Running {
    /// Cancelled by the first stop signal.
    pub cancel: CancelHandle,
    /// The live line or progress lines, and the `--hdr-log` intervals; a
    /// step that writes the log itself takes it out.
    pub progress: Progress,
}

/// What a run step made.
pub struct Finished {
    pub report: Report,
    /// Outputs already lost (an incomplete `--log-file`, workers lost).
    pub unwritten: Vec<String>,
    /// A scenario file's thresholds, in k6's grammar.
    pub k6_thresholds: Vec<K6Threshold>,
    /// A distributed run's per-worker table: its text under the report,
    /// and what it adds to the document.
    pub workers: Option<(String, serde_json::Map<String, serde_json::Value>)>,
    /// Each worker's report, in the order of the table's rows (for a
    /// worker lost, the report of its seconds up to the loss, if any).
    pub worker_reports: Vec<Option<Report>>,
    /// Workers were lost: what to say after the report, and the exit code
    /// the loss calls for, if any (`--on-worker-loss`).
    pub workers_lost: Option<(String, Option<u8>)>,
    /// Workers reported runs stopped before their end: what to say and the
    /// exit code it calls for (`--on-worker-loss`), when this process was
    /// not stopped itself (then its workers' runs were stopped by it).
    pub workers_stopped: Option<(String, Option<u8>)>,
}

impl Finished {
    pub fn of(report: Report) -> Finished {
        Finished {
            report,
            unwritten: Vec::new(),
            k6_thresholds: Vec::new(),
            workers: None,
            worker_reports: Vec::new(),
            workers_lost: None,
            workers_stopped: None,
        }
    }
}

impl<'a> Pipeline<'a> {
    /// Checks the outputs and thresholds: a file that cannot be written or
    /// a criterion that does not parse is a usage error before any run.
    pub fn validate(
        outputs: &'a OutputArgs,
        thresholds: &[String],
        label: &'static str,
    ) -> Result<Pipeline<'a>, Failure> {
        let histograms = outputs.histograms().map_err(Failure::usage)?;
        let thresholds = threshold::parse_all(thresholds).map_err(Failure::usage)?;
        outputs.check_writable().map_err(Failure::usage)?;
        Ok(Pipeline {
            outputs,
            thresholds,
            histograms,
            label,
            metrics: None,
            dashboard: None,
        })
    }

    /// Starts the metrics export the command asks for, of a run of
    /// `workload`.
    pub fn with_metrics(
        mut self,
        args: &crate::args::metrics::MetricsArgs,
        workload: loadgen_metrics::totals::Workload,
    ) -> Result<Self, Failure> {
        self.metrics =
            metrics::start(args, workload)?.map(|exporter| (exporter, args.metrics_linger.0));
        Ok(self)
    }

    /// Starts `--dashboard`, if asked for, and says where it is: before
    /// the run, so a page opened at once sees every second.
    pub fn with_dashboard(self, args: &DashboardArgs) -> Result<Pipeline<'a>, Failure> {
        let thresholds = Criteria::Flags(self.thresholds.clone());
        self.with_dashboard_judging(args, thresholds)
    }

    /// [`Pipeline::with_dashboard`] showing the state of `thresholds`
    /// (a scenario file's).
    pub fn with_dashboard_judging(
        mut self,
        args: &DashboardArgs,
        thresholds: Criteria,
    ) -> Result<Pipeline<'a>, Failure> {
        if let Some(address) = args.dashboard {
            let dashboard =
                Dashboard::start(address, args.linger(), thresholds).map_err(Failure::usage)?;
            eprintln!("loadgen: dashboard at http://{}/", dashboard.address());
            self.dashboard = Some(dashboard);
        }
        Ok(self)
    }

    /// Whether each second's histograms must be kept: an output shows them.
    pub fn keeps_interval_histograms(&self) -> bool {
        self.histograms == Histograms::Include
            || (self.outputs.output().is_some() && self.outputs.file_format() == FileFormat::Json)
    }

    /// Whether the report must carry the run's histograms.
    pub fn needs_histograms(&self) -> bool {
        // The dashboard offers the finished report's page, spectra and all.
        self.keeps_interval_histograms()
            || self.outputs.pages_need_histograms()
            || self.dashboard.is_some()
    }

    /// Opens `--hdr-log`, watches the stop signals, runs `step` and emits
    /// what it made.
    pub fn run(
        mut self,
        step: impl FnOnce(&mut Running) -> Result<Finished, Failure>,
    ) -> Result<ExitCode, Failure> {
        let hdr_log = self
            .outputs
            .hdr_log
            .as_deref()
            .map(HdrLog::create)
            .transpose()
            .map_err(Failure::usage)?;
        let (exporter, linger) = self.metrics.take().unzip();
        let cancel = CancelHandle::new();
        let stopped = signals::watch(cancel.clone()).map_err(Failure::run)?;
        let mut running = Running {
            cancel,
            progress: Progress {
                live: None,
                print_progress: false,
                hdr_log,
                waiting: None,
                metrics: exporter,
                dashboard: self.dashboard.as_ref().map(Dashboard::feed),
            },
        };
        let result = step(&mut running);
        let exporter = running.progress.metrics.take();
        // After the report: the final push or scrape may take the linger.
        let finish_metrics = move || {
            if let (Some(exporter), Some(linger)) = (exporter, linger) {
                metrics::finish(exporter, linger);
            }
        };
        if let Some(live) = running.progress.live.take() {
            live.finish();
        }
        let hdr_log = running.progress.hdr_log.take();
        let mut finished = match result {
            Ok(finished) => finished,
            Err(failure) => {
                if let Some(log) = hdr_log {
                    log.discard();
                }
                finish_metrics();
                return Err(failure);
            }
        };
        if let Some(log) = hdr_log {
            if let Err(message) = log.finish() {
                finished.unwritten.insert(0, message);
            }
        }
        let dashboard = self.dashboard.take();
        let code = self.emit_to(finished, stopped.exit_code(), dashboard.as_ref());
        finish_metrics();
        if let Some(dashboard) = dashboard {
            dashboard.close(&running.cancel);
        }
        Ok(code)
    }

    /// Shows and writes the report; `stopped` is the exit code of the
    /// signal that stopped the run, if one did.
    pub fn emit(self, finished: Finished, stopped: Option<u8>) -> ExitCode {
        self.emit_to(finished, stopped, None)
    }

    /// [`Pipeline::emit`], the finished report also handed to `dashboard`.
    fn emit_to(
        self,
        finished: Finished,
        stopped: Option<u8>,
        dashboard: Option<&Dashboard>,
    ) -> ExitCode {
        let worker_reports: Vec<Option<&Report>> =
            finished.worker_reports.iter().map(Option::as_ref).collect();
        let output = ReportOutput {
            json: self.outputs.json,
            histograms: self.histograms,
            file: self.outputs.file(),
            thresholds: &self.thresholds,
            pages: self.outputs,
            label: self.label,
            k6_thresholds: &finished.k6_thresholds,
            workers: finished.workers,
            worker_reports,
            workers_lost: finished.workers_lost,
            workers_stopped: finished.workers_stopped,
            dashboard,
        };
        output.emit(&finished.report, finished.unwritten, stopped)
    }
}
