//! How a run is split between machines: one segment of it here
//! (`--execution-segment`, `--shard`), or every segment on workers
//! (`--workers`, with the token, CA and loss policy that go with them).
//! The benchmark and `loadgen run` both flatten [`SplitArgs`]; `loadgen
//! worker` takes [`TokenFile`] alone.

use clap::{Args, ValueEnum};
use loadgen_core::segment::ExecutionSegment;
use loadgen_core::{PlanError, PlanField};
use std::path::PathBuf;

/// `--on-worker-loss`: what a worker lost during the run does to the exit
/// code. Whatever the policy, the lost worker's seconds up to the loss are
/// in the report, marked partial, and the other workers run to their end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OnWorkerLoss {
    /// Exit 1, as a run whose output was lost.
    #[default]
    Fail,
    /// Exit 3: the run went on to its end, but its report is partial.
    Continue,
    /// Exit as the run would have without the loss (0, 99, ...).
    ContinueOk,
}

impl OnWorkerLoss {
    /// The exit code a loss calls for, if any.
    pub fn exit_code(self) -> Option<u8> {
        match self {
            OnWorkerLoss::Fail => Some(1),
            OnWorkerLoss::Continue => Some(EXIT_PARTIAL),
            OnWorkerLoss::ContinueOk => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            OnWorkerLoss::Fail => "fail",
            OnWorkerLoss::Continue => "continue",
            OnWorkerLoss::ContinueOk => "continue-ok",
        }
    }
}

/// The exit code of a run whose report is partial: a worker was lost
/// under `--on-worker-loss continue`.
pub const EXIT_PARTIAL: u8 = 3;

/// `--token-file`: the bearer token between a controller and its workers.
#[derive(Args, Debug, Clone, Default)]
pub struct TokenFile {
    /// The workers' bearer token: the first line of FILE.
    #[arg(long = "token-file", value_name = "FILE")]
    pub token_file: Option<PathBuf>,
}

#[derive(Args, Debug, Clone, Default)]
#[command(mut_arg("token_file", |arg| arg.requires("workers")))]
pub struct SplitArgs {
    /// Run only this part of the load (k6's execution segment), FROM:TO in fractions of 1
    /// (1/4:2/4, 25%:50%, 0.25:0.5): its share of -c, -n and --rate arrivals; the parts of all
    /// machines add up to the whole run.
    #[arg(
        long = "execution-segment",
        value_name = "FROM:TO",
        conflicts_with = "shard"
    )]
    pub execution_segment: Option<String>,

    /// All segments of the run, e.g. 0,1/4,1/2,3/4,1, so every machine cuts the same way
    /// (default: 0, FROM, TO, 1).
    #[arg(
        long = "execution-segment-sequence",
        value_name = "SEQUENCE",
        requires = "execution_segment"
    )]
    pub execution_segment_sequence: Option<String>,

    /// Run part I of N equal parts, I from 0 (Kubernetes' JOB_COMPLETION_INDEX).
    #[arg(long = "shard", value_name = "I/N")]
    pub shard: Option<String>,

    /// Run on these workers (loadgen worker), comma-separated http:// or https:// URLs: the load
    /// is split into equal execution segments, one per worker, started at one instant, and their
    /// reports merged.
    #[arg(
        long = "workers",
        value_name = "URL,...",
        value_delimiter = ',',
        requires = "token_file",
        conflicts_with_all = ["execution_segment", "shard"]
    )]
    pub workers: Vec<String>,

    #[command(flatten)]
    pub token: TokenFile,

    /// Trust the CA certificates in this PEM file for https:// workers, besides the web's roots.
    #[arg(long = "worker-ca", value_name = "FILE", requires = "workers")]
    pub worker_ca: Option<PathBuf>,

    /// When a worker dies or goes silent, its seconds up to the loss are kept in the report, marked
    /// partial, and the others run on; then: fail (exit 1), continue (exit 3) or continue-ok
    /// (exit as the run would have without the loss).
    #[arg(long = "on-worker-loss", value_name = "POLICY", requires = "workers")]
    pub on_worker_loss: Option<OnWorkerLoss>,
}

impl SplitArgs {
    /// The segment this machine runs, if any.
    pub fn segment(&self) -> Result<Option<ExecutionSegment>, String> {
        segment(
            self.shard.as_deref(),
            self.execution_segment.as_deref(),
            self.execution_segment_sequence.as_deref(),
        )
    }

    /// A segment's error as one line naming the flag at fault.
    pub fn explain(&self, error: &PlanError) -> String {
        error.render(|field| {
            match field {
                PlanField::ExecutionSegment if !self.workers.is_empty() => "--workers",
                PlanField::ExecutionSegment if self.shard.is_some() => "--shard",
                PlanField::ExecutionSegment => "--execution-segment",
                _ => "--execution-segment-sequence",
            }
            .to_string()
        })
    }
}

/// `--shard I/N`, or `--execution-segment FROM:TO` with its
/// `--execution-segment-sequence`; errors name the flag.
pub fn segment(
    shard: Option<&str>,
    execution_segment: Option<&str>,
    sequence: Option<&str>,
) -> Result<Option<ExecutionSegment>, String> {
    if let Some(shard) = shard {
        let bad = || format!("--shard: '{shard}' is not I/N, as in 0/4");
        let (index, count) = shard.split_once('/').ok_or_else(bad)?;
        let index: u64 = index.trim().parse().map_err(|_| bad())?;
        let count: u64 = count.trim().parse().map_err(|_| bad())?;
        return ExecutionSegment::shard(index, count)
            .map(Some)
            .map_err(|e| format!("--shard: {e}"));
    }
    let Some(text) = execution_segment else {
        return Ok(None);
    };
    let mut segment =
        ExecutionSegment::parse(text).map_err(|e| format!("--execution-segment: {e}"))?;
    if let Some(sequence) = sequence {
        segment.sequence = Some(
            ExecutionSegment::parse_sequence(sequence)
                .map_err(|e| format!("--execution-segment-sequence: {e}"))?,
        );
    }
    Ok(Some(segment))
}
