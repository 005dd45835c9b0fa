//! A sans-IO HTTP/2 client connection for load generation.
//!
//! The general-purpose `h2` crate builds an `http::Request` for every
//! request and materialises every response header as a `HeaderName` and
//! `HeaderValue`; against nginx that cost loadgen 60% more instructions per
//! request than h2load (see docs/performance.md). A benchmark client needs
//! less: each request's header block is encoded once per run, and a
//! response is decoded only as far as its status, its sizes and keeping the
//! HPACK dynamic table in step with the server.
//!
//! Like `quinn-proto`, nothing here does I/O: bytes from the server go in,
//! events and bytes for the server come out, and the caller owns the
//! socket.

pub mod frame;
pub mod hpack;

mod acks;
mod connection;
mod error;
mod events;
mod read_state;
mod receive;
mod streams;
#[cfg(test)]
mod tests;

pub use connection::{Config, Connection};
pub use error::ConnectionError;
pub use events::{Deliver, Event, GoAway, Received, StreamError};
