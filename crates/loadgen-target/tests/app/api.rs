use http::StatusCode;
use serde_json::json;

use crate::client::{shut_down, Client, Protocol, ALL};
use crate::start;

const JSON: (&str, &str) = ("content-type", "application/json");

async fn grant(client: &mut Client, username: &str) -> String {
    let credentials = json!({"username": username, "password": "secret"}).to_string();
    let reply = client.post("/api/token", &[JSON], &credentials).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let body = reply.json();
    let token = body["token"].as_str().unwrap().to_owned();
    assert_eq!(
        body,
        json!({"token": token, "token_type": "Bearer", "expires_in": 3600,
               "user": {"name": username}})
    );
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "{token}");
    assert!(parts.iter().all(|p| !p.is_empty()
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')));
    token
}

#[tokio::test]
async fn a_token_authorizes_api_calls_over_every_protocol() {
    let target = start();
    let mut tokens = Vec::new();
    for protocol in ALL {
        let mut client = Client::connect(&target, protocol).await;
        let user = format!("api-{protocol:?}");
        let token = grant(&mut client, &user).await;
        let bearer = format!("Bearer {token}");
        let me = client.get("/api/me", &[("authorization", &bearer)]).await;
        assert_eq!(me.status, StatusCode::OK, "{}", me.text());
        assert_eq!(
            me.json(),
            json!({"user": user, "scopes": ["read", "write"]})
        );
        tokens.push((user, token));
        client.close().await;
    }
    // A token is the target's, not the connection's or the protocol's.
    let mut client = Client::connect(&target, Protocol::Http3).await;
    for (user, token) in &tokens {
        let bearer = format!("bearer {token}");
        let me = client.get("/api/me", &[("authorization", &bearer)]).await;
        assert_eq!(me.json()["user"], user.as_str());
    }
    let again = grant(&mut client, "api-Http1").await;
    assert_ne!(again, tokens[0].1, "tokens are unpredictable");
    let stats = target.stats();
    assert_eq!((stats.token_grants, stats.api_authorized), (6, 10));
    assert_eq!((stats.token_refusals, stats.api_refused), (0, 0));
    client.close().await;
    shut_down(target).await;
}

#[tokio::test]
async fn calls_without_a_valid_token_are_refused() {
    let target = start();
    let other = start();
    let mut client = Client::connect(&target, Protocol::H2c).await;
    let token = grant(&mut client, "alice").await;
    let mut elsewhere = Client::connect(&other, Protocol::H2c).await;
    let foreign = grant(&mut elsewhere, "alice").await;
    // Another signature on the same claims.
    let (signed, signature) = token.rsplit_once('.').unwrap();
    let flipped = if signature.starts_with('A') { 'B' } else { 'A' };
    let tampered = format!("{signed}.{flipped}{}", &signature[1..]);

    let missing = client.get("/api/me", &[]).await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert_eq!(missing.header("www-authenticate"), Some("Bearer"));
    let basic = client
        .get("/api/me", &[("authorization", "Basic YWxpY2U6c2VjcmV0")])
        .await;
    assert_eq!(basic.header("www-authenticate"), Some("Bearer"));
    for bad in ["garbage", foreign.as_str(), tampered.as_str()] {
        let bearer = format!("Bearer {bad}");
        let reply = client.get("/api/me", &[("authorization", &bearer)]).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{bad}");
        assert_eq!(
            reply.header("www-authenticate"),
            Some(r#"Bearer error="invalid_token""#)
        );
        assert!(reply.json()["error"].is_string());
    }
    let stats = target.stats();
    assert_eq!((stats.api_authorized, stats.api_refused), (0, 5));

    for (body, status, error) in [
        (
            json!({"username": "alice", "password": "guess"}).to_string(),
            StatusCode::UNAUTHORIZED,
            "invalid_grant",
        ),
        (
            json!({"username": "", "password": "secret"}).to_string(),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            "username=alice&password=secret".to_string(),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            json!({"user": "alice"}).to_string(),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
    ] {
        let reply = client.post("/api/token", &[JSON], &body).await;
        assert_eq!(reply.status, status, "{body}");
        let answer = reply.json();
        assert_eq!(answer["error"], error, "{body}");
        assert!(answer["error_description"].is_string(), "{answer}");
    }
    let stats = target.stats();
    assert_eq!((stats.token_grants, stats.token_refusals), (1, 4));
    client.close().await;
    elsewhere.close().await;
    shut_down(target).await;
    shut_down(other).await;
}
