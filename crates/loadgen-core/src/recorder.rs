//! The metrics layer: what happened, per worker thread. Drivers report
//! events here; nothing in it is shared between threads, and recorders are
//! merged by adding histograms and counters when a run ends.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Histogram range: 1 µs to one hour, three significant digits.
const HIGHEST_US: u64 = 3_600_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    Connect,
    Tls,
    Timeout,
    Protocol,
    Reset,
    Other,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 6] = [
        ErrorKind::Connect,
        ErrorKind::Tls,
        ErrorKind::Timeout,
        ErrorKind::Protocol,
        ErrorKind::Reset,
        ErrorKind::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Connect => "connect",
            ErrorKind::Tls => "tls",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Protocol => "protocol",
            ErrorKind::Reset => "reset",
            ErrorKind::Other => "other",
        }
    }
}

/// How each request ended. The classes are disjoint: every started request
/// lands in exactly one of them (or is still in flight when a timed run stops).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcomes {
    pub started: u64,
    /// Responses with a 2xx or 3xx status.
    pub status_success: u64,
    /// Responses with any other status.
    pub status_failure: u64,
    /// Started requests ended by an error other than a timeout.
    pub error: u64,
    /// Started requests ended by a timeout.
    pub timeout: u64,
    /// Requests never started because their client could not connect.
    pub not_started: u64,
}

impl Outcomes {
    /// h2load's "done": started requests that ended, however they ended.
    pub fn done(&self) -> u64 {
        self.status_success + self.status_failure + self.error + self.timeout
    }

    /// h2load's "errored": errors and timeouts, started or not.
    pub fn errored(&self) -> u64 {
        self.error + self.timeout + self.not_started
    }

    /// h2load's "failed": everything that did not succeed.
    pub fn failed(&self) -> u64 {
        self.status_failure + self.errored()
    }

    fn add(&mut self, other: &Outcomes) {
        self.started += other.started;
        self.status_success += other.status_success;
        self.status_failure += other.status_failure;
        self.error += other.error;
        self.timeout += other.timeout;
        self.not_started += other.not_started;
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bytes {
    /// Everything read from connections, after TLS decryption.
    pub total: u64,
    /// Response header bytes as they arrived (HPACK-compressed on HTTP/2).
    pub headers: u64,
    /// The same headers uncompressed: names and values, as h2load counts them.
    pub headers_uncompressed: u64,
    /// Response body bytes after transfer decoding.
    pub data: u64,
}

impl Bytes {
    fn add(&mut self, other: &Bytes) {
        self.total += other.total;
        self.headers += other.headers;
        self.headers_uncompressed += other.headers_uncompressed;
        self.data += other.data;
    }
}

/// TLS details of the first connection a worker made.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsInfo {
    pub protocol: String,
    pub cipher: String,
    pub server_temp_key: Option<String>,
}

/// QUIC transport figures from quinn, added up over a thread's connections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuicCounts {
    pub connections: u64,
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    pub lost_packets: u64,
    /// Sum of each connection's smoothed RTT when it ended, for the mean.
    pub rtt_sum_us: u64,
    /// Smallest RTT any connection saw (0 when none).
    pub min_rtt_us: u64,
}

impl QuicCounts {
    pub fn add(&mut self, other: &QuicCounts) {
        self.connections += other.connections;
        self.datagrams_sent += other.datagrams_sent;
        self.datagrams_received += other.datagrams_received;
        self.lost_packets += other.lost_packets;
        self.rtt_sum_us += other.rtt_sum_us;
        self.min_rtt_us = match (self.min_rtt_us, other.min_rtt_us) {
            (0, theirs) => theirs,
            (mine, 0) => mine,
            (mine, theirs) => mine.min(theirs),
        };
    }
}

/// One client's share, for h2load's per-client req/s statistics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientRate {
    pub requests: u64,
    pub seconds: f64,
}

