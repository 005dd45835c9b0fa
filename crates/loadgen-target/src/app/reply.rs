//! The shapes of the app's responses.

use bytes::Bytes;
use http::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE, LOCATION, SET_COOKIE};
use http::{Response, StatusCode};

use crate::body::Body;

/// A one-line plain text answer, mostly a reason for a refusal.
pub(crate) fn text(status: StatusCode, line: &str) -> Response<Body> {
    let body = Bytes::from(format!("{line}\n"));
    with_type(status, body, "text/plain; charset=utf-8")
}

/// A page; never cached, since pages carry per-session tokens.
pub(crate) fn html(status: StatusCode, page: String) -> Response<Body> {
    let mut response = with_type(status, page.into(), "text/html; charset=utf-8");
    response
        .headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

pub(crate) fn json(status: StatusCode, value: &serde_json::Value) -> Response<Body> {
    let mut text = serde_json::to_vec(value).expect("a JSON value serializes");
    text.push(b'\n');
    with_type(status, text.into(), "application/json")
}

/// A redirect with an empty body.
pub(crate) fn redirect(status: StatusCode, location: HeaderValue) -> Response<Body> {
    let mut response = Response::new(Body::bytes(Bytes::new()));
    *response.status_mut() = status;
    response.headers_mut().insert(LOCATION, location);
    response
}

pub(crate) fn not_found(path: &str) -> Response<Body> {
    text(
        StatusCode::NOT_FOUND,
        &format!("no app endpoint at {path}: see the target's README for the paths it serves"),
    )
}

/// `allow` lists the methods the path takes, as the `Allow` header wants them.
pub(crate) fn method_not_allowed(allow: &'static str) -> Response<Body> {
    let mut response = text(
        StatusCode::METHOD_NOT_ALLOWED,
        &format!("this path takes {allow}"),
    );
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

/// Adds a `Set-Cookie` header (after any already there) for a cookie the
/// app made itself, of hex digits and fixed attributes.
pub(crate) fn set_cookie(response: &mut Response<Body>, cookie: &str) {
    let value = HeaderValue::from_str(cookie).expect("the app's cookies are valid header text");
    response.headers_mut().append(SET_COOKIE, value);
}

fn with_type(status: StatusCode, body: Bytes, content_type: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::bytes(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}
