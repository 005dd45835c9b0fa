//! The scenario app: a small web application served by the target beside
//! the benchmark responses, on every port and protocol, for testing
//! scripted scenarios without outside servers. An HTML login with a CSRF
//! token and a session cookie, an inbox and a logout (`login`), a bearer
//! token API (`api`), redirect chains (`redirect`), and endpoints that show
//! what a client sent (`echo`, `cookies`). The crate README documents
//! every path, status and header.
//!
//! The app's paths are the only ones whose requests are read whole (heads
//! kept, bodies buffered up to [`MAX_BODY`]); every other path keeps the
//! benchmark's cheap handling.

mod api;
mod body;
mod cookies;
mod echo;
mod ids;
mod jwt;
mod login;
mod pages;
mod redirect;
mod reply;
mod request;
mod sessions;

use std::sync::{Mutex, MutexGuard, PoisonError};

use http::request::Parts;
use http::{Method, Response, StatusCode};

pub(crate) use body::{BoundedBody, MAX_BODY};

use crate::body::Body;
use crate::stats::AppCounters;
use request::AppRequest;
use sessions::{Sessions, MAX_SESSIONS};

/// The one password the app accepts, for any user name.
const PASSWORD: &str = "secret";

/// Whether `path` belongs to the app. Called for every request, so it only
/// compares the first path segment.
pub(crate) fn serves(path: &str) -> bool {
    let first = path
        .strip_prefix('/')
        .and_then(|rest| rest.split('/').next())
        .unwrap_or("");
    matches!(
        first,
        "app" | "api" | "echo" | "cookies" | "redirect" | "redirect-to"
    )
}

/// What the app keeps between requests, shared by every connection.
pub(crate) struct App {
    sessions: Mutex<Sessions>,
    signer: jwt::Signer,
}

impl App {
    pub(crate) fn new() -> App {
        App {
            sessions: Mutex::new(Sessions::new(MAX_SESSIONS)),
            signer: jwt::Signer::new(),
        }
    }

    /// The answer to a request for one of the app's paths.
    pub(crate) fn respond(
        &self,
        head: &Parts,
        body: BoundedBody,
        counters: &AppCounters,
    ) -> Response<Body> {
        let Some(body) = body.into_bytes() else {
            return reply::text(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("request body larger than {MAX_BODY} bytes, the limit of the app's paths"),
            );
        };
        let request = AppRequest { head, body };
        let get = request.is_get();
        match request.path() {
            "/app/login" if get => login::page(self, &request, counters),
            "/app/login" if request.method() == Method::POST => {
                login::submit(self, &request, counters)
            }
            "/app/login" => reply::method_not_allowed("GET, HEAD, POST"),
            "/app/inbox" if get => login::inbox(self, &request),
            "/app/logout" if get => login::logout(self, &request, counters),
            "/app/inbox" | "/app/logout" => reply::method_not_allowed("GET, HEAD"),
            "/api/token" if request.method() == Method::POST => {
                api::grant(self, &request, counters)
            }
            "/api/token" => reply::method_not_allowed("POST"),
            "/api/me" if get => api::me(self, &request, counters),
            "/api/me" => reply::method_not_allowed("GET, HEAD"),
            "/redirect-to" => redirect::to(&request),
            path if path.starts_with("/redirect/") => redirect::chain(&request),
            "/cookies/set" if get => cookies::set(&request),
            "/cookies/set" => reply::method_not_allowed("GET, HEAD"),
            path if path == "/cookies" || path.starts_with("/cookies/") => cookies::list(&request),
            path if path == "/echo" || path.starts_with("/echo/") => echo::respond(&request),
            path => reply::not_found(path),
        }
    }

    fn sessions(&self) -> MutexGuard<'_, Sessions> {
        // Nothing panics while holding the lock; should something ever,
        // serving the sessions as they are beats refusing every later login.
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_takes_only_its_own_paths() {
        for path in [
            "/app/login",
            "/app/anything",
            "/app",
            "/api/token",
            "/echo",
            "/echo/x/y",
            "/cookies",
            "/cookies/set",
            "/redirect/3",
            "/redirect/",
            "/redirect-to",
            "/redirect",
        ] {
            assert!(serves(path), "{path}");
        }
        for path in [
            "/",
            "",
            "/index.html",
            "/apps",
            "/application/x",
            "/echoes",
            "/redirects/1",
            "/__stats",
            "/any/path",
        ] {
            assert!(!serves(path), "{path}");
        }
    }
}
