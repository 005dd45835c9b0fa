//! The plan: one validated, immutable description of a run. The CLI builds
//! it from flags; later a controller or a scenario will build the same thing.

use crate::profile::Profile;
use crate::uri::{self, Endpoint, Scheme};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub uris: Vec<String>,
    pub endpoint: Endpoint,
    /// Path and query of each URI; client `k` requests them in order, cycling.
    pub paths: Vec<String>,
    /// ALPN identifiers offered on TLS connections, most preferred first.
    pub alpn: Vec<String>,
    /// Protocol spoken on cleartext connections (h2load's `-p`).
    pub cleartext: Cleartext,
    pub clients: usize,
    pub threads: usize,
    pub max_concurrent_streams: usize,
    pub mode: Mode,
    pub method: String,
    /// `-H` headers in the order given; they override the defaults.
    pub headers: Vec<(String, String)>,
    #[serde(with = "body_base64")]
    pub body: Option<Vec<u8>>,
    pub timeouts: Timeouts,
    pub tls: TlsOptions,
    pub http2: Http2Options,
    #[serde(default)]
    pub quic: QuicOptions,
    pub load: Load,
    /// h2load's `--log-file`: where to write one line per measured request.
    #[serde(default)]
    pub log_file: Option<PathBuf>,
}

