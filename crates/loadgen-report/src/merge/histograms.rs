//! The histograms a report carries, decoded, checked against the figures
//! the report shows, and added up. Histograms of loadgen's one shape add
//! up exactly: the sum is the histogram of all the samples of all the
//! reports, as one run of all their clients would have recorded it.

use super::MergeError;
use hdrhistogram::Histogram;
use loadgen_core::histogram;
use loadgen_core::histogram_codec::{decode, encode};
use loadgen_core::interval::{IntervalHistograms, IntervalRow};
pub use loadgen_core::report::ReportHistograms;
use loadgen_core::report::TimeStats;
use loadgen_core::Report;

/// The names of a report's histograms, in the order [`RunHistograms`] keeps them.
const RUN: [&str; 8] = [
    "request_time",
    "request_time_raw",
    "connect_time",
    "dns_time",
    "tcp_connect_time",
    "tls_handshake_time",
    "first_byte_time",
    "queue_delay",
];

/// The names of an interval row's histograms, in the order [`RowHistograms`] keeps them.
const ROW: [&str; 4] = [
    "request_time",
    "request_time_raw",
    "connect_time",
    "first_byte_time",
];

/// A report's eight histograms, in the order of [`RUN`].
#[derive(Clone, Debug, PartialEq)]
pub struct RunHistograms([Histogram<u64>; 8]);

/// An interval row's four histograms, in the order of [`ROW`].
#[derive(Clone, Debug, PartialEq)]
pub struct RowHistograms([Histogram<u64>; 4]);

impl RunHistograms {
    pub fn empty() -> RunHistograms {
        RunHistograms(std::array::from_fn(|_| histogram::new()))
    }

    /// The report's histograms, each holding as many samples as the time
    /// stats it stands for count: a report whose figures and histograms
    /// disagree was altered, and a merge of it would be wrong.
    pub fn of(name: &str, report: &Report) -> Result<RunHistograms, MergeError> {
        let Some(encoded) = &report.histograms else {
            return Err(MergeError::NoHistograms {
                name: name.to_string(),
            });
        };
        let texts = run_texts(encoded);
        let stats = run_stats(report);
        let mut decoded = Vec::with_capacity(RUN.len());
        for ((field, text), stats) in RUN.iter().zip(texts).zip(stats) {
            let histogram = decode_field(name, &format!("histograms.{field}"), text)?;
            if histogram.len() != stats.count {
                return Err(MergeError::Invalid {
                    name: name.to_string(),
                    why: format!(
                        "histograms.{field} holds {} samples where {field}.count is {}",
                        histogram.len(),
                        stats.count
                    ),
                });
            }
            decoded.push(histogram);
        }
        Ok(RunHistograms(array(decoded)))
    }

    pub fn add(&mut self, other: &RunHistograms) {
        add_all(&mut self.0, &other.0);
    }

    /// The time stats of each histogram, computed as a run computes its own,
    /// in the order of the report's fields: request time, raw, connect, DNS,
    /// TCP connect, TLS handshake, first byte, queueing delay.
    pub fn time_stats(&self) -> [TimeStats; 8] {
        std::array::from_fn(|i| TimeStats::of(&self.0[i]))
    }

    pub fn encode(&self) -> ReportHistograms {
        let [request_time, request_time_raw, connect_time, dns_time, tcp_connect_time, tls_handshake_time, first_byte_time, queue_delay] =
            std::array::from_fn(|i| encode(&self.0[i]));
        ReportHistograms {
            request_time,
            request_time_raw,
            connect_time,
            dns_time,
            tcp_connect_time,
            tls_handshake_time,
            first_byte_time,
            queue_delay,
            upgrade_time: None,
        }
    }
}

