//! Opening QUIC connections with quinn-proto: the transport tuned for a LAN
//! rather than quinn's WAN defaults, one UDP socket per connection driven in
//! the client's own task ([`link`]), and handshake errors named so the user
//! knows what to change.

mod arrival;
mod link;

pub use link::QuicLink;

use crate::connection_info::{ClientId, ConnectError, TlsInfo};
use crate::error_kind::ErrorKind;
use crate::plan::{quic_window, Http2Options, Plan, QuicOptions, UDP_PAYLOAD_RANGE};
use crate::plan_error::{PlanError, PlanField};
use crate::tls;
use link::HandshakeError;
use quinn_proto::crypto::rustls::QuicClientConfig;
use quinn_proto::{
    ClientConfig, ConnectionError, MtuDiscoveryConfig, QlogConfig, TransportConfig, VarInt,
};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// quinn starts from 333 ms, which makes the first loss timers on a LAN
/// absurdly long; a benchmark runs next to its server.
const INITIAL_RTT: Duration = Duration::from_millis(1);

/// What every QUIC connection of a run shares; built once per run.
pub struct QuicConnector {
    config: ClientConfig,
    /// What `config` is made of, for connections that need a transport of
    /// their own (`--qlog-file-base`).
    crypto: Arc<QuicClientConfig>,
    http2: Http2Options,
    quic: QuicOptions,
    server_name: String,
    /// Whether the URI's host is an IP address and no `--sni` was given:
    /// then no SNI is sent, which some servers refuse.
    sni_missing: bool,
    cipher: Option<String>,
}

impl QuicConnector {
    pub fn new(plan: &Plan) -> Result<QuicConnector, PlanError> {
        let alpn: Vec<String> = plan.alpn.iter().filter(|p| *p == "h3").cloned().collect();
        let rustls = tls::quic_client_config(&plan.tls, &alpn)?;
        let crypto = QuicClientConfig::try_from(rustls.clone()).map_err(|_| {
            PlanError::new(
                PlanField::Tls13Ciphers,
                "QUIC needs TLS_AES_128_GCM_SHA256 among the TLS 1.3 suites",
            )
        })?;
        let crypto = Arc::new(crypto);
        let mut config = ClientConfig::new(crypto.clone());
        config.transport_config(Arc::new(transport_config(&plan.http2, &plan.quic)));
        let host = &plan.endpoint.host;
        let server_name = plan.tls.sni.clone().unwrap_or_else(|| host.clone());
        // Checked the same way as for TCP, so a bad --sni is a usage error.
        tls::server_name(&plan.tls, host)?;
        let sni_missing = plan.tls.sni.is_none()
            && host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .is_ok();
        let suites: Vec<_> = rustls
            .crypto_provider()
            .cipher_suites
            .iter()
            .filter(|s| s.tls13().is_some())
            .collect();
        let cipher = match suites.as_slice() {
            [only] => Some(tls::cipher_name(only)),
            _ => None,
        };
        Ok(QuicConnector {
            config,
            crypto,
            http2: plan.http2,
            quic: plan.quic.clone(),
            server_name,
            sni_missing,
            cipher,
        })
    }

