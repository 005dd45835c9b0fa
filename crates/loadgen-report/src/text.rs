//! h2load's text layout, line for line, so scripts that read h2load's
//! output by field position keep working; a percentile block follows.

use crate::units::{dtos, duration_us, funit};
use loadgen_core::plan::{Mode, Plan};
use loadgen_core::report::{SpreadStats, TimeStats};
use loadgen_core::Report;
use std::fmt::Write;

/// What h2load prints before the run starts.
pub fn preamble(plan: &Plan) -> String {
    let mut out = String::from("starting benchmark...\n");
    for thread in 0..plan.threads {
        let clients = plan.clients_of_thread(thread);
        match plan.mode {
            Mode::Requests(_) => {
                let first: usize = (0..thread).map(|t| plan.clients_of_thread(t)).sum();
                let requests: u64 = (first..first + clients)
                    .filter_map(|c| plan.requests_of_client(c))
                    .sum();
                let _ = writeln!(out, "spawning thread #{thread}: {clients} total client(s). {requests} total requests");
            }
            Mode::Duration { duration, warm_up } => {
                let _ = writeln!(
                    out,
                    "spawning thread #{thread}: {clients} total client(s). Timing-based test with {} of warm-up time and {} of main duration for measurements.",
                    seconds(warm_up.as_secs_f64()),
                    seconds(duration.as_secs_f64())
                );
            }
        }
    }
    out
}

fn seconds(s: f64) -> String {
    if s.fract() == 0.0 {
        format!("{}s", s as u64)
    } else {
        format!("{}s", dtos(s))
    }
}

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let o = &mut out;
    if let Some(tls) = &report.tls {
        let _ = writeln!(o, "TLS Protocol: {}", tls.protocol);
        // Empty on QUIC unless a single TLS 1.3 suite was offered: quinn does not say.
        if !tls.cipher.is_empty() {
            let _ = writeln!(o, "Cipher: {}", tls.cipher);
        }
        if let Some(key) = &tls.server_temp_key {
            let _ = writeln!(o, "Server Temp Key: {key}");
        }
    }
    if let Some(protocol) = &report.application_protocol {
        let _ = writeln!(o, "Application protocol: {protocol}");
    }
    let r = &report.requests;
    let s = &report.status_codes;
    let b = &report.bytes;
    let _ = writeln!(
        o,
        "\nfinished in {}, {} req/s, {}B/s",
        duration_us(report.elapsed_s * 1e6),
        dtos(report.req_per_s),
        funit(report.throughput_bytes_per_s)
    );
    let _ = writeln!(
        o,
        "requests: {} total, {} started, {} done, {} succeeded, {} failed, {} errored, {} timeout",
        r.total, r.started, r.done, r.succeeded, r.failed, r.errored, r.timeout
    );
    let _ = writeln!(
        o,
        "status codes: {} 2xx, {} 3xx, {} 4xx, {} 5xx",
        s.class_2xx, s.class_3xx, s.class_4xx, s.class_5xx
    );
    let _ = writeln!(
        o,
        "traffic: {}B ({}) total, {}B ({}) headers (space savings {}%), {}B ({}) data",
        funit(b.total as f64),
        b.total,
        funit(b.headers as f64),
        b.headers,
        dtos(b.header_compression_savings_pct),
        funit(b.data as f64),
        b.data
    );
    if let Some(quic) = &report.quic {
        let _ = writeln!(
            o,
            "UDP datagram: {} sent, {} received",
            quic.datagrams_sent, quic.datagrams_received
        );
    }
    if let Some(ws) = &report.websocket {
        let closes: Vec<String> = ws
            .close_codes
            .iter()
            .map(|(code, n)| format!("{n}x{code}"))
            .collect();
        let _ = writeln!(
            o,
            "websocket: {} messages sent, {} received, {} upgrades, {} upgrade failures, server closes: {}",
            ws.messages_sent,
            ws.messages_received,
            ws.upgrades,
            ws.upgrade_failures,
            if closes.is_empty() {
                "none".to_string()
            } else {
                closes.join(" ")
            }
        );
    }
    if let Some(grpc) = &report.grpc {
        let statuses: Vec<String> = grpc
            .statuses
            .iter()
            .map(|(name, n)| format!("{n} {name}"))
            .collect();
        let _ = writeln!(o, "grpc status: {}", statuses.join(", "));
        for (name, message) in &grpc.first_messages {
            let _ = writeln!(o, "grpc message: first {name}: {message}");
        }
    }
    let _ = writeln!(
        o,
        "                     min         max         mean         sd        +/- sd"
    );
    let scheduled = report.queue_delay.count > 0;
    let corrected_note = if scheduled {
        "  corrected: from the intended start"
    } else {
        ""
    };
    time_row(o, "time for request:", &report.request_time, corrected_note);
    time_row(o, "time for connect:", &report.connect_time, "");
    time_row(o, "time to 1st byte:", &report.first_byte_time, "");
    rate_row(o, &report.per_client_req_per_s);
    if scheduled {
        time_row(
            o,
            "raw request time:",
            &report.request_time_raw,
            "  from the actual send",
        );
        time_row(o, "queueing delay  :", &report.queue_delay, "");
        let _ = writeln!(
            o,
            "started late: {} of {} scheduled requests (sent more than 2ms after their intended start)",
            report.started_late, report.queue_delay.count
        );
        if report.requests.unsent_at_end > 0 {
            let _ = writeln!(
                o,
                "still queued at the end: {} due requests found no free slot before the run ended",
                report.requests.unsent_at_end
            );
        }
    }
    let no_upgrade = TimeStats::default();
    let phases = [
        ("DNS lookup      :", &report.dns_time),
        ("TCP connect     :", &report.tcp_connect_time),
        ("TLS handshake   :", &report.tls_handshake_time),
        (
            "WS upgrade      :",
            report
                .websocket
                .as_ref()
                .map_or(&no_upgrade, |ws| &ws.upgrade_time),
        ),
    ];
    if phases.iter().any(|(_, t)| t.count > 0) {
        let _ = writeln!(
            o,
            "
connection phases    min         max         mean         sd        +/- sd"
        );
        for (label, t) in phases.into_iter().filter(|(_, t)| t.count > 0) {
            time_row(o, label, t, "");
        }
    }
    let rows: Vec<(&str, &TimeStats)> = if scheduled {
        vec![
            ("corrected", &report.request_time),
            ("raw", &report.request_time_raw),
        ]
    } else {
        vec![("", &report.request_time)]
    };
    percentiles(o, &rows);
    if let Some(server) = &report.server {
        o.push_str(&crate::server_text::render(server));
    }
    if report.interrupted {
        let _ = writeln!(
            o,
            "\ninterrupted: the run was stopped before its end; these figures cover what it did until then"
        );
    }
    out
}

