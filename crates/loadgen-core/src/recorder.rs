//! The metrics layer: what happened, per worker thread. Drivers report
//! events here; nothing in it is shared between threads, and recorders are
//! merged by adding histograms and counters when a run ends.

use crate::connection_info::{ConnectPhases, TlsInfo};
use crate::error_kind::ErrorKind;
use crate::histogram::{self, micros, record};
use crate::interval::Window;
use crate::request_log::RequestLog;
use crate::ticket::Ticket;
use hdrhistogram::Histogram;
use request_times::RequestTimes;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

mod request_times;

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

    /// Requests that have their outcome: done, or never started (h2load's
    /// succeeded + failed). Those in flight are not in it.
    pub fn ended(&self) -> u64 {
        self.done() + self.not_started
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
    /// Everything written to connections, before TLS encryption (QUIC: the
    /// UDP payloads sent).
    #[serde(default)]
    pub sent: u64,
}

impl Bytes {
    fn add(&mut self, other: &Bytes) {
        self.total += other.total;
        self.sent += other.sent;
        self.headers += other.headers;
        self.headers_uncompressed += other.headers_uncompressed;
        self.data += other.data;
    }
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

/// What WebSocket connections did, added up over a thread's connections.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebSocketCounts {
    /// Messages sent while measured (each one a request).
    pub messages_sent: u64,
    /// Messages received while measured, matched or not.
    pub messages_received: u64,
    /// Upgrades the server answered with 101 and a valid accept key.
    pub upgrades: u64,
    /// Upgrades the server refused or answered wrongly.
    pub upgrade_failures: u64,
    /// Close frames from the server, by close code (`None`: a close
    /// without a code, 1005 in RFC 6455's terms).
    pub close_codes: std::collections::BTreeMap<u16, u64>,
}

impl WebSocketCounts {
    pub fn add(&mut self, other: &WebSocketCounts) {
        self.messages_sent += other.messages_sent;
        self.messages_received += other.messages_received;
        self.upgrades += other.upgrades;
        self.upgrade_failures += other.upgrade_failures;
        for (code, n) in &other.close_codes {
            *self.close_codes.entry(*code).or_default() += n;
        }
    }
}

/// gRPC calls by status code (`grpc-status`), added up over a thread's calls.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrpcCounts {
    pub statuses: std::collections::BTreeMap<u16, u64>,
    /// The first `grpc-message` of each status other than OK.
    pub first_messages: std::collections::BTreeMap<u16, String>,
}

impl GrpcCounts {
    pub fn add(&mut self, other: &GrpcCounts) {
        for (code, n) in &other.statuses {
            *self.statuses.entry(*code).or_default() += n;
        }
        for (code, message) in &other.first_messages {
            self.first_messages
                .entry(*code)
                .or_insert_with(|| message.clone());
        }
    }
}

/// The status a WebSocket message's round trip is recorded under: the
/// upgrade's, under which every message travels. It counts as succeeded.
pub const WEBSOCKET_STATUS: u16 = 101;

/// One client's share, for h2load's per-client req/s statistics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClientRate {
    pub requests: u64,
    pub seconds: f64,
}

