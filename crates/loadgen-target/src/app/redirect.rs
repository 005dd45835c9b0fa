//! Redirects: `/redirect/N` counts down a chain to `/redirect/0`, which says
//! what it received; `/redirect-to?url=` sends the client anywhere,
//! another origin included. Both take any method, so that a client's
//! method and body rules (kept for 307 and 308) can be checked.

use http::{HeaderValue, Response, StatusCode};

use super::request::AppRequest;
use super::{echo, reply};
use crate::body::Body;

/// The redirect codes a `status=` parameter may ask for.
const CODES: [u16; 5] = [301, 302, 303, 307, 308];

/// `/redirect/N[?status=CODE]`.
pub(super) fn chain(request: &AppRequest) -> Response<Body> {
    let hops = request.path().strip_prefix("/redirect/").unwrap_or("");
    let Some(hops) = parse_hops(hops) else {
        return reply::text(
            StatusCode::BAD_REQUEST,
            &format!(
                "invalid {}: expected /redirect/N with N a whole number of hops",
                request.path()
            ),
        );
    };
    let status = match status(request) {
        Ok(status) => status,
        Err(reason) => return reply::text(StatusCode::BAD_REQUEST, &reason),
    };
    if hops == 0 {
        return echo::respond(request);
    }
    // The whole query goes along, so every hop keeps the status asked for.
    let location = match request.head.uri.query() {
        Some(query) => format!("/redirect/{}?{query}", hops - 1),
        None => format!("/redirect/{}", hops - 1),
    };
    let location = HeaderValue::from_str(&location).expect("a path and a valid query");
    reply::redirect(status, location)
}

/// `/redirect-to?url=URL[&status=CODE]`.
pub(super) fn to(request: &AppRequest) -> Response<Body> {
    let status = match status(request) {
        Ok(status) => status,
        Err(reason) => return reply::text(StatusCode::BAD_REQUEST, &reason),
    };
    let Some(url) = request.query_param("url").filter(|url| !url.is_empty()) else {
        return reply::text(
            StatusCode::BAD_REQUEST,
            "missing url=: /redirect-to?url=URL with URL absolute or relative, percent-encoded",
        );
    };
    match HeaderValue::from_str(&url) {
        Ok(location) => reply::redirect(status, location),
        Err(_) => reply::text(
            StatusCode::BAD_REQUEST,
            &format!("invalid url={url:?}: it cannot be sent as a Location header"),
        ),
    }
}

/// The code asked for by `status=`, 302 when none is.
fn status(request: &AppRequest) -> Result<StatusCode, String> {
    let Some(value) = request.query_param("status") else {
        return Ok(StatusCode::FOUND);
    };
    value
        .parse::<u16>()
        .ok()
        .filter(|code| CODES.contains(code))
        .and_then(|code| StatusCode::from_u16(code).ok())
        .ok_or_else(|| format!("invalid status={value:?}: expected 301, 302, 303, 307 or 308"))
}

/// Plain digits: `u32::from_str` would also take a leading `+`.
fn parse_hops(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hops_are_plain_whole_numbers() {
        assert_eq!(parse_hops("0"), Some(0));
        assert_eq!(parse_hops("12"), Some(12));
        for bad in ["", "+1", "-1", "1.5", "x", "1/", "99999999999"] {
            assert_eq!(parse_hops(bad), None, "{bad:?}");
        }
    }
}
