//! The flags of `loadgen run`: the file, k6's overrides, and the shared
//! groups (outputs, -t, -D, the split between machines) in its words.

use crate::args::control::StopGrace;
use crate::args::dashboard::DashboardArgs;
use crate::args::metrics::MetricsArgs;
use crate::args::output::OutputArgs;
use crate::args::scale::{RunTime, Threads};
use crate::args::split::SplitArgs;
use clap::Args;
use loadgen_scenario::compile::Options;
use loadgen_scenario::executor::spec::Overrides;
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(mut_arg("duration", |arg| arg
    .help("Run every scenario as constant-vus for this long (k6's --duration)")))]
#[command(mut_arg("threads", |arg| arg
    .help("Number of worker threads; virtual users and arrivals are dealt among them")
    .default_value("1")
    .value_parser(clap::builder::RangedU64ValueParser::<usize>::new().range(1..=4096))))]
#[command(mut_arg("json", |arg| arg.help("Print the report as one JSON object instead of the summary")))]
#[command(mut_arg("output", |arg| arg.help("Also write the report to FILE (what `loadgen merge` adds up)")))]
#[command(mut_arg("hdr_log", |arg| arg
    .help("Write every request's one-second latency histograms to FILE as an HdrHistogram interval log")))]
#[command(mut_arg("stop_grace", |arg| arg.help("After a stop signal, how long running iterations may go on")))]
#[command(mut_arg("execution_segment", |arg| arg
    .help("Run only this part of the scenarios (k6's execution segment), FROM:TO in fractions of 1 \
           (1/4:2/4, 25%:50%, 0.25:0.5): its share of every scenario's virtual users, iterations and \
           arrivals; the parts of all machines add up to the whole run")))]
#[command(mut_arg("workers", |arg| arg
    .help("Run on these workers (loadgen worker), comma-separated http:// or https:// URLs: the \
           scenarios are split into equal execution segments, one per worker, started at one \
           instant, and their reports merged, with a table of each worker's iterations and checks")))]
pub struct RunArgs {
    /// The scenario file (YAML or JSON; see docs/scenarios.md).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Virtual users: with --duration every scenario becomes constant-vus,
    /// with --iterations shared-iterations, alone one iteration each (k6's rules).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub vus: Option<u64>,

    /// Run every scenario as shared-iterations of this many iterations (k6's --iterations).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: Option<u64>,

    /// A value for {{env.NAME}} (repeatable), over the file's env: defaults.
    #[arg(short = 'e', long = "env", value_name = "NAME=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,

    #[command(flatten)]
    pub run_time: RunTime,

    #[command(flatten)]
    pub threads: Threads,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub stop: StopGrace,

    #[command(flatten)]
    pub split: SplitArgs,

    // Boxed: the command's arguments stay small beside the others'.
    #[command(flatten)]
    pub metrics: Box<MetricsArgs>,

    #[command(flatten)]
    pub dashboard: Box<DashboardArgs>,
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
    /// What the command line adds to the file.
    pub fn options(&self) -> Result<Options, String> {
        let duration = match self.run_time.duration {
            Some(d) if d.is_zero() => return Err("--duration: must be more than 0".into()),
            duration => duration,
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
}
