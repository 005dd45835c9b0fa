//! The built-in target server of `loadgen`: a small, fast HTTP/1.1, HTTP/2
//! and HTTP/3 server (cleartext, TLS, QUIC and UNIX socket) whose responses are shaped
//! by query parameters and which counts what it serves, so benchmarks and
//! tests have a known peer. Beside it, on every protocol, a small web
//! application (login, token API, redirects, echo, cookies) lets scripted
//! scenarios be tested without outside servers; `/ws` echoes WebSocket
//! messages on the HTTP/1.1 and TLS listeners. See the crate README for
//! the parameters and the app's endpoints. For
//! tests of the client's side of broken peers, [`FaultServer`] serves one
//! misbehaviour ([`Fault`]) on a loopback port.

mod app;
mod body;
mod capacity;
mod config;
mod error;
mod faults;
mod h3;
mod query;
mod serve;
mod server;
mod service;
mod stall;
mod stats;
mod target;
mod tls;
mod websocket;

pub use config::TargetConfig;
pub use error::TargetError;
pub use faults::{Fault, FaultServer};
pub use serve::{serve, serve_fault};
pub use stats::Stats;
pub use target::Target;

/// The body served when no `s=` parameter is given (13 bytes).
pub const DEFAULT_BODY: &str = service::DEFAULT_BODY;
