use bytes::Bytes;
use http::{Method, StatusCode};
use loadgen_target::Stats;

use crate::client::{shut_down, Client, Protocol, Reply, ALL};
use crate::{between, is_hex_id, start};

const FORM: (&str, &str) = ("content-type", "application/x-www-form-urlencoded");

/// The session cookie a login page set, as a `Cookie` header value, and
/// the CSRF token of its form.
fn session_of(page: &Reply) -> (String, String) {
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(page.header("cache-control"), Some("no-store"));
    let set_cookie = page.header("set-cookie").unwrap();
    let sid = between(set_cookie, "sid=", ";");
    assert!(is_hex_id(sid), "{set_cookie}");
    assert_eq!(
        set_cookie,
        format!("sid={sid}; Path=/app; HttpOnly; SameSite=Lax")
    );
    let text = page.text();
    assert!(text.contains(r#"<form id="login" action="/app/login" method="post">"#));
    assert!(text.contains(r#"name="username""#) && text.contains(r#"name="password""#));
    let csrf = between(text, r#"<input type="hidden" name="csrf" value=""#, r#"""#);
    assert!(is_hex_id(csrf), "{csrf}");
    (format!("sid={sid}"), csrf.to_owned())
}

fn login_form(username: &str, password: &str, csrf: &str) -> String {
    form_urlencoded::Serializer::new(String::new())
        .append_pair("username", username)
        .append_pair("password", password)
        .append_pair("csrf", csrf)
        .finish()
}

fn assert_redirect(reply: &Reply, location: &str) {
    assert_eq!(reply.status, StatusCode::FOUND, "{}", reply.text());
    assert_eq!(reply.header("location"), Some(location));
}

fn assert_refused(reply: &Reply, reason: &str) {
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert!(reply.text().starts_with(reason), "{}", reply.text());
    assert_eq!(reply.text().lines().count(), 1, "{}", reply.text());
}

/// The logout token of an inbox page, as a scenario's regex would find it.
fn logout_token(inbox: &Reply) -> String {
    let token = between(inbox.text(), "logout?token=", r#"""#);
    assert!(is_hex_id(token), "{token}");
    token.to_owned()
}

async fn log_in_and_out(client: &mut Client, user: &str) {
    let page = client.get("/app/login", &[]).await;
    let (cookie, csrf) = session_of(&page);
    let form = login_form(user, "secret", &csrf);
    let login = client
        .post("/app/login", &[("cookie", &cookie), FORM], &form)
        .await;
    assert_redirect(&login, "/app/inbox");

    let inbox = client.get("/app/inbox", &[("cookie", &cookie)]).await;
    assert_eq!(inbox.status, StatusCode::OK);
    let welcome = format!(r#"<h1 id="welcome">Welcome, {user}</h1>"#);
    assert!(inbox.text().contains(&welcome), "{}", inbox.text());
    let token = logout_token(&inbox);
    assert!(inbox.text().contains(&format!(
        r#"<a id="logout" href="/app/logout?token={token}">Log out</a>"#
    )));

    let logout = client
        .get(
            &format!("/app/logout?token={token}"),
            &[("cookie", &cookie)],
        )
        .await;
    assert_redirect(&logout, "/app/login");
    assert_eq!(
        logout.header("set-cookie"),
        Some("sid=; Path=/app; Max-Age=0")
    );
    let after = client.get("/app/inbox", &[("cookie", &cookie)]).await;
    assert_redirect(&after, "/app/login");
}

#[tokio::test]
async fn the_login_flow_over_every_protocol() {
    let target = start();
    for protocol in ALL {
        let mut client = Client::connect(&target, protocol).await;
        log_in_and_out(&mut client, &format!("alice-{protocol:?}")).await;
        client.close().await;
    }
    let stats = target.stats();
    assert_eq!(
        (stats.logins, stats.failed_logins, stats.logouts),
        (5, 0, 5)
    );
    // Five requests a flow: two flows each over HTTP/1.1 and HTTP/2.
    assert_eq!((stats.http1, stats.http2, stats.http3), (10, 10, 5));
    shut_down(target).await;
}

#[tokio::test]
async fn a_session_is_the_same_over_every_protocol() {
    let target = start();
    let mut h2c = Client::connect(&target, Protocol::H2c).await;
    let mut http1 = Client::connect(&target, Protocol::Http1).await;
    let mut http3 = Client::connect(&target, Protocol::Http3).await;
    let mut h2 = Client::connect(&target, Protocol::H2Tls).await;

    let (cookie, csrf) = session_of(&h2c.get("/app/login", &[]).await);
    let form = login_form("bob", "secret", &csrf);
    let login = http1
        .post("/app/login", &[("cookie", &cookie), FORM], &form)
        .await;
    assert_redirect(&login, "/app/inbox");
    let inbox = http3.get("/app/inbox", &[("cookie", &cookie)]).await;
    assert!(inbox.text().contains("Welcome, bob</h1>"));
    let logout = h2
        .get(
            &format!("/app/logout?token={}", logout_token(&inbox)),
            &[("cookie", &cookie)],
        )
        .await;
    assert_redirect(&logout, "/app/login");
    assert_eq!((target.stats().logins, target.stats().logouts), (1, 1));
    for client in [h2c, http1, http3, h2] {
        client.close().await;
    }
    shut_down(target).await;
}

#[tokio::test]
async fn refused_logins_say_why_and_are_counted() {
    let target = start();
    let mut client = Client::connect(&target, Protocol::Http1).await;
    let (cookie, csrf) = session_of(&client.get("/app/login", &[]).await);
    let (other_cookie, other_csrf) = session_of(&client.get("/app/login", &[]).await);
    let made_up = "sid=0123456789abcdef0123456789abcdef";
    let refusals = [
        (None, login_form("alice", "secret", &csrf), "no sid cookie"),
        (
            Some(made_up),
            login_form("alice", "secret", &csrf),
            "unknown session",
        ),
        (
            Some("sid=not-hex"),
            login_form("alice", "secret", &csrf),
            "unknown session",
        ),
        (
            Some(cookie.as_str()),
            login_form("alice", "secret", &other_csrf),
            "csrf token does not match the session",
        ),
        (
            Some(cookie.as_str()),
            "username=alice&password=secret".to_string(),
            "missing csrf field",
        ),
        (
            Some(cookie.as_str()),
            login_form("", "secret", &csrf),
            "missing username",
        ),
        (
            Some(cookie.as_str()),
            login_form("alice", "Secret", &csrf),
            "wrong password",
        ),
    ];
    let count = refusals.len() as u64;
    for (cookie, form, reason) in refusals {
        let mut headers = vec![FORM];
        if let Some(cookie) = cookie {
            headers.push(("cookie", cookie));
        }
        let reply = client.post("/app/login", &headers, &form).await;
        assert_refused(&reply, reason);
    }
    // Refusals leave both sessions able to log in.
    for (cookie, csrf) in [(&cookie, &csrf), (&other_cookie, &other_csrf)] {
        let form = login_form("alice", "secret", csrf);
        let reply = client
            .post("/app/login", &[("cookie", cookie), FORM], &form)
            .await;
        assert_redirect(&reply, "/app/inbox");
    }
    let stats = target.stats();
    assert_eq!((stats.logins, stats.failed_logins), (2, count));
    client.close().await;
    shut_down(target).await;
}

#[tokio::test]
async fn the_inbox_and_logout_need_a_logged_in_session() {
    let target = start();
    let mut client = Client::connect(&target, Protocol::H2c).await;
    assert_redirect(&client.get("/app/inbox", &[]).await, "/app/login");
    let (anonymous, _) = session_of(&client.get("/app/login", &[]).await);
    let reply = client.get("/app/inbox", &[("cookie", &anonymous)]).await;
    assert_redirect(&reply, "/app/login");
    let reply = client
        .get("/app/logout?token=00", &[("cookie", &anonymous)])
        .await;
    assert_refused(&reply, "not logged in");

    // Two logged-in sessions: neither's logout token ends the other.
    let mut sessions = Vec::new();
    for user in ["carol", "dave"] {
        let (cookie, csrf) = session_of(&client.get("/app/login", &[]).await);
        let form = login_form(user, "secret", &csrf);
        client
            .post("/app/login", &[("cookie", &cookie), FORM], &form)
            .await;
        let inbox = client.get("/app/inbox", &[("cookie", &cookie)]).await;
        sessions.push((cookie, logout_token(&inbox)));
    }
    let (carol, carol_token) = &sessions[0];
    let (_, dave_token) = &sessions[1];
    let wrong = client
        .get(
            &format!("/app/logout?token={dave_token}"),
            &[("cookie", carol)],
        )
        .await;
    assert_refused(&wrong, "wrong logout token");
    let missing = client.get("/app/logout", &[("cookie", carol)]).await;
    assert_refused(&missing, "missing token");
    let inbox = client.get("/app/inbox", &[("cookie", carol)]).await;
    assert!(inbox.text().contains("Welcome, carol</h1>"));
    assert_eq!(target.stats().logouts, 0);

    // A new login page replaces the session its cookie named.
    client.get("/app/login", &[("cookie", carol)]).await;
    let reply = client
        .get(
            &format!("/app/logout?token={carol_token}"),
            &[("cookie", carol)],
        )
        .await;
    assert_refused(&reply, "unknown session");
    client.close().await;
    shut_down(target).await;
}

#[tokio::test]
async fn user_names_are_escaped_in_the_page() {
    let target = start();
    let mut client = Client::connect(&target, Protocol::Http3).await;
    let (cookie, csrf) = session_of(&client.get("/app/login", &[]).await);
    let form = login_form("<b>eve</b> & co", "secret", &csrf);
    client
        .post("/app/login", &[("cookie", &cookie), FORM], &form)
        .await;
    let inbox = client.get("/app/inbox", &[("cookie", &cookie)]).await;
    assert!(
        inbox
            .text()
            .contains("Welcome, &lt;b&gt;eve&lt;/b&gt; &amp; co</h1>"),
        "{}",
        inbox.text()
    );
    client.close().await;
    shut_down(target).await;
}

#[tokio::test]
async fn wrong_methods_and_unknown_paths() {
    let target = start();
    let mut client = Client::connect(&target, Protocol::Http1).await;
    for (method, path, allow) in [
        (Method::PUT, "/app/login", "GET, HEAD, POST"),
        (Method::POST, "/app/inbox", "GET, HEAD"),
        (Method::DELETE, "/app/logout", "GET, HEAD"),
        (Method::GET, "/api/token", "POST"),
        (Method::POST, "/api/me", "GET, HEAD"),
        (Method::POST, "/cookies/set", "GET, HEAD"),
    ] {
        let reply = client.send(method, path, &[], Bytes::new()).await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
        assert_eq!(reply.header("allow"), Some(allow), "{path}");
    }
    for path in ["/app", "/app/nothing", "/api/v2", "/redirect"] {
        let reply = client.get(path, &[]).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}");
    }
    // Paths outside the app still get the benchmark's answer.
    let reply = client.get("/apps", &[]).await;
    assert_eq!(reply.body, loadgen_target::DEFAULT_BODY);
    client.close().await;
    shut_down(target).await;
}

#[tokio::test]
async fn app_counters_are_in_the_stats_and_reset_with_them() {
    let target = start();
    let mut client = Client::connect(&target, Protocol::Http1).await;
    log_in_and_out(&mut client, "frank").await;
    let stats: Stats = serde_json::from_slice(&client.get("/__stats", &[]).await.body).unwrap();
    assert_eq!((stats.logins, stats.logouts, stats.total), (1, 1, 5));
    let reset = client.get("/__stats/reset", &[]).await;
    let reset: Stats = serde_json::from_slice(&reset.body).unwrap();
    assert_eq!(reset, stats);
    assert_eq!(target.stats(), Stats::default());
    client.close().await;
    shut_down(target).await;
}