#[derive(Clone, Debug)]
pub struct Recorder {
    /// Request times, read with [`Recorder::request_time`] and
    /// [`Recorder::request_time_raw`]: the open window holds the latest.
    request_times: RequestTimes,
    /// Scheduled requests: from the intended start to the send.
    pub queue_delay: Histogram<u64>,
    /// Scheduled requests sent more than [`LATE_AFTER`] after their intended start.
    pub started_late: u64,
    /// Open model: requests that fell due but were still waiting for a free
    /// slot when the run ended.
    pub unsent_at_end: u64,
    /// h2load's "time for connect": TCP connect and TLS handshake (or the QUIC handshake).
    pub connect_time: Histogram<u64>,
    pub dns_time: Histogram<u64>,
    pub tcp_connect_time: Histogram<u64>,
    pub tls_handshake_time: Histogram<u64>,
    /// WebSocket: from the upgrade request's first byte to the server's 101.
    pub upgrade_time: Histogram<u64>,
    pub first_byte_time: Histogram<u64>,
    pub outcomes: Outcomes,
    /// Responses per status code; index is the code (100..=999).
    pub status_codes: Box<[u64; 1000]>,
    pub errors: [u64; ErrorKind::ALL.len()],
    /// The first message seen for each error kind, for the summary on stderr.
    pub first_error: [Option<String>; ErrorKind::ALL.len()],
    /// Connections closed for a protocol error while no request was in
    /// flight (an HTTP/1.1 response nobody asked for): no request failed
    /// with them, so they are counted apart, with the first message.
    pub between_requests: u64,
    pub first_between_requests: Option<String>,
    pub bytes: Bytes,
    pub connections: u64,
    /// Connections open now; the windows take it as a gauge.
    pub open_connections: u64,
    pub application_protocol: Option<&'static str>,
    pub tls: Option<TlsInfo>,
    pub clients: Vec<ClientRate>,
    /// QUIC figures; `None` when no QUIC connection was made.
    pub quic: Option<QuicCounts>,
    /// WebSocket figures; `None` when no WebSocket was attempted.
    pub websocket: Option<WebSocketCounts>,
    /// gRPC statuses; `None` when no gRPC call got a response.
    pub grpc: Option<GrpcCounts>,
    /// The current interval, closed every second by the runner.
    pub window: Window,
    /// `--log-file`: this thread's lines; not merged.
    pub log: Option<RequestLog>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

/// A scheduled request sent later than this after its intended start
/// counts as started late. Timers tick each millisecond, so less is noise.
pub const LATE_AFTER: Duration = Duration::from_millis(2);

impl Recorder {
    pub fn new() -> Self {
        Recorder {
            request_times: RequestTimes::default(),
            queue_delay: histogram::for_request_times(),
            started_late: 0,
            unsent_at_end: 0,
            connect_time: histogram::new(),
            dns_time: histogram::new(),
            tcp_connect_time: histogram::new(),
            tls_handshake_time: histogram::new(),
            upgrade_time: histogram::new(),
            first_byte_time: histogram::for_request_times(),
            outcomes: Outcomes::default(),
            status_codes: Box::new([0; 1000]),
            errors: [0; ErrorKind::ALL.len()],
            first_error: Default::default(),
            between_requests: 0,
            first_between_requests: None,
            bytes: Bytes::default(),
            connections: 0,
            open_connections: 0,
            application_protocol: None,
            tls: None,
            clients: Vec::new(),
            quic: None,
            websocket: None,
            grpc: None,
            window: Window::default(),
            log: None,
        }
    }

    pub fn connected(
        &mut self,
        connect_time: Duration,
        protocol: &'static str,
        tls: impl FnOnce() -> Option<TlsInfo>,
    ) {
        self.connections += 1;
        record(&mut self.connect_time, micros(connect_time).max(1));
        record(&mut self.window.connect_time, micros(connect_time).max(1));
        if self.application_protocol.is_none() {
            self.application_protocol = Some(protocol);
            self.tls = tls();
        }
    }

    /// The phases of opening one connection, where they apply.
    pub fn connect_phases(&mut self, phases: &ConnectPhases) {
        let pairs = [
            (&mut self.dns_time, phases.dns),
            (&mut self.tcp_connect_time, phases.tcp),
            (&mut self.tls_handshake_time, phases.tls),
        ];
        for (histogram, phase) in pairs {
            if let Some(took) = phase {
                record(histogram, micros(took).max(1));
            }
        }
    }

    pub fn first_byte(&mut self, since_connect_start: Duration) {
        record(
            &mut self.first_byte_time,
            micros(since_connect_start).max(1),
        );
        record(
            &mut self.window.first_byte_time,
            micros(since_connect_start).max(1),
        );
    }

    pub fn request_started(&mut self, ticket: &Ticket, sent: Instant) {
        self.outcomes.started += 1;
        if ticket.scheduled {
            let waited = sent.saturating_duration_since(ticket.intended);
            record(&mut self.queue_delay, micros(waited));
            if waited > LATE_AFTER {
                self.started_late += 1;
                self.window.counters.started_late += 1;
            }
        }
    }

    pub fn response(&mut self, status: u16, ticket: &Ticket, sent: Instant, done: Instant) {
        // 101 is a message's status only once this thread has upgraded a
        // WebSocket; a plain HTTP/1.1 server's final 101 stays a failure.
        let succeeded = (200..400).contains(&status)
            || (status == WEBSOCKET_STATUS && self.websocket.is_some());
        self.record_response(status, succeeded, ticket, sent, done);
    }

    /// A gRPC call ended with HTTP `status` and gRPC status `code`: it
    /// succeeded only if `code` is OK.
    pub fn grpc_call(
        &mut self,
        status: u16,
        code: u16,
        ticket: &Ticket,
        sent: Instant,
        done: Instant,
    ) {
        *self
            .grpc
            .get_or_insert_with(GrpcCounts::default)
            .statuses
            .entry(code)
            .or_default() += 1;
        self.record_response(status, code == crate::grpc::OK, ticket, sent, done);
    }

