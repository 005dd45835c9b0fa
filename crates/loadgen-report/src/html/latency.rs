//! The request-time spectrum: every run's corrected and raw request time
//! by percentile.

use super::chart::{Axis, LineChart, Series, Unit};
use super::spectrum::{curve, reach, Measure};
use super::RunInput;

pub fn section(runs: &[RunInput]) -> String {
    let limit = runs
        .iter()
        .map(|r| reach(r.report.request_time.count))
        .fold(1.0, f64::max);
    let mut chart = LineChart::new(
        "Request time by percentile",
        Axis::new("percentile", Unit::Nines).with_range(0.0, limit),
        Axis::new("request time (ms)", Unit::Latency),
    );
    for (i, run) in runs.iter().enumerate() {
        let name = |what: &str| {
            if runs.len() == 1 {
                what.to_string()
            } else {
                format!("{}: {what}", run.label)
            }
        };
        let corrected = curve(&run.report, Measure::RequestTime, limit);
        let raw = curve(&run.report, Measure::RequestTimeRaw, limit);
        if corrected.is_empty() {
            continue;
        }
        chart.series.push(Series::new(
            &name("corrected"),
            colour(runs, i, 0),
            corrected,
        ));
        chart
            .series
            .push(Series::new(&name("raw (from the send)"), colour(runs, i, 1), raw).dashed());
    }
    if chart.series.is_empty() {
        return "<h2 id=\"latency\">Request time</h2><p class=\"note\">No response was \
                measured.</p>"
            .to_string();
    }
    format!(
        "<h2 id=\"latency\">Request time</h2>\n<p class=\"note\">Corrected: from each \
         request's intended start (the same as raw in the closed model); raw: from its \
         actual send. The x axis is logarithmic in nines: each step to the right is ten \
         times rarer.</p>{}",
        chart.render()
    )
}

/// One colour per run when runs are compared (raw dashed in it), else one
/// per series.
fn colour(runs: &[RunInput], run: usize, series: usize) -> usize {
    if runs.len() == 1 {
        series
    } else {
        run
    }
}
