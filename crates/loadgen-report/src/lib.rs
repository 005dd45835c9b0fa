//! Everything loadgen makes of a finished [`Report`](loadgen_core::Report),
//! and of a run's one-second intervals:
//!
//! - [`text`]: h2load's text layout, with [`units`] for nghttp2's number
//!   formatting; [`scenario_text`]: a scenario run's summary, as k6 lays it out;
//!   [`server_text`]: the server's CPU time and memory under it;
//! - [`structured`]: JSON, JSON Lines and CSV; [`histogram_fields`]: where
//!   the report's JSON holds its encoded histograms, and their removal;
//! - [`output_file`]: the `-o FILE` writer and its [`FileFormat`];
//!   [`junit`]: a run's thresholds and checks as JUnit XML test cases;
//! - [`threshold`]: `--threshold` expressions, their verdicts and text block;
//!   [`k6_threshold`]: a scenario file's thresholds, in k6's grammar;
//! - [`hdr_log`]: the `--hdr-log` HdrHistogram interval log;
//! - [`merge`]: several reports (or interval logs) added up into one;
//! - [`html`]: the self-contained HTML report of one or more runs, and of
//!   a sweep;
//! - [`live`]: a run's seconds so far, for the live dashboard;
//! - [`hgrm`]: a histogram as HdrHistogram's percentile distribution text;
//! - [`sweep`]: a sweep's points over their runs, and the knee search.
//!
//! It prints nothing and decides no exit code; the `loadgen` binary does.

pub mod hdr_log;
pub mod hgrm;
pub mod histogram_fields;
pub mod html;
pub mod junit;
pub mod k6_threshold;
pub mod live;
pub mod merge;
pub mod output_file;
pub mod scenario_text;
pub mod server_text;
pub mod structured;
pub mod sweep;
pub mod text;
pub mod threshold;
pub mod units;

pub use hdr_log::HdrLog;
pub use output_file::{write_file, write_whole, FileFormat};
pub use structured::{document, flatten, json_line, json_pretty, with_histograms, Histograms};
