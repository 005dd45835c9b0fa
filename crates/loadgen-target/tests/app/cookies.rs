use http::StatusCode;
use serde_json::json;

use crate::client::{shut_down, Client, Protocol, ALL};
use crate::start;

#[tokio::test]
async fn cookies_set_exactly_what_is_asked_for() {
    let target = start();
    let mut client = Client::connect(&target, Protocol::Http1Tls).await;
    let cases = [
        ("name=a&value=1", "a=1"),
        ("name=empty", "empty="),
        (
            "name=pref&value=dark&path=/&domain=localhost&max-age=60&samesite=Strict&secure&httponly",
            "pref=dark; HttpOnly; SameSite=Strict; Secure; Path=/; Domain=localhost; Max-Age=60",
        ),
        ("name=gone&value=x&max-age=0&path=/cookies", "gone=x; Path=/cookies; Max-Age=0"),
        ("name=cross&value=y&samesite=none", "cross=y; SameSite=None"),
    ];
    for (query, set_cookie) in cases {
        let reply = client.get(&format!("/cookies/set?{query}"), &[]).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text());
        assert_eq!(reply.header("set-cookie"), Some(set_cookie), "{query}");
        assert_eq!(reply.headers.get_all("set-cookie").iter().count(), 1);
        assert_eq!(reply.json()["set_cookie"], set_cookie);
    }
    let reply = client
        .get(
            "/cookies/set?name=pref&value=dark&path=/&domain=localhost&max-age=60&samesite=Strict&secure&httponly",
            &[],
        )
        .await;
    assert_eq!(
        reply.json(),
        json!({
            "set_cookie": "pref=dark; HttpOnly; SameSite=Strict; Secure; Path=/; Domain=localhost; Max-Age=60",
            "name": "pref", "value": "dark", "path": "/", "domain": "localhost",
            "max_age": 60, "samesite": "Strict", "secure": true, "httponly": true,
        })
    );
    let reply = client.get("/cookies/set?name=a&value=1", &[]).await;
    assert_eq!(
        reply.json(),
        json!({
            "set_cookie": "a=1", "name": "a", "value": "1", "path": null, "domain": null,
            "max_age": null, "samesite": null, "secure": false, "httponly": false,
        })
    );
    client.close().await;
    shut_down(target).await;
}

#[tokio::test]
async fn bad_cookies_are_refused_with_a_reason() {
    let target = start();
    let mut client = Client::connect(&target, Protocol::H2c).await;
    for query in [
        "",
        "value=1",
        "name=&value=1",
        "name=a%20b&value=1",
        "name=a%3Bb&value=1",
        "name=a&value=x%20y",
        "name=a&value=x%3By",
        "name=a&value=%22q%22",
        "name=a&value=1&max-age=soon",
        "name=a&value=1&samesite=sometimes",
        "name=a&value=1&path=/x%3B%20Secure",
        "name=a&value=1&domain=x%0Ay",
    ] {
        let reply = client.get(&format!("/cookies/set?{query}"), &[]).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(reply.header("set-cookie"), None, "{query}");
        assert_eq!(reply.text().lines().count(), 1, "{}", reply.text());
    }
    client.close().await;
    shut_down(target).await;
}

#[tokio::test]
async fn cookies_lists_what_the_request_carried() {
    let target = start();
    for protocol in ALL {
        let mut client = Client::connect(&target, protocol).await;
        let reply = client.get("/cookies", &[]).await;
        assert_eq!(reply.json(), json!({"cookies": {}, "list": []}));
        // HTTP/2 and HTTP/3 clients may split cookies over several fields.
        let reply = client
            .get(
                "/cookies/any/path",
                &[("cookie", "a=1; b=two"), ("cookie", "a=shadowed")],
            )
            .await;
        assert_eq!(
            reply.json(),
            json!({
                "cookies": {"a": "1", "b": "two"},
                "list": [
                    {"name": "a", "value": "1"},
                    {"name": "b", "value": "two"},
                    {"name": "a", "value": "shadowed"},
                ],
            }),
            "{protocol:?}"
        );
        client.close().await;
    }
    shut_down(target).await;
}
