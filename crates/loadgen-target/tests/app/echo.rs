use bytes::Bytes;
use http::{Method, StatusCode};
use serde_json::json;

use crate::client::{shut_down, Client, Protocol, ALL};
use crate::start;

/// The app keeps request bodies up to 1 MiB.
const MAX_BODY: usize = 1 << 20;

#[tokio::test]
async fn echo_says_what_was_sent_over_every_protocol() {
    let target = start();
    for protocol in ALL {
        let mut client = Client::connect(&target, protocol).await;
        let headers = [
            ("x-test", "one"),
            ("x-test", "two"),
            ("content-type", "text/plain"),
        ];
        let reply = client
            .send(
                Method::PATCH,
                "/echo/some/path?a=1&a=2&b=x%20y&flag",
                &headers,
                Bytes::from_static("héllo".as_bytes()),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        let echo = reply.json();
        let version = match protocol.version() {
            http::Version::HTTP_11 => "HTTP/1.1",
            http::Version::HTTP_2 => "HTTP/2.0",
            _ => "HTTP/3.0",
        };
        assert_eq!(echo["method"], "PATCH");
        assert_eq!(echo["version"], version);
        assert_eq!(echo["path"], "/echo/some/path");
        assert_eq!(echo["query"], "a=1&a=2&b=x%20y&flag");
        assert_eq!(
            echo["args"],
            json!({"a": ["1", "2"], "b": ["x y"], "flag": [""]})
        );
        assert_eq!(echo["headers"]["x-test"], json!(["one", "two"]));
        assert_eq!(echo["headers"]["content-type"], json!(["text/plain"]));
        assert_eq!(echo["body"], "héllo");
        assert_eq!(echo["body_bytes"], 6);
        let authority = client.origin.split("://").nth(1).unwrap();
        assert_eq!(echo["authority"], authority, "{protocol:?}");
        client.close().await;
    }
    assert_eq!(target.stats().request_body_bytes, 6 * 5);
    shut_down(target).await;
}

#[tokio::test]
async fn bodies_beyond_the_bound_get_a_413_on_app_paths_only() {
    let target = start();
    for protocol in [Protocol::Http1, Protocol::H2c, Protocol::Http3] {
        let mut client = Client::connect(&target, protocol).await;
        let whole = Bytes::from(vec![b'a'; MAX_BODY]);
        let reply = client.send(Method::POST, "/echo", &[], whole).await;
        assert_eq!(reply.status, StatusCode::OK, "{protocol:?}");
        assert_eq!(reply.json()["body_bytes"], MAX_BODY);

        let over = Bytes::from(vec![b'a'; MAX_BODY + 1]);
        for path in ["/echo", "/app/login", "/api/token"] {
            let reply = client.send(Method::POST, path, &[], over.clone()).await;
            assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE, "{path}");
            assert_eq!(reply.text().lines().count(), 1, "{}", reply.text());
        }
        // The connection goes on after a refused body.
        let reply = client.post("/echo", &[], "small").await;
        assert_eq!(reply.json()["body"], "small");
        // Elsewhere bodies are only counted, whatever their size.
        let big = Bytes::from(vec![0; 2 * MAX_BODY]);
        let reply = client.send(Method::POST, "/upload", &[], big).await;
        assert_eq!(reply.body, loadgen_target::DEFAULT_BODY);
        client.close().await;
    }
    let stats = target.stats();
    let per_protocol = MAX_BODY + 3 * (MAX_BODY + 1) + 5 + 2 * MAX_BODY;
    assert_eq!(stats.request_body_bytes, 3 * per_protocol as u64);
    // A refused body logs nobody in and grants nothing.
    assert_eq!((stats.failed_logins, stats.token_refusals), (0, 0));
    shut_down(target).await;
}
