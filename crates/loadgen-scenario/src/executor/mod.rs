//! k6's executors: when virtual users start iterations. Each executor's
//! options are checked here ([`spec`]); how a worker thread runs them is
//! in [`closed`] (the executors that loop a set of virtual users) and
//! [`arrival`] (the arrival-rate executors, which start iterations on a
//! schedule whatever the server does).

pub mod arrival;
pub mod closed;
pub mod spec;

pub use spec::ExecutorSpec;