impl RowHistograms {
    /// The encoded histograms of row `index` of the report, once checked:
    /// they decode, and the request-time histogram holds one sample per
    /// response the row counts.
    pub fn check<'a>(
        name: &str,
        index: usize,
        row: &'a IntervalRow,
    ) -> Result<&'a IntervalHistograms, MergeError> {
        RowHistograms::of(name, index, row)?;
        Ok(row.histograms.as_ref().expect("of() found them"))
    }

    /// The sum of rows' histograms that [`RowHistograms::check`] passed.
    pub fn sum(rows: &[&IntervalHistograms]) -> Result<RowHistograms, MergeError> {
        let mut sum = RowHistograms(std::array::from_fn(|_| histogram::new()));
        for row in rows {
            let decoded: Vec<_> = row_texts(row)
                .into_iter()
                .map(|text| {
                    decode(text).map_err(|e| MergeError::Invalid {
                        name: "a report".to_string(),
                        why: format!("a row's histogram no longer decodes: {e}"),
                    })
                })
                .collect::<Result<_, _>>()?;
            add_all(&mut sum.0, &decoded);
        }
        Ok(sum)
    }

    /// The histograms of row `index` of the report; its request-time
    /// histogram holds one sample per response the row counts.
    fn of(name: &str, index: usize, row: &IntervalRow) -> Result<RowHistograms, MergeError> {
        let Some(encoded) = &row.histograms else {
            return Err(MergeError::Invalid {
                name: name.to_string(),
                why: format!(
                    "intervals[{index}] has no histograms where the report has them; \
                     write the report again with -o FILE.json"
                ),
            });
        };
        let mut decoded = Vec::with_capacity(ROW.len());
        for (field, text) in ROW.iter().zip(row_texts(encoded)) {
            let at = format!("intervals[{index}].histograms.{field}");
            decoded.push(decode_field(name, &at, text)?);
        }
        if decoded[0].len() != row.requests {
            return Err(MergeError::Invalid {
                name: name.to_string(),
                why: format!(
                    "intervals[{index}].histograms.request_time holds {} samples where the row \
                     counts {} requests",
                    decoded[0].len(),
                    row.requests
                ),
            });
        }
        Ok(RowHistograms(array(decoded)))
    }

    /// Corrected and raw request time, connect time and first byte time.
    pub fn parts(&self) -> &[Histogram<u64>; 4] {
        &self.0
    }

    pub fn encode(&self) -> IntervalHistograms {
        let [request_time, request_time_raw, connect_time, first_byte_time] =
            std::array::from_fn(|i| encode(&self.0[i]));
        IntervalHistograms {
            request_time,
            request_time_raw,
            connect_time,
            first_byte_time,
        }
    }
}

fn run_texts(h: &ReportHistograms) -> [&String; 8] {
    [
        &h.request_time,
        &h.request_time_raw,
        &h.connect_time,
        &h.dns_time,
        &h.tcp_connect_time,
        &h.tls_handshake_time,
        &h.first_byte_time,
        &h.queue_delay,
    ]
}

fn run_stats(r: &Report) -> [&TimeStats; 8] {
    [
        &r.request_time,
        &r.request_time_raw,
        &r.connect_time,
        &r.dns_time,
        &r.tcp_connect_time,
        &r.tls_handshake_time,
        &r.first_byte_time,
        &r.queue_delay,
    ]
}

fn row_texts(h: &IntervalHistograms) -> [&String; 4] {
    [
        &h.request_time,
        &h.request_time_raw,
        &h.connect_time,
        &h.first_byte_time,
    ]
}

fn decode_field(name: &str, field: &str, text: &str) -> Result<Histogram<u64>, MergeError> {
    decode(text).map_err(|e| MergeError::Invalid {
        name: name.to_string(),
        why: format!("{field}: {e}"),
    })
}

fn add_all(mine: &mut [Histogram<u64>], theirs: &[Histogram<u64>]) {
    for (mine, theirs) in mine.iter_mut().zip(theirs) {
        // Decoded histograms grow to take whatever the other holds (decoding
        // already made room for each value once), so adding cannot fail.
        mine.add(theirs)
            .expect("histograms of loadgen's shape add up");
    }
}

fn array<const N: usize>(decoded: Vec<Histogram<u64>>) -> [Histogram<u64>; N] {
    decoded
        .try_into()
        .unwrap_or_else(|_| unreachable!("one histogram per name"))
}
