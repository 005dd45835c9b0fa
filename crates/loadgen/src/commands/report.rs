//! `loadgen report`: saved JSON reports drawn as one HTML page; with two or
//! more, overlaid and compared against the first.

use crate::args::output::OutputFile;
use crate::failure::fail;
use clap::Args;
use loadgen_core::whole_file;
use loadgen_report::html::{self, RunInput, ThresholdRow, WorkerPart};
use loadgen_report::merge::{self, MergeError};
use loadgen_report::write_whole;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
#[command(mut_arg("output", |arg| arg.help("The HTML file to write").required(true)))]
pub struct ReportArgs {
    /// JSON reports (-o FILE.json, or --json output saved to a file); the first is the baseline.
    #[arg(value_name = "REPORT", required = true)]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub output: OutputFile,
}

pub fn main(args: &ReportArgs) -> ExitCode {
    let output = args.output.output.as_deref().expect("clap requires -o");
    if let Err(e) = whole_file::check_writable(output) {
        return fail(2, &format!("-o: cannot write '{}': {e}", output.display()));
    }
    let mut runs = Vec::with_capacity(args.files.len());
    for path in &args.files {
        match read_run(path, &runs) {
            Ok(run) => runs.push(run),
            Err(message) => return fail(2, &message),
        }
    }
    match write_whole(output, "-o", &html::render(&runs)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(1, &message),
    }
}

fn read_run(path: &Path, earlier: &[RunInput]) -> Result<RunInput, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    let source = merge::parse_report(path.display().to_string(), &text).map_err(|e| match e {
        // Said without the merge's prefix: nothing is merged here.
        MergeError::NotAReport { name, why } => format!("'{name}' {why}"),
        other => other.to_string(),
    })?;
    let document: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    Ok(RunInput {
        label: label(path, earlier),
        report: source.report,
        thresholds: ThresholdRow::read_all(&document),
        workers: WorkerPart::read_all(&document),
    })
}

/// The file's name without its extension; a name already taken gets its number.
fn label(path: &Path, earlier: &[RunInput]) -> String {
    let stem = path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    if earlier.iter().any(|r| r.label == stem) {
        format!("{stem} ({})", earlier.len() + 1)
    } else {
        stem
    }
}
