//! The built-in target server of `loadgen`: a small, fast HTTP/1.1, HTTP/2
//! and HTTP/3 server (cleartext, TLS, QUIC and UNIX socket) whose responses are shaped
//! by query parameters and which counts what it serves, so benchmarks and
//! tests have a known peer. Beside it, on every protocol, a small web
//! application (login, token API, redirects, echo, cookies) lets scripted
//! scenarios be tested without outside servers; `/ws` echoes WebSocket
//! messages on the HTTP/1.1 and TLS listeners; a gRPC echo service with
//! server reflection answers on HTTP/2 and HTTP/3. See the crate README for
//! the parameters and the app's endpoints. For
//! tests of the client's side of broken peers, [`FaultServer`] serves one
//! misbehaviour ([`Fault`]) on a loopback port.

mod app;
mod body;
mod capacity;
mod config;
mod error;
mod faults;
mod grpc;
mod h3;
mod query;
mod serve;
mod server;
mod service;
mod stall;
mod state;
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

/// The gRPC echo service's schema (served on HTTP/2 and HTTP/3; see the
/// README): `loadgen.echo.v1.Echo/Echo`.
pub const ECHO_PROTO: &str = include_str!("../proto/echo.proto");
/// The path of [`ECHO_PROTO`], for tools that compile it (`protoc -I`).
pub const ECHO_PROTO_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/proto/echo.proto");
/// [`ECHO_PROTO`] compiled: an encoded `google.protobuf.FileDescriptorSet`
/// whose one file is named `echo.proto`, as reflection serves it.
pub const ECHO_DESCRIPTOR_SET: &[u8] = grpc::ECHO_DESCRIPTOR_SET;
/// The echo service's one method, as an HTTP/2 or HTTP/3 request path.
pub const ECHO_GRPC_PATH: &str = grpc::ECHO_PATH;

/// The body served when no `s=` parameter is given (13 bytes).
pub const DEFAULT_BODY: &str = service::DEFAULT_BODY;