    /// Keeps the first `grpc-message` of status `code`; `message` runs only then.
    pub fn note_grpc_message(&mut self, code: u16, message: impl FnOnce() -> String) {
        if code == crate::grpc::OK {
            return;
        }
        let counts = self.grpc.get_or_insert_with(GrpcCounts::default);
        if let std::collections::btree_map::Entry::Vacant(slot) = counts.first_messages.entry(code)
        {
            slot.insert(message());
        }
    }

    fn record_response(
        &mut self,
        status: u16,
        succeeded: bool,
        ticket: &Ticket,
        sent: Instant,
        done: Instant,
    ) {
        let raw = micros(done.saturating_duration_since(sent)).max(1);
        // A closed-model request is intended for the moment it is sent.
        let corrected = if ticket.intended == sent {
            raw
        } else {
            micros(done.saturating_duration_since(ticket.intended)).max(1)
        };
        self.record_request_times(corrected, raw);
        self.window.count_response(status);
        if let Some(slot) = self.status_codes.get_mut(status as usize) {
            *slot += 1;
        }
        if succeeded {
            self.outcomes.status_success += 1;
        } else {
            self.outcomes.status_failure += 1;
        }
        if let Some(log) = &mut self.log {
            log.record(sent, Some(status), done);
        }
    }

    /// A request sent at `sent` ended without a response.
    pub fn request_error(&mut self, kind: ErrorKind, sent: Instant) {
        if let Some(log) = &mut self.log {
            log.record(sent, None, Instant::now());
        }
        if kind == ErrorKind::Timeout {
            self.outcomes.timeout += 1;
        } else {
            self.outcomes.error += 1;
        }
        self.errors[kind as usize] += 1;
        self.window.record_errors(kind, 1);
    }

    /// Requests a client gave up on before starting them, because it could not connect.
    pub fn requests_not_started(&mut self, count: u64, kind: ErrorKind) {
        self.outcomes.not_started += count;
        self.errors[kind as usize] += count;
        self.window.record_errors(kind, count);
    }

    /// Keeps the first message of each kind; `message` runs only then.
    pub fn note_error(&mut self, kind: ErrorKind, message: impl FnOnce() -> String) {
        let slot = &mut self.first_error[kind as usize];
        if slot.is_none() {
            *slot = Some(message());
        }
    }

    /// A connection broke the protocol while no request was in flight.
    pub fn error_between_requests(&mut self, message: impl FnOnce() -> String) {
        self.between_requests += 1;
        if self.first_between_requests.is_none() {
            self.first_between_requests = Some(message());
        }
    }

    /// What one QUIC connection's transport did while measured.
    pub fn quic_connection(&mut self, counts: &QuicCounts) {
        self.quic
            .get_or_insert_with(QuicCounts::default)
            .add(counts);
    }

    /// WebSocket figures, made on first use.
    pub fn websocket(&mut self) -> &mut WebSocketCounts {
        self.websocket.get_or_insert_with(WebSocketCounts::default)
    }

    /// A WebSocket upgrade succeeded after `took`.
    pub fn websocket_upgraded(&mut self, took: Duration) {
        record(&mut self.upgrade_time, micros(took).max(1));
        self.websocket().upgrades += 1;
    }

    /// Bytes read from and written to connections while measuring.
    pub fn bytes_moved(&mut self, received: u64, sent: u64) {
        self.bytes.total += received;
        self.bytes.sent += sent;
        self.window.counters.bytes_received += received;
        self.window.counters.bytes_sent += sent;
    }

    /// Open model: `count` due requests were never sent before the stop.
    pub fn unsent_at_end(&mut self, count: u64) {
        self.unsent_at_end += count;
        self.window.counters.unsent_at_end += count;
    }

    /// The window so far, with the gauges as they stand now; a new one
    /// starts. `grpc`: the requests are gRPC calls, whatever they go over.
    pub fn take_window(&mut self, grpc: bool) -> Window {
        let mut window = std::mem::take(&mut self.window);
        self.request_times.close(&mut window);
        window.counters.connections = self.open_connections;
        window.protocol = match self.application_protocol {
            Some(_) if grpc => Some("grpc"),
            protocol => protocol,
        };
        window
    }

    /// Ends the window without an interval for it (what warm-up left in
    /// it); its request times stay in the run's.
    pub fn discard_window(&mut self) {
        self.take_window(false);
    }

    /// From each request's intended start to its last response byte: with a
    /// fixed schedule this includes queueing (coordinated-omission
    /// correction); otherwise the intended start is the send.
    pub fn request_time(&self) -> Histogram<u64> {
        self.request_times.corrected(&self.window)
    }

    /// From each request's send to its last response byte.
    pub fn request_time_raw(&self) -> Histogram<u64> {
        self.request_times.raw(&self.window)
    }

