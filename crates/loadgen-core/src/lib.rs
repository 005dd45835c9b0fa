//! The loadgen engine. A run flows through these modules in order:
//!
//! - [`plan`]: the validated description of a run;
//! - [`runner`]: worker threads, each with its own runtime and recorder;
//! - [`scheduler`]: when each request starts;
//! - [`client`] and [`driver`]: connections, and how requests go on the wire
//!   ([`driver::h1`], [`driver::h2`], [`driver::h3`] over [`quic`]);
//! - [`recorder`]: what happened, per thread, merged at the end;
//! - [`report`]: the merged result every output format renders.

pub mod client;
pub mod driver;
pub mod duration;
pub mod interval;
pub mod plan;
pub mod precise_timer;
pub mod profile;
pub mod quic;
pub mod recorder;
pub mod report;
pub mod request;
pub mod request_log;
pub mod runner;
pub mod scheduler;
pub mod timer;
pub mod tls;
pub mod transport;
pub mod uri;
pub mod whole_file;
pub mod worker;

pub use plan::{Plan, PlanInput};
pub use report::Report;
pub use runner::{run, RunResult};
