//! A worker thread's scenario figures: a recorder per step (a step is
//! recorded as one request from its intended start to its last response,
//! redirects included), pass and fail counts per check, and iterations per
//! scenario. Merged across threads at the end, then made into the
//! report's scenario section.

use crate::suite::Suite;
use hdrhistogram::Histogram;
use loadgen_core::histogram;
use loadgen_core::recorder::Recorder;
use loadgen_core::report::scenario::{
    CheckCounts, ExecutorReport, IterationCounts, ScenarioHistograms, ScenarioReport, StepReport,
};
use loadgen_core::report::TimeStats;

pub struct StepMetrics {
    pub recorder: Recorder,
    pub redirects: u64,
    pub extraction_failures: u64,
}

#[derive(Clone, Copy, Default)]
pub struct ScenarioCounts {
    pub iterations: IterationCounts,
    /// Virtual users of the scenario that exist now, and the most at once.
    pub vus: u64,
    pub vus_max: u64,
}

pub struct Metrics {
    pub steps: Vec<StepMetrics>,
    /// Passes and fails, by check slot.
    pub checks: Vec<(u64, u64)>,
    /// The same since the thread's window last closed.
    pub checks_window: Vec<(u64, u64)>,
    pub scenarios: Vec<ScenarioCounts>,
    pub iteration_duration: Histogram<u64>,
    /// The most virtual users of all scenarios at once.
    pub vus_max: u64,
    vus_now: u64,
}

impl Metrics {
    pub fn new(suite: &Suite) -> Metrics {
        Metrics {
            steps: suite
                .steps
                .iter()
                .map(|_| StepMetrics {
                    recorder: Recorder::new(),
                    redirects: 0,
                    extraction_failures: 0,
                })
                .collect(),
            checks: vec![(0, 0); suite.checks.len()],
            checks_window: vec![(0, 0); suite.checks.len()],
            scenarios: vec![ScenarioCounts::default(); suite.scenarios.len()],
            iteration_duration: histogram::for_request_times(),
            vus_max: 0,
            vus_now: 0,
        }
    }

    /// A virtual user of scenario `scenario` came into being.
    pub fn vu_started(&mut self, scenario: usize) {
        let counts = &mut self.scenarios[scenario];
        counts.vus += 1;
        counts.vus_max = counts.vus_max.max(counts.vus);
        self.vus_now += 1;
        self.vus_max = self.vus_max.max(self.vus_now);
    }

    pub fn vu_ended(&mut self, scenario: usize) {
        self.scenarios[scenario].vus -= 1;
        self.vus_now -= 1;
    }

    /// Virtual users of all scenarios that exist now.
    pub fn vus_now(&self) -> u64 {
        self.vus_now
    }

    /// Check `slot` was evaluated.
    pub fn check(&mut self, slot: usize, holds: bool) {
        for counts in [&mut self.checks[slot], &mut self.checks_window[slot]] {
            if holds {
                counts.0 += 1;
            } else {
                counts.1 += 1;
            }
        }
    }

    /// Adds another thread's figures. Virtual users of different threads
    /// exist at once, so their peaks add up.
    pub fn merge(&mut self, other: &Metrics) {
        for (mine, theirs) in self.steps.iter_mut().zip(&other.steps) {
            mine.recorder.merge(&theirs.recorder);
            mine.redirects += theirs.redirects;
            mine.extraction_failures += theirs.extraction_failures;
        }
        for (mine, theirs) in self.checks.iter_mut().zip(&other.checks) {
            mine.0 += theirs.0;
            mine.1 += theirs.1;
        }
        for (mine, theirs) in self.scenarios.iter_mut().zip(&other.scenarios) {
            mine.iterations.add(&theirs.iterations);
            mine.vus_max += theirs.vus_max;
        }
        self.iteration_duration
            .add(&other.iteration_duration)
            .expect("histograms of one shape add up");
        self.vus_max += other.vus_max;
    }

    /// The report's scenario section; `histograms` keeps the encoded
    /// histograms (for `-o` and merging).
    pub fn report(&self, suite: &Suite, histograms: bool) -> ScenarioReport {
        let mut iterations = IterationCounts::default();
        let scenarios = suite
            .scenarios
            .iter()
            .zip(&self.scenarios)
            .map(|(spec, counts)| {
                iterations.add(&counts.iterations);
                ExecutorReport {
                    name: spec.name.clone(),
                    executor: spec.executor.name().to_string(),
                    iterations: counts.iterations,
                    vus_max: counts.vus_max,
                }
            })
            .collect();
        let steps = suite
            .steps
            .iter()
            .zip(&self.steps)
            .map(|(name, m)| {
                let report = StepReport::of(name, &m.recorder, m.redirects, m.extraction_failures);
                if histograms {
                    report.with_histograms(&m.recorder)
                } else {
                    report
                }
            })
            .collect();
        let checks = suite
            .checks
            .iter()
            .zip(&self.checks)
            .map(|((step, name), (passes, fails))| CheckCounts {
                step: suite.steps[*step].clone(),
                name: name.clone(),
                passes: *passes,
                fails: *fails,
            })
            .collect();
        ScenarioReport {
            scenarios,
            iterations,
            iteration_duration: TimeStats::of(&self.iteration_duration),
            vus_max: self.vus_max,
            steps,
            checks,
            histograms: histograms.then(|| ScenarioHistograms::of(&self.iteration_duration)),
        }
    }
}
