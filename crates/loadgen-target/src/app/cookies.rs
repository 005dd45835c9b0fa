//! `/cookies/set` sets the cookie it is asked for; `/cookies` (and any other
//! path under it) says which cookies the request carried. Together they
//! show whether a client's cookie jar stores and sends cookies by the rules.

use cookie::time::Duration;
use cookie::{Cookie, SameSite};
use http::header::SET_COOKIE;
use http::{HeaderValue, Response, StatusCode};
use serde_json::{json, Value};

use super::reply;
use super::request::AppRequest;
use crate::body::Body;

/// `GET /cookies/set?name=..&value=..[&path=..][&domain=..][&max-age=..]
/// [&samesite=..][&secure][&httponly]`.
pub(super) fn set(request: &AppRequest) -> Response<Body> {
    let cookie = match cookie_asked_for(request) {
        Ok(cookie) => cookie,
        Err(reason) => return reply::text(StatusCode::BAD_REQUEST, &reason),
    };
    let header = cookie.to_string();
    let Ok(value) = HeaderValue::from_str(&header) else {
        return reply::text(
            StatusCode::BAD_REQUEST,
            &format!("{header:?} cannot be sent as a Set-Cookie header"),
        );
    };
    let mut response = reply::json(
        StatusCode::OK,
        &json!({
            "set_cookie": header,
            "name": cookie.name(),
            "value": cookie.value(),
            "path": cookie.path(),
            "domain": cookie.domain(),
            "max_age": cookie.max_age().map(|age| age.whole_seconds()),
            "samesite": cookie.same_site().map(|same_site| same_site.to_string()),
            "secure": cookie.secure().unwrap_or(false),
            "httponly": cookie.http_only().unwrap_or(false),
        }),
    );
    response.headers_mut().append(SET_COOKIE, value);
    response
}

/// `/cookies` and every path under it but `/cookies/set`.
pub(super) fn list(request: &AppRequest) -> Response<Body> {
    let mut by_name = serde_json::Map::new();
    let mut in_order = Vec::new();
    for cookie in request.cookies() {
        // The first of two cookies with one name is the one with the longer
        // path (RFC 6265 §5.4), which is the one a server would use.
        by_name
            .entry(cookie.name())
            .or_insert_with(|| Value::from(cookie.value()));
        in_order.push(json!({"name": cookie.name(), "value": cookie.value()}));
    }
    reply::json(
        StatusCode::OK,
        &json!({"cookies": by_name, "list": in_order}),
    )
}

fn cookie_asked_for(request: &AppRequest) -> Result<Cookie<'static>, String> {
    let name = request.query_param("name").unwrap_or_default();
    if name.is_empty() || !name.bytes().all(is_token_char) {
        return Err(format!(
            "invalid name={name:?}: a cookie needs a name of letters, digits and !#$%&'*+-.^_`|~"
        ));
    }
    let value = request.query_param("value").unwrap_or_default();
    if !value.bytes().all(is_cookie_octet) {
        return Err(format!(
            "invalid value={value:?}: no spaces, quotes, commas, semicolons or backslashes"
        ));
    }
    let mut cookie = Cookie::new(name.into_owned(), value.into_owned());
    // Explicitly not secure, so that `samesite=None` alone does not make the
    // cookie crate add `Secure`: the cookie set is the one asked for.
    cookie.set_secure(false);
    for (key, value) in request.query_pairs() {
        match &*key {
            "path" => cookie.set_path(attribute("path", &value)?),
            "domain" => cookie.set_domain(attribute("domain", &value)?),
            "max-age" => {
                let seconds = value.parse::<i64>().map_err(|_| {
                    format!("invalid max-age={value:?}: expected a whole number of seconds")
                })?;
                cookie.set_max_age(Duration::seconds(seconds));
            }
            "samesite" => cookie.set_same_site(match value.to_ascii_lowercase().as_str() {
                "strict" => SameSite::Strict,
                "lax" => SameSite::Lax,
                "none" => SameSite::None,
                _ => {
                    return Err(format!(
                        "invalid samesite={value:?}: expected Strict, Lax or None"
                    ))
                }
            }),
            // Flags: present means set, whatever value they are given.
            "secure" => cookie.set_secure(true),
            "httponly" => cookie.set_http_only(true),
            _ => {}
        }
    }
    Ok(cookie)
}

/// An attribute value that cannot end the attribute early.
fn attribute(name: &str, value: &str) -> Result<String, String> {
    if value.bytes().any(|b| b == b';' || b.is_ascii_control()) {
        return Err(format!(
            "invalid {name}={value:?}: no semicolons or control characters"
        ));
    }
    Ok(value.to_owned())
}

/// RFC 9110 `tchar`, what a cookie name is made of (RFC 6265 §4.1.1).
fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// RFC 6265 §4.1.1 `cookie-octet`.
fn is_cookie_octet(b: u8) -> bool {
    matches!(b, 0x21 | 0x23..=0x2B | 0x2D..=0x3A | 0x3C..=0x5B | 0x5D..=0x7E)
}
