//! `loadgen merge`: reports written with `-o FILE.json` added up into one,
//! shown and written as a run's (text, `--json`, `-o`, `--threshold`, the
//! same exit codes); or, with `--hdr-log OUT`, `--hdr-log` interval logs
//! added up by tag into OUT. What is exact and what is not:
//! `loadgen_report::merge` and docs/cli.md.

use crate::fail;
use crate::report_output::ReportOutput;
use clap::Args;
use loadgen_report::merge::{self, hdr_log, MergeOptions, Source};
use loadgen_report::{threshold, FileFormat, Histograms};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Reports written with -o FILE.json (with --hdr-log: interval logs written with --hdr-log).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,

    /// Merge reports of different tests (other URIs, method, protocol, mode, load model or -m) instead of refusing them.
    #[arg(long)]
    pub force: bool,

    /// Print the merged report as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,

    /// Include the merged histograms in --json and in JSON Lines (-o FILE.jsonl); a -o JSON file always has them.
    #[arg(long)]
    pub histograms: bool,

    /// Also write the merged report to FILE.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Format of -o: json (overwrite), jsonl or csv (append a row). Default: from the file name.
    #[arg(long, value_name = "FORMAT", requires = "output")]
    pub format: Option<FileFormat>,

    /// Pass/fail criterion on the merged report, as for a run (repeatable); exit 99 when one fails.
    #[arg(long = "threshold", value_name = "EXPR")]
    pub thresholds: Vec<String>,

    #[command(flatten)]
    pub pages: crate::page_args::PageArgs,

    /// Merge HdrHistogram interval logs (FILEs written with --hdr-log) by tag into OUT instead of reports.
    #[arg(
        long = "hdr-log",
        value_name = "OUT",
        conflicts_with_all = ["force", "json", "histograms", "output", "format", "thresholds", "html", "percentiles_file"]
    )]
    pub hdr_log: Option<PathBuf>,
}

impl MergeArgs {
    fn file_format(&self) -> Option<(&Path, FileFormat)> {
        let path = self.output.as_deref()?;
        Some((
            path,
            self.format.unwrap_or_else(|| FileFormat::of_path(path)),
        ))
    }

    /// As for a run: `--histograms` where no output carries them is a mistake.
    fn histograms(&self) -> Result<Histograms, String> {
        if !self.histograms {
            return Ok(Histograms::Omit);
        }
        let jsonl_file = matches!(self.file_format(), Some((_, FileFormat::Jsonl)));
        if self.json || jsonl_file {
            Ok(Histograms::Include)
        } else {
            Err(
                "--histograms: only applies to --json and to JSON Lines (-o FILE.jsonl); \
                 a -o JSON file always has them, CSV and text never"
                    .to_string(),
            )
        }
    }
}

pub fn main(args: &MergeArgs) -> ExitCode {
    match &args.hdr_log {
        Some(out) => merge_logs(&args.files, out),
        None => merge_reports(args),
    }
}

fn merge_reports(args: &MergeArgs) -> ExitCode {
    let histograms = match args.histograms() {
        Ok(histograms) => histograms,
        Err(message) => return fail(2, &message),
    };
    let thresholds = match threshold::parse_all(&args.thresholds) {
        Ok(thresholds) => thresholds,
        Err(message) => return fail(2, &message),
    };
    if let Err(message) = args.pages.check_writable() {
        return fail(2, &message);
    }
    let sources: Result<Vec<Source>, _> = args
        .files
        .iter()
        .map(|path| merge::read_report(path))
        .collect();
    let merged =
        sources.and_then(|sources| merge::merge(&sources, MergeOptions { force: args.force }));
    let report = match merged {
        Ok(report) => report,
        Err(error) => return fail(2, &error.to_string()),
    };
    let output = ReportOutput {
        json: args.json,
        histograms,
        file: args.file_format(),
        thresholds: &thresholds,
        pages: &args.pages,
        label: "merged",
        k6_thresholds: &[],
        workers: None,
        worker_reports: Vec::new(),
    };
    output.emit(&report, Vec::new(), None)
}

fn merge_logs(files: &[PathBuf], out: &Path) -> ExitCode {
    let logs: Result<Vec<_>, _> = files.iter().map(|path| hdr_log::read_log(path)).collect();
    let logs = match logs {
        Ok(logs) => logs,
        Err(error) => return fail(2, &error.to_string()),
    };
    let merged = hdr_log::merge_logs(&logs);
    match hdr_log::write_log(&merged, out, logs.len()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(1, &message),
    }
}
