//! The report's `server` object and each interval's server figures, made
//! from a sampler's readings ([`crate::report::server`] puts them in a report).

use super::sampler::Samples;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What the server used during the measured part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServerStats {
    /// The processes given (`--server-pid`), each counted with its
    /// descendants; empty for a cgroup.
    #[serde(default)]
    pub pids: Vec<u32>,
    /// The cgroup v2 directory read (`--server-cgroup`).
    #[serde(default)]
    pub cgroup: Option<String>,
    /// CPU time (user + system) from the first reading to the last.
    pub cpu_s: f64,
    /// `cpu_s` over the time between those readings: 100 is one core busy.
    pub cpu_pct: f64,
    /// Responses (as `req_per_s` counts them) per second of server CPU:
    /// the server's efficiency.
    pub requests_per_cpu_s: f64,
    /// Server CPU time per response, in microseconds.
    pub cpu_us_per_request: f64,
    /// Resident memory (`VmRSS` summed; a cgroup's `memory.current`) at the
    /// last reading and the most at any reading.
    pub rss_bytes: u64,
    pub rss_max_bytes: u64,
    /// Readings taken (one at the start, one a second, one at the end).
    pub samples: usize,
    /// Processes given that went away during the run (0: the cgroup), and
    /// the offset of the first reading without them; their figures count
    /// up to their last reading.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exited: Vec<ExitedProcess>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExitedProcess {
    pub pid: u32,
    pub at_s: f64,
}

/// One interval's server figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntervalServer {
    /// CPU time between the readings at the interval's ends, over the time
    /// between them: 100 is one core busy.
    pub cpu_pct: f64,
    /// Resident memory at the interval's end.
    pub rss_bytes: u64,
}

impl ServerStats {
    /// The totals of `samples`, with `responses` the run's responses.
    /// `None` when nothing was read in the measured part.
    pub fn of(
        samples: &Samples,
        pids: &[u32],
        cgroup: Option<String>,
        responses: u64,
    ) -> Option<ServerStats> {
        let (first, last) = (samples.samples.first()?, samples.samples.last()?);
        let cpu = last.reading.cpu.saturating_sub(first.reading.cpu);
        let span = last.at.saturating_duration_since(first.at);
        let cpu_s = cpu.as_secs_f64();
        Some(ServerStats {
            pids: pids.to_vec(),
            cgroup,
            cpu_s,
            cpu_pct: percent(cpu, span),
            requests_per_cpu_s: if cpu_s > 0.0 {
                responses as f64 / cpu_s
            } else {
                0.0
            },
            cpu_us_per_request: if responses > 0 {
                cpu_s * 1e6 / responses as f64
            } else {
                0.0
            },
            rss_bytes: last.reading.rss_bytes,
            rss_max_bytes: samples
                .samples
                .iter()
                .map(|s| s.reading.rss_bytes)
                .max()
                .unwrap_or(0),
            samples: samples.samples.len(),
            exited: samples
                .exited
                .iter()
                .map(|(pid, at)| ExitedProcess {
                    pid: *pid,
                    at_s: at.as_secs_f64(),
                })
                .collect(),
        })
    }
}

impl Samples {
    /// The figures of the interval from `start_s` to `end_s` of the
    /// measured part: between the reading at its start and the first
    /// reading at or after its end.
    pub fn interval(&self, start_s: f64, end_s: f64) -> Option<IntervalServer> {
        // Readings are a second apart and intervals start on whole seconds;
        // a millisecond's slack absorbs the float round trip.
        let slack = 0.001;
        let from = self
            .samples
            .iter()
            .rev()
            .find(|s| s.offset.as_secs_f64() <= start_s + slack)?;
        let to = self
            .samples
            .iter()
            .find(|s| s.offset.as_secs_f64() >= end_s - slack && s.at > from.at)?;
        Some(IntervalServer {
            cpu_pct: percent(
                to.reading.cpu.saturating_sub(from.reading.cpu),
                to.at.saturating_duration_since(from.at),
            ),
            rss_bytes: to.reading.rss_bytes,
        })
    }
}

fn percent(cpu: Duration, wall: Duration) -> f64 {
    if wall.is_zero() {
        0.0
    } else {
        cpu.as_secs_f64() * 100.0 / wall.as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server_usage::{Reading, Sample};
    use std::time::Instant;

    fn samples(points: &[(f64, u64, u64)]) -> Samples {
        let start = Instant::now();
        Samples {
            samples: points
                .iter()
                .map(|&(offset, cpu_ms, rss)| {
                    let offset = Duration::from_secs_f64(offset);
                    Sample {
                        offset,
                        at: start + offset,
                        reading: Reading {
                            cpu: Duration::from_millis(cpu_ms),
                            rss_bytes: rss,
                            exited: Vec::new(),
                        },
                    }
                })
                .collect(),
            exited: vec![(42, Duration::from_secs(2))],
        }
    }

    #[test]
    fn intervals_take_the_readings_at_their_ends() {
        // A run of 2.5 s, stopped at 2.6 s.
        let samples = samples(&[
            (0.0, 100, 10),
            (1.0, 600, 30),
            (2.0, 900, 20),
            (2.6, 960, 20),
        ]);
        let stats = ServerStats::of(&samples, &[42], None, 4300).unwrap();
        assert!((stats.cpu_s - 0.86).abs() < 1e-9, "{stats:?}");
        assert!((stats.cpu_pct - 0.86 / 2.6 * 100.0).abs() < 1e-9);
        assert!((stats.requests_per_cpu_s - 5000.0).abs() < 1e-6);
        assert!((stats.cpu_us_per_request - 200.0).abs() < 1e-9);
        assert_eq!(
            (stats.rss_bytes, stats.rss_max_bytes, stats.samples),
            (20, 30, 4)
        );
        assert_eq!(stats.exited, vec![ExitedProcess { pid: 42, at_s: 2.0 }]);
        let rows = [(0.0, 1.0), (1.0, 2.0), (2.0, 2.5)];
        let figures: Vec<_> = rows
            .iter()
            .map(|(start, end)| samples.interval(*start, *end).unwrap())
            .collect();
        assert!((figures[0].cpu_pct - 50.0).abs() < 1e-9);
        assert!((figures[1].cpu_pct - 30.0).abs() < 1e-9);
        assert!((figures[2].cpu_pct - 10.0).abs() < 1e-9);
        assert_eq!(
            figures.iter().map(|f| f.rss_bytes).collect::<Vec<_>>(),
            [30, 20, 20]
        );
    }

    #[test]
    fn nothing_read_in_the_measured_part_is_no_server() {
        assert_eq!(ServerStats::of(&Samples::default(), &[1], None, 5), None);
    }
}
