//! Step sessions against the built-in target's app: loadgen-rs's
//! login/logout flow, with the session's cookies and a redirect.

mod common;

use common::{base_url, c, last_error, take, target};
use loadgen_ffi as ffi;
use serde_json::{json, Value};

fn execute(session: u64, step: Value) -> Value {
    let step = c(&step.to_string());
    let reply = take(unsafe { ffi::loadgen_step_execute(session, step.as_ptr()) })
        .unwrap_or_else(|| panic!("loadgen_step_execute failed: {:?}", last_error()));
    serde_json::from_str(&reply).expect("the reply is JSON")
}

fn header<'a>(reply: &'a Value, name: &str) -> Option<&'a str> {
    reply["headers"]
        .as_array()?
        .iter()
        .find(|pair| pair[0] == name)
        .and_then(|pair| pair[1].as_str())
}

#[test]
fn a_session_logs_in_and_out_with_cookies_and_a_redirect() {
    let target = target();
    let config = c(&json!({"base_url": base_url(&target)}).to_string());
    let session = unsafe { ffi::loadgen_step_session_create(config.as_ptr()) };
    assert_ne!(session, 0, "{:?}", last_error());

    let page = execute(
        session,
        json!({"url": "/app/login", "extract": [{
            "type": "dom", "selector": "form#login input[name=\"csrf\"]",
            "attribute": "value", "as": "csrf"}]}),
    );
    assert_eq!(page["status"], 200, "{page:#}");
    assert!(header(&page, "set-cookie").unwrap().starts_with("sid="));
    let csrf = page["extracted"]["csrf"].as_str().expect("a CSRF token");

    // The form's answer is a redirect to the inbox, followed with the session's cookie.
    let inbox = execute(
        session,
        json!({"url": "/app/login", "method": "POST",
               "form": {"username": "ada", "password": "secret", "csrf": csrf},
               "checks": {"body_includes": ["Welcome, ada"]},
               "extract": [{"type": "regex", "pattern": "logout\\?token=([a-f0-9]+)", "as": "token"}]}),
    );
    assert_eq!(inbox["status"], 200, "{inbox:#}");
    assert_eq!(inbox["redirects"], 1);
    assert!(inbox["url"].as_str().unwrap().ends_with("/app/inbox"));
    assert_eq!(
        inbox["checks"]["body_includes \"Welcome, ada\""], true,
        "{inbox:#}"
    );
    let token = inbox["extracted"]["token"]
        .as_str()
        .expect("a logout token");

    let logout = execute(
        session,
        json!({"url": format!("/app/logout?token={token}"), "follow_redirects": 0}),
    );
    assert_eq!(logout["status"], 302, "{logout:#}");
    assert_eq!(header(&logout, "location"), Some("/app/login"));

    // Logged out: the inbox sends the session back to the login page.
    let after = execute(session, json!({"url": "/app/inbox"}));
    assert_eq!(after["redirects"], 1, "{after:#}");
    assert!(after["url"].as_str().unwrap().ends_with("/app/login"));

    let stats = target.stats();
    assert_eq!((stats.logins, stats.logouts), (1, 1), "{stats:?}");
    assert_eq!(ffi::loadgen_step_session_reset(session), 0);
    assert_eq!(ffi::loadgen_step_session_destroy(session), 0);
    assert_eq!(ffi::loadgen_step_session_destroy(session), -1);
}

#[test]
fn a_bad_step_is_an_error_and_the_session_goes_on() {
    let session = unsafe { ffi::loadgen_step_session_create(std::ptr::null()) };
    assert_ne!(session, 0, "{:?}", last_error());
    let step = c(r#"{"method": "GET"}"#);
    assert!(take(unsafe { ffi::loadgen_step_execute(session, step.as_ptr()) }).is_none());
    assert!(last_error().unwrap().contains("url"));
    let kept = take(ffi::loadgen_step_session_last_error(session)).expect("kept on the session");
    assert!(kept.contains("url"), "{kept}");
    let unreachable = execute(session, json!({"url": "http://127.0.0.1:1/"}));
    assert!(unreachable["error"].is_string(), "{unreachable:#}");
    assert_eq!(ffi::loadgen_step_session_destroy(session), 0);
}
