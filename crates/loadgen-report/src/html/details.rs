//! What each run was: its configuration, the loadgen that ran it, the
//! protocol and TLS it negotiated, when it ran, and its thresholds.

use super::page::{escape, name_cell, text_cell, Table};
use super::{RunInput, ThresholdRow};
use loadgen_core::Report;

fn optional<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "—".to_string(), |v| v.to_string())
}

fn facts(r: &Report) -> Vec<(&'static str, String)> {
    let c = &r.config;
    let tls = r.tls.as_ref();
    let mut facts = vec![
        ("loadgen version", r.loadgen_version.clone()),
        ("started at", r.started_at.clone()),
        ("ended at", r.ended_at.clone()),
        ("measured for", format!("{:.3} s", r.elapsed_s)),
        ("URIs", c.uris.join(" ")),
        ("method", c.method.clone()),
        ("clients (-c)", c.clients.to_string()),
        ("threads (-t)", c.threads.to_string()),
        (
            "streams per connection (-m)",
            c.max_concurrent_streams.to_string(),
        ),
        ("mode", c.mode.clone()),
        ("requests (-n)", optional(c.requests)),
        (
            "duration (-D)",
            optional(c.duration_s.map(|s| format!("{s} s"))),
        ),
        ("warm-up", optional(c.warm_up_s.map(|s| format!("{s} s")))),
        ("load model", c.load_model.clone()),
        (
            "rate (--rate)",
            optional(c.rate_per_s.map(|r| format!("{r} req/s"))),
        ),
        ("per-client rate (--rps)", optional(c.rps_per_client)),
        (
            "wake-up coalescing (--coalesce-wakeups)",
            optional(c.wake_coalescing_us.map(|us| format!("up to {us} µs"))),
        ),
        ("execution segment", optional(c.segment.clone())),
        (
            "application protocol",
            optional(r.application_protocol.clone()),
        ),
        ("TLS protocol", optional(tls.map(|t| t.protocol.clone()))),
        ("TLS cipher", optional(tls.map(|t| t.cipher.clone()))),
        (
            "TLS key exchange",
            optional(tls.and_then(|t| t.server_temp_key.clone())),
        ),
        ("connections", r.connections.to_string()),
        ("bytes read", r.bytes.total.to_string()),
    ];
    if let Some(q) = &r.quic {
        facts.push((
            "UDP datagrams",
            format!(
                "{} sent, {} received",
                q.datagrams_sent, q.datagrams_received
            ),
        ));
        facts.push(("QUIC lost packets", q.lost_packets.to_string()));
    }
    if r.interrupted {
        facts.push((
            "interrupted",
            "yes: stopped by a signal before its end".into(),
        ));
    }
    facts
}

pub fn section(runs: &[RunInput]) -> String {
    let columns: Vec<Vec<(&str, String)>> = runs.iter().map(|r| facts(&r.report)).collect();
    let mut head = vec!["".to_string()];
    head.extend(runs.iter().map(|r| r.label.clone()));
    let rows = columns[0]
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let mut row = vec![name_cell(name)];
            for column in &columns {
                let value = column.get(i).filter(|(n, _)| n == name);
                row.push(text_cell(value.map_or("—", |(_, v)| v.as_str())));
            }
            row
        })
        .collect();
    let mut html = format!(
        "<h2 id=\"details\">Configuration</h2>{}",
        Table {
            class: "details",
            head,
            rows,
        }
        .render()
    );
    for run in runs.iter().filter(|r| !r.thresholds.is_empty()) {
        html.push_str(&format!("<h3>Thresholds: {}</h3>", escape(&run.label)));
        html.push_str(&thresholds(&run.thresholds));
    }
    html
}

/// Each threshold with its verdict and the value it read.
pub fn thresholds(rows: &[ThresholdRow]) -> String {
    let mut html = String::from("<ul class=\"thresholds\">");
    for t in rows {
        let (class, verdict) = match (t.pending, t.passed) {
            (true, _) => ("pending", "pending"),
            (false, true) => ("pass", "pass"),
            (false, false) => ("fail", "FAIL"),
        };
        html.push_str(&format!(
            "<li><code>{}</code> <span class=\"{class}\">{verdict}</span> ({})</li>",
            escape(&t.expression),
            escape(&t.actual)
        ));
    }
    html.push_str("</ul>");
    html
}
