//! The counters of several reports added up: every one of them counts
//! disjoint requests, responses, bytes or connections, so the sums are
//! exactly what one run of all their clients would have counted.
//!
//! No run counts anywhere near 2^64, so counts that add up beyond it come
//! from reports that were altered: the merge is refused rather than
//! wrapped around to a small number ([`Adder`]).

use super::MergeError;
use loadgen_core::report::{ByteCounts, ErrorCounts, QuicStats, RequestCounts, StatusCounts};
use loadgen_core::Report;

/// Adds counts up, remembering the first field whose sum went past
/// `u64::MAX`.
#[derive(Default)]
pub struct Adder {
    overflow: Option<&'static str>,
}

impl Adder {
    pub fn add(&mut self, field: &'static str, sum: &mut u64, value: u64) {
        match sum.checked_add(value) {
            Some(total) => *sum = total,
            None => {
                self.overflow.get_or_insert(field);
            }
        }
    }

    /// The sum of `values`, as [`Adder::add`] adds.
    pub fn total(&mut self, field: &'static str, values: impl Iterator<Item = u64>) -> u64 {
        let mut sum = 0;
        for value in values {
            self.add(field, &mut sum, value);
        }
        sum
    }

    /// [`Adder::total`] of counts kept as `usize`.
    pub fn total_usize(
        &mut self,
        field: &'static str,
        values: impl Iterator<Item = usize>,
    ) -> usize {
        let sum = self.total(field, values.map(|v| v as u64));
        usize::try_from(sum).unwrap_or_else(|_| {
            self.overflow.get_or_insert(field);
            usize::MAX
        })
    }

    /// Whether every sum fit.
    pub fn finish(self) -> Result<(), MergeError> {
        match self.overflow {
            None => Ok(()),
            Some(field) => Err(MergeError::TooLarge { field }),
        }
    }
}

pub fn requests<'a>(
    parts: impl IntoIterator<Item = &'a RequestCounts>,
    adder: &mut Adder,
) -> RequestCounts {
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
        adder.add("requests.total", &mut sum.total, r.total);
        adder.add("requests.started", &mut sum.started, r.started);
        adder.add("requests.done", &mut sum.done, r.done);
        adder.add("requests.succeeded", &mut sum.succeeded, r.succeeded);
        adder.add("requests.failed", &mut sum.failed, r.failed);
        adder.add("requests.errored", &mut sum.errored, r.errored);
        adder.add("requests.timeout", &mut sum.timeout, r.timeout);
        adder.add(
            "requests.failed_status",
            &mut sum.failed_status,
            r.failed_status,
        );
        adder.add(
            "requests.errored_not_started",
            &mut sum.errored_not_started,
            r.errored_not_started,
        );
        adder.add(
            "requests.unsent_at_end",
            &mut sum.unsent_at_end,
            r.unsent_at_end,
        );
    }
    sum
}

pub fn status_codes<'a>(
    parts: impl IntoIterator<Item = &'a StatusCounts>,
    adder: &mut Adder,
) -> StatusCounts {
    let mut sum = StatusCounts {
        class_1xx: 0,
        class_2xx: 0,
        class_3xx: 0,
        class_4xx: 0,
        class_5xx: 0,
        by_code: Default::default(),
    };
    for s in parts {
        adder.add("status_codes.1xx", &mut sum.class_1xx, s.class_1xx);
        adder.add("status_codes.2xx", &mut sum.class_2xx, s.class_2xx);
        adder.add("status_codes.3xx", &mut sum.class_3xx, s.class_3xx);
        adder.add("status_codes.4xx", &mut sum.class_4xx, s.class_4xx);
        adder.add("status_codes.5xx", &mut sum.class_5xx, s.class_5xx);
        for (code, count) in &s.by_code {
            let slot = sum.by_code.entry(code.clone()).or_insert(0);
            adder.add("status_codes.by_code", slot, *count);
        }
    }
    sum
}

/// The counts add up; of the first messages, the first report's (in the
/// order given) is kept for each kind, as a run keeps the first it sees.
pub fn errors<'a>(
    parts: impl IntoIterator<Item = &'a ErrorCounts>,
    adder: &mut Adder,
) -> ErrorCounts {
    let mut sum = ErrorCounts {
        connect: 0,
        tls: 0,
        timeout: 0,
        protocol: 0,
        reset: 0,
        other: 0,
        between_requests: 0,
        first_message: Default::default(),
    };
    for e in parts {
        adder.add("errors.connect", &mut sum.connect, e.connect);
        adder.add("errors.tls", &mut sum.tls, e.tls);
        adder.add("errors.timeout", &mut sum.timeout, e.timeout);
        adder.add("errors.protocol", &mut sum.protocol, e.protocol);
        adder.add("errors.reset", &mut sum.reset, e.reset);
        adder.add("errors.other", &mut sum.other, e.other);
        adder.add(
            "errors.between_requests",
            &mut sum.between_requests,
            e.between_requests,
        );
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
pub fn bytes(reports: &[&Report], adder: &mut Adder) -> ByteCounts {
    let mut sum = ByteCounts {
        total: 0,
        headers: 0,
        headers_uncompressed: 0,
        data: 0,
        header_compression_savings_pct: 0.0,
        sent: 0,
    };
    for b in reports.iter().map(|r| &r.bytes) {
        adder.add("bytes.total", &mut sum.total, b.total);
        adder.add("bytes.sent", &mut sum.sent, b.sent);
        adder.add("bytes.headers", &mut sum.headers, b.headers);
        adder.add(
            "bytes.headers_uncompressed",
            &mut sum.headers_uncompressed,
            b.headers_uncompressed,
        );
        adder.add("bytes.data", &mut sum.data, b.data);
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
pub fn quic(reports: &[&Report], adder: &mut Adder) -> Option<QuicStats> {
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
        adder.add(
            "quic.datagrams_sent",
            &mut sum.datagrams_sent,
            q.datagrams_sent,
        );
        adder.add(
            "quic.datagrams_received",
            &mut sum.datagrams_received,
            q.datagrams_received,
        );
        adder.add("quic.lost_packets", &mut sum.lost_packets, q.lost_packets);
        // Only altered reports come near 2^128; saturated, the mean still
        // lies between the smallest and largest RTT.
        weighted_rtt = weighted_rtt.saturating_add(u128::from(q.rtt_us) * u128::from(*connections));
        weights = weights.saturating_add(u128::from(*connections));
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
