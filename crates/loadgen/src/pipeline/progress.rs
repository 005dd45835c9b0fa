//! What a command shows while a run goes on: the live line or h2load's
//! progress lines, the `--hdr-log` intervals, the metrics export, a run
//! that has waited long for any request to end (`waiting.rs`), and, on
//! workers, each worker lost.

use super::dashboard::Feed;
use super::live::Live;
use super::waiting::Waiting;
use loadgen_core::interval::Interval;
use loadgen_core::Observer;
use loadgen_dist::controller::Watcher;
use loadgen_report::HdrLog;

pub struct Progress {
    pub live: Option<Live>,
    pub print_progress: bool,
    pub hdr_log: Option<HdrLog>,
    pub waiting: Option<Waiting>,
    /// `--metrics-push`, `--metrics-listen`: fed the merged seconds.
    pub metrics: Option<loadgen_metrics::Exporter>,
    /// `--dashboard`'s share of each second.
    pub dashboard: Option<Feed>,
}

impl Progress {
    /// The live line where stderr is a terminal, else h2load's progress
    /// lines; nothing with `quiet`.
    pub fn show(&mut self, plan: &loadgen_core::Plan, quiet: bool) {
        self.live = if quiet { None } else { Live::start(plan) };
        self.print_progress = !quiet && self.live.is_none();
        // Said even with `quiet`: it is no progress, but a run stuck.
        self.waiting = Waiting::of(plan);
        if let Some(dashboard) = &self.dashboard {
            dashboard.begin(plan);
        }
    }
}

impl Progress {
    /// A run made without a plan (a scenario's): the dashboard learns its
    /// configuration, as the report will show it.
    pub fn begin_run(&self, config: loadgen_core::report::RunConfig) {
        if let Some(dashboard) = &self.dashboard {
            dashboard.begin_run(config);
        }
    }
}

impl Observer for Progress {
    fn interval(&mut self, interval: &Interval) {
        if let Some(live) = &mut self.live {
            live.interval(interval);
        }
        if let Some(dashboard) = &self.dashboard {
            dashboard.interval(interval);
        }
        if let Some(log) = &mut self.hdr_log {
            log.write(interval);
        }
        if let Some(line) = self.waiting.as_mut().and_then(|w| w.interval(interval)) {
            let line = format!("loadgen: {line}");
            match &self.live {
                Some(live) => live.say(&line),
                None => eprintln!("{line}"),
            }
        }
        if let Some(metrics) = &mut self.metrics {
            metrics.interval(interval);
        }
    }

    fn progress(&mut self, percent: u32) {
        if self.print_progress {
            eprintln!("progress: {percent}% done");
        }
    }
}

impl Watcher for Progress {
    fn worker_lost(&mut self, worker: &str, segment: &str, why: &str) {
        eprintln!("loadgen: worker {worker} (segment {segment}) lost: {why}");
    }
}
