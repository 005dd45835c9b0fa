//! A flow as read from a recording, before it is written: steps with
//! their requests, and the response each one ended with, which correlation
//! searches for the values later requests send.

/// The steps of one scenario, and the origin relative URLs are written against.
#[derive(Debug, Default)]
pub struct Flow {
    /// `scheme://host[:port]` of the first step: `{{env.BASE_URL}}` in the file.
    pub origin: Option<String>,
    /// `defaults.insecure` (curl's `-k`).
    pub insecure: bool,
    /// `defaults.protocol` (curl's `--http2`, ...).
    pub protocol: Option<&'static str>,
    pub steps: Vec<Step>,
}

#[derive(Debug, Default)]
pub struct Step {
    pub method: String,
    /// Absolute; written relative to the origin when it is on it.
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Body,
    /// `follow_redirects: 0` when the recording did not follow one.
    pub follow_redirects: Option<u32>,
    /// The status the recording ended with, checked with `status_in`.
    pub status: Option<u16>,
    /// The pause after the step, in milliseconds.
    pub think_ms: u64,
    pub extract: Vec<Extract>,
    /// The response the step ended with, as recorded.
    pub response: Option<Recorded>,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub enum Body {
    #[default]
    None,
    /// `application/x-www-form-urlencoded` fields.
    Form(Vec<(String, String)>),
    Json(serde_json::Value),
    Text(String),
    /// curl's `-d @file`.
    File(String),
}

impl Body {
    /// `application/x-www-form-urlencoded` fields as `form:`, or as the text
    /// on the wire when a field is named twice (checkboxes), which a
    /// mapping cannot hold.
    pub fn form(fields: Vec<(String, String)>, text: &str) -> Body {
        let mut names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() == fields.len() && !fields.is_empty() {
            return Body::Form(fields);
        }
        if text.is_empty() && !fields.is_empty() {
            let mut wire = form_urlencoded::Serializer::new(String::new());
            wire.extend_pairs(&fields);
            return Body::Text(wire.finish());
        }
        Body::Text(text.to_string())
    }
}

#[derive(Debug, Default)]
pub struct Recorded {
    pub headers: Vec<(String, String)>,
    /// The body as text, when it was recorded and is text.
    pub body: Option<String>,
    pub mime: String,
}

/// An extractor on a step, setting `{{into}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extract {
    Header {
        name: String,
        into: String,
    },
    Json {
        path: String,
        into: String,
    },
    Dom {
        selector: String,
        attribute: String,
        into: String,
    },
    Regex {
        pattern: String,
        into: String,
    },
}

impl Step {
    /// `GET /app/login`: the method and the path, which the file's step names are made of.
    pub fn title(&self) -> String {
        let path = match url::Url::parse(&self.url) {
            Ok(url) => url.path().to_string(),
            Err(_) => self.url.clone(),
        };
        format!("{} {path}", self.method)
    }
}

#[cfg(test)]
mod tests {
    use super::Body;

    #[test]
    fn a_field_named_twice_stays_wire_text() {
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            Body::form(vec![pair("a", "1"), pair("b", "x y")], "a=1&b=x+y"),
            Body::Form(vec![pair("a", "1"), pair("b", "x y")])
        );
        assert_eq!(
            Body::form(vec![pair("c", "1"), pair("c", "2")], "c=1&c=2"),
            Body::Text("c=1&c=2".into())
        );
        // Recorded as params only.
        assert_eq!(
            Body::form(vec![pair("c", "1"), pair("c", "a b")], ""),
            Body::Text("c=1&c=a+b".into())
        );
    }
}
