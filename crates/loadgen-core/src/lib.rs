//! The loadgen engine. A run flows through these modules in order:
//!
//! - [`plan`]: the validated description of a run, and [`request`]: the
//!   requests it sends;
//! - [`connections`]: the one way into a server: a plan's protocols and
//!   connector, prepared once (every front end, a benchmark, a scenario's
//!   origins, gRPC reflection, goes through it), then a connection and the
//!   protocol it speaks;
//! - [`run`](mod@run): a benchmark's entry (the CLI, `demo`, sweeps, workers and the
//!   FFI call it), and [`runner`]: the benchmark's worker threads (started
//!   by [`threads`]), each with its own runtime and recorder;
//! - [`scheduler`]: when each request starts;
//! - [`client`] and [`connection`]: connections, and the layer every
//!   protocol shares; [`driver`]: the contract each protocol implements,
//!   [`protocols`]: the registered ones ([`protocols::http1`],
//!   [`protocols::http2`], [`protocols::http3`] over [`quic`]);
//! - [`events`] and [`recorder`]: what happened, per thread, merged at the end;
//! - [`report`]: the merged result every output format renders, its
//!   histograms encoded by [`histogram_codec`].
//!
//! The vocabulary every layer shares sits in leaf modules that import
//! nothing above them: [`error_kind`], [`connection_info`], [`histogram`],
//! [`histogram_codec`], [`ticket`], [`duration`], [`wall_time`].

pub mod cancel;
pub mod client;
pub mod connection;
pub mod connection_info;
pub mod connections;
pub mod driver;
pub mod duration;
pub mod error_kind;
pub mod events;
pub mod grpc;
pub mod histogram;
pub mod histogram_codec;
pub mod interval;
pub mod kept_rows;
pub mod plan;
pub mod plan_error;
pub mod precise_timer;
pub mod profile;
pub mod protocols;
pub mod quic;
pub mod recorder;
pub mod report;
pub mod request;
pub mod request_log;
pub mod run;
pub mod runner;
pub mod scheduler;
pub mod segment;
pub mod server_usage;
pub mod threads;
pub mod ticket;
pub mod timer;
pub mod tls;
pub mod transport;
pub mod uri;
pub mod wake_coalescing;
pub mod wall_time;
pub mod whole_file;
pub mod worker;

pub use cancel::CancelHandle;
pub use connections::{Connections, PrepareError};
pub use plan::{Plan, PlanInput};
pub use plan_error::{PlanError, PlanField};
pub use report::Report;
pub use run::{run, Run, RunOptions};
pub use runner::{Observer, RunResult};
