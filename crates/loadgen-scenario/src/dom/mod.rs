//! The `dom` extractor's CSS selector, matched three ways, cheapest first:
//!
//! 1. For an attribute, [`scan`] reads the page's tags with HTML's
//!    tokenizer rules and keeps a stack of open elements for the
//!    selector's ancestors: no tree, no text.
//! 2. Where it hands over, and for text, the selector is matched while the
//!    page streams past `lol_html` ([`streaming`]).
//! 3. The tree (`scraper`) answers what neither can decide.
//!
//! A tree of a 4 KB page cost about three times the rest of the request,
//! for one value; streaming it through `lol_html` still cost 2.8 times a
//! regular expression taking the same value (docs/performance.md,
//! "The `dom` extractor").
//!
//! Neither of the first two keeps a tree, so each only decides what an
//! element's own start tag and its ancestors decide, and only where their
//! stack of open elements is the tree's. The tree still answers for a
//! selector that asks more (siblings, `:nth-child`, or an ancestor whose
//! end a page may leave out: to `lol_html` the second `<li>` of
//! `<li>a<li>b` is inside the first; see [`streaming::streams_as_the_tree`]),
//! and for the text of an element that may end without an end tag of its
//! own (`<p>`, `<li>`, `<td>`, ...) or that an ancestor's end tag closed.

mod block;
mod bytes;
mod compound;
mod elements;
mod last_match;
mod regions;
mod remembered;
mod scan;
#[cfg(test)]
mod scan_tests;
mod streaming;

use crate::response::Response;
use streaming::Streamed;

pub struct DomSelector {
    /// As written: the key of the thread's last match for it.
    text: Box<str>,
    tree: scraper::Selector,
    /// `None` where `lol_html` does not support the selector.
    streaming: Option<lol_html::Selector>,
    /// `None` outside the tag scanner's subset.
    scanned: Option<compound::Chain>,
}

impl DomSelector {
    /// The selector; the error is `scraper`'s, whichever engine matches.
    pub fn parse(text: &str) -> Result<DomSelector, String> {
        let tree = scraper::Selector::parse(text).map_err(|e| e.to_string())?;
        let streaming = if streaming::streams_as_the_tree(text) {
            text.parse::<lol_html::Selector>().ok()
        } else {
            None
        };
        let scanned = streaming
            .as_ref()
            .and_then(|_| compound::Chain::parse(text));
        Ok(DomSelector {
            text: text.into(),
            tree,
            streaming,
            scanned,
        })
    }

    /// Whether matches stream (the selector is in `lol_html`'s subset).
    pub fn streams(&self) -> bool {
        self.streaming.is_some()
    }

    /// Whether an attribute is looked for by the tag scanner first.
    pub fn scans(&self) -> bool {
        self.scanned.is_some()
    }

    /// The first matching element's `attribute`, or its text, trimmed;
    /// `None` when nothing matches or the value is empty.
    pub fn first(&self, response: &Response, attribute: Option<&str>) -> Option<String> {
        if let Some(value) = attribute.and_then(|name| self.scanned(response, name)) {
            return value.filter(|value| !value.is_empty());
        }
        self.without_scan(response, attribute)
    }

    /// The tag scanner's answer alone: `None` where it hands over, and
    /// where the selector is outside its subset (the `dom_scan` fuzz target
    /// holds it to [`DomSelector::from_tree`]).
    ///
    /// The scan goes on from what the thread's scan of the last page kept
    /// where this page has the same bytes ([`last_match`], [`remembered`]).
    pub fn scanned(&self, response: &Response, attribute: &str) -> Option<Option<String>> {
        let chain = self.scanned.as_ref()?;
        let scanned = remembered::with_last_match(&self.text, |last| {
            scan::first_attribute_after(chain, &response.body, attribute, last)
        });
        scanned.answer()
    }

    /// [`DomSelector::scanned`] from the page's start, with nothing kept
    /// from the last page and nothing kept for the next (for
    /// `bench/extract`: the tag scanner's own cost).
    pub fn scanned_from_start(
        &self,
        response: &Response,
        attribute: &str,
    ) -> Option<Option<String>> {
        scan::first_attribute(self.scanned.as_ref()?, &response.body, attribute).answer()
    }

