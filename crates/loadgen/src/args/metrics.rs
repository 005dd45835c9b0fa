//! The metrics flags the benchmark and `loadgen run` share: where the
//! run's metrics are pushed (`--metrics-push`) or served
//! (`--metrics-listen`), with which headers and tags, and how long the
//! final values wait to get through after the run (`--metrics-linger`).
//! Names, labels and buckets: docs/metrics.md.

use clap::Args;
use loadgen_core::duration::HumanDuration;
use loadgen_metrics::totals::Workload;
use loadgen_metrics::{config, Config, Destination};
use std::net::SocketAddr;
use std::time::Duration;

const LINGER: Duration = Duration::from_secs(5);

#[derive(Args, Debug, Clone)]
pub struct MetricsArgs {
    // Field names are clap's argument ids: unique across every group flattened beside this one.
    /// Push the run's metrics every second and once at its end: prometheus-rw=URL (Prometheus
    /// remote write) or otlp=URL (OTLP/HTTP, protobuf; e.g. http://collector:4318/v1/metrics).
    /// Repeatable. A push that fails is retried and counted, and never holds the run up.
    #[arg(long = "metrics-push", value_name = "FORMAT=URL", value_parser = Destination::parse)]
    pub metrics_push: Vec<Destination>,

    /// Serve the run's metrics at http://ADDR/metrics in the OpenMetrics text format.
    #[arg(long = "metrics-listen", value_name = "ADDR")]
    pub metrics_listen: Option<SocketAddr>,

    /// A header sent with every push, e.g. 'Authorization: Bearer TOKEN' (repeatable).
    #[arg(long = "metrics-header", value_name = "NAME: VALUE", value_parser = config::header)]
    pub metrics_headers: Vec<(http::HeaderName, http::HeaderValue)>,

    /// A label on every series, e.g. 'run=canary-42' (repeatable); on the OTLP resource.
    #[arg(long = "metrics-tag", value_name = "KEY=VALUE", value_parser = config::tag)]
    pub metrics_tags: Vec<(String, String)>,

    /// After the run: the longest wait for the final push to get through and for a scrape of
    /// --metrics-listen to fetch the final values (it ends as soon as both have).
    #[arg(long = "metrics-linger", value_name = "DURATION", default_value_t = HumanDuration(LINGER))]
    pub metrics_linger: HumanDuration,
}

impl MetricsArgs {
    /// What to export; `None` when nothing is asked for.
    pub fn config(&self, workload: Workload) -> Option<Config> {
        let config = Config {
            pushes: self.metrics_push.clone(),
            listen: self.metrics_listen,
            headers: self.metrics_headers.clone(),
            tags: self.metrics_tags.clone(),
            linger: self.metrics_linger.0,
            workload,
        };
        (!config.is_empty()).then_some(config)
    }
}
