//! How big a run is, as the commands that make load spell it: `-c`, `-t`
//! and `-D`. Each is defined here once; a command gives it its own help
//! and default with `mut_arg`.

use clap::Args;
use loadgen_core::duration::parse_duration;
use loadgen_core::plan::defaults;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct Clients {
    /// Number of concurrent clients (connections).
    #[arg(short = 'c', long = "clients", value_name = "N", default_value_t = defaults::CLIENTS)]
    pub clients: usize,
}

#[derive(Args, Debug, Clone)]
pub struct Threads {
    /// Number of worker threads.
    #[arg(short = 't', long = "threads", value_name = "N", default_value_t = defaults::THREADS)]
    pub threads: usize,
}

#[derive(Args, Debug, Clone, Default)]
pub struct RunTime {
    /// Run for this long (timing-based); overrides -n.
    #[arg(short = 'D', long = "duration", value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<Duration>,
}