    /// [`DomSelector::first`] without the tag scanner: `lol_html`, then
    /// the tree (for `bench/extract`, and where the scanner hands over).
    pub fn without_scan(&self, response: &Response, attribute: Option<&str>) -> Option<String> {
        let streamed = match &self.streaming {
            Some(selector) => streaming::stream(selector, &response.body, attribute),
            None => Streamed::Undecided,
        };
        let value = match streamed {
            Streamed::Found(value) => value?,
            Streamed::Undecided => self.from_tree(response, attribute)?,
        };
        (!value.is_empty()).then_some(value)
    }

    /// The previous way, kept for what streaming cannot decide.
    pub fn from_tree(&self, response: &Response, attribute: Option<&str>) -> Option<String> {
        let element = response.html().select(&self.tree).next()?;
        Some(match attribute {
            Some(name) => element.value().attr(name)?.to_string(),
            None => element.text().collect::<String>().trim().to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOGIN: &str = r#"<!doctype html>
<html><head><title>Sign in &amp; more</title>
<meta name="csrf-token" content="m&amp;t-42"></head>
<body>
<nav><ul><li class="a">one<li class="a b">two</ul></nav>
<form id="login" method="post" action="/login">
  <input type="hidden" name="csrf" value="tok&#x2F;en-7">
  <label for="u">User <b>name</b></label><input id="u" name="user">
  <div class="msg"><p>first <em>para</em></p><p>second</p></div>
  <p class="note">unclosed <span>inner</span>
</form>
<div class="msg">later</div>
<script>var x = "a &amp; b";</script>
</body></html>"#;

    fn response(body: &str) -> Response {
        Response::new(200, Vec::new(), body.as_bytes().to_vec())
    }

    /// Streaming and the tree agree, and the selector does stream.
    fn same(body: &str, selector: &str, attribute: Option<&str>) -> Option<String> {
        let parsed = DomSelector::parse(selector).unwrap();
        let r = response(body);
        let tree = parsed
            .from_tree(&r, attribute)
            .filter(|value| !value.is_empty());
        let streamed = parsed.first(&r, attribute);
        assert_eq!(streamed, tree, "{selector} {attribute:?}");
        streamed
    }

    #[test]
    fn streaming_finds_what_the_tree_finds() {
        let csrf = same(LOGIN, "form#login input[name=csrf]", Some("value"));
        assert_eq!(csrf.as_deref(), Some("tok/en-7"));
        let meta = same(LOGIN, r#"meta[name="csrf-token"]"#, Some("content"));
        assert_eq!(meta.as_deref(), Some("m&t-42"));
        assert_eq!(
            same(LOGIN, "title", None).as_deref(),
            Some("Sign in & more")
        );
        assert_eq!(same(LOGIN, "label", None).as_deref(), Some("User name"));
        assert_eq!(
            same(LOGIN, "form div.msg em", None).as_deref(),
            Some("para")
        );
        assert_eq!(
            same(LOGIN, "nav ul li", Some("class")).as_deref(),
            Some("a")
        );
        let nested = r#"<form id="login"><div><input name="csrf" value="in"></div></form><input name="csrf" value="out">"#;
        assert_eq!(
            same(nested, r#"form#login input[name="csrf"]"#, Some("value")).as_deref(),
            Some("in")
        );
        let outside =
            r#"<form id="other"></form><input name="csrf" value="out"><form id="login"></form>"#;
        assert_eq!(
            same(outside, r#"form#login input[name="csrf"]"#, Some("value")),
            None
        );
        assert_eq!(
            same(LOGIN, "div.msg", None).as_deref(),
            Some("first parasecond")
        );
        assert_eq!(
            same(LOGIN, "form > div.msg p", None).as_deref(),
            Some("first para")
        );
        assert_eq!(
            same(LOGIN, "body > div.msg", None).as_deref(),
            Some("later")
        );
        assert_eq!(
            same(LOGIN, "script", None).as_deref(),
            Some("var x = \"a &amp; b\";")
        );
        assert_eq!(same(LOGIN, "input#u", None), None);
        assert_eq!(
            same(LOGIN, "input#u", Some("name")).as_deref(),
            Some("user")
        );
        assert_eq!(same(LOGIN, "input#u", Some("value")), None);
        assert_eq!(same(LOGIN, "table td", None), None);
        assert_eq!(
            same(LOGIN, "li:nth-child(2)", Some("class")).as_deref(),
            Some("a b")
        );
        assert_eq!(
            same(LOGIN, "input:not([type=hidden])", Some("id")).as_deref(),
            Some("u")
        );
    }

    #[test]
    fn elements_closed_without_an_end_tag_ask_the_tree() {
        let misnested = "<div><span>in <b>bold</div> out</span>";
        assert_eq!(same(misnested, "span", None).as_deref(), Some("in bold"));
        assert_eq!(same(misnested, "b", None).as_deref(), Some("bold"));
        assert_eq!(
            same("<ul><li>one<li>two</ul>", "li", None).as_deref(),
            Some("one")
        );
        assert_eq!(
            same("<p>one<p>two</p></p>", "p", None).as_deref(),
            Some("one")
        );
        assert_eq!(
            same("<table><tr><td>a<td>b</table>", "td", None).as_deref(),
            Some("a")
        );
        // `<li>` and `<p class="note">` end by implication.
        assert_eq!(same(LOGIN, "li.a", None).as_deref(), Some("one"));
        assert_eq!(
            same(LOGIN, "p.note", None).as_deref(),
            Some("unclosed inner")
        );
        assert_eq!(same("<p>a<p>b", "p", None).as_deref(), Some("a"));
    }

    #[test]
    fn selectors_a_start_tag_decides_stream() {
        for streams in [
            "input[name=csrf]",
            r#"meta[name="csrf-token"]"#,
            "#u",
            "div.msg",
            "input:not([type=hidden])",
            "a[href^='/x y']",
            "li.a",
            r#"form#login input[name="csrf"]"#,
            "div.msg  span:not(.x)",
            "nav ul a",
        ] {
            assert!(DomSelector::parse(streams).unwrap().streams(), "{streams}");
        }
        for tree in [
            "form > input",
            "label + input",
            "a ~ b",
            "li:nth-child(2)",
            "p:first-child",
            "a, b",
            "input:not(form input)",
            "li span",
            "p span",
            ".row input",
            "table input",
            "a b",
        ] {
            assert!(!DomSelector::parse(tree).unwrap().streams(), "{tree}");
        }
    }

    #[test]
    fn selectors_outside_the_streamed_subset_use_the_tree() {
        let sibling = DomSelector::parse("label + input").unwrap();
        assert!(!sibling.streams());
        let r = response(LOGIN);
        assert_eq!(sibling.first(&r, Some("name")).as_deref(), Some("user"));
        assert!(DomSelector::parse("input[").is_err());
    }

    #[test]
    fn each_selector_takes_each_new_pages_own_value() {
        // More selectors than a thread keeps, asked in turn: each page is
        // the last one with another token, as a login page is.
        let selectors: Vec<String> = (0..11)
            .map(|i| format!("form#login input[name=csrf]:not(.n{i})"))
            .collect();
        for token in 0..5 {
            let page = format!(
                r#"<!doctype html><html><head><title>Sign in</title></head><body>
<nav><ul><li><a href="/">Home</a></li></ul></nav>
<form id="login" method="post"><input type="hidden" name="csrf" value="token-{token}">
<input name="user"></form></body></html>"#
            );
            for selector in &selectors {
                let parsed = DomSelector::parse(selector).unwrap();
                assert!(parsed.scans(), "{selector}");
                let r = response(&page);
                let expected = format!("token-{token}");
                assert_eq!(parsed.first(&r, Some("value")), Some(expected.clone()));
                assert_eq!(parsed.scanned(&r, "value"), Some(Some(expected)));
            }
        }
    }

    #[test]
    fn bodies_that_are_not_html_find_nothing_or_the_same() {
        for body in [
            "",
            "plain text",
            "{\"json\": true}",
            "<<<>>>",
            "\u{feff}<p>x</p>",
        ] {
            same(body, "p", None);
            same(body, "p", Some("class"));
        }
    }
}