/// How the load is shaped over time: the scheduler's input.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Load {
    pub pacing: Pacing,
    /// Closed model: how many clients are active over time (`--ramp-up-time`,
    /// `--stages` without `--rate`); all of them when `None`.
    pub active_clients: Option<Profile>,
    /// h2load's `-r`/`--rate-period`: new connections per period.
    pub connection_rate: Option<ConnectionRate>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pacing {
    /// Closed model: a client starts a request whenever a slot is free.
    #[default]
    Closed,
    /// h2load's `--rps`: each client starts at most this many requests per second.
    PerClientRate { rps: f64 },
    /// Open model: requests fall due at the rate of `profile` (per second, in total).
    Open { profile: Profile },
    /// h2load's `--timing-script-file`: each client's k-th request at `offsets[k]`.
    Script { offsets: Vec<Duration> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionRate {
    pub per_period: usize,
    pub period: Duration,
}

/// The protocol of connections without TLS (h2load's `-p`), by the name
/// it is registered under.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Cleartext {
    H2c,
    Http1,
    /// A protocol registered besides the standard ones.
    Named(String),
}

impl Cleartext {
    pub fn name(&self) -> &str {
        match self {
            Cleartext::H2c => "h2c",
            Cleartext::Http1 => "http/1.1",
            Cleartext::Named(name) => name,
        }
    }
}

impl From<String> for Cleartext {
    fn from(name: String) -> Self {
        match name.as_str() {
            "h2c" => Cleartext::H2c,
            "http/1.1" => Cleartext::Http1,
            _ => Cleartext::Named(name),
        }
    }
}

impl From<Cleartext> for String {
    fn from(cleartext: Cleartext) -> Self {
        cleartext.name().to_string()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Exactly this many requests across all clients.
    Requests(u64),
    /// Run for `duration` after `warm_up`; requests started in warm-up are not recorded.
    Duration {
        duration: Duration,
        warm_up: Duration,
    },
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Timeouts {
    pub connect: Option<Duration>,
    pub request: Option<Duration>,
    /// h2load's `-T`: the longest a connection is kept open.
    pub connection_active: Option<Duration>,
    /// h2load's `-N`: the longest a connection with requests in flight may stay silent.
    pub connection_inactivity: Option<Duration>,
}

impl Timeouts {
    /// Whether any timeout applies once a connection is open.
    pub fn any_on_connections(&self) -> bool {
        self.request.is_some()
            || self.connection_active.is_some()
            || self.connection_inactivity.is_some()
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TlsOptions {
    pub insecure: bool,
    pub ca_file: Option<PathBuf>,
    pub sni: Option<String>,
    /// TLS 1.2 suites, OpenSSL or IANA names separated by `:`.
    pub ciphers: Option<String>,
    /// TLS 1.3 suites, separated by `:`.
    pub tls13_ciphers: Option<String>,
    /// Key-exchange groups, separated by `:` (h2load's `--groups`).
    #[serde(default)]
    pub groups: Option<String>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Http2Options {
    /// Stream window is 2^bits - 1 (h2load's `-w`).
    pub window_bits: u8,
    /// Connection window is 2^bits - 1 (h2load's `-W`).
    pub connection_window_bits: u8,
    pub max_frame_size: u32,
    pub header_table_size: u32,
}

/// QUIC transport settings (h2load's names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuicOptions {
    /// Send several datagrams per system call (UDP generic segmentation
    /// offload) where the kernel offers it; h2load's `--no-udp-gso` turns it off.
    pub gso: bool,
    /// h2load's `--max-udp-payload-size`: the largest datagram payload sent.
    /// Path MTU discovery searches up to it from QUIC's 1200; `None` keeps
    /// quinn's bound (1452).
    pub max_udp_payload_size: Option<u16>,
    /// h2load's `--qlog-file-base`: each connection writes a qlog trace to
    /// `BASE.THREAD.CLIENT.sqlog` (the client's number within its thread).
    #[serde(default)]
    pub qlog_file_base: Option<PathBuf>,
}

impl Default for QuicOptions {
    fn default() -> Self {
        QuicOptions {
            gso: true,
            max_udp_payload_size: None,
            qlog_file_base: None,
        }
    }
}

/// QUIC's smallest allowed datagram payload and UDP's largest (over IPv6).
pub const UDP_PAYLOAD_RANGE: std::ops::RangeInclusive<u16> = 1200..=65527;

impl Default for Http2Options {
    fn default() -> Self {
        Http2Options {
            window_bits: 30,
            connection_window_bits: 30,
            max_frame_size: 16 * 1024,
            header_table_size: 4096,
        }
    }
}

impl Http2Options {
    pub fn stream_window(&self) -> u32 {
        window(self.window_bits)
    }

    pub fn connection_window(&self) -> u32 {
        window(self.connection_window_bits)
    }
}

/// QUIC windows: h2load caps `-w`/`-W` at 26 bits (about 64 MiB) for QUIC.
pub fn quic_window(bits: u8) -> u32 {
    window(bits.min(26))
}

fn window(bits: u8) -> u32 {
    ((1u64 << bits.min(31)) - 1) as u32
}

/// Everything a plan needs that the caller chooses; `build` checks it.
#[derive(Clone, Debug)]
pub struct PlanInput {
    pub uris: Vec<String>,
    pub base_uri: Option<String>,
    /// h2load's `--connect-to HOST[:PORT]`: where to connect instead of the
    /// URI's host and port, which still name the server to HTTP and TLS.
    pub connect_to: Option<String>,
    pub alpn: Vec<String>,
    pub cleartext: Cleartext,
    pub clients: usize,
    pub threads: usize,
    pub max_concurrent_streams: usize,
    pub mode: Mode,
    pub method: Option<String>,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
    pub timeouts: Timeouts,
    pub tls: TlsOptions,
    pub http2: Http2Options,
    pub quic: QuicOptions,
    pub load: Load,
    pub log_file: Option<PathBuf>,
}

impl Default for PlanInput {
    fn default() -> Self {
        PlanInput {
            uris: Vec::new(),
            base_uri: None,
            connect_to: None,
            alpn: vec!["h2".into(), "http/1.1".into()],
            cleartext: Cleartext::H2c,
            clients: 1,
            threads: 1,
            max_concurrent_streams: 1,
            mode: Mode::Requests(1),
            method: None,
            headers: Vec::new(),
            body: None,
            timeouts: Timeouts {
                connect: Some(Duration::from_secs(10)),
                ..Timeouts::default()
            },
            tls: TlsOptions::default(),
            http2: Http2Options::default(),
            quic: QuicOptions::default(),
            load: Load::default(),
            log_file: None,
        }
    }
}

impl PlanInput {
    /// Validates the input; the error is one line naming the flag at fault.
    pub fn build(self) -> Result<Plan, String> {
        let (mut endpoint, paths) = uri::resolve(&self.uris, self.base_uri.as_deref())?;
        if let Some(target) = &self.connect_to {
            if matches!(endpoint.connect, uri::ConnectTo::Unix { .. }) {
                return Err("--connect-to: cannot be combined with a unix: base URI".into());
            }
            endpoint.connect = uri::parse_connect_to(target, endpoint.port)?;
        }
        if self.clients == 0 {
            return Err("-c: the number of clients must be at least 1".into());
        }
        if self.threads == 0 {
            return Err("-t: the number of threads must be at least 1".into());
        }
        if self.threads > self.clients {
            return Err(format!(
                "-t: the number of threads ({}) must not exceed the number of clients ({}); raise -c or lower -t",
                self.threads, self.clients
            ));
        }
        if self.max_concurrent_streams == 0 {
            return Err("-m: the number of concurrent streams must be at least 1".into());
        }
        self.load.validate()?;
        match self.mode {
            Mode::Requests(n)
                if n < self.clients as u64 && !matches!(self.load.pacing, Pacing::Open { .. }) =>
            {
                return Err(format!(
                    "-n: the number of requests ({n}) must be at least the number of clients ({})",
                    self.clients
                ))
            }
            Mode::Duration { duration, .. } if duration.is_zero() => {
                return Err("-D: the duration must be greater than zero".into())
            }
            _ => {}
        }
        for bits in [self.http2.window_bits, self.http2.connection_window_bits] {
            if bits > 30 {
                return Err(format!(
                    "-w/-W: window bits must be between 0 and 30, got {bits}"
                ));
            }
        }
        if let Some(base) = &self.quic.qlog_file_base {
            let dir = match base.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir,
                _ => std::path::Path::new("."),
            };
            if base.file_name().is_none() || !dir.is_dir() {
                return Err(format!(
                    "--qlog-file-base: {} is not a file name in an existing directory",
                    base.display()
                ));
            }
        }
        if let Some(size) = self.quic.max_udp_payload_size {
            if !UDP_PAYLOAD_RANGE.contains(&size) {
                return Err(format!(
                    "--max-udp-payload-size: must be between {} and {}, got {size}",
                    UDP_PAYLOAD_RANGE.start(),
                    UDP_PAYLOAD_RANGE.end()
                ));
            }
        }
        if !(16384..=16_777_215).contains(&self.http2.max_frame_size) {
            return Err("-f: the maximum frame size must be between 16K and 16M-1".into());
        }
        if self.alpn.is_empty() || self.alpn.iter().any(|p| p.is_empty()) {
            return Err("--alpn-list: expected a comma separated list such as h2,http/1.1".into());
        }
        if self.alpn[0] == "h3" {
            // As in h2load, an ALPN list that starts with h3 means QUIC.
            if endpoint.scheme != Scheme::Https {
                return Err("--h3: HTTP/3 needs an https:// URI".into());
            }
            if matches!(endpoint.connect, uri::ConnectTo::Unix { .. }) {
                return Err("--h3: HTTP/3 runs over UDP and cannot use a UNIX socket".into());
            }
        }
        for (name, _) in &self.headers {
            if name.is_empty() {
                return Err("-H: a header needs a name, as in -H 'name: value'".into());
            }
        }
        let method = match self.method {
            Some(m) => {
                if m.is_empty()
                    || !m
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_!#$%&'*+.^`|~".contains(&b))
                {
                    return Err(format!("--method: '{m}' is not a valid HTTP method"));
                }
                m
            }
            None if self.body.is_some() => "POST".into(),
            None => "GET".into(),
        };
        Ok(Plan {
            uris: self.uris,
            endpoint,
            paths,
            alpn: self.alpn,
            cleartext: self.cleartext,
            clients: self.clients,
            threads: self.threads,
            max_concurrent_streams: self.max_concurrent_streams,
            mode: self.mode,
            method,
            headers: self.headers,
            body: self.body,
            timeouts: self.timeouts,
            tls: self.tls,
            http2: self.http2,
            quic: self.quic,
            load: self.load,
            log_file: self.log_file,
        })
    }
}

impl Load {
    fn validate(&self) -> Result<(), String> {
        match &self.pacing {
            Pacing::PerClientRate { rps } if !(rps.is_finite() && *rps > 0.0) => {
                return Err("--rps: the rate must be a positive number".into())
            }
            Pacing::Open { profile } if profile.peak() <= 0.0 => {
                return Err("--rate: the rate must be greater than zero".into())
            }
            Pacing::Script { offsets } if offsets.is_empty() => {
                return Err("--timing-script-file: the script has no lines".into())
            }
            _ => {}
        }
        if let Some(rate) = &self.connection_rate {
            if rate.per_period == 0 || rate.period.is_zero() {
                return Err("-r/--rate-period: both must be greater than zero".into());
            }
        }
        Ok(())
    }

    /// When the load curve ends by itself (`--stages`), in seconds from the start.
    pub fn natural_end(&self) -> Option<f64> {
        match (&self.pacing, &self.active_clients) {
            (Pacing::Open { profile }, _) => profile.end(),
            (_, Some(curve)) => curve.end(),
            _ => None,
        }
    }
}

impl Plan {
    pub fn is_tls(&self) -> bool {
        self.endpoint.scheme == Scheme::Https
    }

    /// HTTP/3 over QUIC: the ALPN list starts with `h3`, as in h2load.
    pub fn is_quic(&self) -> bool {
        self.is_tls() && self.alpn.first().is_some_and(|p| p == "h3")
    }

    /// Clients of worker thread `thread`: spread evenly, the first threads take the remainder.
    pub fn clients_of_thread(&self, thread: usize) -> usize {
        share(self.clients as u64, self.threads as u64, thread as u64) as usize
    }

    /// Requests of client `client` (numbered across all threads) in count mode.
    pub fn requests_of_client(&self, client: usize) -> Option<u64> {
        match self.mode {
            Mode::Requests(n) => Some(share(n, self.clients as u64, client as u64)),
            Mode::Duration { .. } => None,
        }
    }
}

/// `index`'s part when `total` is split into `parts` as evenly as possible.
fn share(total: u64, parts: u64, index: u64) -> u64 {
    total / parts + u64::from(index < total % parts)
}

mod body_base64 {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(body: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match body {
            Some(bytes) => {
                s.serialize_some(&base64::engine::general_purpose::STANDARD.encode(bytes))
            }
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| {
            base64::engine::general_purpose::STANDARD
                .decode(t)
                .map_err(serde::de::Error::custom)
        })
        .transpose()
    }
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
    fn validation_names_the_flag() {
        let err = PlanInput {
            threads: 4,
            clients: 2,
            ..input()
        }
        .build()
        .unwrap_err();
        assert!(err.starts_with("-t:"), "{err}");
        let err = PlanInput {
            mode: Mode::Requests(1),
            clients: 2,
            ..input()
        }
        .build()
        .unwrap_err();
        assert!(err.starts_with("-n:"), "{err}");
        let err = PlanInput {
            method: Some("GE T".into()),
            ..input()
        }
        .build()
        .unwrap_err();
        assert!(err.starts_with("--method:"), "{err}");
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
        assert!(err.starts_with("--h3:"), "{err}");
        let plan = PlanInput {
            uris: vec!["https://127.0.0.1:1/".into()],
            ..PlanInput::default()
        }
        .build()
        .unwrap();
        assert!(!plan.is_quic());
    }
}
