//! The error type of this crate.

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;

/// Why the target could not start (or `serve` could not run).
///
/// `Display` is a complete one-line message, including the underlying
/// cause, so `source()` deliberately returns `None` to keep error-chain
/// printers from repeating it. Match on the variants to inspect the cause.
#[derive(Debug)]
#[non_exhaustive]
pub enum TargetError {
    /// A TCP listener could not be bound (e.g. address in use).
    Bind {
        /// `"cleartext"` or `"TLS"`.
        listener: &'static str,
        addr: SocketAddr,
        source: io::Error,
    },
    /// The UNIX domain socket could not be created.
    Unix { path: PathBuf, source: io::Error },
    /// The certificate or key could not be loaded or generated.
    Tls {
        file: Option<PathBuf>,
        message: String,
    },
    /// Contradictory or incomplete settings.
    Config(String),
    /// The server runtime or its thread could not be started.
    Runtime(io::Error),
    /// Waiting for Ctrl-C / SIGTERM failed.
    Signal(io::Error),
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetError::Bind {
                listener,
                addr,
                source,
            } => write!(f, "cannot listen ({listener}) on {addr}: {source}"),
            TargetError::Unix { path, source } => {
                write!(
                    f,
                    "cannot listen on unix socket {}: {source}",
                    path.display()
                )
            }
            TargetError::Tls {
                file: Some(file),
                message,
            } => write!(f, "TLS setup failed for {}: {message}", file.display()),
            TargetError::Tls {
                file: None,
                message,
            } => write!(f, "TLS setup failed: {message}"),
            TargetError::Config(message) => f.write_str(message),
            TargetError::Runtime(source) => write!(f, "cannot start the server runtime: {source}"),
            TargetError::Signal(source) => {
                write!(f, "cannot wait for Ctrl-C or SIGTERM: {source}")
            }
        }
    }
}

impl std::error::Error for TargetError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_address() {
        let err = TargetError::Bind {
            listener: "cleartext",
            addr: "127.0.0.1:8080".parse().unwrap(),
            source: io::Error::from(io::ErrorKind::AddrInUse),
        };
        let msg = err.to_string();
        assert!(
            msg.starts_with("cannot listen (cleartext) on 127.0.0.1:8080: "),
            "{msg}"
        );
        assert!(!msg.contains('\n'));
    }
}
