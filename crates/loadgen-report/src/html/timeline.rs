//! The run second by second, from its `intervals`: responses and errors per
//! second, and p50 and p99 of the request time, with the warm-up, the
//! ramps and the stages marked.

use super::chart::{Axis, Band, LineChart, Mark, Series, Unit};
use super::RunInput;
use loadgen_core::interval::IntervalRow;
use loadgen_core::Report;

/// Each row as a flat step over its window: `(start, y)`, `(end, y)`.
pub fn steps(rows: &[IntervalRow], y: impl Fn(&IntervalRow) -> f64) -> Vec<(f64, f64)> {
    rows.iter()
        .flat_map(|row| {
            let value = y(row);
            [(row.start_s, value), (row.start_s + row.duration_s, value)]
        })
        .collect()
}

pub fn per_second(count: u64, row: &IntervalRow) -> f64 {
    if row.duration_s > 0.0 {
        count as f64 / row.duration_s
    } else {
        0.0
    }
}

/// The warm-up before measuring began, which no row covers.
fn warm_up_band(report: &Report) -> Option<Band> {
    let warm_up = report.config.warm_up_s.filter(|w| *w > 0.0)?;
    Some(Band {
        from: -warm_up,
        to: 0.0,
        label: "warm-up (not recorded)".to_string(),
    })
}

/// Where the load curve changes course, on the measured clock.
fn profile_marks(report: &Report) -> Vec<Mark> {
    let pieces = &report.config.load_profile;
    let warm_up = report.config.warm_up_s.unwrap_or(0.0);
    let unit = match report.config.load_model.as_str() {
        "open" => "req/s",
        // A scenario run's curve is its one scenario's.
        "scenario" => match report.scenario.as_ref().and_then(|s| s.scenarios.first()) {
            Some(s) if s.executor.ends_with("arrival-rate") => "iterations/s",
            _ => "VUs",
        },
        _ => "clients",
    };
    let ramp = pieces.len() == 2 && pieces[1].duration_s.is_none() && pieces[0].from == 0.0;
    let mut marks = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        let Some(length) = piece.duration_s else {
            if ramp {
                marks.push(Mark {
                    at: piece.start_s - warm_up,
                    label: format!("ramp-up done: {} {unit}", piece.from),
                });
            }
            continue;
        };
        if ramp || length == 0.0 {
            continue;
        }
        marks.push(Mark {
            at: piece.start_s - warm_up,
            label: format!("stage {}: to {} {unit}", i + 1, piece.to),
        });
    }
    marks.retain(|m| m.at > 0.0 || m.at == 0.0 && warm_up > 0.0);
    marks
}

/// The open model's planned rate, to read against what the server did.
fn target_rate(report: &Report) -> Option<Vec<(f64, f64)>> {
    if report.config.load_model != "open" || report.config.load_profile.is_empty() {
        return None;
    }
    let warm_up = report.config.warm_up_s.unwrap_or(0.0);
    let end = report.elapsed_s;
    let mut points = Vec::new();
    for piece in &report.config.load_profile {
        let start = piece.start_s - warm_up;
        let stop = piece.duration_s.map_or(end, |d| start + d).min(end);
        if stop < -warm_up || start > end {
            continue;
        }
        points.push((start.max(-warm_up), piece.from));
        let to = match piece.duration_s {
            Some(d) if d > 0.0 => piece.from + (piece.to - piece.from) * (stop - start) / d,
            _ => piece.from,
        };
        points.push((stop, to));
    }
    Some(points)
}

