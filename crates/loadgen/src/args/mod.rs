//! The flags, each defined once. A command's own flags live in its
//! `Args` struct (`bench.rs` for the benchmark, the others beside their
//! command in `commands/`); the groups several commands share are here,
//! flattened by each command that takes them and reworded with `mut_arg`
//! where a command means something of its own by one.

pub mod bench;
pub mod control;
pub mod dashboard;
pub mod load;
pub mod metrics;
pub mod output;
pub mod plan_flags;
pub mod scale;
pub mod server;
pub mod server_watch;
pub mod split;
pub mod start_at;
