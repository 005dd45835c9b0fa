//! The counters of several reports added up: every one of them counts
//! disjoint requests, responses, bytes or connections, so the sums are
//! exactly what one run of all their clients would have counted.

use loadgen_core::report::{ByteCounts, ErrorCounts, QuicStats, RequestCounts, StatusCounts};
use loadgen_core::Report;

pub fn requests<'a>(parts: impl IntoIterator<Item = &'a RequestCounts>) -> RequestCounts {
    let mut sum = RequestCounts {
        total: 0,
        started: 0,
        done: 0,
        succeeded: 0,
        failed: 0,
        errored: 0,
        timeout: 0,
        failed_status: 0,
        errored_not_started: 0,
        unsent_at_end: 0,
    };
    for r in parts {
        sum.total += r.total;
        sum.started += r.started;
        sum.done += r.done;
        sum.succeeded += r.succeeded;
        sum.failed += r.failed;
        sum.errored += r.errored;
        sum.timeout += r.timeout;
        sum.failed_status += r.failed_status;
        sum.errored_not_started += r.errored_not_started;
        sum.unsent_at_end += r.unsent_at_end;
    }
    sum
}

pub fn status_codes<'a>(parts: impl IntoIterator<Item = &'a StatusCounts>) -> StatusCounts {
    let mut sum = StatusCounts {
        class_1xx: 0,
        class_2xx: 0,
        class_3xx: 0,
        class_4xx: 0,
        class_5xx: 0,
        by_code: Default::default(),
    };
    for s in parts {
        sum.class_1xx += s.class_1xx;
        sum.class_2xx += s.class_2xx;
        sum.class_3xx += s.class_3xx;
        sum.class_4xx += s.class_4xx;
        sum.class_5xx += s.class_5xx;
        for (code, count) in &s.by_code {
            *sum.by_code.entry(code.clone()).or_insert(0) += count;
        }
    }
    sum
}

/// The counts add up; of the first messages, the first report's (in the
/// order given) is kept for each kind, as a run keeps the first it sees.
pub fn errors<'a>(parts: impl IntoIterator<Item = &'a ErrorCounts>) -> ErrorCounts {
    let mut sum = ErrorCounts {
        connect: 0,
        tls: 0,
        timeout: 0,
        protocol: 0,
        reset: 0,
        other: 0,
        first_message: Default::default(),
    };
    for e in parts {
        sum.connect += e.connect;
        sum.tls += e.tls;
        sum.timeout += e.timeout;
        sum.protocol += e.protocol;
        sum.reset += e.reset;
        sum.other += e.other;
        for (kind, message) in &e.first_message {
            sum.first_message
                .entry(kind.clone())
                .or_insert_with(|| message.clone());
        }
    }
    sum
}

/// The byte counts add up; the header savings are computed again from the
/// sums, as a run computes them.
pub fn bytes(reports: &[&Report]) -> ByteCounts {
    let mut sum = ByteCounts {
        total: 0,
        headers: 0,
        headers_uncompressed: 0,
        data: 0,
        header_compression_savings_pct: 0.0,
        sent: 0,
    };
    for b in reports.iter().map(|r| &r.bytes) {
        sum.total += b.total;
        sum.sent += b.sent;
        sum.headers += b.headers;
        sum.headers_uncompressed += b.headers_uncompressed;
        sum.data += b.data;
    }
    if sum.headers_uncompressed > 0 {
        sum.header_compression_savings_pct =
            (1.0 - sum.headers as f64 / sum.headers_uncompressed as f64) * 100.0;
    }
    sum
}

/// Datagrams and lost packets add up and the smallest RTT is the smallest
/// of all. A report keeps only the mean RTT of its connections, not their
/// number, so the merged mean weighs each report's by its `connections`:
/// exact when each of them is a QUIC connection that ended measured.
pub fn quic(reports: &[&Report]) -> Option<QuicStats> {
    let with_quic: Vec<(&QuicStats, u64)> = reports
        .iter()
        .filter_map(|r| r.quic.as_ref().map(|q| (q, r.connections)))
        .collect();
    if with_quic.is_empty() {
        return None;
    }
    let mut sum = QuicStats::default();
    let (mut weighted_rtt, mut weights) = (0u128, 0u128);
    for (q, connections) in &with_quic {
        sum.datagrams_sent += q.datagrams_sent;
        sum.datagrams_received += q.datagrams_received;
        sum.lost_packets += q.lost_packets;
        weighted_rtt += u128::from(q.rtt_us) * u128::from(*connections);
        weights += u128::from(*connections);
        // 0 means no RTT sample, as in the recorder.
        sum.min_rtt_us = match (sum.min_rtt_us, q.min_rtt_us) {
            (0, theirs) => theirs,
            (mine, 0) => mine,
            (mine, theirs) => mine.min(theirs),
        };
    }
    sum.rtt_us = weighted_rtt.checked_div(weights).unwrap_or(0) as u64;
    Some(sum)
}
