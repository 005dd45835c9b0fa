//! What a sweep leaves: the points' table (and the knee) on stdout, `-o`
//! as JSON Lines (one row per run, the fields of a run's `-o` plus where
//! in the sweep it ran) or CSV (one row per point), and the `--html` page.
//! Each file is written whole at the end, or not at all.

use crate::args::bench::BenchArgs;
use loadgen_core::whole_file;
use loadgen_report::html::{render_sweep, spectrum::Measure, SweepPage};
use loadgen_report::sweep::knee::{Knee, KneeSearch};
use loadgen_report::sweep::{self, Dimension, SweepRun};
use loadgen_report::threshold::{self, Threshold};
use loadgen_report::{document, json_line, with_histograms, write_whole, FileFormat, Histograms};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;

/// A knee search's result, for the outputs.
pub struct KneeOutcome<'a> {
    pub objectives: Vec<String>,
    pub slos: &'a [Threshold],
    pub search: &'a KneeSearch,
}

pub struct Outputs {
    file: Option<(PathBuf, FileFormat)>,
    histograms: Histograms,
    html: Option<PathBuf>,
}

impl Outputs {
    /// The files asked for, checked writable before the first run.
    pub fn of(bench: &BenchArgs) -> Result<Outputs, String> {
        let histograms = bench.output.histograms()?;
        let file = bench
            .output
            .file
            .output
            .clone()
            .map(|p| (p, bench.output.file_format()));
        for (flag, path) in [
            ("-o", file.as_ref().map(|f| &f.0)),
            ("--html", bench.output.html.as_ref()),
        ] {
            if let Some(path) = path {
                whole_file::check_writable(path)
                    .map_err(|e| format!("{flag}: cannot write '{}': {e}", path.display()))?;
            }
        }
        Ok(Outputs {
            file,
            histograms,
            html: bench.output.html.clone(),
        })
    }

    pub fn finish(
        &self,
        dimension: Dimension,
        runs: &[SweepRun],
        knee: Option<KneeOutcome>,
        stopped: Option<u8>,
    ) -> ExitCode {
        let points = sweep::summarize(runs);
        print!("{}", sweep::text(dimension, &points));
        if let Some(k) = &knee {
            println!("{}", knee_line(&k.search.knee(), &k.objectives));
        }
        let mut unwritten = Vec::new();
        if let Some((path, format)) = &self.file {
            let text = match format {
                FileFormat::Csv => sweep::csv(dimension, &points),
                _ => rows(dimension, runs, knee.as_ref(), self.histograms),
            };
            unwritten.extend(write_whole(path, "-o", &text).err());
        }
        if let Some(path) = &self.html {
            let histograms = point_histograms(runs, points.len());
            let page = SweepPage {
                title: title(dimension, runs, knee.is_some()),
                dimension,
                points: &points,
                histograms: &histograms,
                knee: knee.as_ref().map(|k| {
                    (
                        k.objectives.clone(),
                        k.search.probes().to_vec(),
                        k.search.knee(),
                    )
                }),
            };
            unwritten.extend(write_whole(path, "--html", &render_sweep(&page)).err());
        }
        for message in &unwritten {
            eprintln!("loadgen: {message}");
        }
        if let Some(code) = stopped {
            return ExitCode::from(code);
        }
        let answered = runs.iter().any(|r| r.report.responses() > 0);
        if !unwritten.is_empty() || !answered {
            if !answered {
                eprintln!("loadgen: no request of the sweep got a response");
            }
            return ExitCode::from(1);
        }
        ExitCode::SUCCESS
    }
}

pub fn knee_line(knee: &Knee, objectives: &[String]) -> String {
    let objectives = objectives.join(", ");
    match knee {
        Knee::Between { passed, failed } => format!(
            "knee: {passed:.1} req/s is the highest rate probed that met {objectives} \
             ({failed:.1} req/s did not)"
        ),
        Knee::BelowRange { low } => {
            format!("knee: below the range: even {low} req/s missed {objectives}")
        }
        Knee::AboveRange { high } => {
            format!("knee: above the range: {high} req/s still met {objectives}")
        }
    }
}

/// One JSON line per run: the run's report as `-o` writes it, then where
/// in the sweep it ran and the responses per second that succeeded (the
/// report's `req_per_s` counts 4xx/5xx responses too).
fn rows(
    dimension: Dimension,
    runs: &[SweepRun],
    knee: Option<&KneeOutcome>,
    histograms: Histograms,
) -> String {
    let mut text = String::new();
    for run in runs {
        let results: Vec<_> = knee
            .map(|k| {
                threshold::evaluate_all(k.slos, &run.report)
                    .iter()
                    .map(|(t, o)| t.result(o))
                    .collect()
            })
            .unwrap_or_default();
        let mut row = document(&run.report, &results);
        if let Value::Object(map) = &mut row {
            map.insert(
                "sweep".into(),
                json!({
                    "dimension": dimension.name(),
                    "value": run.value,
                    "point": run.point,
                    "run": run.run,
                    "succeeded_req_per_s": sweep::succeeded_per_s(&run.report),
                }),
            );
        }
        text.push_str(&json_line(&with_histograms(&row, histograms)));
    }
    text
}

/// Each point's request time, its runs added up exactly.
fn point_histograms(runs: &[SweepRun], points: usize) -> Vec<hdrhistogram::Histogram<u64>> {
    let mut sums = vec![loadgen_core::histogram::new(); points];
    for run in runs {
        if let Some(h) = Measure::RequestTime.histogram(&run.report) {
            sums[run.point].add(&h).expect("a run's histograms add up");
        }
    }
    sums
}

fn title(dimension: Dimension, runs: &[SweepRun], knee: bool) -> String {
    let uris = runs
        .first()
        .map(|r| r.report.config.uris.join(" "))
        .unwrap_or_default();
    if knee {
        format!("loadgen knee search: {uris}")
    } else {
        format!("loadgen sweep over {}: {uris}", dimension.flag())
    }
}
