//! `/echo`: says what the request was, so a client's requests (headers,
//! cookies, bodies, methods after redirects) can be checked from outside.

use http::{Response, StatusCode};
use serde_json::{json, Map, Value};

use super::reply;
use super::request::AppRequest;
use crate::body::Body;

/// `/echo` and any path under it, with any method.
pub(super) fn respond(request: &AppRequest) -> Response<Body> {
    reply::json(StatusCode::OK, &describe(request))
}

/// The request as JSON: method, version, authority, path, raw query and its
/// decoded parameters, every header with all its values, and the body as
/// text (invalid UTF-8 replaced) with its length in bytes.
pub(super) fn describe(request: &AppRequest) -> Value {
    json!({
        "method": request.method().as_str(),
        "version": format!("{:?}", request.head.version),
        "authority": request.authority(),
        "path": request.path(),
        "query": request.query(),
        "args": multi_map(request.query_pairs()),
        "headers": headers(request),
        "body": String::from_utf8_lossy(&request.body),
        "body_bytes": request.body.len(),
    })
}

/// Names to every value they came with, in order.
fn multi_map<K: AsRef<str>, V: Into<Value>>(pairs: impl Iterator<Item = (K, V)>) -> Value {
    let mut map = Map::new();
    for (name, value) in pairs {
        let values = map
            .entry(name.as_ref())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(values) = values {
            values.push(value.into());
        }
    }
    Value::Object(map)
}

fn headers(request: &AppRequest) -> Value {
    multi_map(request.head.headers.iter().map(|(name, value)| {
        (
            name.as_str(),
            String::from_utf8_lossy(value.as_bytes()).into_owned(),
        )
    }))
}
