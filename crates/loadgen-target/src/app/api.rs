//! The JSON API: `POST /api/token` trades a user name and the password for
//! a bearer token, `GET /api/me` says whose token it was given.

use std::time::{SystemTime, UNIX_EPOCH};

use http::header::WWW_AUTHENTICATE;
use http::{HeaderValue, Response, StatusCode};
use serde::Deserialize;
use serde_json::json;

use super::jwt;
use super::request::AppRequest;
use super::{reply, App, PASSWORD};
use crate::body::Body;
use crate::stats::{AppCounters, AppEvent};

#[derive(Deserialize)]
struct Credentials {
    username: String,
    password: String,
}

/// `POST /api/token` with `{"username":..,"password":"secret"}`.
pub(super) fn grant(app: &App, request: &AppRequest, counters: &AppCounters) -> Response<Body> {
    let refuse = |status, error: &str, description: String| {
        counters.count(AppEvent::TokenRefusal);
        let body = json!({"error": error, "error_description": description});
        reply::json(status, &body)
    };
    let credentials: Credentials = match serde_json::from_slice(&request.body) {
        Ok(credentials) => credentials,
        Err(err) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                format!(r#"expected {{"username":"..","password":".."}}: {err}"#),
            )
        }
    };
    if credentials.username.is_empty() {
        return refuse(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "missing username".into(),
        );
    }
    if credentials.password != PASSWORD {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "invalid_grant",
            "wrong password".into(),
        );
    }
    let token = app.signer.issue(&credentials.username, unix_now());
    counters.count(AppEvent::TokenGrant);
    reply::json(
        StatusCode::OK,
        &json!({
            "token": token,
            "token_type": "Bearer",
            "expires_in": jwt::LIFETIME_SECS,
            "user": {"name": credentials.username},
        }),
    )
}

/// `GET /api/me` with `Authorization: Bearer TOKEN`.
pub(super) fn me(app: &App, request: &AppRequest, counters: &AppCounters) -> Response<Body> {
    let Some(token) = request.bearer_token() else {
        counters.count(AppEvent::ApiRefused);
        // RFC 6750 §3: no error code when the request had no credentials.
        return unauthorized("Bearer", "missing Authorization: Bearer TOKEN");
    };
    match app.signer.verify(token, unix_now()) {
        Ok(claims) => {
            counters.count(AppEvent::ApiAuthorized);
            reply::json(
                StatusCode::OK,
                &json!({"user": claims.sub, "scopes": claims.scopes()}),
            )
        }
        Err(refusal) => {
            counters.count(AppEvent::ApiRefused);
            unauthorized(r#"Bearer error="invalid_token""#, &refusal.to_string())
        }
    }
}

fn unauthorized(challenge: &'static str, reason: &str) -> Response<Body> {
    let mut response = reply::json(StatusCode::UNAUTHORIZED, &json!({"error": reason}));
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    response
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}
