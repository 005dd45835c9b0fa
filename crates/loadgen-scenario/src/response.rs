//! A step's response as checks and extractors read it: status, headers
//! (names in lowercase), body, and the body parsed as JSON or HTML at most
//! once, when the first check or extractor asks.

use std::cell::OnceCell;

pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    json: OnceCell<Option<serde_json::Value>>,
    html: OnceCell<scraper::Html>,
}

impl Response {
    pub fn new(status: u16, headers: Vec<(String, String)>, body: Vec<u8>) -> Response {
        Response {
            status,
            headers,
            body,
            json: OnceCell::new(),
            html: OnceCell::new(),
        }
    }

    /// Every value of header `name` (lowercase).
    pub fn header_values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text, with U+FFFD for bytes that are not UTF-8.
    pub fn body_text(&self) -> std::borrow::Cow<'_, str> {
        // `from_utf8` checks a valid body several words at a time, where
        // `from_utf8_lossy` walks it a byte at a time; most bodies are valid.
        match std::str::from_utf8(&self.body) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&self.body),
        }
    }

    /// The body as JSON, or `None` when it is not JSON.
    pub fn json(&self) -> Option<&serde_json::Value> {
        self.json
            .get_or_init(|| serde_json::from_slice(&self.body).ok())
            .as_ref()
    }

    /// The body as an HTML document (any text parses, as a browser would).
    pub fn html(&self) -> &scraper::Html {
        self.html
            .get_or_init(|| scraper::Html::parse_document(&self.body_text()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_text_is_the_lossy_text_of_any_body() {
        for body in [
            &b""[..],
            b"plain",
            "caf\u{e9} \u{1f600}".as_bytes(),
            b"cut \xe2\x82",
            b"\xff\xfe bytes \x80 in between",
        ] {
            let response = Response::new(200, Vec::new(), body.to_vec());
            assert_eq!(response.body_text(), String::from_utf8_lossy(body));
        }
        let valid = Response::new(200, Vec::new(), b"<p>ok</p>".to_vec());
        assert!(matches!(valid.body_text(), std::borrow::Cow::Borrowed(_)));
    }
}
