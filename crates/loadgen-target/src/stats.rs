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
    /// `POST /app/login` that logged a session in.
    #[serde(default)]
    pub logins: u64,
    /// `POST /app/login` refused (no or unknown session, CSRF token, password).
    #[serde(default)]
    pub failed_logins: u64,
    /// `GET /app/logout` that ended a session.
    #[serde(default)]
    pub logouts: u64,
    /// Tokens issued by `POST /api/token`.
    #[serde(default)]
    pub token_grants: u64,
    /// `POST /api/token` refused (malformed request or wrong password).
    #[serde(default)]
    pub token_refusals: u64,
    /// `GET /api/me` with a valid bearer token.
    #[serde(default)]
    pub api_authorized: u64,
    /// `GET /api/me` without a valid bearer token.
    #[serde(default)]
    pub api_refused: u64,
    /// App sessions dropped to keep the session store within its bound.
    #[serde(default)]
    pub sessions_evicted: u64,
    /// Messages `/ws` echoed (not counted in `total`: the upgrade is the request).
    #[serde(default)]
    pub websocket_messages: u64,
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
    websocket_messages: AtomicU64,
    pub(crate) app: AppCounters,
}

/// What the scenario app counts, apart from the requests themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AppEvent {
    Login,
    FailedLogin,
    Logout,
    TokenGrant,
    TokenRefusal,
    ApiAuthorized,
    ApiRefused,
    SessionEvicted,
}

/// The app's counters, on cache lines of their own so that scenario traffic
/// does not slow down the request counters of a benchmark beside it.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(crate) struct AppCounters {
    logins: AtomicU64,
    failed_logins: AtomicU64,
    logouts: AtomicU64,
    token_grants: AtomicU64,
    token_refusals: AtomicU64,
    api_authorized: AtomicU64,
    api_refused: AtomicU64,
    sessions_evicted: AtomicU64,
}

impl AppCounters {
    pub(crate) fn count(&self, event: AppEvent) {
        self.counter(event).fetch_add(1, Relaxed);
    }

    fn counter(&self, event: AppEvent) -> &AtomicU64 {
        match event {
            AppEvent::Login => &self.logins,
            AppEvent::FailedLogin => &self.failed_logins,
            AppEvent::Logout => &self.logouts,
            AppEvent::TokenGrant => &self.token_grants,
            AppEvent::TokenRefusal => &self.token_refusals,
            AppEvent::ApiAuthorized => &self.api_authorized,
            AppEvent::ApiRefused => &self.api_refused,
            AppEvent::SessionEvicted => &self.sessions_evicted,
        }
    }

    /// Fills the app's fields of `stats`, reading each counter with `read`
    /// (a load for a snapshot, a swap with zero for a reset).
    fn fill(&self, stats: &mut Stats, read: impl Fn(&AtomicU64) -> u64) {
        stats.logins = read(&self.logins);
        stats.failed_logins = read(&self.failed_logins);
        stats.logouts = read(&self.logouts);
        stats.token_grants = read(&self.token_grants);
        stats.token_refusals = read(&self.token_refusals);
        stats.api_authorized = read(&self.api_authorized);
        stats.api_refused = read(&self.api_refused);
        stats.sessions_evicted = read(&self.sessions_evicted);
    }
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

    pub(crate) fn websocket_message(&self) {
        self.websocket_messages.fetch_add(1, Relaxed);
    }

    pub(crate) fn snapshot(&self) -> Stats {
        self.read(|counter| counter.load(Relaxed))
    }

    /// Zeroes the counters and returns what they held.
    pub(crate) fn reset(&self) -> Stats {
        self.read(|counter| counter.swap(0, Relaxed))
    }

    fn read(&self, read: impl Fn(&AtomicU64) -> u64) -> Stats {
        let (http1, http2, http3) = (read(&self.http1), read(&self.http2), read(&self.http3));
        let mut stats = Stats {
            http1,
            http2,
            http3,
            total: http1 + http2 + http3,
            request_body_bytes: read(&self.request_body_bytes),
            response_body_bytes: read(&self.response_body_bytes),
            websocket_messages: read(&self.websocket_messages),
            ..Stats::default()
        };
        self.app.fill(&mut stats, read);
        stats
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
            ..Stats::default()
        };
        assert_eq!(c.snapshot(), expected);
        assert_eq!(c.reset(), expected);
        assert_eq!(c.snapshot(), Stats::default());
    }

    #[test]
    fn json_without_byte_fields_still_parses() {
        let s: Stats = serde_json::from_str(r#"{"http1":1,"http2":2,"total":3}"#).unwrap();
        assert_eq!((s.http1, s.http2, s.http3, s.total), (1, 2, 0, 3));
        assert_eq!((s.logins, s.api_refused), (0, 0));
    }

    #[test]
    fn app_events_are_counted_and_reset_with_the_rest() {
        let c = Counters::default();
        c.record(Version::HTTP_11, 0, 13);
        for event in [
            AppEvent::Login,
            AppEvent::Login,
            AppEvent::FailedLogin,
            AppEvent::Logout,
            AppEvent::TokenGrant,
            AppEvent::TokenRefusal,
            AppEvent::ApiAuthorized,
            AppEvent::ApiRefused,
            AppEvent::ApiRefused,
            AppEvent::SessionEvicted,
        ] {
            c.app.count(event);
        }
        let stats = c.reset();
        assert_eq!(stats.total, 1);
        assert_eq!(
            (stats.logins, stats.failed_logins, stats.logouts),
            (2, 1, 1)
        );
        assert_eq!((stats.token_grants, stats.token_refusals), (1, 1));
        assert_eq!((stats.api_authorized, stats.api_refused), (1, 2));
        assert_eq!(stats.sessions_evicted, 1);
        assert_eq!(c.snapshot(), Stats::default());
    }
}
