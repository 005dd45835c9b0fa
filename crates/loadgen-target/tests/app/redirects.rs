use bytes::Bytes;
use http::{Method, StatusCode};

use crate::client::{shut_down, Client, Protocol, Reply};
use crate::start;

const CODES: [u16; 5] = [301, 302, 303, 307, 308];

fn assert_redirect(reply: &Reply, status: u16, location: &str) {
    assert_eq!(reply.status.as_u16(), status, "{}", reply.text());
    assert_eq!(reply.header("location"), Some(location));
    assert!(reply.body.is_empty());
}

#[tokio::test]
async fn a_chain_counts_down_to_an_answer() {
    let target = start();
    for protocol in [Protocol::Http1, Protocol::H2Tls, Protocol::Http3] {
        let mut client = Client::connect(&target, protocol).await;
        let mut path = "/redirect/3".to_string();
        for hops in (0..3).rev() {
            let reply = client.get(&path, &[]).await;
            path = format!("/redirect/{hops}");
            assert_redirect(&reply, 302, &path);
        }
        let end = client.get(&path, &[]).await;
        assert_eq!(end.status, StatusCode::OK);
        let received = end.json();
        assert_eq!(received["method"], "GET");
        assert_eq!(received["path"], "/redirect/0");
        client.close().await;
    }
    shut_down(target).await;
}

/// Follows a chain as a client should: 301, 302 and 303 turn a POST into a
/// GET without a body, 307 and 308 keep both; the end says what it got.
#[tokio::test]
async fn every_code_is_kept_along_the_chain() {
    let target = start();
    let mut client = Client::connect(&target, Protocol::H2c).await;
    for code in CODES {
        let mut path = format!("/redirect/2?status={code}");
        let (mut method, mut body) = (Method::POST, Bytes::from_static(b"payload"));
        for hops in [1, 0] {
            let reply = client.send(method.clone(), &path, &[], body.clone()).await;
            path = format!("/redirect/{hops}?status={code}");
            assert_redirect(&reply, code, &path);
            if !matches!(code, 307 | 308) {
                (method, body) = (Method::GET, Bytes::new());
            }
        }
        let end = client.send(method, &path, &[], body).await;
        let received = end.json();
        let (method, body) = match code {
            307 | 308 => ("POST", "payload"),
            _ => ("GET", ""),
        };
        assert_eq!(received["method"], method, "{code}");
        assert_eq!(received["body"], body, "{code}");
        assert_eq!(received["query"], format!("status={code}"));
    }
    client.close().await;
    shut_down(target).await;
}

#[tokio::test]
async fn redirect_to_any_url() {
    let target = start();
    let tls_port = target.tls_addr().unwrap().port();
    let mut client = Client::connect(&target, Protocol::Http1).await;
    let cross_origin = format!("https://127.0.0.1:{tls_port}/echo?from=clear");
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("url", &cross_origin)
        .finish();
    let reply = client.get(&format!("/redirect-to?{query}"), &[]).await;
    assert_redirect(&reply, 302, &cross_origin);
    for code in CODES {
        let path = format!("/redirect-to?url=%2Fecho%3Fa%3D1&status={code}");
        let reply = client.send(Method::PUT, &path, &[], Bytes::new()).await;
        assert_redirect(&reply, code, "/echo?a=1");
    }
    // The other origin answers what was sent there.
    let mut tls = Client::connect(&target, Protocol::H2Tls).await;
    let reply = tls.get("/echo?from=clear", &[]).await;
    assert_eq!(reply.json()["args"]["from"][0], "clear");
    client.close().await;
    tls.close().await;
    shut_down(target).await;
}

#[tokio::test]
async fn bad_redirect_requests_get_a_400_with_a_reason() {
    let target = start();
    let mut client = Client::connect(&target, Protocol::Http3).await;
    for path in [
        "/redirect/x",
        "/redirect/-1",
        "/redirect/1/",
        "/redirect/",
        "/redirect/2?status=304",
        "/redirect/2?status=200",
        "/redirect-to",
        "/redirect-to?url=",
        "/redirect-to?url=/x&status=301x",
        "/redirect-to?url=/x%0D%0Aset-cookie:%20a=1",
    ] {
        let reply = client.get(path, &[]).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path}");
        assert_eq!(reply.text().lines().count(), 1, "{path}");
        assert_eq!(reply.header("location"), None, "{path}");
    }
    client.close().await;
    shut_down(target).await;
}
