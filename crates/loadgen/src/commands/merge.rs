//! `loadgen merge`: reports written with `-o FILE.json` added up into one,
//! shown and written as a run's (text, `--json`, `-o`, `--threshold`, the
//! same exit codes); or, with `--hdr-log OUT`, `--hdr-log` interval logs
//! added up by tag into OUT. What is exact and what is not:
//! `loadgen_report::merge` and docs/cli.md.

use crate::args::control::Thresholds;
use crate::args::output::OutputArgs;
use crate::failure::{exit, fail, Failure};
use crate::pipeline::{Finished, Pipeline};
use clap::Args;
use loadgen_report::merge::{self, hdr_log, MergeOptions, Source};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
#[command(mut_arg("json", |arg| arg.help("Print the merged report as one JSON object instead of text")))]
#[command(mut_arg("histograms", |arg| arg.help(
    "Include the merged histograms in --json and in JSON Lines (-o FILE.jsonl); a -o JSON file always has them")))]
#[command(mut_arg("output", |arg| arg.help("Also write the merged report to FILE")))]
#[command(mut_arg("thresholds", |arg| arg.help(
    "Pass/fail criterion on the merged report, as for a run (repeatable); exit 99 when one fails")))]
#[command(mut_arg("hdr_log", |arg| arg
    .value_name("OUT")
    .help("Merge HdrHistogram interval logs (FILEs written with --hdr-log) by tag into OUT instead of reports")
    .conflicts_with_all(["force", "json", "histograms", "output", "format", "thresholds", "html", "percentiles_file"])))]
pub struct MergeArgs {
    /// Reports written with -o FILE.json (with --hdr-log: interval logs written with --hdr-log).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,

    /// Merge reports of different tests (other URIs, method, protocol, mode, load model or -m) instead of refusing them.
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub thresholds: Thresholds,
}

pub fn main(args: &MergeArgs) -> ExitCode {
    match &args.output.hdr_log {
        Some(out) => merge_logs(&args.files, out),
        None => exit(merge_reports(args)),
    }
}

fn merge_reports(args: &MergeArgs) -> Result<ExitCode, Failure> {
    let pipeline = Pipeline::validate(&args.output, &args.thresholds.thresholds, "merged")?;
    let sources: Result<Vec<Source>, _> = args
        .files
        .iter()
        .map(|path| merge::read_report(path))
        .collect();
    let report = sources
        .and_then(|sources| merge::merge(&sources, MergeOptions { force: args.force }))
        .map_err(|error| Failure::usage(error.to_string()))?;
    Ok(pipeline.emit(Finished::of(report), None))
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
