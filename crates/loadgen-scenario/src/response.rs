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

    pub fn body_text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.body)
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
