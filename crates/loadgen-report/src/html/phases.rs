//! Connection phases: how long DNS lookups, TCP connects, TLS (or QUIC)
//! handshakes, whole connects and the first byte took, one sample per
//! connection, as spectra and as a table.

use super::chart::{Axis, LineChart, Series, Unit};
use super::page::{cell, name_cell, Table};
use super::spectrum::{curve, reach, Measure};
use super::summary::ms;
use super::RunInput;

const PHASES: [(Measure, &str); 5] = [
    (Measure::Dns, "dns_time"),
    (Measure::TcpConnect, "tcp_connect_time"),
    (Measure::TlsHandshake, "tls_handshake_time"),
    (Measure::Connect, "connect_time"),
    (Measure::FirstByte, "first_byte_time"),
];

pub fn section(runs: &[RunInput]) -> String {
    let many = runs.len() > 1;
    let limit = runs
        .iter()
        .map(|r| reach(r.report.connect_time.count))
        .fold(1.0, f64::max);
    let mut chart = LineChart::new(
        "Connection phases by percentile",
        Axis::new("percentile", Unit::Nines).with_range(0.0, limit),
        Axis::new("time (ms)", Unit::Latency),
    );
    let mut rows = Vec::new();
    let mut colour = 0;
    for run in runs {
        for (measure, field) in PHASES {
            let stats = measure.stats(&run.report);
            if stats.count == 0 {
                continue;
            }
            // Compared runs show the whole connect and the first byte only,
            // so the chart stays readable.
            if many && !matches!(measure, Measure::Connect | Measure::FirstByte) {
                continue;
            }
            let name = if many {
                format!("{}: {}", run.label, measure.name())
            } else {
                measure.name().to_string()
            };
            let points = curve(&run.report, measure, limit);
            chart.series.push(Series::new(&name, colour, points));
            colour += 1;
            rows.push(vec![
                name_cell(&name),
                cell(&format!("{field}.count"), &stats.count.to_string()),
                cell(&format!("{field}.min_us"), &ms(stats.min_us)),
                cell(&format!("{field}.p50_us"), &ms(stats.p50_us)),
                cell(&format!("{field}.p99_us"), &ms(stats.p99_us)),
                cell(&format!("{field}.max_us"), &ms(stats.max_us)),
            ]);
        }
    }
    if chart.series.is_empty() {
        return "<h2 id=\"phases\">Connection phases</h2><p class=\"note\">No connection was \
                made.</p>"
            .to_string();
    }
    let table = Table {
        class: "phases",
        head: ["phase", "connections", "min", "p50", "p99", "max"]
            .map(String::from)
            .to_vec(),
        rows,
    };
    format!(
        "<h2 id=\"phases\">Connection phases</h2>\n<p class=\"note\">One sample per \
         connection, warm-up included. Connect is every phase together (DNS for a host name, \
         TCP, TLS; the QUIC handshake on HTTP/3); first byte counts from the start of \
         connecting.</p>{}{}",
        chart.render(),
        table.render()
    )
}