fn time_row(o: &mut String, label: &str, t: &TimeStats, note: &str) {
    let _ = writeln!(
        o,
        "{label} {:>10}  {:>10}  {:>10}  {:>10}{:>9}%{note}",
        duration_us(t.min_us as f64),
        duration_us(t.max_us as f64),
        duration_us(t.mean_us),
        duration_us(t.stdev_us),
        dtos(t.within_stdev_pct)
    );
}

fn rate_row(o: &mut String, r: &SpreadStats) {
    let _ = writeln!(
        o,
        "req/s           : {:>10}  {:>10}  {:>10}  {:>10}{:>9}%",
        dtos(r.min),
        dtos(r.max),
        dtos(r.mean),
        dtos(r.stdev),
        dtos(r.within_stdev_pct)
    );
}

/// Rows of request-time percentiles; a single row goes unlabelled.
fn percentiles(o: &mut String, rows: &[(&str, &TimeStats)]) {
    let count = rows.first().map_or(0, |(_, t)| t.count);
    let _ = writeln!(
        o,
        "\nrequest time percentiles (from an HDR histogram, {count} samples):"
    );
    let label_width = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    let lead = if label_width > 0 { label_width + 1 } else { 0 };
    let _ = writeln!(
        o,
        "{:lead$}{:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "", "p50", "p75", "p90", "p95", "p99", "p99.9", "max"
    );
    for (label, t) in rows {
        let values = [
            t.p50_us, t.p75_us, t.p90_us, t.p95_us, t.p99_us, t.p99_9_us, t.max_us,
        ];
        let cells: Vec<String> = values
            .iter()
            .map(|v| format!("{:>10}", duration_us(*v as f64)))
            .collect();
        let label = if lead > 0 {
            format!("{label:<label_width$} ")
        } else {
            String::new()
        };
        let _ = writeln!(o, "{label}{}", cells.join(" "));
    }
}
