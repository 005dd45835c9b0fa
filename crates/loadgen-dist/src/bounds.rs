//! What a worker refuses to run however the plan is written: more clients
//! or threads, a longer run or a larger request body than its bounds, a
//! start too far ahead, and anything that would read or write files on the
//! worker's machine (`--log-file`, `--qlog-file-base`, `--tls-ca` name
//! files there that the caller has no business touching).

use loadgen_core::plan::Mode;
use loadgen_core::Plan;
use std::time::Duration;

/// The largest plan a worker runs. The defaults suit a worker that any
/// holder of its token may use; `loadgen worker`'s `--max-*` flags change them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Clients of the worker's own segment.
    pub max_clients: usize,
    pub max_threads: usize,
    /// The longest `-D` plus warm-up; a run by count (`-n`) is stopped
    /// when it has run this long.
    pub max_duration: Duration,
    /// The request body every request sends (`-d`).
    pub max_body: u64,
    /// The body of an API call (the run request's JSON, a scenario with its files).
    pub max_request: u64,
    /// Iterations a scenario's segment may count in advance (the
    /// iteration-count executors' iterations, the arrival-rate executors'
    /// arrivals); the looping ones are bounded by their duration.
    pub max_iterations: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_clients: 100_000,
            max_threads: 256,
            max_duration: Duration::from_secs(24 * 3600),
            max_body: 1 << 20,
            max_request: 4 << 20,
            max_iterations: 100_000_000,
        }
    }
}

/// How far ahead a run may be asked to start: a start time is a
/// coordinated start a second or two ahead, not a way to hold a worker.
pub const MAX_START_AHEAD: Duration = Duration::from_secs(60);

impl Bounds {
    /// Whether `plan` fits; else why not, naming the plan's JSON field.
    pub fn check(&self, plan: &Plan) -> Result<(), String> {
        let clients = plan.clients_here();
        if clients > self.max_clients {
            return Err(format!(
                "clients: this worker's part is {clients} clients, more than its bound of {} (--max-clients)",
                self.max_clients
            ));
        }
        if plan.threads > self.max_threads {
            return Err(format!(
                "threads: {} threads, more than this worker's bound of {} (--max-threads)",
                plan.threads, self.max_threads
            ));
        }
        if let Mode::Duration { duration, warm_up } = plan.mode {
            let total = duration.saturating_add(warm_up);
            if total > self.max_duration {
                return Err(format!(
                    "mode.duration: {}s with warm-up, longer than this worker's bound of {}s (--max-duration)",
                    total.as_secs_f64(),
                    self.max_duration.as_secs_f64()
                ));
            }
        }
        let body = plan.body.as_ref().map_or(0, |b| b.len() as u64);
        if body > self.max_body {
            return Err(format!(
                "body: {body} bytes, more than this worker's bound of {} (--max-body)",
                self.max_body
            ));
        }
        Ok(())
    }
}

/// Refuses a plan that names a file on the worker's machine.
pub fn check_no_local_files(plan: &Plan) -> Result<(), String> {
    let named = [
        ("log_file", plan.log_file.is_some()),
        ("quic.qlog_file_base", plan.quic.qlog_file_base.is_some()),
        ("tls.ca_file", plan.tls.ca_file.is_some()),
    ];
    match named.iter().find(|(_, set)| *set) {
        Some((field, _)) => Err(format!(
            "{field}: a worker reads and writes no files for its callers; leave it out"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::PlanInput;

    fn plan(input: PlanInput) -> Plan {
        PlanInput {
            uris: vec!["http://127.0.0.1:1/".into()],
            ..input
        }
        .build()
        .unwrap()
    }

    #[test]
    fn bounds_name_the_field_and_the_flag() {
        let bounds = Bounds {
            max_clients: 10,
            max_threads: 2,
            max_duration: Duration::from_secs(60),
            max_body: 4,
            max_request: 1024,
            max_iterations: 10,
        };
        assert!(bounds.check(&plan(PlanInput::default())).is_ok());
        let many = plan(PlanInput {
            clients: 11,
            mode: Mode::Requests(11),
            ..PlanInput::default()
        });
        assert!(bounds.check(&many).unwrap_err().starts_with("clients: "));
        let long = plan(PlanInput {
            mode: Mode::Duration {
                duration: Duration::from_secs(50),
                warm_up: Duration::from_secs(11),
            },
            ..PlanInput::default()
        });
        assert!(bounds.check(&long).unwrap_err().contains("--max-duration"));
        let heavy = plan(PlanInput {
            body: Some(vec![0; 5]),
            ..PlanInput::default()
        });
        assert!(bounds.check(&heavy).unwrap_err().starts_with("body: "));
        let threads = plan(PlanInput {
            clients: 3,
            threads: 3,
            mode: Mode::Requests(3),
            ..PlanInput::default()
        });
        assert!(bounds.check(&threads).unwrap_err().starts_with("threads: "));
    }

    #[test]
    fn files_on_the_worker_are_refused() {
        assert!(check_no_local_files(&plan(PlanInput::default())).is_ok());
        let logged = plan(PlanInput {
            log_file: Some("/tmp/x".into()),
            ..PlanInput::default()
        });
        assert!(check_no_local_files(&logged)
            .unwrap_err()
            .starts_with("log_file: "));
    }
}
