//! The counts a window, a row and a run's totals carry beside responses,
//! errors and histograms, in one type, so that each place adds the same
//! fields the same way.

use serde::{Deserialize, Serialize};

/// Bytes, late and unsent requests and dropped iterations, which add up
/// over time, and the connections and virtual users open at the end,
/// which are gauges. An `intervals` row carries them as fields of its own
/// (`#[serde(flatten)]`), under these names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCounters {
    /// Read from connections while measuring, after TLS (the report's
    /// `bytes.total`).
    #[serde(default)]
    pub bytes_received: u64,
    /// Written to connections while measuring, before TLS (`bytes.sent`).
    #[serde(default)]
    pub bytes_sent: u64,
    /// Connections open at the end: a gauge.
    #[serde(default)]
    pub connections: u64,
    /// Scheduled requests sent late (the report's `started_late`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub started_late: u64,
    /// Open model: requests due but never sent when the run stopped
    /// (`requests.unsent_at_end`); only a thread's last window has them.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unsent_at_end: u64,
    /// A scenario's virtual users at the end: a gauge.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub vus: u64,
    /// Arrival-rate executors: due iterations that found no free virtual
    /// user (`scenario.iterations.dropped`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped_iterations: u64,
}

impl RunCounters {
    /// The fields' names in a report's rows, in the order of
    /// [`RunCounters::fields`].
    pub const NAMES: [&'static str; 7] = [
        "bytes_received",
        "bytes_sent",
        "connections",
        "started_late",
        "unsent_at_end",
        "vus",
        "dropped_iterations",
    ];

    pub fn fields(&self) -> [u64; 7] {
        [
            self.bytes_received,
            self.bytes_sent,
            self.connections,
            self.started_late,
            self.unsent_at_end,
            self.vus,
            self.dropped_iterations,
        ]
    }

    pub fn fields_mut(&mut self) -> [&mut u64; 7] {
        [
            &mut self.bytes_received,
            &mut self.bytes_sent,
            &mut self.connections,
            &mut self.started_late,
            &mut self.unsent_at_end,
            &mut self.vus,
            &mut self.dropped_iterations,
        ]
    }

    /// Adds counters of the same moment (another thread's or worker's):
    /// the gauges add up too.
    pub fn merge(&mut self, other: &RunCounters) {
        for (mine, theirs) in self.fields_mut().into_iter().zip(other.fields()) {
            *mine += theirs;
        }
    }

    /// Adds the next window of the same run: counts add up, the gauges
    /// are the later window's.
    pub fn follow(&mut self, later: &RunCounters) {
        self.merge(later);
        self.connections = later.connections;
        self.vus = later.vus;
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(connections: u64, vus: u64) -> RunCounters {
        RunCounters {
            bytes_received: 100,
            bytes_sent: 40,
            connections,
            started_late: 1,
            unsent_at_end: 0,
            vus,
            dropped_iterations: 2,
        }
    }

    #[test]
    fn threads_of_one_moment_add_their_gauges_and_later_windows_replace_them() {
        let mut threads = counters(3, 1);
        threads.merge(&counters(4, 2));
        assert_eq!(threads.fields(), [200, 80, 7, 2, 0, 3, 4]);
        let mut run = counters(3, 1);
        run.follow(&counters(4, 2));
        assert_eq!(run.fields(), [200, 80, 4, 2, 0, 2, 4]);
    }

    #[test]
    fn the_names_are_the_serialized_fields() {
        let value = serde_json::to_value(RunCounters {
            unsent_at_end: 5,
            ..counters(3, 1)
        })
        .unwrap();
        let object = value.as_object().unwrap();
        let mut names: Vec<&str> = object.keys().map(String::as_str).collect();
        let mut expected = RunCounters::NAMES.to_vec();
        names.sort_unstable();
        expected.sort_unstable();
        assert_eq!(names, expected);
        let quiet = serde_json::to_value(RunCounters::default()).unwrap();
        assert_eq!(quiet.as_object().unwrap().len(), 3, "{quiet}");
    }
}
