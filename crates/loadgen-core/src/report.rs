//! The report: one struct every renderer reads (h2load text, JSON, CSV).
//! Field names carry their unit; `docs/output.md` documents each one.

use crate::connection_info::TlsInfo;
use crate::error_kind::ErrorKind;
use crate::histogram_codec;
use crate::interval::IntervalRow;
use crate::plan::{Mode, Pacing, Plan};
use crate::profile::ProfilePiece;
use crate::recorder::{GrpcCounts, QuicCounts, Recorder, WebSocketCounts};
use crate::runner::RunResult;
use crate::server_usage::ServerStats;
pub use crate::wall_time::rfc3339;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub mod scenario;
pub mod seconds;
pub mod server;

use scenario::ScenarioReport;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub loadgen_version: String,
    pub started_at: String,
    pub ended_at: String,
    pub config: RunConfig,
    /// What the first connection negotiated: `h3`, `h2`, `h2c` or `http/1.1`.
    pub application_protocol: Option<String>,
    pub elapsed_s: f64,
    /// The run was stopped before its end (a signal, a cancel): requests in
    /// flight had the stop grace to end; the figures cover what happened.
    #[serde(default)]
    pub interrupted: bool,
    pub requests: RequestCounts,
    pub status_codes: StatusCounts,
    pub errors: ErrorCounts,
    pub bytes: ByteCounts,
    pub connections: u64,
    pub req_per_s: f64,
    pub throughput_bytes_per_s: f64,
    /// From each request's intended start to its end: corrected for
    /// coordinated omission under `--rate`; the same as raw otherwise.
    pub request_time: TimeStats,
    /// From each request's actual send to its end.
    pub request_time_raw: TimeStats,
    /// Scheduled requests (`--rate`, timing scripts): intended start to send.
    pub queue_delay: TimeStats,
    /// Scheduled requests sent more than 2 ms after their intended start.
    pub started_late: u64,
    /// h2load's "time for connect": TCP connect plus TLS handshake (or QUIC handshake).
    pub connect_time: TimeStats,
    pub dns_time: TimeStats,
    pub tcp_connect_time: TimeStats,
    pub tls_handshake_time: TimeStats,
    pub first_byte_time: TimeStats,
    pub per_client_req_per_s: SpreadStats,
    pub tls: Option<TlsInfo>,
    /// QUIC transport figures (HTTP/3 runs); `null` otherwise.
    pub quic: Option<QuicStats>,
    /// One row per second of the measured part (the last may be shorter).
    pub intervals: Vec<IntervalRow>,
    /// The histograms the time stats above were read from, so reports can
    /// be added up exactly: added by [`Report::with_histograms`], `None`
    /// otherwise and in a report read back from an output without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histograms: Option<ReportHistograms>,
    /// Steps, checks and iterations of a scenario run (`loadgen run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<ScenarioReport>,
    /// Messages, upgrades and close codes of a WebSocket run (`ws://`, `wss://`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub websocket: Option<WebSocketStats>,
    /// gRPC calls by status name (`loadgen grpc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grpc: Option<GrpcStats>,
    /// The server's CPU time and memory (`--server-pid`, `--server-cgroup`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerStats>,
}

/// What a gRPC run's calls ended with. `requests.succeeded` counts the
/// calls whose status is OK.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GrpcStats {
    /// Calls by `grpc-status` name (`OK`, `UNAVAILABLE`, ...; a code gRPC
    /// does not name keeps its number).
    pub statuses: BTreeMap<String, u64>,
    /// The first `grpc-message` of each status other than OK, decoded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub first_messages: BTreeMap<String, String>,
}

impl GrpcStats {
    pub fn of(counts: &GrpcCounts) -> GrpcStats {
        GrpcStats {
            statuses: counts
                .statuses
                .iter()
                .map(|(code, n)| (crate::grpc::status_name(*code), *n))
                .collect(),
            first_messages: counts
                .first_messages
                .iter()
                .map(|(code, message)| (crate::grpc::status_name(*code), message.clone()))
                .collect(),
        }
    }
}

