//! The plan: one validated, immutable description of a run. A front end
//! (the CLI from flags, a controller from JSON, an SDK) fills a
//! [`PlanInput`], whose every field has a default ([`defaults`]);
//! [`PlanInput::build`] checks it, all in one place, and resolves what
//! follows from it (the endpoint, the paths, the method) into a [`Plan`].
//! Errors name the plan field at fault ([`PlanError`]); the front end
//! names it its own way.

mod options;

pub use options::{
    quic_window, Cleartext, ConnectionRate, Http2Options, Load, Mode, Pacing, QuicOptions,
    Timeouts, TlsOptions, WebSocketOptions, WsExpect, UDP_PAYLOAD_RANGE,
};

use crate::plan_error::{PlanError, PlanField};
use crate::segment::{ExecutionSegment, Stripe};
use crate::uri::{self, Endpoint, Scheme};
use serde::{Deserialize, Serialize};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every default of a plan, in one place: `PlanInput::default()` and the
/// CLI's flags take them from here.
pub mod defaults {
    use super::Cleartext;
    use std::time::Duration;

    pub const CLIENTS: usize = 1;
    pub const THREADS: usize = 1;
    pub const MAX_CONCURRENT_STREAMS: usize = 1;
    pub const REQUESTS: u64 = 1;
    /// Offered on TLS connections, most preferred first.
    pub const ALPN: &[&str] = &["h2", "http/1.1"];
    /// Spoken without TLS (h2load's `-p`).
    pub const CLEARTEXT: Cleartext = Cleartext::H2c;
    pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
    /// h2load's `-w`/`-W`: windows of 2^30 - 1.
    pub const WINDOW_BITS: u8 = 30;
    pub const MAX_FRAME_SIZE: u32 = 16 * 1024;
    pub const HEADER_TABLE_SIZE: u32 = 4096;
    pub const UDP_GSO: bool = true;
    /// The longest a worker thread sleeps before it waits on its sockets
    /// (see [`crate::wake_coalescing`]): the flag's upper bound. Below it,
    /// 1/64 of the mean response time decides, so it binds only where
    /// responses take 64 ms or more.
    pub const WAKE_COALESCING: Duration = WAKE_COALESCING_MAX;
    /// The most `--coalesce-wakeups` takes: a longer sleep would hold each
    /// batch of responses back by more than a millisecond.
    pub const WAKE_COALESCING_MAX: Duration = Duration::from_millis(1);
    /// h2load's `--rate-period`.
    pub const CONNECTION_RATE_PERIOD: Duration = Duration::from_secs(1);
    /// What a WebSocket message carries unless `--ws-message` says otherwise.
    pub const WS_MESSAGE: &[u8] = b"loadgen websocket message";
    /// The largest message `--ws-message` may send: 16 MiB.
    pub const WS_MAX_MESSAGE: usize = 16 << 20;
}

/// Everything a plan needs that the caller chooses; [`PlanInput::build`]
/// checks it. Missing fields of its JSON form take their defaults.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct PlanInput {
    pub uris: Vec<String>,
    /// h2load's `-B`: scheme, host and port (or `unix:PATH`) instead of the first URI's.
    pub base_uri: Option<String>,
    /// h2load's `--connect-to HOST[:PORT]`: where to connect instead of the
    /// URI's host and port, which still name the server to HTTP and TLS.
    pub connect_to: Option<String>,
    /// ALPN identifiers offered on TLS connections, most preferred first;
    /// starting with `h3` means HTTP/3 over QUIC, as in h2load.
    pub alpn: Vec<String>,
    /// Protocol spoken on cleartext connections (h2load's `-p`).
    pub cleartext: Cleartext,
    pub clients: usize,
    pub threads: usize,
    pub max_concurrent_streams: usize,
    pub mode: Mode,
    /// `None`: GET, or POST with a body.
    pub method: Option<String>,
    /// `-H` headers in the order given; they override the defaults.
    pub headers: Vec<(String, String)>,
    #[serde(with = "options::body_base64")]
    pub body: Option<Vec<u8>>,
    pub timeouts: Timeouts,
    pub tls: TlsOptions,
    pub http2: Http2Options,
    pub quic: QuicOptions,
    pub load: Load,
    /// h2load's `--log-file`: where to write one line per measured request.
    pub log_file: Option<PathBuf>,
    /// k6's execution segment: the part of the run this machine makes.
    pub segment: Option<ExecutionSegment>,
    /// Messages of a WebSocket run; only `ws://` and `wss://` URIs take them.
    pub websocket: WebSocketOptions,
    /// The requests are gRPC calls (`loadgen grpc`): HTTP/2 or HTTP/3 only,
    /// and a call succeeds when its `grpc-status` is OK.
    pub grpc: bool,
    /// Closed model with more than one request per connection: the longest a
    /// worker thread with requests in flight sleeps before it waits on its
    /// sockets ([`crate::wake_coalescing`]); zero never sleeps.
    pub wake_coalescing: Duration,
}

