//! What a finished report becomes, for a run and for `loadgen merge` alike:
//! the error summary on stderr, the text or JSON on stdout, the `-o` file,
//! and the exit code.

use super::dashboard::Dashboard;
use crate::args::output::{self as output_args, OutputArgs};
use crate::failure::one_line;
use loadgen_core::report::BETWEEN_REQUESTS;
use loadgen_core::Report;
use loadgen_report::html::WorkerPart;
use loadgen_report::k6_threshold::K6Threshold;
use loadgen_report::threshold::{self, Outcome, Threshold};
use loadgen_report::{self as output, scenario_text, FileFormat, Histograms};
use std::path::Path;
use std::process::ExitCode;

/// Where and how the report goes.
pub(super) struct ReportOutput<'a> {
    /// JSON on stdout instead of h2load's text.
    pub json: bool,
    /// Whether `--json` and JSON Lines carry the histograms.
    pub histograms: Histograms,
    /// `-o FILE` and its format.
    pub file: Option<(&'a Path, FileFormat)>,
    pub thresholds: &'a [Threshold],
    /// `--html` and `--percentiles-file`, and how the page names the run.
    pub pages: &'a OutputArgs,
    pub label: &'a str,
    /// A scenario file's thresholds, in k6's grammar.
    pub k6_thresholds: &'a [K6Threshold],
    /// A distributed run's per-worker table: its text under the report,
    /// and what it adds to the document (its `workers` array, ...).
    pub workers: Option<(String, serde_json::Map<String, serde_json::Value>)>,
    /// Each worker's report, in the order of the table's rows (`None` for
    /// a worker lost): the page's per-worker chart reads their seconds.
    pub worker_reports: Vec<Option<&'a Report>>,
    /// Workers were lost: the line said after the report, and the exit
    /// code the loss calls for, if any.
    pub workers_lost: Option<(String, Option<u8>)>,
    /// Workers' runs were stopped before their end (on their machines): the
    /// line and the exit code, unless this process was stopped itself.
    pub workers_stopped: Option<(String, Option<u8>)>,
    /// `--dashboard`, which offers the finished report for download.
    pub dashboard: Option<&'a Dashboard>,
}

