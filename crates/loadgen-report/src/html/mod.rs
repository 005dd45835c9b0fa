//! The HTML report: one self-contained page with a run's (or several
//! runs') figures and charts, drawn as inline SVG by [`chart`], with no
//! script and nothing fetched, so it reads the same offline.
//!
//! The page is a list of sections, each a function of the runs shown; a
//! section draws only what the reports hold (a report without histograms
//! gets its spectra from its percentiles; the scenario section needs the
//! report's `scenario`, the workers section a distributed run's workers). Two or more runs are overlaid,
//! the first as the baseline of a diff table.

mod chart;
pub mod dashboard;
mod details;
mod latency;
mod outcomes;
mod page;
mod phases;
mod scenario;
mod server;
pub mod spectrum;
mod summary;
mod sweep;
mod timeline;
mod workers;

pub use sweep::{render_sweep, SweepPage};
pub use workers::WorkerPart;

use crate::threshold::ThresholdResult;
use loadgen_core::Report;
use serde_json::Value;

/// One run on the page.
#[derive(Clone, Debug)]
pub struct RunInput {
    /// How the page names the run: a file name, `run`, `merged`.
    pub label: String,
    pub report: Report,
    pub thresholds: Vec<ThresholdRow>,
    /// A distributed run's workers; empty for a run on one machine.
    pub workers: Vec<WorkerPart>,
}

/// A `--threshold` verdict as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ThresholdRow {
    pub expression: String,
    pub passed: bool,
    pub actual: String,
    /// No verdict yet: a live page's threshold that the seconds so far
    /// cannot judge (`actual` says why).
    pub pending: bool,
}

impl ThresholdRow {
    pub fn of(result: &ThresholdResult) -> ThresholdRow {
        ThresholdRow {
            expression: result.expression.clone(),
            passed: result.passed,
            actual: result.actual.clone(),
            pending: false,
        }
    }

    /// A threshold not judged yet, and why.
    pub fn pending(expression: &str, why: &str) -> ThresholdRow {
        ThresholdRow {
            expression: expression.to_string(),
            passed: false,
            actual: why.to_string(),
            pending: true,
        }
    }

    /// The `thresholds` array of a JSON report, as written with it.
    pub fn read_all(document: &Value) -> Vec<ThresholdRow> {
        let Some(items) = document.get("thresholds").and_then(Value::as_array) else {
            return Vec::new();
        };
        items
            .iter()
            .map(|t| ThresholdRow {
                expression: t["expression"].as_str().unwrap_or_default().to_string(),
                passed: t["passed"].as_bool() == Some(true),
                actual: t["actual"].as_str().unwrap_or_default().to_string(),
                pending: false,
            })
            .collect()
    }
}

/// The sections of a run's page, in order.
const SECTIONS: &[fn(&[RunInput]) -> String] = &[
    summary::summary,
    summary::diff,
    latency::section,
    timeline::section,
    server::section,
    outcomes::section,
    phases::section,
    scenario::section,
    workers::section,
    details::section,
];

/// The page for `runs` (at least one), the first the baseline.
pub fn render(runs: &[RunInput]) -> String {
    assert!(!runs.is_empty(), "a page shows at least one run");
    let title = match runs {
        [one] => format!("loadgen report: {}", one.report.config.uris.join(" ")),
        many => format!("loadgen: {} runs compared", many.len()),
    };
    let mut body = format!(
        "<h1>{}</h1>\n<p class=\"lead\">{}</p>\n",
        page::escape(&title),
        page::escape(&lead(runs))
    );
    for section in SECTIONS {
        body.push_str(&section(runs));
        body.push('\n');
    }
    page::document(&title, &body)
}

fn lead(runs: &[RunInput]) -> String {
    runs.iter()
        .map(|r| {
            format!(
                "{}: {} to {}, {} clients, {} model, {}",
                r.label,
                r.report.started_at,
                r.report.ended_at,
                r.report.config.clients,
                r.report.config.load_model,
                r.report
                    .application_protocol
                    .as_deref()
                    .unwrap_or("no connection")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