pub fn section(runs: &[RunInput]) -> String {
    let baseline = &runs[0].report;
    let many = runs.len() > 1;
    let mut rate = LineChart::new(
        "Responses and errors per second",
        Axis::new("seconds since measuring began", Unit::Seconds),
        Axis::new("per second", Unit::PerSecond),
    );
    let mut latency = LineChart::new(
        "Request time per second: p50 and p99",
        Axis::new("seconds since measuring began", Unit::Seconds),
        Axis::new("request time (ms)", Unit::Latency),
    );
    for chart in [&mut rate, &mut latency] {
        chart.bands.extend(warm_up_band(baseline));
        chart.marks.extend(profile_marks(baseline));
    }
    for (i, run) in runs.iter().enumerate() {
        let rows = &run.report.intervals;
        if rows.is_empty() {
            continue;
        }
        let name = |what: &str| {
            if many {
                format!("{}: {what}", run.label)
            } else {
                what.to_string()
            }
        };
        let (c1, c2) = if many { (i, i) } else { (0, 1) };
        rate.series.push(Series::new(
            &name("responses/s"),
            c1,
            steps(rows, |r| r.req_per_s),
        ));
        rate.series.push(
            Series::new(
                &name("errors/s"),
                if many { i } else { 1 },
                steps(rows, |r| per_second(r.errors, r)),
            )
            .dashed(),
        );
        latency.series.push(Series::new(
            &name("p99"),
            c1,
            steps(rows, |r| r.p99_us as f64),
        ));
        latency
            .series
            .push(Series::new(&name("p50"), c2, steps(rows, |r| r.p50_us as f64)).dashed());
    }
    if let Some(target) = target_rate(baseline) {
        let colour = if many { runs.len() } else { 2 };
        rate.series
            .push(Series::new("planned rate", colour, target).dashed());
    }
    if rate.series.is_empty() {
        return "<h2 id=\"time\">Over time</h2><p class=\"note\">The run has no one-second \
                rows.</p>"
            .to_string();
    }
    format!(
        "<h2 id=\"time\">Over time</h2>\n<p class=\"note\">One step per second of the \
         measured part (the last may be shorter); a response or error counts in the second \
         it ended.</p>{}{}",
        rate.render(),
        latency.render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::profile::{parse_stages, Profile};

    fn report_with(profile: &Profile, load_model: &str, warm_up: f64) -> Report {
        let text = include_str!("../../tests/data/report.json");
        let mut report: Report = serde_json::from_str(text).unwrap();
        report.config.load_model = load_model.to_string();
        report.config.warm_up_s = Some(warm_up);
        report.config.load_profile = profile.pieces();
        report
    }

    #[test]
    fn stages_are_marked_on_the_measured_clock() {
        let stages = parse_stages("1s:300,1s:300,1s:0").unwrap();
        let report = report_with(&Profile::stages(100.0, &stages), "open", 0.5);
        let marks: Vec<(f64, String)> = profile_marks(&report)
            .into_iter()
            .map(|m| (m.at, m.label))
            .collect();
        assert_eq!(
            marks,
            [
                (0.5, "stage 2: to 300 req/s".to_string()),
                (1.5, "stage 3: to 0 req/s".to_string())
            ]
        );
        let band = warm_up_band(&report).unwrap();
        assert_eq!((band.from, band.to), (-0.5, 0.0));
    }

    #[test]
    fn a_ramp_is_marked_where_it_ends() {
        let report = report_with(
            &Profile::ramp(50.0, std::time::Duration::from_secs(2)),
            "closed",
            0.0,
        );
        let marks = profile_marks(&report);
        assert_eq!(marks.len(), 1);
        assert_eq!(marks[0].at, 2.0);
        assert_eq!(marks[0].label, "ramp-up done: 50 clients");
    }

    #[test]
    fn a_scenarios_stages_are_in_its_executors_unit() {
        use loadgen_core::report::scenario::{ExecutorReport, ScenarioReport};
        let stages = parse_stages("1s:10,2s:10").unwrap();
        let mut report = report_with(&Profile::stages(0.0, &stages), "scenario", 0.0);
        let mut labels = Vec::new();
        for executor in ["ramping-vus", "ramping-arrival-rate"] {
            report.scenario = Some(ScenarioReport {
                scenarios: vec![ExecutorReport {
                    name: "s".into(),
                    executor: executor.into(),
                    ..ExecutorReport::default()
                }],
                ..ScenarioReport::default()
            });
            let marks = profile_marks(&report);
            assert_eq!(marks.len(), 1);
            assert_eq!(marks[0].at, 1.0);
            labels.push(marks[0].label.clone());
        }
        assert_eq!(
            labels,
            ["stage 2: to 10 VUs", "stage 2: to 10 iterations/s"]
        );
    }
}