/// What a WebSocket run's connections did. Each message is one of the
/// run's requests: `requests.succeeded` counts the answered ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WebSocketStats {
    pub messages_sent: u64,
    /// Messages received, whether or not they answered one sent.
    pub messages_received: u64,
    /// Upgrades answered with 101 and the right accept key.
    pub upgrades: u64,
    /// Upgrades refused, answered wrongly, or not answered in time.
    pub upgrade_failures: u64,
    /// Close frames from the server, by close code ("1005": none given).
    pub close_codes: BTreeMap<String, u64>,
    /// From the upgrade request to the server's 101 (after TCP and TLS).
    pub upgrade_time: TimeStats,
}

impl WebSocketStats {
    pub fn of(counts: &WebSocketCounts, upgrade_time: &Histogram<u64>) -> WebSocketStats {
        WebSocketStats {
            messages_sent: counts.messages_sent,
            messages_received: counts.messages_received,
            upgrades: counts.upgrades,
            upgrade_failures: counts.upgrade_failures,
            close_codes: counts
                .close_codes
                .iter()
                .map(|(code, n)| (code.to_string(), *n))
                .collect(),
            upgrade_time: TimeStats::of(upgrade_time),
        }
    }
}

/// The run's histograms, each encoded by [`histogram_codec::encode`]:
/// values in microseconds, read back with [`histogram_codec::decode`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportHistograms {
    pub request_time: String,
    pub request_time_raw: String,
    pub connect_time: String,
    pub dns_time: String,
    pub tcp_connect_time: String,
    pub tls_handshake_time: String,
    pub first_byte_time: String,
    pub queue_delay: String,
    /// WebSocket runs only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrade_time: Option<String>,
}

impl ReportHistograms {
    pub fn of(r: &Recorder) -> ReportHistograms {
        ReportHistograms {
            request_time: histogram_codec::encode(&r.request_time()),
            request_time_raw: histogram_codec::encode(&r.request_time_raw()),
            connect_time: histogram_codec::encode(&r.connect_time),
            dns_time: histogram_codec::encode(&r.dns_time),
            tcp_connect_time: histogram_codec::encode(&r.tcp_connect_time),
            tls_handshake_time: histogram_codec::encode(&r.tls_handshake_time),
            first_byte_time: histogram_codec::encode(&r.first_byte_time),
            queue_delay: histogram_codec::encode(&r.queue_delay),
            upgrade_time: r
                .websocket
                .as_ref()
                .map(|_| histogram_codec::encode(&r.upgrade_time)),
        }
    }
}

/// What quinn measured on the run's QUIC connections, added up over all of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QuicStats {
    /// UDP datagrams sent and received (h2load's `UDP datagram:` line).
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    /// Packets quinn declared lost.
    pub lost_packets: u64,
    /// Mean of each connection's smoothed RTT at its end.
    pub rtt_us: u64,
    /// Smallest RTT sample of any connection.
    pub min_rtt_us: u64,
}

