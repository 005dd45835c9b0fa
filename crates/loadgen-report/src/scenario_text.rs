//! The end-of-test summary of a scenario run, laid out as k6's: thresholds
//! with ✓ and ✗, checks with their pass rates, HTTP figures with a line
//! per step, then execution and network. Latency lines show the corrected
//! figures (from each iteration's intended start) and, under arrival-rate
//! executors where they differ, the raw ones beside them.

use crate::threshold::Outcome;
use crate::units::duration_us;
use loadgen_core::report::scenario::ScenarioReport;
use loadgen_core::report::TimeStats;
use loadgen_core::Report;
use std::fmt::Write;

/// Dotted names line up their values at this column.
const NAME_WIDTH: usize = 40;

/// The summary; `thresholds` are each threshold's name and outcome.
pub fn render(report: &Report, thresholds: &[(String, Outcome)]) -> String {
    let mut out = String::new();
    let Some(scenario) = &report.scenario else {
        return out;
    };
    let rate = |count: u64| {
        if report.elapsed_s > 0.0 {
            count as f64 / report.elapsed_s
        } else {
            0.0
        }
    };
    if !thresholds.is_empty() {
        out.push_str("\n  █ THRESHOLDS\n\n");
        for (name, outcome) in thresholds {
            let mark = if outcome.passed { '✓' } else { '✗' };
            let _ = writeln!(out, "    {mark} {name}  {}", outcome.actual);
        }
    }
    out.push_str("\n  █ TOTAL RESULTS\n\n");
    let (passes, fails) = scenario
        .checks
        .iter()
        .fold((0, 0), |(p, f), c| (p + c.passes, f + c.fails));
    let total = passes + fails;
    if total > 0 {
        line(
            &mut out,
            4,
            "checks_total",
            &format!("{total:<8} {:.2}/s", rate(total)),
        );
        line(
            &mut out,
            4,
            "checks_succeeded",
            &format!("{} {passes} out of {total}", pct(passes, total)),
        );
        line(
            &mut out,
            4,
            "checks_failed",
            &format!("{} {fails} out of {total}", pct(fails, total)),
        );
        out.push('\n');
        let mut step = "";
        for check in &scenario.checks {
            if check.step != step {
                step = &check.step;
                let _ = writeln!(out, "    {step}");
            }
            let all = check.passes + check.fails;
            if check.fails == 0 {
                let _ = writeln!(out, "      ✓ {}", check.name);
            } else {
                let _ = writeln!(out, "      ✗ {}", check.name);
                let _ = writeln!(
                    out,
                    "       ↳  {}% — ✓ {} / ✗ {}",
                    (check.passes * 100).checked_div(all).unwrap_or(0),
                    check.passes,
                    check.fails
                );
            }
        }
        out.push('\n');
    }

    out.push_str("    HTTP\n");
    line(
        &mut out,
        4,
        "http_req_duration",
        &trend(&report.request_time),
    );
    for step in &scenario.steps {
        if step.requests.total == 0 {
            continue;
        }
        let name = format!("{{ step:{} }}", step.name);
        line(&mut out, 6, &name, &trend(&step.duration));
        if step.duration_raw.count > 0 && step.duration_raw != step.duration {
            line(
                &mut out,
                8,
                "raw (from the send)",
                &trend(&step.duration_raw),
            );
        }
    }
    let r = &report.requests;
    line(
        &mut out,
        4,
        "http_req_failed",
        &format!("{} {} out of {}", pct(r.failed, r.total), r.failed, r.total),
    );
    line(
        &mut out,
        4,
        "http_reqs",
        &format!("{:<8} {:.2}/s", r.done, rate(r.done)),
    );
    out.push('\n');

    out.push_str("    STEPS\n");
    step_table(&mut out, scenario);
    out.push('\n');

    out.push_str("    EXECUTION\n");
    line(
        &mut out,
        4,
        "iteration_duration",
        &trend(&scenario.iteration_duration),
    );
    let it = &scenario.iterations;
    line(
        &mut out,
        4,
        "iterations",
        &format!("{:<8} {:.2}/s", it.completed, rate(it.completed)),
    );
    if it.aborted > 0 {
        line(&mut out, 4, "iterations_aborted", &it.aborted.to_string());
    }
    if it.interrupted > 0 {
        line(
            &mut out,
            4,
            "iterations_interrupted",
            &it.interrupted.to_string(),
        );
    }
    if it.dropped > 0 {
        line(
            &mut out,
            4,
            "dropped_iterations",
            &format!("{:<8} {:.2}/s", it.dropped, rate(it.dropped)),
        );
    }
    line(&mut out, 4, "vus_max", &scenario.vus_max.to_string());
    for s in &scenario.scenarios {
        let _ = writeln!(
            out,
            "      {} ({}): {} complete, {} aborted, {} interrupted, {} dropped, {} VUs at most",
            s.name,
            s.executor,
            s.iterations.completed,
            s.iterations.aborted,
            s.iterations.interrupted,
            s.iterations.dropped,
            s.vus_max
        );
    }
    out.push('\n');

    out.push_str("    NETWORK\n");
    line(
        &mut out,
        4,
        "data_received",
        &format!(
            "{} {}/s",
            bytes(report.bytes.total as f64),
            bytes(rate(report.bytes.total))
        ),
    );
    line(
        &mut out,
        4,
        "data_sent",
        &format!(
            "{} {}/s",
            bytes(report.bytes.sent as f64),
            bytes(rate(report.bytes.sent))
        ),
    );
    line(&mut out, 4, "connections", &report.connections.to_string());
    if let Some(protocol) = &report.application_protocol {
        line(&mut out, 4, "protocol", protocol);
    }
    if report.interrupted {
        out.push_str("\n  The run was interrupted: the figures cover what happened until then.\n");
    }
    out
}

