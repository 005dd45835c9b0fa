//! Distributed runs: one plan split between machines that load the target
//! together, started at one instant and reported as one run.
//!
//! - [`worker`]: `loadgen worker`, an HTTP/1.1 (or HTTPS) JSON API that runs
//!   one plan or scenario segment at a time at a given start time and
//!   streams what it measures; every call needs the bearer token
//!   ([`token`]), and what it may load is bounded ([`bounds`], [`allow`]);
//! - [`controller`]: the benchmark command and `loadgen run` with
//!   `--workers`: it splits the plan or the scenario into execution
//!   segments, measures each worker's clock offset, starts them together,
//!   merges their intervals live and their reports at the end (exactly,
//!   with `loadgen_report::merge`);
//! - [`protocol`]: what travels between the two; [`scenario_job`]: a
//!   scenario file as it travels, and how both ends compile it.

pub mod allow;
pub mod bounds;
pub mod controller;
pub mod protocol;
pub mod scenario_bounds;
pub mod scenario_job;
pub mod token;
pub mod worker;
