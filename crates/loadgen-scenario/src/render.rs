//! A step's request made for one send: URL, headers and body rendered from
//! their templates with the virtual user's values, and the `Cookie` header
//! from its jar.

use crate::suite::{BodySpec, JsonTemplate, StepSpec, UrlSpec};
use crate::template::{Source, Template, Values};
use crate::urls::{path_and_query, resolve_url};
use bytes::Bytes;
use cookie_store::CookieStore;
use loadgen_core::request::Request;
use std::borrow::Cow;
use std::sync::Arc;

/// A step's request and where it goes. Shared (`Arc`) so that a step whose
/// request reads no value is made once and sent as it is, without a copy
/// per send; cookies and redirects copy it on write.
pub struct Rendered<'s> {
    pub url: Cow<'s, url::Url>,
    pub request: Arc<Request>,
}

/// The step's request as it goes out now, its templates reading `values`.
pub fn request<'s>(step: &'s StepSpec, values: &mut dyn Values) -> Result<Rendered<'s>, String> {
    if let (Some(request), UrlSpec::Fixed(url)) = (&step.prepared, &step.url) {
        return Ok(Rendered {
            url: Cow::Borrowed(url),
            request: request.clone(),
        });
    }
    let url = match &step.url {
        UrlSpec::Fixed(url) => Cow::Borrowed(url),
        UrlSpec::Templated { template, base } => {
            let text = template.render(values)?;
            Cow::Owned(resolve_url(&text, base.as_ref())?)
        }
    };
    let request = build(step, &url, values)?;
    Ok(Rendered {
        request: Arc::new(request),
        url,
    })
}

/// The step's request made once, when it reads no value (no variable, no
/// built-in, no feeder): the same for every send.
pub fn prepare(step: &StepSpec) -> Option<Arc<Request>> {
    /// Fails at the first value a template reads.
    struct NoValues;
    impl Values for NoValues {
        fn write(&mut self, _: &Source, _: &mut String) -> Result<(), String> {
            Err(String::new())
        }
    }
    let UrlSpec::Fixed(url) = &step.url else {
        return None;
    };
    build(step, url, &mut NoValues).ok().map(Arc::new)
}

fn build(step: &StepSpec, url: &url::Url, values: &mut dyn Values) -> Result<Request, String> {
    let mut headers = Vec::with_capacity(step.headers.len() + 2);
    for (name, template) in &step.headers {
        let value = template.render(values)?;
        if value.contains(['\r', '\n', '\0']) {
            return Err(format!("header '{name}' would hold a line break"));
        }
        headers.push((name.clone(), value));
    }
    let body = match &step.body {
        BodySpec::None => None,
        BodySpec::Text { template, .. } => Some(template.render(values)?.into_bytes()),
        BodySpec::Form(fields) => {
            let mut form = form_urlencoded::Serializer::new(String::new());
            for (name, template) in fields {
                form.append_pair(name, &template.render(values)?);
            }
            set_default(
                &mut headers,
                "content-type",
                "application/x-www-form-urlencoded",
            );
            Some(form.finish().into_bytes())
        }
        BodySpec::Json(template) => {
            let value = json(template, values)?;
            set_default(&mut headers, "content-type", "application/json");
            Some(serde_json::to_vec(&value).expect("a JSON value serializes"))
        }
    };
    if let Some(body) = &body {
        headers.push(("content-length".to_string(), body.len().to_string()));
    }
    Ok(Request {
        method: step.method.clone(),
        path: path_and_query(url),
        authority: crate::origin::OriginKey::of(url).authority(),
        headers,
        body: body.map(Bytes::from),
    })
}

fn set_default(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    if !headers.iter().any(|(n, _)| n == name) {
        headers.push((name.to_string(), value.to_string()));
    }
}

/// Sets the `Cookie` header to what the jar holds for `url`, RFC 6265's
/// way; a shared request is copied only when its header changes.
pub fn cookie_header(request: &mut Arc<Request>, jar: &CookieStore, url: &url::Url) {
    let value = cookie_value(jar, url);
    let current = request
        .headers
        .iter()
        .find(|(name, _)| name == "cookie")
        .map(|(_, value)| value.as_str());
    let unchanged = match current {
        None => value.is_empty(),
        Some(current) => current == value && !value.is_empty(),
    };
    if unchanged {
        return;
    }
    let request = Arc::make_mut(request);
    request.headers.retain(|(name, _)| name != "cookie");
    if !value.is_empty() {
        request.headers.push(("cookie".to_string(), value));
    }
}