    /// One handshake on a socket of its own; tries each address in turn.
    /// `client` names the qlog file, with `--qlog-file-base`.
    pub async fn connect(
        &self,
        addrs: &[SocketAddr],
        client: ClientId,
    ) -> Result<QuicLink, ConnectError> {
        let config = match &self.quic.qlog_file_base {
            Some(base) => self.qlog_client_config(base, client)?,
            None => self.config.clone(),
        };
        let mut last_error = None;
        for addr in addrs {
            match self.connect_one(*addr, config.clone()).await {
                Ok(connection) => return Ok(connection),
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.expect("at least one address is resolved"))
    }

    async fn connect_one(
        &self,
        addr: SocketAddr,
        config: ClientConfig,
    ) -> Result<QuicLink, ConnectError> {
        let mut link =
            QuicLink::connect(config, addr, &self.server_name).map_err(|e| ConnectError {
                kind: ErrorKind::Connect,
                message: format!("cannot connect to {addr} over QUIC: {e}"),
            })?;
        match link.handshake().await {
            Ok(()) => Ok(link),
            Err(HandshakeError::Lost(e)) => Err(self.handshake_error(addr, &e)),
            Err(HandshakeError::Io(e)) => Err(ConnectError {
                kind: ErrorKind::Connect,
                message: format!("QUIC to {addr}: {e}"),
            }),
        }
    }

    /// What h2load prints about TLS: QUIC is always TLS 1.3. quinn does not
    /// tell which suite was negotiated, so the cipher is known only when
    /// `--tls13-ciphers` left a single one.
    pub fn tls_info(&self) -> TlsInfo {
        TlsInfo {
            protocol: "TLSv1.3".into(),
            cipher: self.cipher.clone().unwrap_or_default(),
            server_temp_key: None,
        }
    }

    fn handshake_error(&self, addr: SocketAddr, error: &ConnectionError) -> ConnectError {
        let message = match error {
            ConnectionError::TimedOut => {
                return ConnectError {
                    kind: ErrorKind::Connect,
                    message: format!(
                        "no QUIC answer from {addr} (is HTTP/3 served on this UDP port?)"
                    ),
                }
            }
            // Our side refused the server's certificate.
            ConnectionError::TransportError(e) if e.reason.contains("invalid peer certificate") => {
                format!(
                    "TLS certificate verification failed ({}); use -k/--insecure to skip verification, \
                     or --tls-ca FILE to trust the server's CA",
                    tls::certificate::describe_text(&e.reason)
                )
            }
            // The server refused us: a missing SNI is the usual cause with an IP address.
            ConnectionError::ConnectionClosed(_) if self.sni_missing => format!(
                "QUIC handshake with {addr} failed: {}; no SNI was sent because the URI's host \
                 is an IP address: try --sni with the server's name",
                describe_error(error)
            ),
            _ => format!(
                "QUIC handshake with {addr} failed: {}",
                describe_error(error)
            ),
        };
        ConnectError {
            kind: ErrorKind::Tls,
            message,
        }
    }
}

/// A quinn error as one line, with TLS alerts and QUIC error codes by name.
pub fn describe_error(error: &ConnectionError) -> String {
    match error {
        ConnectionError::ConnectionClosed(close) => {
            let code = u64::from(close.error_code);
            let reason = String::from_utf8_lossy(&close.reason);
            let reason = if reason.is_empty() {
                String::new()
            } else {
                format!(" ({reason})")
            };
            format!(
                "the server closed the connection with {}{reason}",
                transport_code_name(code)
            )
        }
        ConnectionError::TransportError(e) => {
            let code = u64::from(e.code);
            if e.reason.is_empty() {
                format!("local error {}", transport_code_name(code))
            } else {
                format!("local error {}: {}", transport_code_name(code), e.reason)
            }
        }
        ConnectionError::ApplicationClosed(close) => {
            let reason = String::from_utf8_lossy(&close.reason);
            format!(
                "the server closed the connection with HTTP/3 error {}{}",
                h3_code_name(u64::from(close.error_code)),
                if reason.is_empty() {
                    String::new()
                } else {
                    format!(" ({reason})")
                }
            )
        }
        ConnectionError::VersionMismatch => {
            "the server speaks no QUIC version we do (QUIC v1)".into()
        }
        ConnectionError::Reset => "the server reset the connection (stateless reset)".into(),
        ConnectionError::TimedOut => "the connection timed out (no packets from the server)".into(),
        ConnectionError::LocallyClosed => "closed locally".into(),
        ConnectionError::CidsExhausted => "connection IDs exhausted".into(),
    }
}

/// QUIC transport error codes (RFC 9000 §20.1); 0x100-0x1ff carry a TLS alert.
pub fn transport_code_name(code: u64) -> String {
    if (0x100..0x200).contains(&code) {
        let alert = rustls::AlertDescription::from((code - 0x100) as u8);
        return format!("TLS alert {} ({alert:?})", code - 0x100);
    }
    let name = match code {
        0x0 => "NO_ERROR",
        0x1 => "INTERNAL_ERROR",
        0x2 => "CONNECTION_REFUSED",
        0x3 => "FLOW_CONTROL_ERROR",
        0x4 => "STREAM_LIMIT_ERROR",
        0x5 => "STREAM_STATE_ERROR",
        0x6 => "FINAL_SIZE_ERROR",
        0x7 => "FRAME_ENCODING_ERROR",
        0x8 => "TRANSPORT_PARAMETER_ERROR",
        0x9 => "CONNECTION_ID_LIMIT_ERROR",
        0xa => "PROTOCOL_VIOLATION",
        0xb => "INVALID_TOKEN",
        0xc => "APPLICATION_ERROR",
        0xd => "CRYPTO_BUFFER_EXCEEDED",
        0xe => "KEY_UPDATE_ERROR",
        0xf => "AEAD_LIMIT_REACHED",
        0x10 => "NO_VIABLE_PATH",
        _ => return format!("QUIC error {code:#x}"),
    };
    name.to_string()
}

/// HTTP/3 error codes (RFC 9114 §8.1).
pub fn h3_code_name(code: u64) -> String {
    let name = match code {
        0x100 => "H3_NO_ERROR",
        0x101 => "H3_GENERAL_PROTOCOL_ERROR",
        0x102 => "H3_INTERNAL_ERROR",
        0x103 => "H3_STREAM_CREATION_ERROR",
        0x104 => "H3_CLOSED_CRITICAL_STREAM",
        0x105 => "H3_FRAME_UNEXPECTED",
        0x106 => "H3_FRAME_ERROR",
        0x107 => "H3_EXCESSIVE_LOAD",
        0x108 => "H3_ID_ERROR",
        0x109 => "H3_SETTINGS_ERROR",
        0x10a => "H3_MISSING_SETTINGS",
        0x10b => "H3_REQUEST_REJECTED",
        0x10c => "H3_REQUEST_CANCELLED",
        0x10d => "H3_REQUEST_INCOMPLETE",
        0x10e => "H3_MESSAGE_ERROR",
        0x10f => "H3_CONNECT_ERROR",
        0x110 => "H3_VERSION_FALLBACK",
        0x200 => "QPACK_DECOMPRESSION_FAILED",
        0x201 => "QPACK_ENCODER_STREAM_ERROR",
        0x202 => "QPACK_DECODER_STREAM_ERROR",
        _ => return format!("{code:#x}"),
    };
    name.to_string()
}

impl QuicConnector {
    /// The run's client configuration with a transport that writes this
    /// connection's trace to `BASE.THREAD.CLIENT.sqlog`, as h2load names it
    /// (a client's later connections overwrite it, as in h2load).
    fn qlog_client_config(
        &self,
        base: &Path,
        client: ClientId,
    ) -> Result<ClientConfig, ConnectError> {
        let mut path = base.as_os_str().to_owned();
        path.push(format!(".{}.{}.sqlog", client.thread, client.index));
        let path = PathBuf::from(path);
        let file = std::fs::File::create(&path).map_err(|e| ConnectError {
            kind: ErrorKind::Other,
            message: format!("--qlog-file-base: cannot write {}: {e}", path.display()),
        })?;
        let mut qlog = QlogConfig::default();
        qlog.writer(Box::new(std::io::BufWriter::new(file)))
            .title(Some(format!("loadgen {}", env!("CARGO_PKG_VERSION"))))
            .start_time(std::time::Instant::now());
        let mut transport = transport_config(&self.http2, &self.quic);
        transport.qlog_stream(qlog.into_stream());
        let mut config = ClientConfig::new(self.crypto.clone());
        config.transport_config(Arc::new(transport));
        Ok(config)
    }
}

fn transport_config(http2: &Http2Options, quic: &QuicOptions) -> TransportConfig {
    let mut config = TransportConfig::default();
    config
        .initial_rtt(INITIAL_RTT)
        .stream_receive_window(VarInt::from_u32(quic_window(http2.window_bits)))
        .receive_window(VarInt::from_u32(quic_window(http2.connection_window_bits)))
        // Servers do not open request streams towards a client in HTTP/3.
        .max_concurrent_bidi_streams(VarInt::from_u32(0))
        .max_idle_timeout(Some(
            Duration::from_secs(30)
                .try_into()
                .expect("30 s is a valid idle timeout"),
        ))
        .enable_segmentation_offload(quic.gso);
    match quic.max_udp_payload_size {
        // QUIC's minimum: nothing to discover.
        Some(size) if size == *UDP_PAYLOAD_RANGE.start() => {
            config.mtu_discovery_config(None);
        }
        Some(size) => {
            let mut discovery = MtuDiscoveryConfig::default();
            discovery.upper_bound(size);
            config.mtu_discovery_config(Some(discovery));
        }
        None => {}
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_by_name() {
        assert_eq!(transport_code_name(0x150), "TLS alert 80 (InternalError)");
        assert_eq!(
            transport_code_name(0x178),
            "TLS alert 120 (NoApplicationProtocol)"
        );
        assert_eq!(transport_code_name(0xa), "PROTOCOL_VIOLATION");
        assert_eq!(h3_code_name(0x10b), "H3_REQUEST_REJECTED");
    }
}
