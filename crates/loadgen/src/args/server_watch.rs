//! `--server-pid` and `--server-cgroup`: the server under test, whose CPU
//! time and memory are read every second of the run.

use clap::Args;
use loadgen_core::server_usage::Source;
use std::path::PathBuf;

#[derive(Args, Debug, Clone, Default)]
pub struct ServerWatchArgs {
    /// Read this server process's CPU time and memory (RSS) every second of the run, counting
    /// its descendants (give nginx's master: its workers count), and report requests per server
    /// CPU-second (repeatable: the processes are summed). Linux only.
    #[arg(
        long = "server-pid",
        value_name = "PID",
        conflicts_with = "server_cgroup"
    )]
    pub server_pids: Vec<u32>,

    /// Read a cgroup v2's CPU time (cpu.stat) and memory (memory.current) instead: a container
    /// or a systemd unit, as a directory or as /proc/PID/cgroup names it.
    #[arg(long = "server-cgroup", value_name = "PATH")]
    pub server_cgroup: Option<PathBuf>,
}

impl ServerWatchArgs {
    /// The flag given, if any, for a command that cannot take it.
    pub fn given(&self) -> Option<&'static str> {
        if !self.server_pids.is_empty() {
            Some("--server-pid")
        } else if self.server_cgroup.is_some() {
            Some("--server-cgroup")
        } else {
            None
        }
    }

    /// Where the server's figures come from; an error names the flag and
    /// the process or directory that cannot be read.
    pub fn source(&self) -> Result<Option<Source>, String> {
        if let Some(path) = &self.server_cgroup {
            return Source::cgroup(path)
                .map(Some)
                .map_err(|e| format!("--server-cgroup: {e}"));
        }
        if self.server_pids.is_empty() {
            return Ok(None);
        }
        Source::processes(&self.server_pids)
            .map(Some)
            .map_err(|e| format!("--server-pid: {e}"))
    }
}
