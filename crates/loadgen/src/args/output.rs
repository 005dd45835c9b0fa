//! The output flags every command that makes a report shares: where the
//! report goes (`-o`, `--format`, `--json`, `--histograms`), the interval
//! log (`--hdr-log`) and the pages beside it (`--html`,
//! `--percentiles-file`). Each is defined here once; a command rewords
//! one with `mut_arg` where it means something of its own.

use clap::Args;
use loadgen_core::whole_file;
use loadgen_core::Report;
use loadgen_report::html::{self, RunInput, ThresholdRow, WorkerPart};
use loadgen_report::threshold::ThresholdResult;
use loadgen_report::{hgrm, write_whole, FileFormat, Histograms};
use std::path::{Path, PathBuf};

/// `-o FILE`: alone for `loadgen report` (its page), with the rest of
/// [`OutputArgs`] for a run.
#[derive(Args, Debug, Clone, Default)]
pub struct OutputFile {
    /// Also write the report to FILE.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    #[command(flatten)]
    pub file: OutputFile,

    /// Format of -o: json (overwrite), jsonl or csv (append a row per run), junit (XML, a test case
    /// per threshold and check; .xml). Default: from the file name.
    #[arg(long, value_name = "FORMAT", requires = "output")]
    pub format: Option<FileFormat>,

    /// Print the report as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,

    /// Include the run's histograms (HdrHistogram V2 compressed, base64, values in µs) in --json
    /// and in JSON Lines (-o FILE.jsonl); a -o JSON file always has them, CSV and text never.
    #[arg(long)]
    pub histograms: bool,

    /// Write an HdrHistogram interval log (one tagged histogram per second for request time
    /// corrected and raw, connect and first byte; values in microseconds).
    #[arg(long = "hdr-log", value_name = "FILE")]
    pub hdr_log: Option<PathBuf>,

    /// Write the report as one self-contained HTML page with charts (nothing fetched to view it).
    #[arg(long = "html", value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Write the request-time distribution as HdrHistogram percentile text (.hgrm, values in ms).
    #[arg(long = "percentiles-file", value_name = "FILE")]
    pub percentiles_file: Option<PathBuf>,
}

impl OutputArgs {
    /// `-o`.
    pub fn output(&self) -> Option<&Path> {
        self.file.output.as_deref()
    }

    /// The format for -o: explicit, or from the file's extension.
    pub fn file_format(&self) -> FileFormat {
        self.format.unwrap_or_else(|| match self.output() {
            Some(path) => FileFormat::of_path(path),
            None => FileFormat::Json,
        })
    }

    /// `-o` with its format.
    pub fn file(&self) -> Option<(&Path, FileFormat)> {
        self.output().map(|path| (path, self.file_format()))
    }

    /// Whether `--json` and JSON Lines carry the histograms; `--histograms`
    /// where neither is written is a mistake, not a silent no-op.
    pub fn histograms(&self) -> Result<Histograms, String> {
        if !self.histograms {
            return Ok(Histograms::Omit);
        }
        let jsonl_file = self.output().is_some() && self.file_format() == FileFormat::Jsonl;
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

    /// The pages asked for, with their flags.
    fn pages(&self) -> impl Iterator<Item = (&'static str, &Path)> {
        [
            ("--html", self.html.as_deref()),
            ("--percentiles-file", self.percentiles_file.as_deref()),
        ]
        .into_iter()
        .filter_map(|(flag, path)| Some((flag, path?)))
    }

    /// Whether the report must carry its histograms for the pages.
    pub fn pages_need_histograms(&self) -> bool {
        self.pages().next().is_some()
    }

    /// Checked before a run, so that no run is made for a file it cannot write.
    pub fn check_writable(&self) -> Result<(), String> {
        let file = self.output().map(|path| ("-o", path));
        for (flag, path) in file.into_iter().chain(self.pages()) {
            whole_file::check_writable(path)
                .map_err(|e| format!("{flag}: cannot write '{}': {e}", path.display()))?;
        }
        Ok(())
    }

    /// Writes each page whole; returns what could not be written.
    /// `workers`: a distributed run's, for the page.
    pub fn write_pages(
        &self,
        label: &str,
        report: &Report,
        thresholds: &[ThresholdResult],
        workers: &[WorkerPart],
    ) -> Vec<String> {
        let mut unwritten = Vec::new();
        if let Some(path) = &self.html {
            let page = html_page(label, report, thresholds, workers);
            unwritten.extend(write_whole(path, "--html", &page).err());
        }
        if let Some(path) = &self.percentiles_file {
            let written = html::spectrum::Measure::RequestTime
                .histogram(report)
                .ok_or_else(|| "--percentiles-file: the report carries no histogram".to_string())
                .and_then(|h| write_whole(path, "--percentiles-file", &hgrm::render(&h)));
            unwritten.extend(written.err());
        }
        unwritten
    }
}

/// A run's `--html` page.
pub fn html_page(
    label: &str,
    report: &Report,
    thresholds: &[ThresholdResult],
    workers: &[WorkerPart],
) -> String {
    let run = RunInput {
        label: label.to_string(),
        report: report.clone(),
        thresholds: thresholds.iter().map(ThresholdRow::of).collect(),
        workers: workers.to_vec(),
    };
    html::render(&[run])
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Outputs {
        #[command(flatten)]
        output: OutputArgs,
    }

    fn parse(args: &[&str]) -> OutputArgs {
        let mut argv = vec!["loadgen"];
        argv.extend_from_slice(args);
        Outputs::try_parse_from(argv).unwrap().output
    }

    #[test]
    fn histograms_need_json_or_json_lines() {
        let histograms = |args: &[&str]| parse(args).histograms();
        assert_eq!(histograms(&[]), Ok(Histograms::Omit));
        assert_eq!(histograms(&["--json"]), Ok(Histograms::Omit));
        assert_eq!(
            histograms(&["--json", "--histograms"]),
            Ok(Histograms::Include)
        );
        assert_eq!(
            histograms(&["--histograms", "-o", "r.jsonl"]),
            Ok(Histograms::Include)
        );
        assert_eq!(
            histograms(&["--histograms", "-o", "r.out", "--format", "jsonl"]),
            Ok(Histograms::Include)
        );
        for args in [
            &["--histograms"][..],
            &["--histograms", "-o", "r.json"],
            &["--histograms", "-o", "r.csv"],
        ] {
            let err = histograms(args).unwrap_err();
            assert!(err.starts_with("--histograms: "), "{args:?}: {err}");
        }
    }

    #[test]
    fn output_format_from_extension() {
        assert_eq!(parse(&["-o", "r.csv"]).file_format(), FileFormat::Csv);
        assert_eq!(
            parse(&["-o", "r.csv", "--format", "jsonl"]).file_format(),
            FileFormat::Jsonl
        );
        assert_eq!(
            parse(&["-o", "results.xml"]).file_format(),
            FileFormat::Junit
        );
        assert_eq!(
            parse(&["-o", "results.out", "--format", "junit"]).file_format(),
            FileFormat::Junit
        );
    }
}
