//! k6's executors: when virtual users start iterations. Each executor's
//! options are checked here ([`spec`]); how a worker thread runs them is
//! in [`crate::run::closed`] (the executors that loop a set of virtual
//! users) and [`crate::run::arrival`] (the arrival-rate executors, which
//! start iterations on a schedule whatever the server does).

pub mod spec;

pub use spec::ExecutorSpec;
