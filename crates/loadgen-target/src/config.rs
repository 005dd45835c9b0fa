//! What the target listens on and how it runs.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

/// Settings for [`Target::start`](crate::Target::start).
#[derive(Clone, Debug)]
pub struct TargetConfig {
    /// HTTP/1.1 and h2c (prior knowledge) on one port; port 0 = ephemeral.
    pub clear_addr: Option<SocketAddr>,
    /// HTTP/1.1 and HTTP/2 over TLS, chosen by ALPN; port 0 = ephemeral.
    pub tls_addr: Option<SocketAddr>,
    /// HTTP/1.1 and h2c over a UNIX domain socket. A stale socket file at
    /// this path is removed first; the file is removed again on shutdown.
    pub unix_path: Option<PathBuf>,
    /// PEM certificate (chain); with `key`, or a self-signed one is made.
    pub cert: Option<PathBuf>,
    /// PEM private key matching `cert`.
    pub key: Option<PathBuf>,
    /// Worker threads of the server runtime; 0 = number of CPUs.
    pub threads: usize,
    /// With `stall_for`: stall periodically, windows counted from the
    /// start, holding every response while `(t mod stall_every) < stall_for`.
    pub stall_every: Option<Duration>,
    /// How long each periodic stall lasts; shorter than `stall_every`.
    pub stall_for: Option<Duration>,
    /// Close each connection after it served this many requests, so clients
    /// can be tested against a server that drops connections: HTTP/1.1
    /// answers the last one with `connection: close`, HTTP/2 and HTTP/3 send
    /// GOAWAY and finish the requests already accepted. `None`: never.
    pub max_requests_per_connection: Option<u64>,
    /// Serve at most this many requests per second, over all connections
    /// and protocols: requests beyond it wait their turn, so a client can
    /// be tested against a known capacity. `None`: as fast as it can.
    pub max_rate: Option<f64>,
}

impl Default for TargetConfig {
    fn default() -> Self {
        let loopback = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        TargetConfig {
            clear_addr: Some(loopback),
            tls_addr: Some(loopback),
            unix_path: None,
            cert: None,
            key: None,
            threads: 0,
            stall_every: None,
            stall_for: None,
            max_requests_per_connection: None,
            max_rate: None,
        }
    }
}
