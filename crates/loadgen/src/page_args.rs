//! The report files a run and `loadgen merge` can write beside `-o`: the
//! HTML page and HdrHistogram's percentile distribution text.

use clap::Args;
use loadgen_core::whole_file;
use loadgen_core::Report;
use loadgen_report::html::{self, RunInput, ThresholdRow, WorkerPart};
use loadgen_report::threshold::ThresholdResult;
use loadgen_report::{hgrm, write_whole};
use std::path::{Path, PathBuf};

#[derive(Args, Debug, Clone, Default)]
pub struct PageArgs {
    /// Write the report as one self-contained HTML page with charts (nothing fetched to view it).
    #[arg(long = "html", value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Write the request-time distribution as HdrHistogram percentile text (.hgrm, values in ms).
    #[arg(long = "percentiles-file", value_name = "FILE")]
    pub percentiles_file: Option<PathBuf>,
}

impl PageArgs {
    /// The files asked for, with their flags.
    fn files(&self) -> impl Iterator<Item = (&'static str, &Path)> {
        [
            ("--html", self.html.as_deref()),
            ("--percentiles-file", self.percentiles_file.as_deref()),
        ]
        .into_iter()
        .filter_map(|(flag, path)| Some((flag, path?)))
    }

    /// Whether the report must carry its histograms for these files.
    pub fn need_histograms(&self) -> bool {
        self.files().next().is_some()
    }

    /// Checked before a run, so that no run is made for a file it cannot write.
    pub fn check_writable(&self) -> Result<(), String> {
        for (flag, path) in self.files() {
            whole_file::check_writable(path)
                .map_err(|e| format!("{flag}: cannot write '{}': {e}", path.display()))?;
        }
        Ok(())
    }

    /// Writes each file whole; returns what could not be written.
    /// `workers`: a distributed run's, for the page.
    pub fn write(
        &self,
        label: &str,
        report: &Report,
        thresholds: &[ThresholdResult],
        workers: &[WorkerPart],
    ) -> Vec<String> {
        let mut unwritten = Vec::new();
        if let Some(path) = &self.html {
            let run = RunInput {
                label: label.to_string(),
                report: report.clone(),
                thresholds: thresholds.iter().map(ThresholdRow::of).collect(),
                workers: workers.to_vec(),
            };
            let page = html::render(&[run]);
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