impl Default for PlanInput {
    fn default() -> Self {
        PlanInput {
            uris: Vec::new(),
            base_uri: None,
            connect_to: None,
            alpn: defaults::ALPN.iter().map(|p| p.to_string()).collect(),
            cleartext: defaults::CLEARTEXT,
            clients: defaults::CLIENTS,
            threads: defaults::THREADS,
            max_concurrent_streams: defaults::MAX_CONCURRENT_STREAMS,
            mode: Mode::Requests(defaults::REQUESTS),
            method: None,
            headers: Vec::new(),
            body: None,
            timeouts: Timeouts {
                connect: Some(defaults::CONNECT_TIMEOUT),
                ..Timeouts::default()
            },
            tls: TlsOptions::default(),
            http2: Http2Options::default(),
            quic: QuicOptions::default(),
            load: Load::default(),
            log_file: None,
            segment: None,
            websocket: WebSocketOptions::default(),
            grpc: false,
            wake_coalescing: defaults::WAKE_COALESCING,
        }
    }
}

/// A validated plan: its input, and what follows from it. It reads as its
/// input (`plan.clients`) through `Deref`; it serializes as its input and
/// is checked again when read back.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "PlanInput", try_from = "PlanInput")]
pub struct Plan {
    input: PlanInput,
    pub endpoint: Endpoint,
    /// Path and query of each URI; clients request them in turn, cycling.
    pub paths: Vec<String>,
    /// The method every request uses (the input's, else GET or POST).
    pub method: String,
    /// What of every stream (clients, arrivals) this machine's segment owns.
    pub stripe: Stripe,
}

impl Deref for Plan {
    type Target = PlanInput;

    fn deref(&self) -> &PlanInput {
        &self.input
    }
}

impl From<Plan> for PlanInput {
    fn from(plan: Plan) -> PlanInput {
        plan.input
    }
}

impl TryFrom<PlanInput> for Plan {
    type Error = PlanError;

    fn try_from(input: PlanInput) -> Result<Plan, PlanError> {
        input.build()
    }
}

fn invalid(field: PlanField, message: impl Into<String>) -> Result<(), PlanError> {
    Err(PlanError::new(field, message))
}

impl PlanInput {
    /// Checks every field and resolves the endpoint, paths and method.
    pub fn build(self) -> Result<Plan, PlanError> {
        let (mut endpoint, paths) = uri::resolve(&self.uris, self.base_uri.as_deref())?;
        if let Some(target) = &self.connect_to {
            if matches!(endpoint.connect, uri::ConnectTo::Unix { .. }) {
                invalid(
                    PlanField::ConnectTo,
                    "cannot be combined with a unix: base URI",
                )?;
            }
            endpoint.connect = uri::parse_connect_to(target, endpoint.port)?;
        }
        let stripe = match &self.segment {
            Some(segment) => segment.stripe()?,
            None => Stripe::whole(),
        };
        self.check_concurrency(&stripe)?;
        self.check_mode()?;
        self.check_load()?;
        self.check_timeouts()?;
        self.check_wake_coalescing()?;
        self.check_protocols(&endpoint)?;
        self.check_websocket(&endpoint, &paths)?;
        self.check_grpc(&endpoint)?;
        let method = self.check_request()?;
        Ok(Plan {
            input: self,
            endpoint,
            paths,
            method,
            stripe,
        })
    }