    /// One response's request times, in whole microseconds, as
    /// [`Recorder::request_time`] and [`Recorder::request_time_raw`] take
    /// them. The window counts the response apart
    /// ([`Window::count_response`]).
    pub fn record_request_times(&mut self, corrected_us: u64, raw_us: u64) {
        RequestTimes::record(&mut self.window, corrected_us, raw_us);
    }

    pub fn client_finished(&mut self, rate: ClientRate) {
        self.clients.push(rate);
    }

    pub fn merge(&mut self, other: &Recorder) {
        // Their open window's times too: a recorder merged before its last
        // window closed loses none of them.
        self.request_times
            .add_closed(&other.request_time(), &other.request_time_raw());
        let pairs = [
            (&mut self.queue_delay, &other.queue_delay),
            (&mut self.connect_time, &other.connect_time),
            (&mut self.dns_time, &other.dns_time),
            (&mut self.tcp_connect_time, &other.tcp_connect_time),
            (&mut self.tls_handshake_time, &other.tls_handshake_time),
            (&mut self.upgrade_time, &other.upgrade_time),
            (&mut self.first_byte_time, &other.first_byte_time),
        ];
        for (mine, theirs) in pairs {
            // Same bounds on both sides, so adding cannot fail.
            mine.add(theirs).expect("histograms share bounds");
        }
        self.started_late += other.started_late;
        self.unsent_at_end += other.unsent_at_end;
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
        self.between_requests += other.between_requests;
        if self.first_between_requests.is_none() {
            self.first_between_requests
                .clone_from(&other.first_between_requests);
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
        if let Some(theirs) = &other.websocket {
            self.websocket().add(theirs);
        }
        if let Some(theirs) = &other.grpc {
            self.grpc
                .get_or_insert_with(GrpcCounts::default)
                .add(theirs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn respond(r: &mut Recorder, status: u16, us: u64) {
        let sent = Instant::now();
        let ticket = Ticket {
            request: 0,
            recorded: true,
            intended: sent,
            scheduled: false,
        };
        r.response(status, &ticket, sent, sent + Duration::from_micros(us));
    }

    #[test]
    fn corrected_time_counts_from_the_intended_start() {
        let mut r = Recorder::new();
        let intended = Instant::now();
        let ticket = Ticket {
            request: 0,
            recorded: true,
            intended,
            scheduled: true,
        };
        let sent = intended + Duration::from_millis(300);
        r.request_started(&ticket, sent);
        r.response(200, &ticket, sent, sent + Duration::from_millis(10));
        assert_eq!(r.started_late, 1);
        assert_eq!(
            r.request_time().max(),
            r.request_time().highest_equivalent(310_000)
        );
        assert_eq!(
            r.request_time_raw().max(),
            r.request_time_raw().highest_equivalent(10_000)
        );
        assert_eq!(
            r.queue_delay.max(),
            r.queue_delay.highest_equivalent(300_000)
        );
    }

    #[test]
    fn the_run_times_are_the_windows_times() {
        let mut r = Recorder::new();
        for us in [100, 200, 300] {
            respond(&mut r, 200, us);
        }
        let first = r.take_window(false);
        assert_eq!(first.request_time, first.request_time_raw);
        assert_eq!((first.request_time.len(), first.responses), (3, 3));
        respond(&mut r, 200, 400);
        // The open window's times are in the run's before it closes.
        assert_eq!(r.request_time().len(), 4);
        assert_eq!(r.request_time_raw().len(), 4);
        let second = r.take_window(false);
        assert_eq!(second.request_time.len(), 1);
        let mut windows = first.request_time.clone();
        windows.add(&second.request_time).unwrap();
        assert_eq!(r.request_time(), windows);
        r.discard_window();
        assert_eq!(r.request_time(), windows);
    }

    #[test]
    fn merge_adds_histograms_exactly() {
        let mut a = Recorder::new();
        let mut b = Recorder::new();
        for us in 1..=1000u64 {
            respond(&mut a, 200, us);
        }
        for us in 1001..=2000u64 {
            respond(&mut b, 503, us);
        }
        b.request_error(ErrorKind::Reset, Instant::now());
        b.request_error(ErrorKind::Timeout, Instant::now());
        b.note_error(ErrorKind::Reset, || "first".into());
        b.note_error(ErrorKind::Reset, || unreachable!());
        a.merge(&b);
        assert_eq!(a.request_time().len(), 2000);
        assert_eq!(a.request_time().min(), 1);
        assert_eq!(
            a.request_time().max(),
            a.request_time().highest_equivalent(2000)
        );
        // The median of 1..=2000 is 1000, within the histogram's precision.
        let p50 = a.request_time().value_at_quantile(0.5);
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
