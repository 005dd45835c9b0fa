//! The server's CPU time and memory beside a run (`--server-pid`,
//! `--server-cgroup`): a sampler thread started before the first request,
//! told where the measured part starts, stopped after the last response,
//! its readings joined with the report's seconds.

use crate::args::server_watch::ServerWatchArgs;
use crate::failure::Failure;
use loadgen_core::interval::Interval;
use loadgen_core::server_usage::{Sampler, Source};
use loadgen_core::{Observer, Report};
use std::time::Instant;

/// The server to read, checked before the run.
pub struct ServerWatch {
    source: Option<Source>,
    pids: Vec<u32>,
    cgroup: Option<String>,
}

/// The server being read while the run goes on.
pub struct Watching {
    sampler: Option<Sampler>,
    pids: Vec<u32>,
    cgroup: Option<String>,
}

impl ServerWatch {
    /// A process that does not exist or a directory that is no cgroup is
    /// a usage error (exit 2).
    pub fn of(args: &ServerWatchArgs) -> Result<ServerWatch, Failure> {
        Ok(ServerWatch {
            source: args.source().map_err(Failure::usage)?,
            pids: args.server_pids.clone(),
            cgroup: args.server_cgroup.as_ref().map(|p| p.display().to_string()),
        })
    }

    /// Takes the first reading and starts the sampler.
    pub fn start(self) -> Result<Watching, Failure> {
        Ok(Watching {
            sampler: self
                .source
                .map(Sampler::start)
                .transpose()
                .map_err(Failure::run)?,
            pids: self.pids,
            cgroup: self.cgroup,
        })
    }
}

impl Watching {
    /// `inner`, which also tells the sampler where the measured part starts.
    pub fn observer<'a>(&'a self, inner: &'a mut dyn Observer) -> Told<'a> {
        Told {
            sampler: self.sampler.as_ref(),
            inner,
        }
    }

    /// Takes the last reading and puts the server's figures in `report`;
    /// says on stderr which processes went away during the run.
    pub fn finish(self, report: &mut Report) {
        let Some(sampler) = self.sampler else {
            return;
        };
        let samples = sampler.stop();
        report.add_server(&samples, &self.pids, self.cgroup);
        for (pid, at) in &samples.exited {
            let what = match pid {
                0 => "the server's cgroup".to_string(),
                pid => format!("server process {pid}"),
            };
            eprintln!(
                "loadgen: {what} went away {:.1}s into the run; its CPU time and memory count until then",
                at.as_secs_f64()
            );
        }
    }
}

pub struct Told<'a> {
    sampler: Option<&'a Sampler>,
    inner: &'a mut dyn Observer,
}

impl Observer for Told<'_> {
    fn interval(&mut self, interval: &Interval) {
        self.inner.interval(interval);
    }

    fn progress(&mut self, percent: u32) {
        self.inner.progress(percent);
    }

    fn measuring(&mut self, at: Instant) {
        if let Some(sampler) = self.sampler {
            sampler.measuring(at);
        }
        self.inner.measuring(at);
    }
}