    fn check_concurrency(&self, stripe: &Stripe) -> Result<(), PlanError> {
        if self.clients == 0 {
            invalid(
                PlanField::Clients,
                "the number of clients must be at least 1",
            )?;
        }
        if self.threads == 0 {
            invalid(
                PlanField::Threads,
                "the number of threads must be at least 1",
            )?;
        }
        let clients_here = stripe.count_below(self.clients as u64) as usize;
        if let (Some(segment), 0) = (&self.segment, clients_here) {
            invalid(
                PlanField::ExecutionSegment,
                format!(
                    "the segment {segment} gets none of the {} clients; raise {{clients}} or use fewer segments",
                    self.clients
                ),
            )?;
        }
        if self.threads > clients_here {
            let theirs = match &self.segment {
                Some(segment) => format!("the segment {segment}'s {clients_here}"),
                None => format!("{clients_here}"),
            };
            invalid(
                PlanField::Threads,
                format!(
                    "the number of threads ({}) must not exceed the number of clients ({theirs}); raise {{clients}} or lower {{threads}}",
                    self.threads
                ),
            )?;
        }
        if self.max_concurrent_streams == 0 {
            invalid(
                PlanField::MaxConcurrentStreams,
                "the number of concurrent streams must be at least 1",
            )?;
        }
        Ok(())
    }

    fn check_mode(&self) -> Result<(), PlanError> {
        match self.mode {
            Mode::Requests(n)
                if n < self.clients as u64 && !matches!(self.load.pacing, Pacing::Open { .. }) =>
            {
                invalid(
                    PlanField::Requests,
                    format!(
                        "the number of requests ({n}) must be at least the number of clients ({})",
                        self.clients
                    ),
                )
            }
            Mode::Duration { duration, .. } if duration.is_zero() => invalid(
                PlanField::Duration,
                "the duration must be greater than zero",
            ),
            _ => Ok(()),
        }
    }

    fn check_load(&self) -> Result<(), PlanError> {
        match &self.load.pacing {
            Pacing::PerClientRate { rps } if !(rps.is_finite() && *rps > 0.0) => {
                invalid(PlanField::Rps, "the rate must be a positive number")?
            }
            Pacing::Open { profile } if profile.peak() <= 0.0 => {
                invalid(PlanField::Rate, "the rate must be greater than zero")?
            }
            Pacing::Script { offsets } if offsets.is_empty() => {
                invalid(PlanField::TimingScript, "the script has no lines")?
            }
            _ => {}
        }
        if let Some(rate) = &self.load.connection_rate {
            if rate.per_period == 0 || rate.period.is_zero() {
                invalid(
                    PlanField::ConnectionRate,
                    "the connections per period and the period must both be greater than zero",
                )?;
            }
        }
        Ok(())
    }

    /// A timeout of zero would end every connection or request at once.
    fn check_timeouts(&self) -> Result<(), PlanError> {
        let timeouts = [
            (PlanField::ConnectTimeout, self.timeouts.connect),
            (PlanField::RequestTimeout, self.timeouts.request),
            (
                PlanField::ConnectionActiveTimeout,
                self.timeouts.connection_active,
            ),
            (
                PlanField::ConnectionInactivityTimeout,
                self.timeouts.connection_inactivity,
            ),
        ];
        for (field, timeout) in timeouts {
            if timeout.is_some_and(|t| t.is_zero()) {
                invalid(field, "the timeout must be greater than zero")?;
            }
        }
        Ok(())
    }

    fn check_wake_coalescing(&self) -> Result<(), PlanError> {
        if self.wake_coalescing > defaults::WAKE_COALESCING_MAX {
            invalid(
                PlanField::WakeCoalescing,
                format!(
                    "must be at most {} µs, got {} µs",
                    defaults::WAKE_COALESCING_MAX.as_micros(),
                    self.wake_coalescing.as_micros()
                ),
            )?;
        }
        Ok(())
    }

