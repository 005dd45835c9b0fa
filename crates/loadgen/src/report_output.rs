//! What a finished report becomes, for a run and for `loadgen merge` alike:
//! the error summary on stderr, the text or JSON on stdout, the `-o` file,
//! and the exit code (99 when a `--threshold` failed, 1 when nothing got a
//! response or the file could not be written, else 0).

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
    /// Shows and writes `report`. `late_error` is a failure found after the
    /// run (an incomplete `--log-file`): reported once the report is out,
    /// with exit code 1.
    pub fn emit(&self, report: &Report, late_error: Option<String>) -> ExitCode {
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
            if let Err(message) = output::write_file(path, format, &document, self.histograms) {
                return crate::fail(1, &message);
            }
        }
        if let Some(message) = late_error {
            return crate::fail(1, &message);
        }
        if evaluated.iter().any(|(_, outcome)| !outcome.passed) {
            ExitCode::from(99)
        } else if report.all_errored() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        }
    }
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
                eprintln!("loadgen: {count} request(s) with {kind} errors; first: {message}")
            }
            None => eprintln!("loadgen: {count} request(s) with {kind} errors"),
        }
    }
}
