//! `--dashboard`: a live page of the run, served while it goes, and how
//! long it stays up after the end (`--dashboard-linger`).

use clap::Args;
use loadgen_core::duration::HumanDuration;
use std::net::SocketAddr;
use std::time::Duration;

#[derive(Args, Debug, Clone, Default)]
pub struct DashboardArgs {
    /// Serve a live page of the run at ADDR (e.g. 127.0.0.1:8089; port 0 picks a free one, said on
    /// stderr): the report's charts redrawn each second, the thresholds' state, and at the end
    /// the finished report to download. Nothing is fetched from elsewhere.
    #[arg(long = "dashboard", value_name = "ADDR")]
    pub dashboard: Option<SocketAddr>,

    /// Keep serving the dashboard this long after the report is out, or until Ctrl-C (default:
    /// stop with the run).
    #[arg(
        long = "dashboard-linger",
        value_name = "DURATION",
        requires = "dashboard"
    )]
    pub linger: Option<HumanDuration>,
}

impl DashboardArgs {
    pub fn linger(&self) -> Duration {
        self.linger.map_or(Duration::ZERO, |l| l.0)
    }
}
