//! The page of a sweep (or a knee search): throughput against latency over
//! the points, each point's request-time spectrum, the points' table and,
//! for a knee search, the probes and what they found.

use super::chart::{Axis, LineChart, Series, Unit};
use super::page::{self, cell, escape, name_cell, Table};
use super::spectrum::{histogram_curve, reach};
use super::summary::ms;
use crate::sweep::knee::{Knee, Probe};
use crate::sweep::{Dimension, PointSummary};
use hdrhistogram::Histogram;

pub struct SweepPage<'a> {
    pub title: String,
    pub dimension: Dimension,
    pub points: &'a [PointSummary],
    /// Each point's request time (corrected), its runs added up.
    pub histograms: &'a [Histogram<u64>],
    /// For a knee search: the objectives, the probes and the knee.
    pub knee: Option<(Vec<String>, Vec<Probe>, Knee)>,
}

fn value_label(dimension: Dimension, value: f64) -> String {
    match dimension {
        Dimension::Clients => format!("-c {value}"),
        Dimension::Streams => format!("-m {value}"),
        Dimension::Rate => format!("--rate {value}"),
    }
}

fn throughput_chart(page: &SweepPage) -> String {
    let mut chart = LineChart::new(
        "Throughput against latency",
        Axis::new("responses per second (median of the runs)", Unit::PerSecond),
        Axis::new("request time (ms)", Unit::Latency),
    );
    let high = page
        .points
        .iter()
        .map(|p| p.req_per_s.max)
        .fold(0.0, f64::max);
    chart.x = chart.x.with_range(0.0, high.max(1.0));
    // In the order of the swept value, which a knee search probes out of order.
    let mut ordered: Vec<&PointSummary> = page.points.iter().collect();
    ordered.sort_by(|a, b| a.value.total_cmp(&b.value));
    let line =
        |f: fn(&PointSummary) -> f64| ordered.iter().map(|p| (p.req_per_s.median, f(p))).collect();
    chart
        .series
        .push(Series::new("p50 (median)", 0, line(|p| p.p50_us.median)));
    chart
        .series
        .push(Series::new("p99 (median)", 1, line(|p| p.p99_us.median)));
    chart
        .series
        .push(Series::new("p99 (worst run)", 1, line(|p| p.p99_us.max)).dashed());
    chart.render()
}

fn spectrum_chart(page: &SweepPage) -> String {
    let limit = page
        .histograms
        .iter()
        .map(|h| reach(h.len()))
        .fold(1.0, f64::max);
    let mut chart = LineChart::new(
        "Request time by percentile, per point",
        Axis::new("percentile", Unit::Nines).with_range(0.0, limit),
        Axis::new("request time (ms)", Unit::Latency),
    );
    for (i, (point, h)) in page.points.iter().zip(page.histograms).enumerate() {
        let points = histogram_curve(h, limit);
        if !points.is_empty() {
            chart.series.push(Series::new(
                &value_label(page.dimension, point.value),
                i,
                points,
            ));
        }
    }
    if chart.series.is_empty() {
        return "<p class=\"note\">No response was measured.</p>".to_string();
    }
    chart.render()
}

fn points_table(page: &SweepPage) -> String {
    let name = page.dimension.name();
    let rows = page
        .points
        .iter()
        .map(|p| {
            vec![
                name_cell(&value_label(page.dimension, p.value)),
                cell("runs", &p.runs.to_string()),
                cell("req_per_s.median", &format!("{:.2}", p.req_per_s.median)),
                cell("req_per_s.min", &format!("{:.2}", p.req_per_s.min)),
                cell("req_per_s.max", &format!("{:.2}", p.req_per_s.max)),
                cell("req_per_s.p95", &format!("{:.2}", p.req_per_s.p95)),
                cell("p50_us.median", &ms(p.p50_us.median as u64)),
                cell("p99_us.median", &ms(p.p99_us.median as u64)),
                cell("p99_us.max", &ms(p.p99_us.max as u64)),
                cell(
                    "succeeded_req_per_s.median",
                    &format!("{:.2}", p.succeeded_per_s.median),
                ),
                cell("errors.median", &format!("{}", p.errors.median)),
                cell("failed.median", &format!("{}", p.failed.median)),
            ]
        })
        .collect();
    Table {
        class: "points",
        head: [
            name,
            "runs",
            "req/s median",
            "min",
            "max",
            "p95",
            "p50 median",
            "p99 median",
            "p99 max",
            "succeeded req/s median",
            "errors median",
            "failed (4xx/5xx, errors) median",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
    .render()
}

fn knee_section(objectives: &[String], probes: &[Probe], knee: &Knee) -> String {
    let found = match knee {
        Knee::Between { passed, failed } => format!(
            "The highest rate that met every objective: {passed:.1} req/s ({failed:.1} req/s \
             did not)."
        ),
        Knee::BelowRange { low } => {
            format!("Even the lowest rate, {low} req/s, missed an objective.")
        }
        Knee::AboveRange { high } => {
            format!("Even the highest rate, {high} req/s, met every objective.")
        }
    };
    let rows = probes
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let verdict = if p.passed {
                r#"<td class="pass">met</td>"#
            } else {
                r#"<td class="fail">missed</td>"#
            };
            vec![
                name_cell(&(i + 1).to_string()),
                cell("rate_per_s", &format!("{:.1}", p.rate)),
                verdict.to_string(),
            ]
        })
        .collect();
    format!(
        "<h2 id=\"knee\">Knee</h2>\n<p class=\"lead\">{}</p><p class=\"note\">Objectives: {}. \
         Probes in the order they ran:</p>{}",
        escape(&found),
        escape(&objectives.join(", ")),
        Table {
            class: "probes",
            head: ["probe", "rate (req/s)", "objectives"]
                .map(String::from)
                .to_vec(),
            rows,
        }
        .render()
    )
}

pub fn render_sweep(page: &SweepPage) -> String {
    let mut body = format!(
        "<h1>{}</h1>\n<p class=\"lead\">{} points over {}, median of each point's runs.</p>\n",
        escape(&page.title),
        page.points.len(),
        page.dimension.flag()
    );
    if let Some((objectives, probes, knee)) = &page.knee {
        body.push_str(&knee_section(objectives, probes, knee));
    }
    body.push_str("<h2 id=\"curve\">Throughput and latency</h2>\n");
    body.push_str(&throughput_chart(page));
    body.push_str(&spectrum_chart(page));
    body.push_str("<h2 id=\"points\">Points</h2>\n");
    body.push_str(&points_table(page));
    page::document(&page.title, &body)
}
