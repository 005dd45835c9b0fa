//! Requests as every protocol driver receives them: method, authority,
//! path, headers and body, and what the sender wants back beyond the status
//! and sizes. A run's requests (one per URI, after `-H` overrides) are
//! resolved once from the plan; each driver serializes them once into its
//! own wire form and sends that form per request.

use crate::plan::Plan;
use crate::plan_error::{PlanError, PlanField};
use crate::ticket::Ticket;
use bytes::Bytes;
use std::task::{Context, Poll};
use std::time::Instant;

pub const USER_AGENT: &str = concat!("loadgen/", env!("CARGO_PKG_VERSION"));

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// Path and query.
    pub path: String,
    /// `host[:port]`: the `Host` header and `:authority`.
    pub authority: String,
    /// Regular headers (no Host, no pseudo-headers), lowercase names.
    pub headers: Vec<(String, String)>,
    pub body: Option<Bytes>,
}

impl Request {
    /// A HEAD request's response has no body, whatever its headers say.
    pub fn is_head(&self) -> bool {
        self.method.eq_ignore_ascii_case("HEAD")
    }
}

/// What a request's sender wants delivered besides status and sizes.
/// Benchmarks want nothing more, so responses are parsed only as far as
/// counting needs; a scenario step asks for what its checks read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wants {
    /// The response's header fields.
    pub headers: bool,
    /// The response body, in the pieces it arrives in.
    pub body: bool,
}

impl Wants {
    pub const NOTHING: Wants = Wants {
        headers: false,
        body: false,
    };
    pub const EVERYTHING: Wants = Wants {
        headers: true,
        body: true,
    };
}

/// The request a driver is asked to send.
#[derive(Clone, Copy, Debug)]
pub enum RequestRef<'r> {
    /// One of the run's requests, by index: its wire form was prepared once.
    Listed(usize),
    /// A request made for this one send (a scenario step): serialized as it goes out.
    Made(&'r Request),
}

/// The next request a source wants sent.
pub struct Next<'r> {
    pub ticket: Ticket,
    pub request: RequestRef<'r>,
    pub wants: Wants,
}

/// Where a connection's requests come from: the benchmark's schedule, or
/// (later) a scenario's steps.
pub trait RequestSource {
    /// The next request, once one is due: `Ready(None)` when there will be
    /// no more, `Pending` (with a wake-up arranged) until then. `now` is
    /// the clock as the caller just read it; a request handed out is sent
    /// at that time, so a request due now is intended for it too.
    fn poll_next(&mut self, cx: &mut Context<'_>, now: Instant) -> Poll<Option<Next<'_>>>;

    /// Whether another request may still come.
    fn has_more(&self) -> bool;
}

/// One request per path of the plan, in the plan's order.
pub fn requests_of(plan: &Plan) -> Vec<Request> {
    let body = plan.body.clone().map(Bytes::from);
    let mut authority = plan.endpoint.authority.clone();
    let mut method = plan.method.clone();
    let mut headers: Vec<(String, String)> = vec![("user-agent".into(), USER_AGENT.into())];
    for (name, value) in &plan.headers {
        let name = name.to_ascii_lowercase();
        match name.as_str() {
            "host" | ":authority" => authority = value.clone(),
            ":method" => method = value.clone(),
            // h2load accepts these pseudo-headers but they follow from the URI.
            ":scheme" | ":path" => {}
            _ => match headers.iter_mut().find(|(n, _)| *n == name) {
                Some(existing) => existing.1 = value.clone(),
                None => headers.push((name, value.clone())),
            },
        }
    }
    if let Some(body) = &body {
        if !headers.iter().any(|(n, _)| n == "content-length") {
            headers.push(("content-length".into(), body.len().to_string()));
        }
    }
    plan.paths
        .iter()
        .map(|path| Request {
            method: method.clone(),
            path: path.clone(),
            authority: authority.clone(),
            headers: headers.clone(),
            body: body.clone(),
        })
        .collect()
}

/// Checks what every protocol will put on the wire: a method token, a
/// request target that makes a URI, header names and values HTTP allows.
pub fn validate(requests: &[Request], scheme: &str) -> Result<(), PlanError> {
    for request in requests {
        http::Method::from_bytes(request.method.as_bytes()).map_err(|_| {
            PlanError::new(
                PlanField::Method,
                format!("'{}' is not a valid HTTP method", request.method),
            )
        })?;
        http::Uri::builder()
            .scheme(scheme)
            .authority(request.authority.as_str())
            .path_and_query(request.path.as_str())
            .build()
            .map_err(|e| {
                PlanError::new(
                    PlanField::Uris,
                    format!(
                        "invalid request target '{}{}': {e}",
                        request.authority, request.path
                    ),
                )
            })?;
        for (name, value) in &request.headers {
            let bad = |why: String| PlanError::new(PlanField::Headers, why);
            http::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| bad(format!("'{name}' is not a valid header name")))?;
            http::HeaderValue::from_str(value)
                .map_err(|_| bad(format!("the value of '{name}' is not a valid header value")))?;
        }
    }
    Ok(())
}

/// HTTP/2 and HTTP/3 forbid these; HTTP/1.1 sends them as given.
pub fn is_connection_specific(name: &str) -> bool {
    matches!(
        name,
        "connection" | "keep-alive" | "proxy-connection" | "transfer-encoding" | "upgrade"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanInput;

    #[test]
    fn headers_override_defaults() {
        let plan = PlanInput {
            uris: vec!["http://h:1/a".into(), "/b".into()],
            headers: vec![
                ("User-Agent".into(), "custom".into()),
                ("Host".into(), "example.com".into()),
                ("x-extra".into(), "1".into()),
            ],
            body: Some(b"hello".to_vec()),
            clients: 1,
            ..PlanInput::default()
        }
        .build()
        .unwrap();
        let requests = requests_of(&plan);
        assert_eq!(requests.len(), 2);
        assert_eq!(requests[1].path, "/b");
        assert_eq!(requests[0].authority, "example.com");
        assert_eq!(requests[0].method, "POST");
        assert_eq!(
            requests[0].headers,
            vec![
                ("user-agent".to_string(), "custom".to_string()),
                ("x-extra".into(), "1".into()),
                ("content-length".into(), "5".into())
            ]
        );
    }
}
