//! `loadgen run FILE`: a scenario file run through the engine, summarized
//! as k6 does, written and judged as a benchmark's report is (`--json`,
//! `-o`, `--hdr-log`, `--html`, `--percentiles-file`, thresholds, exit
//! codes).

use crate::bench::Progress;
use crate::fail;
use crate::report_output::ReportOutput;
use crate::signals;
use crate::split_args::SplitArgs;
use clap::Args;
use loadgen_core::duration::HumanDuration;
use loadgen_core::whole_file;
use loadgen_core::CancelHandle;
use loadgen_report::{k6_threshold, FileFormat, HdrLog, Histograms};
use loadgen_scenario::compile::{self, Options};
use loadgen_scenario::executor::spec::Overrides;
use loadgen_scenario::run::{run, ScenarioOptions};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The scenario file (YAML or JSON; see docs/scenarios.md).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Virtual users: with --duration every scenario becomes constant-vus,
    /// with --iterations shared-iterations, alone one iteration each (k6's rules).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub vus: Option<u64>,

    /// Run every scenario as constant-vus for this long (k6's --duration).
    #[arg(long, value_name = "DURATION")]
    pub duration: Option<HumanDuration>,

    /// Run every scenario as shared-iterations of this many iterations (k6's --iterations).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: Option<u64>,

    /// A value for {{env.NAME}} (repeatable), over the file's env: defaults.
    #[arg(short = 'e', long = "env", value_name = "NAME=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,

    /// Number of worker threads; virtual users and arrivals are dealt among them.
    #[arg(short = 't', long = "threads", value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub threads: u64,

    /// Print the report as one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,

    /// Include the histograms in --json and in JSON Lines (-o FILE.jsonl); a -o JSON file always has them.
    #[arg(long)]
    pub histograms: bool,

    /// Also write the report to FILE (what `loadgen merge` adds up).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Format of -o: json (overwrite), jsonl or csv (append a row). Default: from the file name.
    #[arg(long, value_name = "FORMAT", requires = "output")]
    pub format: Option<FileFormat>,

    #[command(flatten)]
    pub pages: crate::page_args::PageArgs,

    /// Write every request's one-second latency histograms to FILE as an HdrHistogram interval log.
    #[arg(long = "hdr-log", value_name = "FILE")]
    pub hdr_log: Option<PathBuf>,

    /// After a stop signal, how long running iterations may go on.
    #[arg(long = "stop-grace", value_name = "DURATION", default_value_t = HumanDuration(std::time::Duration::from_secs(1)))]
    pub stop_grace: HumanDuration,

    #[command(flatten)]
    pub split: SplitArgs,
}

fn parse_env(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("'{text}' is not NAME=VALUE"))?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "'{name}' is not a variable name (letters, digits and '_')"
        ));
    }
    Ok((name.to_string(), value.to_string()))
}

impl RunArgs {
    pub fn file_format(&self) -> FileFormat {
        match (&self.format, &self.output) {
            (Some(format), _) => *format,
            (None, Some(path)) => FileFormat::of_path(path),
            (None, None) => FileFormat::Json,
        }
    }

    /// What the command line adds to the file.
    pub fn options(&self) -> Result<Options, String> {
        let duration = match &self.duration {
            Some(d) if d.0.is_zero() => return Err("--duration: must be more than 0".into()),
            Some(d) => Some(d.0),
            None => None,
        };
        Ok(Options {
            env: self.env.clone(),
            overrides: Overrides {
                vus: self.vus,
                duration,
                iterations: self.iterations,
            },
        })
    }

    /// Whether `--json` and JSON Lines carry the histograms.
    pub fn histograms(&self) -> Result<Histograms, String> {
        let written =
            self.json || (self.output.is_some() && self.file_format() == FileFormat::Jsonl);
        match (self.histograms, written) {
            (false, _) => Ok(Histograms::Omit),
            (true, true) => Ok(Histograms::Include),
            (true, false) => Err(
                "--histograms: only applies to --json and to JSON Lines (-o FILE.jsonl); \
                 a -o JSON file always has them, the summary never"
                    .into(),
            ),
        }
    }
}

pub fn main(args: &RunArgs) -> ExitCode {
    let options = match args.options() {
        Ok(options) => options,
        Err(message) => return fail(2, &message),
    };
    let histograms = match args.histograms() {
        Ok(histograms) => histograms,
        Err(message) => return fail(2, &message),
    };
    if let Some(path) = &args.output {
        if let Err(e) = whole_file::check_writable(path) {
            return fail(2, &format!("-o: cannot write '{}': {e}", path.display()));
        }
    }
    if let Err(message) = args.pages.check_writable() {
        return fail(2, &message);
    }
    if !args.split.workers.is_empty() {
        return crate::scenario_dist::main(args, histograms);
    }
    let segment = match args.split.segment() {
        Ok(segment) => segment,
        Err(message) => return fail(2, &message),
    };
    let mut suite = match loadgen_scenario::file::read(&args.file)
        .and_then(|loaded| compile::compile(&loaded, &options))
    {
        Ok(suite) => suite,
        Err(error) => return fail(2, &error.to_string()),
    };
    if let Some(segment) = segment {
        if let Err(error) = suite.split(segment) {
            return fail(2, &args.split.explain(&error));
        }
    }
    let k6_thresholds = match k6_threshold::parse_all(&suite.thresholds) {
        Ok(thresholds) => thresholds,
        Err(message) => return fail(2, &message),
    };
    let hdr_log = match args.hdr_log.as_deref().map(HdrLog::create).transpose() {
        Ok(log) => log,
        Err(message) => return fail(2, &message),
    };
    let cancel = CancelHandle::new();
    let stopped = match signals::watch(cancel.clone()) {
        Ok(stopped) => stopped,
        Err(message) => return fail(1, &message),
    };
    let mut observer = Progress {
        live: None,
        print_progress: false,
        hdr_log,
    };
    // Kept always: a threshold's p(N) is exact from them, and -o needs them.
    let result = run(
        &suite,
        ScenarioOptions {
            threads: args.threads as usize,
            observer: Some(&mut observer),
            cancel: Some(cancel),
            stop_grace: args.stop_grace.0,
            histograms: true,
            interval_histograms: args.output.is_some() || histograms == Histograms::Include,
            ..ScenarioOptions::default()
        },
    );
    let report = match result {
        Ok(report) => report,
        Err(message) => {
            if let Some(log) = observer.hdr_log {
                log.discard();
            }
            return fail(1, &message);
        }
    };
    let mut unwritten = Vec::new();
    if let Some(log) = observer.hdr_log {
        unwritten.extend(log.finish().err());
    }
    let output = ReportOutput {
        json: args.json,
        histograms,
        file: args
            .output
            .as_deref()
            .map(|path| (path, args.file_format())),
        thresholds: &[],
        pages: &args.pages,
        label: "scenario",
        k6_thresholds: &k6_thresholds,
        workers: None,
        worker_reports: Vec::new(),
    };
    output.emit(&report, unwritten, stopped.exit_code())
}
