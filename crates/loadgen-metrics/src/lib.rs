//! A run's metrics, exported while it runs and once at its end: pushed
//! with Prometheus remote write or OTLP/HTTP, or served at `/metrics` in
//! the OpenMetrics text format. Read only from the merged one-second
//! intervals the run hands its observer, never from the request path.
//!
//! ```text
//! Interval ─► Totals (totals.rs) ─► Snapshot (snapshot.rs) ─┬► Queue ─► Pusher ─► remote_write.rs / otlp.rs ─► Destination
//!  (observer's thread, once a second)                        └► Latest ─► listen.rs ─► openmetrics.rs
//!                                                              (the export's own thread)
//! ```
//!
//! Names, labels and buckets: `docs/metrics.md`.

pub mod buckets;
pub mod config;
pub mod destination;
pub mod exporter;
pub mod listen;
pub mod openmetrics;
pub mod otlp;
pub mod push;
pub mod queue;
pub mod remote_write;
pub mod snapshot;
pub mod totals;

pub use config::Config;
pub use destination::{Destination, Format};
pub use exporter::{Exporter, Outcome};
