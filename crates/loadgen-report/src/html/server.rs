//! The server under test second by second (`--server-pid`,
//! `--server-cgroup`): its CPU % and memory, with each run's requests per
//! server CPU-second. Nothing when no run read a server.

use super::chart::{Axis, LineChart, Series, Unit};
use super::page::escape;
use super::timeline::steps;
use super::RunInput;

const MIB: f64 = 1024.0 * 1024.0;

pub fn section(runs: &[RunInput]) -> String {
    if runs.iter().all(|run| run.report.server.is_none()) {
        return String::new();
    }
    let mut cpu = LineChart::new(
        "Server CPU per second (100 = one core busy)",
        Axis::new("seconds since measuring began", Unit::Seconds),
        Axis::new("% of one core", Unit::Count),
    );
    let mut memory = LineChart::new(
        "Server memory (RSS) at the end of each second",
        Axis::new("seconds since measuring began", Unit::Seconds),
        Axis::new("MiB", Unit::Count),
    );
    let mut totals = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let Some(server) = &run.report.server else {
            continue;
        };
        totals.push(format!(
            "{}: {:.0} requests per server CPU-second, {:.2} s of CPU ({:.1}% of one core)",
            run.label, server.requests_per_cpu_s, server.cpu_s, server.cpu_pct
        ));
        let rows: Vec<_> = run
            .report
            .intervals
            .iter()
            .filter(|row| row.server.is_some())
            .cloned()
            .collect();
        cpu.series.push(Series::new(
            &run.label,
            i,
            steps(&rows, |r| r.server.as_ref().map_or(0.0, |s| s.cpu_pct)),
        ));
        memory.series.push(Series::new(
            &run.label,
            i,
            steps(&rows, |r| {
                r.server.as_ref().map_or(0.0, |s| s.rss_bytes as f64 / MIB)
            }),
        ));
    }
    format!(
        "<h2 id=\"server\">Server</h2>\n<p class=\"note\">{}</p>{}{}",
        escape(&totals.join("; ")),
        cpu.render(),
        memory.render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::server_usage::{IntervalServer, ServerStats};
    use loadgen_core::Report;

    #[test]
    fn only_runs_that_read_a_server_are_drawn() {
        let text = include_str!("../../tests/data/report.json");
        let mut report: Report = serde_json::from_str(text).unwrap();
        let run = |report: Report| RunInput {
            label: "run".to_string(),
            report,
            thresholds: Vec::new(),
            workers: Vec::new(),
        };
        assert_eq!(section(&[run(report.clone())]), "");
        report.server = Some(ServerStats {
            pids: vec![7],
            cgroup: None,
            cpu_s: 1.25,
            cpu_pct: 62.5,
            requests_per_cpu_s: 8000.0,
            cpu_us_per_request: 125.0,
            rss_bytes: 4 << 20,
            rss_max_bytes: 4 << 20,
            samples: 3,
            exited: Vec::new(),
        });
        for row in &mut report.intervals {
            row.server = Some(Box::new(IntervalServer {
                cpu_pct: 62.5,
                rss_bytes: 4 << 20,
            }));
        }
        let html = section(&[run(report)]);
        assert!(
            html.contains("8000 requests per server CPU-second"),
            "{html}"
        );
        assert_eq!(html.matches("<svg").count(), 2, "{html}");
    }
}
