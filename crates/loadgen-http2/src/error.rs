//! The error that ends a connection.

use crate::frame::{self, code};

/// The connection cannot go on; every open stream is lost with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionError {
    pub code: u32,
    pub reason: String,
    not_http2: bool,
}

impl ConnectionError {
    pub(crate) fn new(code: u32, reason: impl Into<String>) -> Self {
        ConnectionError {
            code,
            reason: reason.into(),
            not_http2: false,
        }
    }

    /// The server's first bytes were not an HTTP/2 SETTINGS frame: most
    /// likely it speaks only HTTP/1.1.
    pub(crate) fn not_http2() -> Self {
        ConnectionError {
            not_http2: true,
            ..ConnectionError::new(
                code::PROTOCOL_ERROR,
                "the server did not start with an HTTP/2 SETTINGS frame",
            )
        }
    }

    pub fn is_not_http2(&self) -> bool {
        self.not_http2
    }
}

impl std::fmt::Display for ConnectionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.reason, frame::error_code_name(self.code))
    }
}

impl std::error::Error for ConnectionError {}