impl QuicStats {
    fn of(q: &QuicCounts) -> QuicStats {
        QuicStats {
            datagrams_sent: q.datagrams_sent,
            datagrams_received: q.datagrams_received,
            lost_packets: q.lost_packets,
            rtt_us: q.rtt_sum_us.checked_div(q.connections).unwrap_or(0),
            min_rtt_us: q.min_rtt_us,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    pub uris: Vec<String>,
    pub method: String,
    pub clients: usize,
    pub threads: usize,
    pub max_concurrent_streams: usize,
    /// `requests` (`-n`) or `duration` (`-D`).
    pub mode: String,
    pub requests: Option<u64>,
    pub duration_s: Option<f64>,
    pub warm_up_s: Option<f64>,
    /// `closed` (h2load's default), `rps` (`--rps`, per client), `open`
    /// (`--rate`, fixed schedule) or `script` (`--timing-script-file`).
    pub load_model: String,
    /// Open model: the highest total rate of the schedule.
    pub rate_per_s: Option<f64>,
    /// `--rps`: the most each client starts per second.
    pub rps_per_client: Option<f64>,
    /// The execution segment this machine ran (`1/4:2/4`), when the run
    /// was split between machines; `clients`, `requests` and `rate_per_s`
    /// are then this segment's part.
    #[serde(default)]
    pub segment: Option<String>,
    /// The load over time when it changes (`--ramp-up-time`, `--stages`) or
    /// is a fixed rate: the request rate in the open model, the number of
    /// active clients in the closed one; times from the start of the run,
    /// warm-up included. Empty when the load is simply `-c` clients.
    #[serde(default)]
    pub load_profile: Vec<ProfilePiece>,
    /// `--coalesce-wakeups`: the longest a worker thread with requests in
    /// flight slept before waiting on its sockets, in µs; null when the run
    /// took no such sleep (off, an open model, or one request per connection).
    #[serde(default)]
    pub wake_coalescing_us: Option<u64>,
}

/// h2load's request counts. `failed` includes `errored`, which includes
/// `timeout`; `failed_status` and `errored_not_started` split them further.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestCounts {
    pub total: u64,
    pub started: u64,
    pub done: u64,
    pub succeeded: u64,
    pub failed: u64,
    pub errored: u64,
    pub timeout: u64,
    pub failed_status: u64,
    pub errored_not_started: u64,
    /// Open model: requests that fell due but found no free slot before the run ended.
    pub unsent_at_end: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatusCounts {
    #[serde(rename = "1xx")]
    pub class_1xx: u64,
    #[serde(rename = "2xx")]
    pub class_2xx: u64,
    #[serde(rename = "3xx")]
    pub class_3xx: u64,
    #[serde(rename = "4xx")]
    pub class_4xx: u64,
    /// 500-599, and any status outside 100-599 (RFC 9110 section 15).
    #[serde(rename = "5xx")]
    pub class_5xx: u64,
    /// Responses per status code, keyed by the code.
    pub by_code: BTreeMap<String, u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorCounts {
    pub connect: u64,
    pub tls: u64,
    pub timeout: u64,
    pub protocol: u64,
    pub reset: u64,
    pub other: u64,
    /// Connections closed for a protocol error while no request was in
    /// flight (an HTTP/1.1 response nobody asked for). Not requests: they
    /// are in none of the counts above, nor in `requests`.
    #[serde(default)]
    pub between_requests: u64,
    /// The first message seen for each kind that occurred (and for
    /// `between_requests`).
    pub first_message: BTreeMap<String, String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ByteCounts {
    pub total: u64,
    pub headers: u64,
    pub headers_uncompressed: u64,
    pub data: u64,
    pub header_compression_savings_pct: f64,
    /// Written to connections (before TLS; QUIC: UDP payloads). Reports
    /// written before it was counted read as 0.
    #[serde(default)]
    pub sent: u64,
}

/// Distribution of one measured time, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeStats {
    pub count: u64,
    pub min_us: u64,
    pub max_us: u64,
    pub mean_us: f64,
    pub stdev_us: f64,
    /// Share of samples within one standard deviation of the mean (h2load's `+/- sd`).
    pub within_stdev_pct: f64,
    pub p50_us: u64,
    pub p75_us: u64,
    pub p90_us: u64,
    pub p95_us: u64,
    pub p99_us: u64,
    pub p99_9_us: u64,
}

/// Spread of a per-client figure (h2load's `req/s` row).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SpreadStats {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub stdev: f64,
    pub within_stdev_pct: f64,
}

impl Report {
    pub fn new(plan: &Plan, run: &RunResult) -> Report {
        Report::of_run(RunConfig::new(plan), plan.requests_here(), run)
    }

    /// The report of a run described by `config`; `quota` is the number of
    /// requests it was to send, if it had one.
    pub fn of_run(config: RunConfig, quota: Option<u64>, run: &RunResult) -> Report {
        let r = &run.recorder;
        let o = &r.outcomes;
        let seconds = run.elapsed.as_secs_f64();
        let per_second = |count: f64| if seconds > 0.0 { count / seconds } else { 0.0 };
        let total = match quota {
            Some(n) => n,
            // As h2load counts a timing-based run: the requests that ended,
            // never started or never sent, and not those still in flight
            // when it stopped; so `total = succeeded + failed` (with the
            // open model's unsent besides), as in a count-mode run that
            // ends by itself.
            None => o.ended() + r.unsent_at_end,
        };
        let requests = RequestCounts {
            total,
            started: o.started,
            done: o.done(),
            succeeded: o.status_success,
            failed: o.failed(),
            errored: o.errored(),
            timeout: o.timeout,
            failed_status: o.status_failure,
            errored_not_started: o.not_started,
            unsent_at_end: r.unsent_at_end,
        };
        let savings = if r.bytes.headers_uncompressed > 0 {
            (1.0 - r.bytes.headers as f64 / r.bytes.headers_uncompressed as f64) * 100.0
        } else {
            0.0
        };
        let rates: Vec<f64> = r
            .clients
            .iter()
            .map(|c| {
                if c.seconds > 0.0 {
                    c.requests as f64 / c.seconds
                } else {
                    0.0
                }
            })
            .collect();
        Report {
            loadgen_version: env!("CARGO_PKG_VERSION").to_string(),
            started_at: rfc3339(run.started_at),
            ended_at: rfc3339(run.ended_at),
            config,
            application_protocol: r.application_protocol.map(str::to_string),
            elapsed_s: seconds,
            interrupted: run.cancelled,
            requests,
            status_codes: StatusCounts::new(r),
            errors: ErrorCounts::new(r),
            bytes: ByteCounts {
                total: r.bytes.total,
                headers: r.bytes.headers,
                headers_uncompressed: r.bytes.headers_uncompressed,
                data: r.bytes.data,
                header_compression_savings_pct: savings,
                sent: r.bytes.sent,
            },
            connections: r.connections,
            req_per_s: per_second((o.status_success + o.status_failure) as f64),
            throughput_bytes_per_s: per_second(r.bytes.total as f64),
            request_time: TimeStats::of(&r.request_time()),
            request_time_raw: TimeStats::of(&r.request_time_raw()),
            queue_delay: TimeStats::of(&r.queue_delay),
            started_late: r.started_late,
            connect_time: TimeStats::of(&r.connect_time),
            dns_time: TimeStats::of(&r.dns_time),
            tcp_connect_time: TimeStats::of(&r.tcp_connect_time),
            tls_handshake_time: TimeStats::of(&r.tls_handshake_time),
            first_byte_time: TimeStats::of(&r.first_byte_time),
            per_client_req_per_s: SpreadStats::of(&rates),
            tls: r.tls.clone(),
            quic: r.quic.as_ref().map(QuicStats::of),
            intervals: run.intervals.clone(),
            histograms: None,
            scenario: None,
            websocket: r
                .websocket
                .as_ref()
                .map(|counts| WebSocketStats::of(counts, &r.upgrade_time)),
            grpc: r.grpc.as_ref().map(GrpcStats::of),
            server: None,
        }
    }

    /// The report with the run's histograms encoded in it (the intervals
    /// carry theirs when the run kept them, `RunOptions::interval_histograms`).
    pub fn with_histograms(mut self, run: &RunResult) -> Report {
        self.histograms = Some(ReportHistograms::of(&run.recorder));
        self
    }

    /// Requests that got a response, whatever its status.
    pub fn responses(&self) -> u64 {
        self.requests.succeeded + self.requests.failed_status
    }
}

impl RunConfig {
    /// A WebSocket run (a `ws://` or `wss://` URI): its requests are messages.
    pub fn is_websocket(&self) -> bool {
        self.uris.iter().any(|uri| {
            let scheme = uri.split_once("://").map_or("", |(scheme, _)| scheme);
            scheme.eq_ignore_ascii_case("ws") || scheme.eq_ignore_ascii_case("wss")
        })
    }

    /// The configuration of `plan`'s run, as its report shows it.
    pub fn new(plan: &Plan) -> RunConfig {
        let (mode, requests, duration_s, warm_up_s) = match plan.mode {
            Mode::Requests(_) => ("requests", plan.requests_here(), None, None),
            Mode::Duration { duration, warm_up } => (
                "duration",
                None,
                Some(duration.as_secs_f64()),
                Some(warm_up.as_secs_f64()),
            ),
        };
        RunConfig {
            uris: plan.uris.clone(),
            method: plan.method.clone(),
            clients: plan.clients_here(),
            threads: plan.threads,
            max_concurrent_streams: plan.max_concurrent_streams,
            mode: mode.to_string(),
            requests,
            duration_s,
            warm_up_s,
            load_model: match plan.load.pacing {
                Pacing::Closed => "closed",
                Pacing::PerClientRate { .. } => "rps",
                Pacing::Open { .. } => "open",
                Pacing::Script { .. } => "script",
            }
            .to_string(),
            rate_per_s: match &plan.load.pacing {
                Pacing::Open { profile } => Some(profile.peak() * plan.stripe.fraction()),
                _ => None,
            },
            rps_per_client: match plan.load.pacing {
                Pacing::PerClientRate { rps } => Some(rps),
                _ => None,
            },
            segment: plan.segment.as_ref().map(ToString::to_string),
            load_profile: match (&plan.load.pacing, &plan.load.active_clients) {
                (Pacing::Open { profile }, _) => {
                    let share = plan.stripe.fraction();
                    let mut pieces = profile.pieces();
                    for piece in &mut pieces {
                        piece.from *= share;
                        piece.to *= share;
                    }
                    pieces
                }
                (_, Some(clients)) => clients.pieces(),
                _ => Vec::new(),
            },
            wake_coalescing_us: plan
                .wake_coalescing_ceiling()
                .map(|ceiling| ceiling.as_micros() as u64),
        }
    }
}

impl StatusCounts {
    fn new(r: &Recorder) -> StatusCounts {
        let class = |c: usize| r.status_codes[c * 100..(c + 1) * 100].iter().sum::<u64>();
        // RFC 9110 section 15: a status outside 100-599 is invalid, and a
        // client treats it as 5xx; the code itself stays in `by_code`.
        let invalid: u64 =
            r.status_codes[..100].iter().sum::<u64>() + r.status_codes[600..].iter().sum::<u64>();
        let by_code = r
            .status_codes
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(code, n)| (code.to_string(), *n))
            .collect();
        StatusCounts {
            class_1xx: class(1),
            class_2xx: class(2),
            class_3xx: class(3),
            class_4xx: class(4),
            class_5xx: class(5) + invalid,
            by_code,
        }
    }
}

/// The key of `errors.between_requests` in `errors.first_message`.
pub const BETWEEN_REQUESTS: &str = "between_requests";

impl ErrorCounts {
    fn new(r: &Recorder) -> ErrorCounts {
        let count = |k: ErrorKind| r.errors[k as usize];
        let first_message = ErrorKind::ALL
            .iter()
            .filter_map(|k| {
                r.first_error[*k as usize]
                    .clone()
                    .map(|m| (k.name().to_string(), m))
            })
            .chain(
                r.first_between_requests
                    .clone()
                    .map(|m| (BETWEEN_REQUESTS.to_string(), m)),
            )
            .collect();
        ErrorCounts {
            connect: count(ErrorKind::Connect),
            tls: count(ErrorKind::Tls),
            timeout: count(ErrorKind::Timeout),
            protocol: count(ErrorKind::Protocol),
            reset: count(ErrorKind::Reset),
            other: count(ErrorKind::Other),
            between_requests: r.between_requests,
            first_message,
        }
    }
}

impl TimeStats {
    pub fn of(h: &Histogram<u64>) -> TimeStats {
        if h.is_empty() {
            return TimeStats::default();
        }
        let mean = h.mean();
        let stdev = h.stdev();
        let (low, high) = (mean - stdev, mean + stdev);
        let within: u64 = h
            .iter_recorded()
            .filter(|v| {
                let value = h.median_equivalent(v.value_iterated_to()) as f64;
                low <= value && value <= high
            })
            .map(|v| v.count_at_value())
            .sum();
        TimeStats {
            count: h.len(),
            min_us: h.min(),
            max_us: h.max(),
            mean_us: mean,
            stdev_us: stdev,
            within_stdev_pct: within as f64 * 100.0 / h.len() as f64,
            p50_us: h.value_at_quantile(0.50),
            p75_us: h.value_at_quantile(0.75),
            p90_us: h.value_at_quantile(0.90),
            p95_us: h.value_at_quantile(0.95),
            p99_us: h.value_at_quantile(0.99),
            p99_9_us: h.value_at_quantile(0.999),
        }
    }
}

impl SpreadStats {
    /// Population statistics, as h2load computes them.
    pub fn of(values: &[f64]) -> SpreadStats {
        if values.is_empty() {
            return SpreadStats::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        let stdev = variance.sqrt();
        let within = values
            .iter()
            .filter(|v| (mean - stdev..=mean + stdev).contains(*v))
            .count();
        SpreadStats {
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mean,
            stdev,
            within_stdev_pct: within as f64 * 100.0 / n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_matches_h2load_definition() {
        let s = SpreadStats::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.mean, 2.5);
        assert!((s.stdev - 1.118).abs() < 1e-3);
        assert_eq!(s.within_stdev_pct, 50.0);
        let zeros = SpreadStats::of(&[0.0, 0.0]);
        assert_eq!(zeros.within_stdev_pct, 100.0);
    }

    #[test]
    fn histograms_decode_to_the_recorders() {
        let mut r = Recorder::new();
        r.record_request_times(120, 110);
        for (us, h) in [
            (10, &mut r.queue_delay),
            (900, &mut r.connect_time),
            (40, &mut r.dns_time),
            (300, &mut r.tcp_connect_time),
            (560, &mut r.tls_handshake_time),
            (1500, &mut r.first_byte_time),
        ] {
            crate::histogram::record(h, us);
        }
        let encoded = ReportHistograms::of(&r);
        let (request_time, request_time_raw) = (r.request_time(), r.request_time_raw());
        assert_eq!((request_time.max(), request_time_raw.max()), (120, 110));
        let pairs = [
            (&encoded.request_time, &request_time),
            (&encoded.request_time_raw, &request_time_raw),
            (&encoded.queue_delay, &r.queue_delay),
            (&encoded.connect_time, &r.connect_time),
            (&encoded.dns_time, &r.dns_time),
            (&encoded.tcp_connect_time, &r.tcp_connect_time),
            (&encoded.tls_handshake_time, &r.tls_handshake_time),
            (&encoded.first_byte_time, &r.first_byte_time),
        ];
        for (text, recorded) in pairs {
            assert_eq!(&histogram_codec::decode(text).unwrap(), recorded);
        }
    }

    #[test]
    fn a_status_outside_100_to_599_counts_as_5xx() {
        let mut r = Recorder::new();
        for code in [200, 404, 503, 999, 600, 42] {
            r.status_codes[code] += 1;
        }
        let s = StatusCounts::new(&r);
        assert_eq!((s.class_2xx, s.class_4xx, s.class_5xx), (1, 1, 4), "{s:?}");
        assert_eq!(s.by_code.get("999"), Some(&1));
        assert_eq!(s.by_code.get("42"), Some(&1));
    }

    #[test]
    fn time_stats_from_histogram() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for v in 1..=100u64 {
            h.record(v).unwrap();
        }
        let t = TimeStats::of(&h);
        assert_eq!(
            (t.count, t.min_us, t.max_us, t.p50_us, t.p99_us),
            (100, 1, 100, 50, 99)
        );
        assert!((t.mean_us - 50.5).abs() < 1e-9);
        assert!((t.within_stdev_pct - 58.0).abs() < 1e-9);
    }
}
