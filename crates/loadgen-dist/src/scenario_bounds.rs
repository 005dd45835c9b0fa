//! What a worker refuses of a scenario however it is written, beside what
//! it refuses of any plan ([`crate::bounds`]): more virtual users, threads,
//! counted iterations or time than its bounds, and a file on the worker's
//! machine (`defaults.ca_file`: a worker reads no files for its callers;
//! feeders and bodies travel with the scenario).

use crate::bounds::Bounds;
use loadgen_scenario::suite::Suite;

impl Bounds {
    /// Whether this worker's part of `suite`, on `threads` threads, fits;
    /// else why not, naming the field and the worker's flag.
    pub fn check_scenario(&self, suite: &Suite, threads: usize) -> Result<(), String> {
        let parts = suite.parts();
        let vus: u64 = parts.iter().map(|p| p.vus).sum();
        if vus > self.max_clients as u64 {
            return Err(format!(
                "vus: this worker's part is {vus} virtual users, more than its bound of {} (--max-clients)",
                self.max_clients
            ));
        }
        if threads > self.max_threads {
            return Err(format!(
                "threads: {threads} threads, more than this worker's bound of {} (--max-threads)",
                self.max_threads
            ));
        }
        let iterations: u64 = parts
            .iter()
            .map(|p| {
                p.iterations
                    .unwrap_or(0)
                    .saturating_add(p.arrivals.unwrap_or(0))
            })
            .fold(0, u64::saturating_add);
        if iterations > self.max_iterations {
            return Err(format!(
                "iterations: this worker's part counts {iterations} iterations, more than its bound of {} (--max-iterations)",
                self.max_iterations
            ));
        }
        for scenario in &suite.scenarios {
            let total = scenario
                .start_time
                .saturating_add(scenario.executor.length())
                .saturating_add(scenario.graceful_stop);
            if total > self.max_duration {
                return Err(format!(
                    "scenarios.{}: {}s from the start to its gracefulStop, longer than this worker's bound of {}s (--max-duration)",
                    scenario.name,
                    total.as_secs_f64(),
                    self.max_duration.as_secs_f64()
                ));
            }
        }
        Ok(())
    }
}

/// Refuses a scenario that names a file on the worker's machine.
pub fn check_no_local_files(suite: &Suite) -> Result<(), String> {
    if suite.connection.tls.ca_file.is_some() {
        return Err(
            "defaults.ca_file: a worker reads no files for its callers; leave it out (or use insecure: true)"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario_job::ScenarioJob;
    use loadgen_scenario::file::Bundle;
    use std::time::Duration;

    fn suite(text: &str) -> Suite {
        ScenarioJob {
            bundle: Bundle {
                name: "t.yaml".into(),
                text: text.into(),
                files: Default::default(),
            },
            env: Vec::new(),
            vus: None,
            duration_ms: None,
            iterations: None,
            threads: 1,
            segment: None,
        }
        .compile()
        .unwrap_or_else(|e| panic!("{e:?}"))
    }

    const STEPS: &str = "    steps:\n      - name: s\n        url: http://127.0.0.1:1/\n";

    #[test]
    fn scenario_bounds_name_the_field_and_the_flag() {
        let bounds = Bounds {
            max_clients: 10,
            max_threads: 2,
            max_duration: Duration::from_secs(60),
            max_body: 4,
            max_request: 1024,
            max_iterations: 100,
        };
        let fits = suite(&format!(
            "scenarios:\n  a:\n    executor: per-vu-iterations\n    vus: 10\n    iterations: 10\n    maxDuration: 10s\n    gracefulStop: 5s\n{STEPS}"
        ));
        assert!(bounds.check_scenario(&fits, 2).is_ok());
        assert!(bounds
            .check_scenario(&fits, 3)
            .unwrap_err()
            .starts_with("threads: "));
        let many = suite(&format!(
            "scenarios:\n  a:\n    executor: constant-vus\n    vus: 11\n    duration: 1s\n{STEPS}"
        ));
        assert!(bounds
            .check_scenario(&many, 1)
            .unwrap_err()
            .starts_with("vus: "));
        let counted = suite(&format!(
            "scenarios:\n  a:\n    executor: constant-arrival-rate\n    rate: 200\n    duration: 1s\n    preAllocatedVUs: 1\n{STEPS}"
        ));
        assert!(bounds
            .check_scenario(&counted, 1)
            .unwrap_err()
            .contains("--max-iterations"));
        let long = suite(&format!(
            "scenarios:\n  a:\n    executor: constant-vus\n    duration: 50s\n{STEPS}"
        ));
        // 50 s and k6's 30 s gracefulStop.
        assert!(bounds
            .check_scenario(&long, 1)
            .unwrap_err()
            .contains("--max-duration"));
    }

    #[test]
    fn a_ca_file_on_the_worker_is_refused() {
        let named = suite(&format!(
            "defaults:\n  ca_file: /etc/ssl/ca.pem\nscenarios:\n  a:\n    executor: constant-vus\n    duration: 1s\n{STEPS}"
        ));
        assert!(check_no_local_files(&named)
            .unwrap_err()
            .starts_with("defaults.ca_file: "));
    }
}
