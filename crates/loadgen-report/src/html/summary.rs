//! The figures at the top of the page, one column per run, and with two or
//! more runs the table of changes against the first.

use super::page::{cell, escape, name_cell, Table};
use super::RunInput;
use loadgen_core::Report;
use std::fmt::Write;

/// A figure of the summary: its label, its JSON path and how it is shown.
struct Figure {
    label: &'static str,
    field: &'static str,
    show: fn(&Report) -> String,
}

/// Latencies are shown in milliseconds to the microsecond, so the text
/// holds the report's exact integer.
pub fn ms(us: u64) -> String {
    format!("{:.3} ms", us as f64 / 1000.0)
}

const FIGURES: &[Figure] = &[
    Figure {
        label: "requests",
        field: "requests.total",
        show: |r| r.requests.total.to_string(),
    },
    Figure {
        label: "succeeded",
        field: "requests.succeeded",
        show: |r| r.requests.succeeded.to_string(),
    },
    Figure {
        label: "failed",
        field: "requests.failed",
        show: |r| r.requests.failed.to_string(),
    },
    Figure {
        label: "errored",
        field: "requests.errored",
        show: |r| r.requests.errored.to_string(),
    },
    Figure {
        label: "elapsed (s)",
        field: "elapsed_s",
        show: |r| format!("{:.3}", r.elapsed_s),
    },
    Figure {
        label: "req/s",
        field: "req_per_s",
        show: |r| format!("{:.2}", r.req_per_s),
    },
    Figure {
        label: "bytes/s",
        field: "throughput_bytes_per_s",
        show: |r| format!("{:.0}", r.throughput_bytes_per_s),
    },
    Figure {
        label: "p50",
        field: "request_time.p50_us",
        show: |r| ms(r.request_time.p50_us),
    },
    Figure {
        label: "p90",
        field: "request_time.p90_us",
        show: |r| ms(r.request_time.p90_us),
    },
    Figure {
        label: "p99",
        field: "request_time.p99_us",
        show: |r| ms(r.request_time.p99_us),
    },
    Figure {
        label: "p99.9",
        field: "request_time.p99_9_us",
        show: |r| ms(r.request_time.p99_9_us),
    },
    Figure {
        label: "max",
        field: "request_time.max_us",
        show: |r| ms(r.request_time.max_us),
    },
    Figure {
        label: "p99 raw",
        field: "request_time_raw.p99_us",
        show: |r| ms(r.request_time_raw.p99_us),
    },
    Figure {
        label: "connections",
        field: "connections",
        show: |r| r.connections.to_string(),
    },
];

pub fn summary(runs: &[RunInput]) -> String {
    let mut head = vec!["".to_string()];
    head.extend(runs.iter().map(|r| r.label.clone()));
    let rows = FIGURES
        .iter()
        .map(|f| {
            let mut row = vec![name_cell(f.label)];
            row.extend(runs.iter().map(|r| cell(f.field, &(f.show)(&r.report))));
            row
        })
        .collect();
    let table = Table {
        class: "summary",
        head,
        rows,
    };
    format!(
        "<h2 id=\"summary\">Summary</h2>\n<p class=\"note\">Request times are {} \
         (from each request's intended start under a fixed schedule), from HDR histograms \
         (three significant digits).</p>{}",
        corrected_or_not(runs),
        table.render()
    )
}

fn corrected_or_not(runs: &[RunInput]) -> &'static str {
    let scheduled = runs
        .iter()
        .any(|r| matches!(r.report.config.load_model.as_str(), "open" | "script"));
    if scheduled {
        "corrected for coordinated omission"
    } else {
        "from the send (closed model)"
    }
}

/// What the diff table compares, and which way is better.
struct Compared {
    label: &'static str,
    field: &'static str,
    value: fn(&Report) -> f64,
    show: fn(f64) -> String,
    higher_is_better: bool,
}

const COMPARED: &[Compared] = &[
    Compared {
        label: "req/s",
        field: "req_per_s",
        value: |r| r.req_per_s,
        show: |v| format!("{v:.2}"),
        higher_is_better: true,
    },
    Compared {
        label: "p50",
        field: "request_time.p50_us",
        value: |r| r.request_time.p50_us as f64,
        show: |v| ms(v as u64),
        higher_is_better: false,
    },
    Compared {
        label: "p99",
        field: "request_time.p99_us",
        value: |r| r.request_time.p99_us as f64,
        show: |v| ms(v as u64),
        higher_is_better: false,
    },
    Compared {
        label: "p99.9",
        field: "request_time.p99_9_us",
        value: |r| r.request_time.p99_9_us as f64,
        show: |v| ms(v as u64),
        higher_is_better: false,
    },
    Compared {
        label: "errors",
        field: "requests.errored",
        value: |r| r.requests.errored as f64,
        show: |v| format!("{v:.0}"),
        higher_is_better: false,
    },
];

/// The change from `baseline` to `value` in percent, and whether it is
/// better, worse or neither.
pub fn change(baseline: f64, value: f64, higher_is_better: bool) -> (String, &'static str) {
    if value == baseline {
        return ("0.0%".into(), "same");
    }
    let better = (value > baseline) == higher_is_better;
    let verdict = if better { "better" } else { "worse" };
    if baseline == 0.0 {
        return ("new (baseline 0)".into(), verdict);
    }
    let percent = (value - baseline) / baseline * 100.0;
    (format!("{percent:+.1}%"), verdict)
}

/// Nothing for a single run.
pub fn diff(runs: &[RunInput]) -> String {
    let Some((baseline, others)) = runs.split_first().filter(|(_, o)| !o.is_empty()) else {
        return String::new();
    };
    let mut head = vec!["".to_string(), format!("{} (baseline)", baseline.label)];
    for run in others {
        head.push(run.label.clone());
        head.push(format!("change ({})", run.label));
    }
    let rows = COMPARED
        .iter()
        .map(|c| {
            let base = (c.value)(&baseline.report);
            let mut row = vec![name_cell(c.label), cell(c.field, &(c.show)(base))];
            for run in others {
                let value = (c.value)(&run.report);
                let (text, verdict) = change(base, value, c.higher_is_better);
                row.push(cell(c.field, &(c.show)(value)));
                let mut marked = format!(
                    r#"<td class="{verdict}" data-change="{}">{}"#,
                    escape(c.field),
                    escape(&text)
                );
                if verdict != "same" {
                    let _ = write!(marked, " ({verdict})");
                }
                marked.push_str("</td>");
                row.push(marked);
            }
            row
        })
        .collect();
    let table = Table {
        class: "diff",
        head,
        rows,
    };
    format!(
        "<h2 id=\"diff\">Against the baseline</h2>\n<p class=\"note\">Each run against the \
         first; green is the better side (more req/s, lower latency, fewer errors).</p>{}",
        table.render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_name_the_better_side() {
        assert_eq!(change(100.0, 110.0, true), ("+10.0%".into(), "better"));
        assert_eq!(change(100.0, 110.0, false), ("+10.0%".into(), "worse"));
        assert_eq!(change(2000.0, 1500.0, false), ("-25.0%".into(), "better"));
        assert_eq!(
            change(0.0, 3.0, false),
            ("new (baseline 0)".into(), "worse")
        );
        assert_eq!(change(5.0, 5.0, true), ("0.0%".into(), "same"));
    }

    #[test]
    fn milliseconds_keep_every_microsecond() {
        assert_eq!(ms(1111), "1.111 ms");
        assert_eq!(ms(36), "0.036 ms");
    }
}
