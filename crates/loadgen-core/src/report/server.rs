//! A report with the server's figures (`--server-pid`, `--server-cgroup`):
//! its totals and, in each interval row, the readings at the row's ends.

use super::Report;
use crate::server_usage::{Samples, ServerStats};

impl Report {
    /// Puts what a sampler read during this report's run in it: `pids`
    /// or `cgroup` as given. Nothing when no reading fell in the measured
    /// part.
    pub fn add_server(&mut self, samples: &Samples, pids: &[u32], cgroup: Option<String>) {
        self.server = ServerStats::of(samples, pids, cgroup, self.responses());
        if self.server.is_none() {
            return;
        }
        for row in &mut self.intervals {
            row.server = samples
                .interval(row.start_s, row.start_s + row.duration_s)
                .map(Box::new);
        }
    }
}