#[derive(Clone, Debug)]
pub struct Recorder {
    pub request_time: Histogram<u64>,
    pub connect_time: Histogram<u64>,
    pub first_byte_time: Histogram<u64>,
    pub outcomes: Outcomes,
    /// Responses per status code; index is the code (100..=999).
    pub status_codes: Box<[u64; 1000]>,
    pub errors: [u64; ErrorKind::ALL.len()],
    /// The first message seen for each error kind, for the summary on stderr.
    pub first_error: [Option<String>; ErrorKind::ALL.len()],
    pub bytes: Bytes,
    pub connections: u64,
    pub application_protocol: Option<&'static str>,
    pub tls: Option<TlsInfo>,
    pub clients: Vec<ClientRate>,
    /// QUIC figures; `None` when no QUIC connection was made.
    pub quic: Option<QuicCounts>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_US, 3).expect("static histogram bounds are valid")
}

pub fn micros(d: Duration) -> u64 {
    d.as_micros().min(u128::from(HIGHEST_US)) as u64
}

impl Recorder {
    pub fn new() -> Self {
        Recorder {
            request_time: histogram(),
            connect_time: histogram(),
            first_byte_time: histogram(),
            outcomes: Outcomes::default(),
            status_codes: Box::new([0; 1000]),
            errors: [0; ErrorKind::ALL.len()],
            first_error: Default::default(),
            bytes: Bytes::default(),
            connections: 0,
            application_protocol: None,
            tls: None,
            clients: Vec::new(),
            quic: None,
        }
    }

    pub fn connected(
        &mut self,
        connect_time: Duration,
        protocol: &'static str,
        tls: impl FnOnce() -> Option<TlsInfo>,
    ) {
        self.connections += 1;
        self.connect_time
            .saturating_record(micros(connect_time).max(1));
        if self.application_protocol.is_none() {
            self.application_protocol = Some(protocol);
            self.tls = tls();
        }
    }

    pub fn first_byte(&mut self, since_connect_start: Duration) {
        self.first_byte_time
            .saturating_record(micros(since_connect_start).max(1));
    }

    pub fn request_started(&mut self) {
        self.outcomes.started += 1;
    }

    pub fn response(&mut self, status: u16, request_time: Duration) {
        self.request_time
            .saturating_record(micros(request_time).max(1));
        if let Some(slot) = self.status_codes.get_mut(status as usize) {
            *slot += 1;
        }
        if (200..400).contains(&status) {
            self.outcomes.status_success += 1;
        } else {
            self.outcomes.status_failure += 1;
        }
    }

    /// A started request ended without a response.
    pub fn request_error(&mut self, kind: ErrorKind) {
        if kind == ErrorKind::Timeout {
            self.outcomes.timeout += 1;
        } else {
            self.outcomes.error += 1;
        }
        self.errors[kind as usize] += 1;
    }

    /// Requests a client gave up on before starting them, because it could not connect.
    pub fn requests_not_started(&mut self, count: u64, kind: ErrorKind) {
        self.outcomes.not_started += count;
        self.errors[kind as usize] += count;
    }

    /// Keeps the first message of each kind; `message` runs only then.
    pub fn note_error(&mut self, kind: ErrorKind, message: impl FnOnce() -> String) {
        let slot = &mut self.first_error[kind as usize];
        if slot.is_none() {
            *slot = Some(message());
        }
    }

    /// What one QUIC connection's transport did while measured.
    pub fn quic_connection(&mut self, counts: &QuicCounts) {
        self.quic
            .get_or_insert_with(QuicCounts::default)
            .add(counts);
    }

    pub fn client_finished(&mut self, rate: ClientRate) {
        self.clients.push(rate);
    }