impl ReportOutput<'_> {
    /// Shows and writes `report`. `unwritten` are outputs already lost (an
    /// incomplete `--log-file`, a `--hdr-log` that could not be put in
    /// place): said once the report is out, as a failure of `-o` would be;
    /// one output lost never keeps the others from being written.
    /// `stopped` is the exit code of the signal that stopped the run.
    pub fn emit(
        &self,
        report: &Report,
        mut unwritten: Vec<String>,
        stopped: Option<u8>,
    ) -> ExitCode {
        report_errors(report);
        let evaluated = threshold::evaluate_all(self.thresholds, report);
        let k6_evaluated: Vec<(String, Outcome)> = self
            .k6_thresholds
            .iter()
            .map(|t| (t.name(), t.evaluate(report)))
            .collect();
        let mut results: Vec<_> = evaluated.iter().map(|(t, o)| t.result(o)).collect();
        results.extend(
            self.k6_thresholds
                .iter()
                .zip(&k6_evaluated)
                .map(|(t, (_, o))| t.result(o)),
        );
        let mut document = output::document(report, &results);
        if let (Some((_, keys)), serde_json::Value::Object(map)) = (&self.workers, &mut document) {
            map.extend(keys.clone());
        }
        if self.json {
            let shown = output::with_histograms(&document, self.histograms);
            print!("{}", output::json_pretty(&shown));
        } else if report.scenario.is_some() {
            // k6's layout: its thresholds are shown at the top.
            print!("{}", scenario_text::render(report, &k6_evaluated));
            if let Some((table, _)) = &self.workers {
                print!("{table}");
            }
            print!("{}", threshold::render_text(&evaluated));
        } else {
            print!("{}", output::text::render(report));
            if let Some((table, _)) = &self.workers {
                print!("{table}");
            }
            print!("{}", threshold::render_text(&evaluated));
        }
        if let Some((path, format)) = self.file {
            let written = output::write_file(path, format, &document, self.histograms);
            unwritten.extend(written.err());
        }
        // The page's workers: the document's rows, as `loadgen report`
        // reads them, with the seconds and figures of their reports.
        let mut parts = WorkerPart::read_all(&document);
        for (part, report) in parts.iter_mut().zip(&self.worker_reports) {
            if let Some(report) = report {
                part.fill_from(report);
            }
        }
        unwritten.extend(self.pages.write_pages(self.label, report, &results, &parts));
        if let Some(dashboard) = self.dashboard {
            let label = self.label.to_string();
            let (finished, verdicts, workers) = (report.clone(), results.clone(), parts.clone());
            let page = move || output_args::html_page(&label, &finished, &verdicts, &workers);
            dashboard.finish(document.clone(), page, &results);
        }
        for message in &unwritten {
            eprintln!("loadgen: {}", one_line(message));
        }
        if let Some((message, _)) = &self.workers_lost {
            eprintln!("loadgen: {}", one_line(message));
        }
        // A controller that was stopped stopped its workers' runs itself.
        let workers_stopped = self.workers_stopped.as_ref().filter(|_| stopped.is_none());
        if let Some((message, _)) = workers_stopped {
            eprintln!("loadgen: {}", one_line(message));
        }
        let failed =
            evaluated.iter().any(|(_, o)| !o.passed) || k6_evaluated.iter().any(|(_, o)| !o.passed);
        let lost = (self.workers_lost.as_ref().and_then(|(_, code)| *code))
            .or_else(|| workers_stopped.and_then(|(_, code)| *code));
        exit_code(report, failed, &unwritten, stopped, lost)
    }
}

/// The exit code, most telling first: the stop signal's (128 + its
/// number); 1 when an output was lost; the code a lost worker calls for
/// (`--on-worker-loss`: 1, or 3 for a partial report); 99 when a
/// threshold failed; 1 when no request got a response; else 0.
fn exit_code(
    report: &Report,
    threshold_failed: bool,
    unwritten: &[String],
    stopped: Option<u8>,
    workers_lost: Option<u8>,
) -> ExitCode {
    if let Some(code) = stopped {
        return ExitCode::from(code);
    }
    if !unwritten.is_empty() {
        return ExitCode::from(1);
    }
    if let Some(code) = workers_lost {
        return ExitCode::from(code);
    }
    if threshold_failed {
        return ExitCode::from(99);
    }
    if report.responses() == 0 {
        // Errors, when there were any, were said above.
        if report.requests.errored == 0 {
            eprintln!(
                "loadgen: no request got a response ({} started, none done)",
                report.requests.started
            );
        }
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// One line per kind of error that occurred, with the first message seen.
fn report_errors(report: &Report) {
    let e = &report.errors;
    let counts = [
        ("connect", e.connect),
        ("tls", e.tls),
        ("timeout", e.timeout),
        ("protocol", e.protocol),
        ("reset", e.reset),
        ("other", e.other),
    ];
    for (kind, count) in counts {
        if count == 0 {
            continue;
        }
        match e.first_message.get(kind) {
            Some(message) => {
                let message = one_line(message);
                eprintln!("loadgen: {count} request(s) with {kind} errors; first: {message}")
            }
            None => eprintln!("loadgen: {count} request(s) with {kind} errors"),
        }
    }
    if e.between_requests > 0 {
        let first = e
            .first_message
            .get(BETWEEN_REQUESTS)
            .map(|m| format!("; first: {}", one_line(m)))
            .unwrap_or_default();
        eprintln!(
            "loadgen: {} connection(s) closed for a protocol error between requests{first}",
            e.between_requests
        );
    }
}