    fn check_protocols(&self, endpoint: &Endpoint) -> Result<(), PlanError> {
        let windows = [
            (PlanField::WindowBits, self.http2.window_bits),
            (
                PlanField::ConnectionWindowBits,
                self.http2.connection_window_bits,
            ),
        ];
        for (field, bits) in windows {
            // A window of 2^0 - 1 = 0 bytes would stall every response body.
            if !(1..=30).contains(&bits) {
                invalid(
                    field,
                    format!("window bits must be between 1 and 30, got {bits}"),
                )?;
            }
        }
        if !(16384..=16_777_215).contains(&self.http2.max_frame_size) {
            invalid(
                PlanField::MaxFrameSize,
                "the maximum frame size must be between 16K and 16M-1",
            )?;
        }
        if let Some(base) = &self.quic.qlog_file_base {
            let dir = match base.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir,
                _ => Path::new("."),
            };
            if base.file_name().is_none() || !dir.is_dir() {
                invalid(
                    PlanField::QlogFileBase,
                    format!(
                        "{} is not a file name in an existing directory",
                        base.display()
                    ),
                )?;
            }
        }
        if let Some(size) = self.quic.max_udp_payload_size {
            if !UDP_PAYLOAD_RANGE.contains(&size) {
                invalid(
                    PlanField::MaxUdpPayloadSize,
                    format!(
                        "must be between {} and {}, got {size}",
                        UDP_PAYLOAD_RANGE.start(),
                        UDP_PAYLOAD_RANGE.end()
                    ),
                )?;
            }
        }
        if self.alpn.is_empty() || self.alpn.iter().any(|p| p.is_empty()) {
            invalid(
                PlanField::Alpn,
                "expected a comma separated list such as h2,http/1.1",
            )?;
        }
        if self.alpn[0] == "h3" {
            // As in h2load, an ALPN list that starts with h3 means QUIC.
            if endpoint.scheme != Scheme::Https {
                invalid(PlanField::AlpnHttp3, "HTTP/3 needs an https:// URI")?;
            }
            if matches!(endpoint.connect, uri::ConnectTo::Unix { .. }) {
                invalid(
                    PlanField::AlpnHttp3,
                    "HTTP/3 runs over UDP and cannot use a UNIX socket",
                )?;
            }
        }
        Ok(())
    }

    /// WebSocket options need a ws:// or wss:// URI, and a WebSocket run
    /// opens one path, over HTTP/1.1 or HTTP/2.
    fn check_websocket(&self, endpoint: &Endpoint, paths: &[String]) -> Result<(), PlanError> {
        let ws = &self.websocket;
        if !endpoint.scheme.is_websocket() {
            let field = if ws.message.is_some() {
                Some(PlanField::WebSocketMessage)
            } else if ws.binary {
                Some(PlanField::WebSocketBinary)
            } else if ws.expect != WsExpect::default() {
                Some(PlanField::WebSocketExpect)
            } else if ws.http2 {
                Some(PlanField::WebSocketHttp2)
            } else {
                None
            };
            if let Some(field) = field {
                invalid(
                    field,
                    format!(
                        "only applies to ws:// and wss:// URIs, not {}://",
                        endpoint.scheme.as_str()
                    ),
                )?;
            }
            return Ok(());
        }
        if paths.len() > 1 {
            invalid(
                PlanField::Uris,
                "a WebSocket run opens one path; give one ws:// or wss:// URI",
            )?;
        }
        if self.alpn.first().is_some_and(|p| p == "h3") {
            invalid(
                PlanField::AlpnHttp3,
                "WebSocket runs over HTTP/1.1 or HTTP/2 (--ws-http2); WebSocket over HTTP/3 is not supported",
            )?;
        }
        let message = ws.message_bytes();
        if message.len() > defaults::WS_MAX_MESSAGE {
            invalid(
                PlanField::WebSocketMessage,
                format!(
                    "the message has {} bytes; the most is {}",
                    message.len(),
                    defaults::WS_MAX_MESSAGE
                ),
            )?;
        }
        if !ws.binary && std::str::from_utf8(message).is_err() {
            invalid(
                PlanField::WebSocketMessage,
                "the message is not UTF-8 text; send it with --ws-binary",
            )?;
        }
        Ok(())
    }

    /// Checks the headers and the method; returns the method to use.
    /// gRPC runs over HTTP/2 (h2c in cleartext) or HTTP/3, never HTTP/1.1.
    fn check_grpc(&self, endpoint: &Endpoint) -> Result<(), PlanError> {
        if !self.grpc {
            return Ok(());
        }
        if endpoint.scheme.is_websocket() {
            invalid(
                PlanField::Uris,
                "gRPC calls take an http:// or https:// URI",
            )?;
        }
        if !endpoint.scheme.is_tls() && self.cleartext != Cleartext::H2c {
            invalid(
                PlanField::Cleartext,
                "gRPC needs HTTP/2: cleartext calls go over h2c",
            )?;
        }
        let speaks_grpc = |p: &String| p == "h2" || p == "h3";
        if endpoint.scheme.is_tls() && !self.alpn.iter().any(speaks_grpc) {
            invalid(
                PlanField::Alpn,
                "gRPC needs HTTP/2 or HTTP/3: offer h2 or h3",
            )?;
        }
        Ok(())
    }

    fn check_request(&self) -> Result<String, PlanError> {
        for (name, _) in &self.headers {
            if name.is_empty() {
                invalid(
                    PlanField::Headers,
                    "a header needs a name, as in 'name: value'",
                )?;
            }
        }
        match &self.method {
            Some(m) => {
                let token = !m.is_empty()
                    && m.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b));
                if !token {
                    invalid(
                        PlanField::Method,
                        format!("'{m}' is not a valid HTTP method"),
                    )?;
                }
                Ok(m.clone())
            }
            None if self.body.is_some() => Ok("POST".into()),
            None => Ok("GET".into()),
        }
    }
}

