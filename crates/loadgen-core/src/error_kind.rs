//! How a request can end without a response. Every layer speaks of errors
//! in these words: the transport when a connection fails, the drivers when
//! a stream breaks, the recorder when it counts them, the report.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    Connect,
    Tls,
    Timeout,
    Protocol,
    Reset,
    Other,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 6] = [
        ErrorKind::Connect,
        ErrorKind::Tls,
        ErrorKind::Timeout,
        ErrorKind::Protocol,
        ErrorKind::Reset,
        ErrorKind::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Connect => "connect",
            ErrorKind::Tls => "tls",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Protocol => "protocol",
            ErrorKind::Reset => "reset",
            ErrorKind::Other => "other",
        }
    }
}
