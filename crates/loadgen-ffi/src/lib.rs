//! The loadgen engine behind a C ABI. Every export takes and gives JSON
//! (plans in `PlanInput`'s JSON form, reports as `-o FILE.json` writes
//! them), catches panics at the boundary ([`boundary`]), reports errors
//! through a per-thread slot ([`loadgen_last_error`]), hands out opaque
//! handles kept in a registry ([`registry`]), and returns strings the
//! caller frees with [`loadgen_free_string`]. The contract: docs/ffi.md.
//!
//! - [`batch`]: `loadgen_create`, `loadgen_run`, `loadgen_metrics_snapshot`,
//!   `loadgen_cancel`, `loadgen_destroy`;
//! - [`step`]: step sessions, one request (and its redirects) at a time;
//! - [`merge`]: `loadgen_merge_reports`, as `loadgen merge` adds reports up;
//! - [`scenario`]: `loadgen_run_scenario`, a scenario file's run;
//! - [`strings`]: strings across the boundary, `loadgen_free_string`;
//! - [`version`]: the library's version, `loadgen_version`;
//! - [`last_error`]: `loadgen_last_error`, the per-thread error slot.

pub mod batch;
pub mod boundary;
pub mod last_error;
pub mod merge;
pub mod registry;
pub mod scenario;
pub mod snapshot;
pub mod step;
pub mod strings;
pub mod test_hook;
pub mod version;

pub use batch::{
    loadgen_cancel, loadgen_create, loadgen_destroy, loadgen_metrics_snapshot, loadgen_run,
};
pub use last_error::loadgen_last_error;
pub use merge::loadgen_merge_reports;
pub use registry::LoadgenHandle;
pub use scenario::{loadgen_check_scenario, loadgen_run_scenario};
pub use step::{
    loadgen_step_execute, loadgen_step_session_create, loadgen_step_session_destroy,
    loadgen_step_session_last_error, loadgen_step_session_reset,
};
pub use strings::loadgen_free_string;
pub use version::loadgen_version;
