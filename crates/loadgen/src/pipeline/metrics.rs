//! `--metrics-push` and `--metrics-listen` around a run: the export
//! started before it (a port that cannot be bound is a usage error), fed
//! each merged second by [`super::progress::Progress`], finished after the
//! report is out, with a line on stderr for what did not get through.
//! The report and the exit code never depend on it.

use crate::args::metrics::MetricsArgs;
use crate::failure::Failure;
use loadgen_metrics::totals::Workload;
use loadgen_metrics::{Exporter, Outcome};

pub fn start(args: &MetricsArgs, workload: Workload) -> Result<Option<Exporter>, Failure> {
    let Some(config) = args.config(workload) else {
        return Ok(None);
    };
    let exporter =
        Exporter::start(config).map_err(|e| Failure::usage(format!("--metrics-listen: {e}")))?;
    if let Some(address) = exporter.listening() {
        eprintln!("loadgen: metrics at http://{address}/metrics");
    }
    Ok(Some(exporter))
}

pub fn finish(exporter: Exporter, linger: std::time::Duration) {
    for line in shortfalls(&exporter.finish(), linger) {
        eprintln!("loadgen: {line}");
    }
}

fn shortfalls(outcome: &Outcome, linger: std::time::Duration) -> Vec<String> {
    let mut lines = Vec::new();
    for (url, stats) in &outcome.pushes {
        if stats.failed == 0 && stats.dropped == 0 && stats.last_sent {
            continue;
        }
        let mut line = format!(
            "--metrics-push {url}: {} pushes sent, {} failed, {} dropped unsent, {} retries",
            stats.sent, stats.failed, stats.dropped, stats.retries
        );
        if !stats.last_sent {
            line.push_str("; the final values did not get through");
        }
        if let Some(error) = &stats.last_error {
            line.push_str(&format!(" (last error: {error})"));
        }
        lines.push(line);
    }
    if outcome.last_scraped == Some(false) {
        lines.push(format!(
            "--metrics-listen: no scrape fetched the final values within --metrics-linger {}",
            loadgen_core::duration::HumanDuration(linger)
        ));
    }
    lines
}
