//! Following a redirect, as browsers and the Fetch standard do: 301, 302
//! and 303 turn a request with a body into a GET without one (303 any
//! method but HEAD), 307 and 308 keep the method and the body. A redirect
//! to another origin goes over that origin's own connection and leaves
//! the `Authorization` header behind.

use crate::origin::OriginKey;
use crate::urls::path_and_query;
use loadgen_core::request::Request;
use std::sync::Arc;

/// The next URL, with `request` changed for it (copied first when shared),
/// or `None` when the response is not a redirect to follow.
pub fn follow(
    status: u16,
    headers: &[(String, String)],
    from: &url::Url,
    request: &mut Arc<Request>,
) -> Option<url::Url> {
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = headers.iter().find(|(n, _)| n == "location")?.1.as_str();
    let next = from.join(location).ok()?;
    if !matches!(next.scheme(), "http" | "https") || next.host_str().is_none() {
        return None;
    }
    let request = Arc::make_mut(request);
    let drop_body = match status {
        303 => request.method != "HEAD",
        301 | 302 => request.method == "POST",
        _ => false,
    };
    if drop_body {
        if request.method != "HEAD" {
            request.method = "GET".to_string();
        }
        request.body = None;
        request
            .headers
            .retain(|(n, _)| !matches!(n.as_str(), "content-length" | "content-type"));
    }
    let origin = OriginKey::of(&next);
    if origin != OriginKey::of(from) {
        request.headers.retain(|(n, _)| n != "authorization");
    }
    request.authority = origin.authority();
    request.path = path_and_query(&next);
    Some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post() -> Arc<Request> {
        Arc::new(Request {
            method: "POST".into(),
            path: "/form".into(),
            authority: "a.test".into(),
            headers: vec![
                ("content-type".into(), "text/plain".into()),
                ("content-length".into(), "4".into()),
                ("authorization".into(), "Bearer t".into()),
            ],
            body: Some(bytes::Bytes::from_static(b"data")),
        })
    }

    fn location(to: &str) -> Vec<(String, String)> {
        vec![("location".into(), to.into())]
    }

    #[test]
    fn see_other_becomes_a_get_without_body() {
        let from = url::Url::parse("http://a.test/form").unwrap();
        let mut request = post();
        let next = follow(303, &location("/done?x=1"), &from, &mut request).unwrap();
        assert_eq!(next.as_str(), "http://a.test/done?x=1");
        assert_eq!(
            (request.method.as_str(), request.path.as_str()),
            ("GET", "/done?x=1")
        );
        assert!(request.body.is_none());
        assert!(request.headers.iter().all(|(n, _)| n != "content-length"));
        assert!(request.headers.iter().any(|(n, _)| n == "authorization"));
    }

    #[test]
    fn temporary_and_permanent_redirects_keep_method_and_body() {
        let from = url::Url::parse("http://a.test/form").unwrap();
        for status in [307, 308] {
            let mut request = post();
            follow(status, &location("/again"), &from, &mut request).unwrap();
            assert_eq!(request.method, "POST");
            assert_eq!(request.body.as_deref(), Some(&b"data"[..]));
        }
    }

    #[test]
    fn another_origin_gets_no_authorization() {
        let from = url::Url::parse("http://a.test/form").unwrap();
        let mut request = post();
        let next = follow(307, &location("https://b.test:8443/x"), &from, &mut request).unwrap();
        assert_eq!(request.authority, "b.test:8443");
        assert_eq!(next.scheme(), "https");
        assert!(request.headers.iter().all(|(n, _)| n != "authorization"));
    }

    #[test]
    fn not_a_redirect() {
        let from = url::Url::parse("http://a.test/").unwrap();
        assert!(follow(200, &location("/x"), &from, &mut post()).is_none());
        assert!(follow(302, &[], &from, &mut post()).is_none());
    }
}
