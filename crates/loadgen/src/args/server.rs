//! What the commands that serve (`serve`, `worker`) share: the address
//! they listen on and their TLS certificate.

use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Args, Debug, Clone)]
pub struct Listen {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
}

impl Listen {
    /// The address; each command makes the flag required or gives it a default.
    pub fn addr(&self) -> SocketAddr {
        self.listen.expect("--listen is required or has a default")
    }
}

#[derive(Args, Debug, Clone, Default)]
pub struct ServerTls {
    /// Serve TLS with this PEM certificate chain.
    #[arg(long, value_name = "FILE", requires = "key")]
    pub cert: Option<PathBuf>,

    /// PEM private key for --cert.
    #[arg(long, value_name = "FILE", requires = "cert")]
    pub key: Option<PathBuf>,
}
