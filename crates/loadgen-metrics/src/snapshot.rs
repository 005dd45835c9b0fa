//! What every export format is written from: the run's series at one
//! moment, counters cumulative since the run's start.

use crate::buckets::Classic;
use std::time::SystemTime;

/// A series' labels, in the order they are written; a format that needs
/// them sorted sorts them.
pub type Labels = Vec<(String, String)>;

#[derive(Clone, Debug, PartialEq)]
pub enum Points {
    Counter(Vec<(Labels, u64)>),
    /// A value as it stands, up or down (open connections).
    Gauge(Vec<(Labels, u64)>),
    Histogram(Vec<(Labels, Classic)>),
}

/// One metric family: its name without suffixes (`loadgen_requests`, not
/// `loadgen_requests_total`), its help, its unit and its series.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    pub name: &'static str,
    pub help: &'static str,
    /// UCUM, as OTLP carries it: `s`, or `{request}` for a count.
    pub unit: &'static str,
    pub points: Points,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// When the counters started: the start of the measured run.
    pub started_at: SystemTime,
    /// When these values were taken.
    pub at: SystemTime,
    /// The run has ended: these are its final totals.
    pub last: bool,
    pub families: Vec<Family>,
}

pub fn millis(at: SystemTime) -> i64 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

pub fn nanos(at: SystemTime) -> u64 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}
