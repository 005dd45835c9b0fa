//! A scenario file as it travels from a controller to a worker: its text
//! and the files it names (a [`Bundle`]: the worker reads nothing from its
//! own disk for a caller), the command line's `--env`, `--vus`,
//! `--duration`, `--iterations` and `-t`, and the worker's execution
//! segment. Both ends compile it the same way ([`ScenarioJob::compile`]),
//! the controller first, so that a mistake is a usage error before
//! anything is sent.

use loadgen_core::segment::ExecutionSegment;
use loadgen_core::PlanError;
use loadgen_scenario::compile::{compile, Options};
use loadgen_scenario::executor::spec::Overrides;
use loadgen_scenario::file::Bundle;
use loadgen_scenario::suite::Suite;
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScenarioJob {
    pub bundle: Bundle,
    /// `--env NAME=VALUE`, in order (a later one wins).
    #[serde(default)]
    pub env: Vec<(String, String)>,
    /// `--vus`, `--duration`, `--iterations`: k6's overrides of every executor.
    #[serde(default)]
    pub vus: Option<u64>,
    #[serde(default)]
    pub duration_ms: Option<u64>,
    #[serde(default)]
    pub iterations: Option<u64>,
    /// Worker threads (`-t`) on the worker.
    #[serde(default = "one")]
    pub threads: usize,
    /// The part of the run the worker makes, with the sequence every
    /// worker of the run shares; `None`: all of it.
    #[serde(default)]
    pub segment: Option<ExecutionSegment>,
}

fn one() -> usize {
    1
}

/// Why a job does not compile.
#[derive(Debug)]
pub enum JobError {
    /// The scenario file or an option (one line naming the file, line and field).
    Scenario(String),
    /// The segment (it names [`loadgen_core::PlanField::ExecutionSegment`]).
    Segment(PlanError),
}

impl ScenarioJob {
    /// The suite this job runs: the file compiled with the options, split
    /// by the segment.
    pub fn compile(&self) -> Result<Suite, JobError> {
        for (field, value) in [
            ("vus", self.vus),
            ("duration_ms", self.duration_ms),
            ("iterations", self.iterations),
            ("threads", Some(self.threads as u64)),
        ] {
            if value == Some(0) {
                return Err(JobError::Scenario(format!("{field}: must be at least 1")));
            }
        }
        let loaded = self
            .bundle
            .load()
            .map_err(|e| JobError::Scenario(e.to_string()))?;
        let options = Options {
            env: self.env.clone(),
            overrides: Overrides {
                vus: self.vus,
                duration: self.duration_ms.map(Duration::from_millis),
                iterations: self.iterations,
            },
        };
        let mut suite =
            compile(&loaded, &options).map_err(|e| JobError::Scenario(e.to_string()))?;
        if let Some(segment) = &self.segment {
            suite.split(segment.clone()).map_err(JobError::Segment)?;
        }
        Ok(suite)
    }

    /// The job of worker `index` (from 0) of `count`: equal segments of one sequence.
    pub fn shard(&self, index: usize, count: usize) -> ScenarioJob {
        ScenarioJob {
            segment: Some(
                ExecutionSegment::shard(index as u64, count as u64)
                    .expect("an index below the count"),
            ),
            ..self.clone()
        }
    }
}
