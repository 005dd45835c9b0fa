//! A scenario run's steps and checks: each step's figures and its duration
//! by percentile, each check's pass rate, and the iterations.

use super::chart::{Axis, LineChart, Series, Unit};
use super::page::{cell, escape, name_cell, text_cell, Table};
use super::spectrum::{histogram_curve, reach};
use super::summary::ms;
use super::RunInput;
use loadgen_core::histogram_codec;
use loadgen_core::report::scenario::{ScenarioReport, StepReport};
use loadgen_core::report::TimeStats;

/// A step's duration by percentile: from its histogram when the report
/// carries one, else from its percentiles.
fn step_curve(step: &StepReport, limit: f64) -> Vec<(f64, f64)> {
    let histogram = step
        .histograms
        .as_ref()
        .and_then(|h| histogram_codec::decode(&h.duration).ok());
    match histogram {
        Some(h) => histogram_curve(&h, limit),
        None => super::spectrum::stats_curve(&step.duration, limit),
    }
}

fn steps_table(s: &ScenarioReport) -> String {
    let rows = s
        .steps
        .iter()
        .map(|step| {
            let d: &TimeStats = &step.duration;
            vec![
                name_cell(&step.name),
                cell("requests.started", &step.requests.started.to_string()),
                cell("requests.succeeded", &step.requests.succeeded.to_string()),
                cell("requests.failed", &step.requests.failed.to_string()),
                cell("requests.errored", &step.requests.errored.to_string()),
                cell("duration.p50_us", &ms(d.p50_us)),
                cell("duration.p99_us", &ms(d.p99_us)),
                cell("duration.max_us", &ms(d.max_us)),
                cell("redirects", &step.redirects.to_string()),
                cell("extraction_failures", &step.extraction_failures.to_string()),
            ]
        })
        .collect();
    Table {
        class: "steps",
        head: [
            "step",
            "started",
            "succeeded",
            "failed",
            "errored",
            "p50",
            "p99",
            "max",
            "redirects",
            "extractions failed",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
    .render()
}

fn checks_table(s: &ScenarioReport) -> String {
    let rows = s
        .checks
        .iter()
        .map(|c| {
            let rate = c.rate() * 100.0;
            let class = if c.fails == 0 { "pass" } else { "fail" };
            vec![
                name_cell(&c.step),
                text_cell(&c.name),
                cell("passes", &c.passes.to_string()),
                cell("fails", &c.fails.to_string()),
                format!(r#"<td class="{class}" data-field="rate">{rate:.2}%</td>"#),
            ]
        })
        .collect();
    Table {
        class: "checks",
        head: ["step", "check", "passes", "fails", "pass rate"]
            .map(String::from)
            .to_vec(),
        rows,
    }
    .render()
}

fn iterations_table(s: &ScenarioReport) -> String {
    let mut rows: Vec<Vec<String>> = s
        .scenarios
        .iter()
        .map(|e| {
            vec![
                name_cell(&e.name),
                text_cell(&e.executor),
                cell("iterations.completed", &e.iterations.completed.to_string()),
                cell("iterations.aborted", &e.iterations.aborted.to_string()),
                cell(
                    "iterations.interrupted",
                    &e.iterations.interrupted.to_string(),
                ),
                cell("iterations.dropped", &e.iterations.dropped.to_string()),
                cell("vus_max", &e.vus_max.to_string()),
            ]
        })
        .collect();
    let all = &s.iterations;
    rows.push(vec![
        name_cell("all"),
        text_cell(""),
        cell("iterations.completed", &all.completed.to_string()),
        cell("iterations.aborted", &all.aborted.to_string()),
        cell("iterations.interrupted", &all.interrupted.to_string()),
        cell("iterations.dropped", &all.dropped.to_string()),
        cell("vus_max", &s.vus_max.to_string()),
    ]);
    Table {
        class: "iterations",
        head: [
            "scenario",
            "executor",
            "completed",
            "aborted",
            "interrupted",
            "dropped",
            "most VUs",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
    .render()
}

fn steps_chart(s: &ScenarioReport) -> Option<String> {
    let limit = s
        .steps
        .iter()
        .map(|step| reach(step.duration.count))
        .fold(1.0, f64::max);
    let mut chart = LineChart::new(
        "Step duration by percentile",
        Axis::new("percentile", Unit::Nines).with_range(0.0, limit),
        Axis::new("step duration (ms)", Unit::Latency),
    );
    for (i, step) in s.steps.iter().enumerate() {
        let points = step_curve(step, limit);
        if !points.is_empty() {
            chart.series.push(Series::new(&step.name, i, points));
        }
    }
    (!chart.series.is_empty()).then(|| chart.render())
}

/// A scenario run's steps while it runs, from the seconds so far: each
/// step's responses and duration, and the chart of its durations; its
/// checks and iterations are counted at the end. Nothing for other runs.
pub(super) fn live_section(report: &loadgen_core::Report) -> String {
    let Some(s) = &report.scenario else {
        return String::new();
    };
    let rows = s
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let field = |name: &str| format!("scenario.steps.{i}.{name}");
            let d = &step.duration;
            vec![
                format!(
                    r#"<td class="name" data-field="{}">{}</td>"#,
                    escape(&field("name")),
                    escape(&step.name)
                ),
                cell(&field("duration.count"), &d.count.to_string()),
                cell(&field("duration.p50_us"), &ms(d.p50_us)),
                cell(&field("duration.p99_us"), &ms(d.p99_us)),
                cell(&field("duration.max_us"), &ms(d.max_us)),
            ]
        })
        .collect();
    let table = Table {
        class: "live-steps",
        head: ["step", "responses", "p50", "p99", "max"]
            .map(String::from)
            .to_vec(),
        rows,
    };
    format!(
        "<h2 id=\"scenario\">Scenario steps</h2>\n<p class=\"note\">From the seconds merged so \
         far: each step's responses and duration, from its intended start to its last \
         response. Checks and iterations are counted in the finished report.</p>{}{}",
        table.render(),
        steps_chart(s).unwrap_or_default()
    )
}

/// Nothing for runs that were not scenario runs.
pub fn section(runs: &[RunInput]) -> String {
    let mut html = String::new();
    for run in runs {
        let Some(s) = &run.report.scenario else {
            continue;
        };
        if html.is_empty() {
            html.push_str(
                "<h2 id=\"scenario\">Scenario</h2>\n<p class=\"note\">A step is one request \
                 and the redirects it follows; its duration runs from its intended start to \
                 its last response. Checks count each evaluation.</p>",
            );
        }
        if runs.len() > 1 {
            html.push_str(&format!("<h3>{}</h3>", escape(&run.label)));
        }
        html.push_str(&iterations_table(s));
        html.push_str(&format!(
            "<p class=\"note\">Iteration duration: p50 {}, p99 {}, max {}.</p>",
            ms(s.iteration_duration.p50_us),
            ms(s.iteration_duration.p99_us),
            ms(s.iteration_duration.max_us)
        ));
        html.push_str(&steps_table(s));
        html.extend(steps_chart(s));
        if !s.checks.is_empty() {
            html.push_str(&checks_table(s));
        }
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{render, RunInput};
    use loadgen_core::recorder::Recorder;
    use loadgen_core::report::scenario::{CheckCounts, ExecutorReport, IterationCounts};
    use loadgen_core::Report;
    use std::time::Duration;

    fn step(name: &str, durations_ms: &[u64]) -> StepReport {
        let mut r = Recorder::new();
        for ms in durations_ms {
            let d = Duration::from_millis(*ms);
            r.record_request_times(d.as_micros() as u64, d.as_micros() as u64);
            r.outcomes.started += 1;
            r.outcomes.status_success += 1;
        }
        StepReport::of(name, &r, 0, 0).with_histograms(&r)
    }

    #[test]
    fn a_scenario_report_gets_its_steps_checks_and_iterations() {
        let text = include_str!("../../tests/data/report.json");
        let mut report: Report = serde_json::from_str(text).unwrap();
        let iterations = IterationCounts {
            completed: 9,
            aborted: 1,
            interrupted: 0,
            dropped: 0,
        };
        report.scenario = Some(ScenarioReport {
            scenarios: vec![ExecutorReport {
                name: "browse".into(),
                executor: "constant-vus".into(),
                iterations,
                vus_max: 2,
            }],
            iterations,
            vus_max: 2,
            steps: vec![step("home", &[3, 4, 5, 40]), step("login", &[8, 9, 12])],
            checks: vec![CheckCounts {
                step: "login".into(),
                name: "status_in [200]".into(),
                passes: 9,
                fails: 1,
            }],
            ..ScenarioReport::default()
        });
        let run = RunInput {
            label: "scenario".into(),
            report,
            thresholds: Vec::new(),
            workers: Vec::new(),
        };
        let page = render(&[run]);
        assert!(page.contains("<h2 id=\"scenario\">"));
        assert!(page.contains("<table class=\"steps\">"));
        assert!(page.contains("<td class=\"name\">login</td>"));
        assert!(page.contains("<td class=\"fail\" data-field=\"rate\">90.00%</td>"));
        assert!(page.contains("Step duration by percentile"));
        assert!(page.contains("<path class=\"series\" d=\"M"));
        assert!(page.contains("<td data-field=\"iterations.aborted\">1</td>"));
    }
}
