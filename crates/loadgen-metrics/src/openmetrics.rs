//! The OpenMetrics text format (what `/metrics` serves): a `# TYPE`,
//! `# HELP` and `# UNIT` per family, counters as `_total`, gauges under
//! their name, histograms as
//! `_bucket`, `_count` and `_sum`, and `# EOF`.

use crate::buckets::{bounds_us, le_label};
use crate::snapshot::{Labels, Points, Snapshot};
use std::fmt::Write;

pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub fn render(snapshot: &Snapshot) -> String {
    let mut out = String::new();
    for family in &snapshot.families {
        let name = family.name;
        let kind = match family.points {
            Points::Counter(_) => "counter",
            Points::Gauge(_) => "gauge",
            Points::Histogram(_) => "histogram",
        };
        let _ = writeln!(out, "# TYPE {name} {kind}");
        if name.ends_with("_seconds") {
            let _ = writeln!(out, "# UNIT {name} seconds");
        }
        let _ = writeln!(out, "# HELP {name} {}", escape(family.help, false));
        match &family.points {
            Points::Counter(points) => {
                for (labels, value) in points {
                    series(&mut out, &format!("{name}_total"), labels, None, value);
                }
            }
            Points::Gauge(points) => {
                for (labels, value) in points {
                    series(&mut out, name, labels, None, value);
                }
            }
            Points::Histogram(points) => {
                for (labels, classic) in points {
                    let cumulative = classic.cumulative();
                    let les = bounds_us().iter().map(|b| le_label(*b));
                    let les = les.chain(std::iter::once("+Inf".to_string()));
                    for (le, count) in les.zip(&cumulative) {
                        series(
                            &mut out,
                            &format!("{name}_bucket"),
                            labels,
                            Some(&le),
                            count,
                        );
                    }
                    series(
                        &mut out,
                        &format!("{name}_count"),
                        labels,
                        None,
                        &classic.count,
                    );
                    series(
                        &mut out,
                        &format!("{name}_sum"),
                        labels,
                        None,
                        &classic.sum_seconds,
                    );
                }
            }
        }
    }
    out.push_str("# EOF\n");
    out
}

fn series(
    out: &mut String,
    name: &str,
    labels: &Labels,
    le: Option<&str>,
    value: &dyn std::fmt::Display,
) {
    out.push_str(name);
    let le = le.map(|le| ("le", le));
    let all = labels
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .chain(le);
    let mut first = true;
    for (key, value) in all {
        out.push(if first { '{' } else { ',' });
        first = false;
        let _ = write!(out, "{key}=\"{}\"", escape(value, true));
    }
    if !first {
        out.push('}');
    }
    let _ = writeln!(out, " {value}");
}

/// Backslash and newline escaped, and the double quote in a label value.
fn escape(text: &str, quote: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '"' if quote => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buckets::Classic;
    use crate::snapshot::Family;
    use std::time::SystemTime;

    #[test]
    fn families_render_as_openmetrics() {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        h.record(1_000).unwrap();
        let mut classic = Classic::default();
        classic.add(&h);
        let tags = vec![("run".to_string(), "a\"b".to_string())];
        let snapshot = Snapshot {
            started_at: SystemTime::UNIX_EPOCH,
            at: SystemTime::UNIX_EPOCH,
            last: true,
            families: vec![
                Family {
                    name: "loadgen_requests",
                    help: "Requests.",
                    unit: "{request}",
                    points: Points::Counter(vec![(tags.clone(), 7)]),
                },
                Family {
                    name: "loadgen_connections",
                    help: "Open.",
                    unit: "{connection}",
                    points: Points::Gauge(vec![(tags.clone(), 3)]),
                },
                Family {
                    name: "loadgen_request_duration_seconds",
                    help: "Time.",
                    unit: "s",
                    points: Points::Histogram(vec![(tags, classic)]),
                },
            ],
        };
        let text = render(&snapshot);
        assert!(text.contains("# TYPE loadgen_requests counter\n"));
        assert!(text.contains("loadgen_requests_total{run=\"a\\\"b\"} 7\n"));
        assert!(text.contains("# TYPE loadgen_connections gauge\n"));
        assert!(text.contains("loadgen_connections{run=\"a\\\"b\"} 3\n"));
        assert!(text.contains("# UNIT loadgen_request_duration_seconds seconds\n"));
        assert!(text
            .contains("loadgen_request_duration_seconds_bucket{run=\"a\\\"b\",le=\"0.0008\"} 0\n"));
        assert!(text
            .contains("loadgen_request_duration_seconds_bucket{run=\"a\\\"b\",le=\"0.001\"} 1\n"));
        assert!(text
            .contains("loadgen_request_duration_seconds_bucket{run=\"a\\\"b\",le=\"+Inf\"} 1\n"));
        assert!(text.contains("loadgen_request_duration_seconds_count{run=\"a\\\"b\"} 1\n"));
        assert!(text.contains("loadgen_request_duration_seconds_sum{run=\"a\\\"b\"} 0.001\n"));
        assert!(text.ends_with("# EOF\n"));
    }
}
