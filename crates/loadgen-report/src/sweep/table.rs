//! A sweep's points as the terminal shows them and as CSV rows, one per
//! point, the way h2load-benchmarks charts its batches.

use super::{Dimension, PointSummary, Spread};
use crate::units::{dtos, duration_us};
use std::fmt::Write;

fn value_text(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value}")
    }
}

/// The table printed after a sweep: each point's median with its min and
/// max over the runs, beside the medians of its succeeded responses per
/// second, errors and failed requests.
pub fn text(dimension: Dimension, points: &[PointSummary]) -> String {
    let runs = points.iter().map(|p| p.runs).max().unwrap_or(0);
    let mut out = format!(
        "sweep over {} ({}): {} point{}, {} run(s) each; median [min .. max] over the runs\n",
        dimension.flag(),
        dimension.name(),
        points.len(),
        if points.len() == 1 { "" } else { "s" },
        runs
    );
    let rate = |s: &Spread| format!("{} [{} .. {}]", dtos(s.median), dtos(s.min), dtos(s.max));
    let time = |s: &Spread| {
        format!(
            "{} [{} .. {}]",
            duration_us(s.median),
            duration_us(s.min),
            duration_us(s.max)
        )
    };
    let mut rows = vec![[
        dimension.name().to_string(),
        "req/s".to_string(),
        "succeeded req/s".to_string(),
        "p50".to_string(),
        "p99".to_string(),
        "errors".to_string(),
        "failed".to_string(),
    ]];
    rows.extend(points.iter().map(|p| {
        [
            value_text(p.value),
            rate(&p.req_per_s),
            dtos(p.succeeded_per_s.median),
            time(&p.p50_us),
            time(&p.p99_us),
            value_text(p.errors.median),
            value_text(p.failed.median),
        ]
    }));
    // Each column as wide as its widest cell, right-aligned.
    let mut widths = [10, 30, 15, 28, 28, 8, 8];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:>width$}"))
            .collect();
        let _ = writeln!(out, "{}", cells.join("  "));
    }
    out.push_str(
        "req/s: every response; succeeded: 2xx/3xx; errors: connect, TLS, protocol, reset, \
         timeouts; failed: 4xx/5xx responses and errors\n",
    );
    out
}

/// CSV with a header: the swept value, the number of runs, then median,
/// min, max and p95 of req/s, p50, p99 (µs), errors, failed and succeeded
/// req/s.
pub fn csv(dimension: Dimension, points: &[PointSummary]) -> String {
    let mut out = format!("{},runs", dimension.name());
    for figure in super::FIGURES.map(|f| f.0) {
        for stat in ["median", "min", "max", "p95"] {
            let _ = write!(out, ",{figure}_{stat}");
        }
    }
    out.push('\n');
    for p in points {
        let _ = write!(out, "{},{}", value_text(p.value), p.runs);
        let figures = [
            &p.req_per_s,
            &p.p50_us,
            &p.p99_us,
            &p.errors,
            &p.failed,
            &p.succeeded_per_s,
        ];
        for s in figures {
            let _ = write!(out, ",{},{},{},{}", s.median, s.min, s.max, s.p95);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(value: f64) -> PointSummary {
        let s = |v: f64| Spread {
            median: v,
            min: v - 1.0,
            max: v + 1.0,
            p95: v + 1.0,
        };
        PointSummary {
            value,
            runs: 3,
            req_per_s: s(1000.0),
            p50_us: s(500.0),
            p99_us: s(1500.0),
            errors: s(0.0),
            failed: s(250.0),
            succeeded_per_s: s(750.0),
        }
    }

    #[test]
    fn csv_has_one_row_per_point() {
        let text = csv(Dimension::Clients, &[point(2.0), point(4.0)]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("clients,runs,req_per_s_median,req_per_s_min,"));
        assert_eq!(lines[0].split(',').count(), 26);
        assert!(lines[0].ends_with(
            ",failed_median,failed_min,failed_max,failed_p95,succeeded_req_per_s_median,\
             succeeded_req_per_s_min,succeeded_req_per_s_max,succeeded_req_per_s_p95"
        ));
        assert!(lines[2].starts_with("4,3,1000,999,1001,1001,500,"));
        assert!(lines[2].ends_with(",250,249,251,251,750,749,751,751"));
    }

    #[test]
    fn the_table_names_the_dimension() {
        let table = text(Dimension::Rate, &[point(100.0)]);
        assert!(table.starts_with("sweep over --rate (rate_per_s): 1 point, 3 run(s) each"));
        assert!(table.contains("1000.00 [999.00 .. 1001.00]"));
        let header = table.lines().nth(1).unwrap();
        let columns: Vec<&str> = header.split("  ").filter(|c| !c.is_empty()).collect();
        let columns: Vec<&str> = columns.iter().map(|c| c.trim()).collect();
        assert_eq!(
            columns,
            [
                "rate_per_s",
                "req/s",
                "succeeded req/s",
                "p50",
                "p99",
                "errors",
                "failed"
            ]
        );
        let row = table.lines().nth(2).unwrap();
        assert!(row.contains("  750.00  "), "{table}");
        assert!(row.ends_with("  250"), "{table}");
    }

    #[test]
    fn the_columns_line_up_under_a_long_name_and_wide_figures() {
        let mut wide = point(16.0);
        wide.req_per_s.max = 123_456_789.125;
        let table = text(Dimension::Streams, &[point(1.0), wide]);
        let lines: Vec<&str> = table.lines().skip(1).take(3).collect();
        assert!(lines[0].starts_with("max_concurrent_streams  "));
        // Every column ends where its header ends.
        let ends = |line: &str| -> Vec<usize> {
            let mut ends = Vec::new();
            for (i, pair) in line.as_bytes().windows(2).enumerate() {
                if pair[0] != b' ' && pair[1] == b' ' && line[i + 1..].starts_with("  ") {
                    ends.push(i);
                }
            }
            ends.push(line.len() - 1);
            ends
        };
        for line in &lines[1..] {
            assert_eq!(line.len(), lines[0].len(), "{table}");
            assert_eq!(ends(line), ends(lines[0]), "{table}");
        }
    }
}
