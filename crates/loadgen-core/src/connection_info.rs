//! What opening a connection produces besides the connection itself: how
//! long each phase took, what TLS negotiated, which client it belongs to,
//! and why it failed.

use crate::error_kind::ErrorKind;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A client: its worker thread, and its number within that thread (as
/// h2load numbers them, e.g. in qlog file names).
#[derive(Clone, Copy, Debug)]
pub struct ClientId {
    pub thread: usize,
    pub index: usize,
}

/// TLS details of a connection, as h2load prints them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsInfo {
    pub protocol: String,
    pub cipher: String,
    pub server_temp_key: Option<String>,
}

/// How long each phase of opening a connection took; `None` where a phase
/// does not apply (no DNS for an IP address, no TLS on cleartext).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnectPhases {
    pub dns: Option<Duration>,
    pub tcp: Option<Duration>,
    pub tls: Option<Duration>,
}

/// A connection attempt that failed, with a message for the user.
#[derive(Debug)]
pub struct ConnectError {
    pub kind: ErrorKind,
    pub message: String,
}