impl Plan {
    pub fn is_tls(&self) -> bool {
        self.endpoint.scheme.is_tls()
    }

    /// A WebSocket run: a `ws://` or `wss://` URI.
    pub fn is_websocket(&self) -> bool {
        self.endpoint.scheme.is_websocket()
    }

    /// The protocol a WebSocket run's sockets open over, by its ALPN id.
    pub fn websocket_alpn(&self) -> &'static str {
        if self.websocket.http2 {
            "h2"
        } else {
            "http/1.1"
        }
    }

    /// The ALPN identifiers TLS offers: a WebSocket opens with an HTTP/1.1
    /// upgrade, so only `http/1.1` then, or only `h2` for RFC 8441.
    pub fn tls_alpn(&self) -> Vec<String> {
        if self.is_websocket() {
            vec![self.websocket_alpn().into()]
        } else if self.grpc {
            // A server must not pick HTTP/1.1 for a gRPC call.
            self.alpn
                .iter()
                .filter(|p| *p == "h2" || *p == "h3")
                .cloned()
                .collect()
        } else {
            self.alpn.clone()
        }
    }

    /// HTTP/3 over QUIC: the ALPN list starts with `h3`, as in h2load.
    pub fn is_quic(&self) -> bool {
        self.is_tls() && self.alpn.first().is_some_and(|p| p == "h3")
    }

    /// The longest wake-up coalescing sleep ([`crate::wake_coalescing`]),
    /// when the run takes one: in the closed model with more than one
    /// request per connection, where batches of responses form on a
    /// connection; an open model's requests must leave when they fall due.
    pub fn wake_coalescing_ceiling(&self) -> Option<Duration> {
        let batches = self.max_concurrent_streams > 1 && self.load.pacing == Pacing::Closed;
        (batches && !self.wake_coalescing.is_zero()).then_some(self.wake_coalescing)
    }

    /// The clients this machine runs: all of them, or its segment's part.
    pub fn clients_here(&self) -> usize {
        self.stripe.count_below(self.clients as u64) as usize
    }

    /// Client `client` of this machine (from 0, across its threads) in the
    /// whole run: its place in the order clients join and split `-n`.
    pub fn rank_of_client(&self, client: usize) -> usize {
        self.stripe.nth(client as u64) as usize
    }

    /// Clients of worker thread `thread`: spread evenly, the first threads take the remainder.
    pub fn clients_of_thread(&self, thread: usize) -> usize {
        share(
            self.clients_here() as u64,
            self.threads as u64,
            thread as u64,
        ) as usize
    }

    /// Requests of this machine's client `client` in count mode: its share
    /// of `-n` among the clients of the whole run.
    pub fn requests_of_client(&self, client: usize) -> Option<u64> {
        match self.mode {
            Mode::Requests(n) => Some(share(
                n,
                self.clients as u64,
                self.rank_of_client(client) as u64,
            )),
            Mode::Duration { .. } => None,
        }
    }

    /// This machine's part of `-n` in count mode: its clients' shares, or
    /// under the open model its segment's part of the arrivals.
    pub fn requests_here(&self) -> Option<u64> {
        let Mode::Requests(n) = self.mode else {
            return None;
        };
        if self.stripe.is_whole() {
            return Some(n);
        }
        Some(match self.load.pacing {
            Pacing::Open { .. } => self.stripe.count_below(n),
            _ => (0..self.clients_here())
                .filter_map(|c| self.requests_of_client(c))
                .sum(),
        })
    }

    /// How long measuring waits after the start (`--warm-up-time`).
    pub fn warm_up(&self) -> Duration {
        match self.mode {
            Mode::Duration { warm_up, .. } => warm_up,
            Mode::Requests(_) => Duration::ZERO,
        }
    }
}

