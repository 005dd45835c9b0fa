//! The parts of a plan, grouped as the flags that set them: load shape,
//! timeouts, TLS, HTTP/2 and QUIC settings.

use super::defaults;
use crate::profile::Profile;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// How the load is shaped over time: the scheduler's input.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Load {
    pub pacing: Pacing,
    /// Closed model: how many clients are active over time (`--ramp-up-time`,
    /// `--stages` without `--rate`); all of them when `None`.
    pub active_clients: Option<Profile>,
    /// h2load's `-r`/`--rate-period`: new connections per period.
    pub connection_rate: Option<ConnectionRate>,
}

impl Load {
    /// When the load curve ends by itself (`--stages`), in seconds from the start.
    pub fn natural_end(&self) -> Option<f64> {
        match (&self.pacing, &self.active_clients) {
            (Pacing::Open { profile }, _) => profile.end(),
            (_, Some(curve)) => curve.end(),
            _ => None,
        }
    }
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
#[serde(default)]
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
#[serde(default)]
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
#[serde(default)]
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
#[serde(default)]
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
            gso: defaults::UDP_GSO,
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
            window_bits: defaults::WINDOW_BITS,
            connection_window_bits: defaults::WINDOW_BITS,
            max_frame_size: defaults::MAX_FRAME_SIZE,
            header_table_size: defaults::HEADER_TABLE_SIZE,
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

pub(crate) mod body_base64 {
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

/// WebSocket runs (`ws://` and `wss://` URIs): what each message carries
/// and what answers it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WebSocketOptions {
    /// What every message carries (`--ws-message`, `--ws-message-file`);
    /// `None`: [`defaults::WS_MESSAGE`].
    #[serde(with = "body_base64")]
    pub message: Option<Vec<u8>>,
    /// Send binary frames instead of text (`--ws-binary`).
    pub binary: bool,
    pub expect: WsExpect,
    /// Open each WebSocket as an HTTP/2 stream with extended CONNECT
    /// (RFC 8441, `--ws-http2`) instead of an HTTP/1.1 upgrade.
    pub http2: bool,
}

impl WebSocketOptions {
    /// The bytes every message carries.
    pub fn message_bytes(&self) -> &[u8] {
        self.message.as_deref().unwrap_or(defaults::WS_MESSAGE)
    }
}

/// What ends a message's round trip (`--ws-expect`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WsExpect {
    /// The next message received, which must equal the one sent (an echo server).
    #[default]
    Echo,
    /// The next message received, whatever it holds.
    Any,
}
