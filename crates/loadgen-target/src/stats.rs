//! Request accounting.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use http::Version;
use serde::{Deserialize, Serialize};

/// A snapshot of what the target has served since it started (or since the
/// last reset). TLS and cleartext connections are counted together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Requests served over HTTP/1.x.
    pub http1: u64,
    /// Requests served over HTTP/2.
    pub http2: u64,
    /// Requests served over HTTP/3 (QUIC on the TLS port's UDP side).
    #[serde(default)]
    pub http3: u64,
    /// All requests served (`http1 + http2 + http3`).
    pub total: u64,
    /// Request body bytes received and discarded.
    #[serde(default)]
    pub request_body_bytes: u64,
    /// Response body bytes handed to the connections.
    #[serde(default)]
    pub response_body_bytes: u64,
}

/// Live counters. Aligned to its own cache lines so that the hot atomics
/// don't false-share with whatever the allocator puts next to them.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(crate) struct Counters {
    http1: AtomicU64,
    http2: AtomicU64,
    http3: AtomicU64,
    request_body_bytes: AtomicU64,
    response_body_bytes: AtomicU64,
}

impl Counters {
    pub(crate) fn record(&self, version: Version, request_body: u64, response_body: u64) {
        // hyper hands us HTTP/1.0, HTTP/1.1 or HTTP/2 requests; h3 HTTP/3 ones.
        if version == Version::HTTP_2 {
            self.http2.fetch_add(1, Relaxed);
        } else if version == Version::HTTP_3 {
            self.http3.fetch_add(1, Relaxed);
        } else {
            self.http1.fetch_add(1, Relaxed);
        }
        // Skipping zero adds keeps the common GET path at two atomics.
        if request_body != 0 {
            self.request_body_bytes.fetch_add(request_body, Relaxed);
        }
        if response_body != 0 {
            self.response_body_bytes.fetch_add(response_body, Relaxed);
        }
    }

    pub(crate) fn snapshot(&self) -> Stats {
        Self::stats(
            self.http1.load(Relaxed),
            self.http2.load(Relaxed),
            self.http3.load(Relaxed),
            self.request_body_bytes.load(Relaxed),
            self.response_body_bytes.load(Relaxed),
        )
    }

    /// Zeroes the counters and returns what they held.
    pub(crate) fn reset(&self) -> Stats {
        Self::stats(
            self.http1.swap(0, Relaxed),
            self.http2.swap(0, Relaxed),
            self.http3.swap(0, Relaxed),
            self.request_body_bytes.swap(0, Relaxed),
            self.response_body_bytes.swap(0, Relaxed),
        )
    }

    fn stats(
        http1: u64,
        http2: u64,
        http3: u64,
        request_body_bytes: u64,
        response_body_bytes: u64,
    ) -> Stats {
        Stats {
            http1,
            http2,
            http3,
            total: http1 + http2 + http3,
            request_body_bytes,
            response_body_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_by_protocol_and_resets() {
        let c = Counters::default();
        c.record(Version::HTTP_11, 0, 13);
        c.record(Version::HTTP_10, 5, 0);
        c.record(Version::HTTP_2, 0, 100);
        c.record(Version::HTTP_3, 0, 13);
        let expected = Stats {
            http1: 2,
            http2: 1,
            http3: 1,
            total: 4,
            request_body_bytes: 5,
            response_body_bytes: 126,
        };
        assert_eq!(c.snapshot(), expected);
        assert_eq!(c.reset(), expected);
        assert_eq!(c.snapshot(), Stats::default());
    }

    #[test]
    fn json_without_byte_fields_still_parses() {
        let s: Stats = serde_json::from_str(r#"{"http1":1,"http2":2,"total":3}"#).unwrap();
        assert_eq!((s.http1, s.http2, s.http3, s.total), (1, 2, 0, 3));
    }
}