/// `index`'s part when `total` is split into `parts` as evenly as possible.
fn share(total: u64, parts: u64, index: u64) -> u64 {
    total / parts + u64::from(index < total % parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> PlanInput {
        PlanInput {
            uris: vec!["http://127.0.0.1:1/".into()],
            ..PlanInput::default()
        }
    }

    #[test]
    fn shares_add_up() {
        for (total, parts) in [(1000u64, 10u64), (1001, 10), (7, 3), (5, 5)] {
            let sum: u64 = (0..parts).map(|i| share(total, parts, i)).sum();
            assert_eq!(sum, total);
        }
        assert_eq!(share(7, 3, 0), 3);
        assert_eq!(share(7, 3, 2), 2);
    }

    #[test]
    fn validation_names_the_field() {
        let err = PlanInput {
            threads: 4,
            clients: 2,
            ..input()
        }
        .build()
        .unwrap_err();
        assert_eq!(err.field, PlanField::Threads, "{err}");
        let err = PlanInput {
            mode: Mode::Requests(1),
            clients: 2,
            ..input()
        }
        .build()
        .unwrap_err();
        assert_eq!(err.field, PlanField::Requests, "{err}");
        let err = PlanInput {
            method: Some("GE T".into()),
            ..input()
        }
        .build()
        .unwrap_err();
        assert_eq!(err.field, PlanField::Method, "{err}");
    }

    #[test]
    fn body_implies_post_and_round_trips() {
        let plan = PlanInput {
            body: Some(b"abc".to_vec()),
            ..input()
        }
        .build()
        .unwrap();
        assert_eq!(plan.method, "POST");
        let json = serde_json::to_string(&plan).unwrap();
        let back: Plan = serde_json::from_str(&json).unwrap();
        assert_eq!(back.body.as_deref(), Some(&b"abc"[..]));
    }

    #[test]
    fn windows_follow_h2load() {
        let h2 = Http2Options::default();
        assert_eq!(h2.stream_window(), (1 << 30) - 1);
        assert_eq!(quic_window(30), (1 << 26) - 1);
        assert_eq!(quic_window(16), (1 << 16) - 1);
    }

    #[test]
    fn h3_first_means_quic_and_needs_https() {
        let plan = PlanInput {
            uris: vec!["https://127.0.0.1:1/".into()],
            alpn: vec!["h3".into()],
            ..PlanInput::default()
        }
        .build()
        .unwrap();
        assert!(plan.is_quic());
        let err = PlanInput {
            alpn: vec!["h3".into()],
            ..input()
        }
        .build()
        .unwrap_err();
        assert_eq!(err.field, PlanField::AlpnHttp3, "{err}");
        let plan = PlanInput {
            uris: vec!["https://127.0.0.1:1/".into()],
            ..PlanInput::default()
        }
        .build()
        .unwrap();
        assert!(!plan.is_quic());
    }
}