    pub fn merge(&mut self, other: &Recorder) {
        // Same bounds on both sides, so adding cannot fail.
        self.request_time
            .add(&other.request_time)
            .expect("histograms share bounds");
        self.connect_time
            .add(&other.connect_time)
            .expect("histograms share bounds");
        self.first_byte_time
            .add(&other.first_byte_time)
            .expect("histograms share bounds");
        self.outcomes.add(&other.outcomes);
        for (mine, theirs) in self.status_codes.iter_mut().zip(other.status_codes.iter()) {
            *mine += theirs;
        }
        for (mine, theirs) in self.errors.iter_mut().zip(other.errors) {
            *mine += theirs;
        }
        for (mine, theirs) in self.first_error.iter_mut().zip(&other.first_error) {
            if mine.is_none() {
                mine.clone_from(theirs);
            }
        }
        self.bytes.add(&other.bytes);
        self.connections += other.connections;
        if self.application_protocol.is_none() {
            self.application_protocol = other.application_protocol;
            self.tls.clone_from(&other.tls);
        }
        self.clients.extend_from_slice(&other.clients);
        if let Some(theirs) = &other.quic {
            self.quic_connection(theirs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_histograms_exactly() {
        let mut a = Recorder::new();
        let mut b = Recorder::new();
        for us in 1..=1000u64 {
            a.response(200, Duration::from_micros(us));
        }
        for us in 1001..=2000u64 {
            b.response(503, Duration::from_micros(us));
        }
        b.request_error(ErrorKind::Reset);
        b.request_error(ErrorKind::Timeout);
        b.note_error(ErrorKind::Reset, || "first".into());
        b.note_error(ErrorKind::Reset, || unreachable!());
        a.merge(&b);
        assert_eq!(a.request_time.len(), 2000);
        assert_eq!(a.request_time.min(), 1);
        assert_eq!(
            a.request_time.max(),
            a.request_time.highest_equivalent(2000)
        );
        // The median of 1..=2000 is 1000, within the histogram's precision.
        let p50 = a.request_time.value_at_quantile(0.5);
        assert!((999..=1001).contains(&p50), "{p50}");
        assert_eq!(a.outcomes.status_success, 1000);
        assert_eq!(a.outcomes.status_failure, 1000);
        assert_eq!(a.outcomes.done(), 2002);
        assert_eq!(a.outcomes.errored(), 2);
        assert_eq!(a.outcomes.failed(), 1002);
        assert_eq!(a.status_codes[503], 1000);
        assert_eq!(a.errors[ErrorKind::Timeout as usize], 1);
        assert_eq!(
            a.first_error[ErrorKind::Reset as usize].as_deref(),
            Some("first")
        );
    }

    #[test]
    fn quic_counts_merge() {
        let mut a = Recorder::new();
        let b = Recorder::new();
        a.merge(&b);
        assert_eq!(a.quic, None);
        let mut c = Recorder::new();
        c.quic_connection(&QuicCounts {
            connections: 1,
            datagrams_sent: 10,
            datagrams_received: 12,
            lost_packets: 1,
            rtt_sum_us: 300,
            min_rtt_us: 200,
        });
        c.quic_connection(&QuicCounts {
            connections: 1,
            datagrams_sent: 5,
            datagrams_received: 6,
            lost_packets: 0,
            rtt_sum_us: 100,
            min_rtt_us: 90,
        });
        a.merge(&c);
        let q = a.quic.unwrap();
        assert_eq!(
            (
                q.connections,
                q.datagrams_sent,
                q.datagrams_received,
                q.lost_packets
            ),
            (2, 15, 18, 1)
        );
        assert_eq!((q.rtt_sum_us, q.min_rtt_us), (400, 90));
    }

    #[test]
    fn not_started_counts_as_errored_not_done() {
        let mut r = Recorder::new();
        r.requests_not_started(100, ErrorKind::Connect);
        assert_eq!(r.outcomes.done(), 0);
        assert_eq!(r.outcomes.errored(), 100);
        assert_eq!(r.outcomes.failed(), 100);
    }
}
