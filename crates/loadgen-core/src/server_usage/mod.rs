//! The CPU time and memory of the server under test, read while a run goes
//! on: from `/proc` for processes (`--server-pid`, each with its
//! descendants) or from a cgroup v2 directory (`--server-cgroup`).
//!
//! A [`Sampler`] thread reads once before the measured part, at every
//! interval boundary and once at the end; nothing on the request path
//! touches it. [`ServerStats::of`] turns its samples into the report's
//! totals, [`Samples::interval`] into each interval's CPU % and RSS.

mod cgroup;
mod procfs;
mod sampler;
mod source;
mod stats;

pub use sampler::{Sample, Sampler, Samples};
pub use source::{Reading, Source};
pub use stats::{ExitedProcess, IntervalServer, ServerStats};
