//! HTTP/1.1: one TCP or TLS stream per client, requests serialized once per
//! URI, responses parsed by a sans-IO parser, pipelining up to `-m`.

mod connection;
pub mod parser;

pub use connection::{run, RequestBytes, Running};