/// `name.....: value`, dotted to the value column.
fn line(out: &mut String, indent: usize, name: &str, value: &str) {
    let width = NAME_WIDTH.saturating_sub(indent);
    let dots = width.saturating_sub(name.chars().count()).max(3);
    let _ = writeln!(out, "{:indent$}{name}{}: {value}", "", ".".repeat(dots));
}

fn trend(t: &TimeStats) -> String {
    if t.count == 0 {
        return "no samples".into();
    }
    format!(
        "avg={} min={} med={} max={} p(90)={} p(95)={} p(99)={}",
        duration_us(t.mean_us),
        duration_us(t.min_us as f64),
        duration_us(t.p50_us as f64),
        duration_us(t.max_us as f64),
        duration_us(t.p90_us as f64),
        duration_us(t.p95_us as f64),
        duration_us(t.p99_us as f64)
    )
}

fn pct(part: u64, whole: u64) -> String {
    let value = if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    };
    format!("{value:.2}%")
}

/// Bytes in k6's decimal units: `6.2 kB`, `1.3 MB`.
fn bytes(n: f64) -> String {
    const UNITS: [(f64, &str); 3] = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")];
    for (size, unit) in UNITS {
        if n >= size {
            return format!("{:.1} {unit}", n / size);
        }
    }
    format!("{} B", n as u64)
}

/// Per step: requests, status classes, errors, redirects, failed extractions.
fn step_table(out: &mut String, scenario: &ScenarioReport) {
    let width = scenario
        .steps
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "      {:width$}  {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9}",
        "step", "requests", "2xx", "3xx", "4xx", "5xx", "errors", "redirects", "no value"
    );
    for step in &scenario.steps {
        let s = &step.status_codes;
        let _ = writeln!(
            out,
            "      {:width$}  {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9}",
            step.name,
            step.requests.total,
            s.class_2xx,
            s.class_3xx,
            s.class_4xx,
            s.class_5xx,
            step.requests.errored,
            step.redirects,
            step.extraction_failures
        );
    }
}