fn cookie_value(jar: &CookieStore, url: &url::Url) -> String {
    let mut cookies = jar.matches(url);
    // RFC 6265 section 5.4: longer paths first, so that a server reading the
    // first of two cookies with one name reads the more specific one.
    cookies.sort_by_key(|cookie| std::cmp::Reverse(cookie.path.as_ref().len()));
    let mut value = String::new();
    for cookie in cookies {
        let (name, cookie) = cookie.name_value();
        if !value.is_empty() {
            value.push_str("; ");
        }
        value.push_str(name);
        value.push('=');
        value.push_str(cookie);
    }
    value
}

fn json(template: &JsonTemplate, values: &mut dyn Values) -> Result<serde_json::Value, String> {
    Ok(match template {
        JsonTemplate::Fixed(value) => value.clone(),
        JsonTemplate::String(text) => serde_json::Value::String(render_template(text, values)?),
        JsonTemplate::Array(items) => serde_json::Value::Array(
            items
                .iter()
                .map(|i| json(i, values))
                .collect::<Result<_, _>>()?,
        ),
        JsonTemplate::Object(entries) => serde_json::Value::Object(
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), json(v, values)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

fn render_template(template: &Template, values: &mut dyn Values) -> Result<String, String> {
    template.render(values)
}

#[cfg(test)]
mod tests {
    //! The jar's rules away from loopback, which the integration tests
    //! cannot reach: there, as in browsers, `http://127.0.0.1` counts as a
    //! secure origin.
    use super::cookie_header;
    use cookie_store::CookieStore;
    use loadgen_core::request::Request;

    fn sent(jar: &CookieStore, url: &str) -> Option<String> {
        let mut request = std::sync::Arc::new(Request {
            method: "GET".into(),
            path: "/".into(),
            authority: "x".into(),
            headers: vec![("cookie".into(), "stale=1".into())],
            body: None,
        });
        cookie_header(&mut request, jar, &url.parse().unwrap());
        request
            .headers
            .iter()
            .find(|(name, _)| name == "cookie")
            .map(|(_, value)| value.clone())
    }

    fn jar_with(set_by: &str, cookies: &[&str]) -> CookieStore {
        let mut jar = CookieStore::new();
        let url = set_by.parse().unwrap();
        for cookie in cookies {
            jar.parse(cookie, &url).expect("stored");
        }
        jar
    }

    #[test]
    fn a_secure_cookie_goes_over_tls_only() {
        let jar = jar_with(
            "https://shop.example/",
            &["s=1; Secure; Path=/", "p=2; Path=/"],
        );
        let tls = sent(&jar, "https://shop.example/a").unwrap();
        assert!(tls.contains("s=1") && tls.contains("p=2"), "{tls}");
        assert_eq!(sent(&jar, "http://shop.example/a").as_deref(), Some("p=2"));
    }

    #[test]
    fn host_only_and_domain_cookies_go_where_their_domain_matches() {
        let jar = jar_with(
            "https://shop.example/",
            &["host=1; Path=/", "wide=2; Domain=example; Path=/"],
        );
        let here = sent(&jar, "https://shop.example/").unwrap();
        assert!(here.contains("host=1") && here.contains("wide=2"), "{here}");
        assert_eq!(
            sent(&jar, "https://api.example/").as_deref(),
            Some("wide=2")
        );
        assert_eq!(sent(&jar, "https://other.test/"), None);
    }

    #[test]
    fn longer_paths_go_first_and_no_stale_header_stays() {
        let jar = jar_with(
            "https://shop.example/cart/items",
            &[
                "a=root; Path=/",
                "a=cart; Path=/cart",
                "b=deep; Path=/cart/items",
            ],
        );
        assert_eq!(
            sent(&jar, "https://shop.example/cart/items/1").as_deref(),
            Some("b=deep; a=cart; a=root")
        );
        assert_eq!(
            sent(&jar, "https://shop.example/other").as_deref(),
            Some("a=root")
        );
    }

    #[test]
    fn a_cookie_set_to_expire_is_removed() {
        let mut jar = jar_with(
            "https://shop.example/",
            &["gone=1; Path=/", "kept=2; Path=/"],
        );
        let url = "https://shop.example/".parse().unwrap();
        // As a browser does, the expired cookie replaces the live one: it is gone.
        let _ = jar.parse("gone=; Max-Age=0; Path=/", &url);
        assert_eq!(
            sent(&jar, "https://shop.example/").as_deref(),
            Some("kept=2")
        );
    }
}
