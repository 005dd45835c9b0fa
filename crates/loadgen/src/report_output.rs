//! What a finished report becomes, for a run and for `loadgen merge` alike:
//! the error summary on stderr, the text or JSON on stdout, the `-o` file,
//! and the exit code.

use crate::one_line::one_line;
use loadgen_core::report::BETWEEN_REQUESTS;
use loadgen_core::Report;
use loadgen_report::threshold::{self, Threshold};
use loadgen_report::{self as output, FileFormat, Histograms};
use std::path::Path;
use std::process::ExitCode;

/// Where and how the report goes.
pub struct ReportOutput<'a> {
    /// JSON on stdout instead of h2load's text.
    pub json: bool,
    /// Whether `--json` and JSON Lines carry the histograms.
    pub histograms: Histograms,
    /// `-o FILE` and its format.
    pub file: Option<(&'a Path, FileFormat)>,
    pub thresholds: &'a [Threshold],
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
        let results: Vec<_> = evaluated.iter().map(|(t, o)| t.result(o)).collect();
        let document = output::document(report, &results);
        if self.json {
            let shown = output::with_histograms(&document, self.histograms);
            print!("{}", output::json_pretty(&shown));
        } else {
            print!("{}", output::text::render(report));
            print!("{}", threshold::render_text(&evaluated));
        }
        if let Some((path, format)) = self.file {
            let written = output::write_file(path, format, &document, self.histograms);
            unwritten.extend(written.err());
        }
        for message in &unwritten {
            eprintln!("loadgen: {}", one_line(message));
        }
        exit_code(report, &evaluated, &unwritten, stopped)
    }
}

/// The exit code, most telling first: the stop signal's (128 + its
/// number); 1 when an output was lost; 99 when a threshold failed; 1 when
/// no request got a response; else 0.
fn exit_code(
    report: &Report,
    evaluated: &[(Threshold, threshold::Outcome)],
    unwritten: &[String],
    stopped: Option<u8>,
) -> ExitCode {
    if let Some(code) = stopped {
        return ExitCode::from(code);
    }
    if !unwritten.is_empty() {
        return ExitCode::from(1);
    }
    if evaluated.iter().any(|(_, outcome)| !outcome.passed) {
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
