//! The `dom` extractor's CSS selector, matched while the response's HTML
//! streams past (`lol_html`) rather than on a tree built first (`scraper`):
//! a tree of a 4 KB page cost about three times the rest of the request,
//! for one value (docs/performance.md, "Scenarios").
//!
//! A streaming parser keeps no tree, so it only decides what an element's
//! own start tag and its ancestors decide. The tree still answers, the same
//! as before, for a selector that asks more (siblings, `:nth-child`, or an
//! ancestor whose end a page may leave out: to `lol_html` the second `<li>`
//! of `<li>a<li>b` is inside the first; see [`streams_as_the_tree`]), and
//! for the text of an element that may end without an end tag of its own
//! (`<p>`, `<li>`, `<td>`, ...) or that an ancestor's end tag closed.

use crate::response::Response;
use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{ElementContentHandlers, HtmlRewriter, Selector, Settings};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

pub struct DomSelector {
    tree: scraper::Selector,
    /// `None` where `lol_html` does not support the selector.
    streaming: Option<Selector>,
}

/// What a streamed match ended with.
enum Streamed {
    Found(Option<String>),
    /// The first match's end could not be seen: ask the tree.
    Undecided,
}

impl DomSelector {
    /// The selector; the error is `scraper`'s, whichever engine matches.
    pub fn parse(text: &str) -> Result<DomSelector, String> {
        let tree = scraper::Selector::parse(text).map_err(|e| e.to_string())?;
        let streaming = if streams_as_the_tree(text) {
            text.parse::<Selector>().ok()
        } else {
            None
        };
        Ok(DomSelector { tree, streaming })
    }

    /// Whether matches stream (the selector is in `lol_html`'s subset).
    pub fn streams(&self) -> bool {
        self.streaming.is_some()
    }

    /// The first matching element's `attribute`, or its text, trimmed;
    /// `None` when nothing matches or the value is empty.
    pub fn first(&self, response: &Response, attribute: Option<&str>) -> Option<String> {
        let streamed = match &self.streaming {
            Some(selector) => stream(selector, &response.body, attribute),
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

/// Whether a streaming parser matches `text` as the tree does: compound
/// selectors (a type, `#id`, `.class`, `[attribute]`, `:not(...)` of those)
/// that an element's own start tag decides, joined only by descendant
/// combinators whose ancestors are elements no tag but their own end tag
/// closes (`form#login input[name=csrf]`). Other combinators and
/// `:nth-child` and the like ask where the element is among its siblings,
/// which a streaming parser gets wrong where an end tag was left out: to
/// `lol_html`, the second `<li>` of `<li>a<li>b` is inside the first.
fn streams_as_the_tree(text: &str) -> bool {
    let mut compounds = Vec::new();
    let mut compound = String::new();
    let mut quote = None;
    let (mut brackets, mut parens) = (0usize, 0usize);
    for (at, c) in text.trim().char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => brackets += 1,
            (None, ']') => brackets = brackets.saturating_sub(1),
            (None, _) if brackets > 0 => {}
            (None, '(') => parens += 1,
            (None, ')') => parens = parens.saturating_sub(1),
            (None, ' ' | '\t' | '\n') if parens == 0 => {
                if !compound.is_empty() {
                    compounds.push(std::mem::take(&mut compound));
                }
                continue;
            }
            (None, ' ' | '\t' | '\n' | '>' | '+' | '~' | ',' | '\\') => return false,
            (None, ':') if !text.trim()[at + 1..].starts_with("not(") => return false,
            _ => {}
        }
        compound.push(c);
    }
    if quote.is_some() || brackets > 0 || parens > 0 {
        return false;
    }
    let ancestors = compounds.len();
    compounds.push(compound);
    compounds[..ancestors].iter().all(|ancestor| {
        let name_ends = ancestor
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(ancestor.len());
        CLOSED_BY_THEIR_OWN_END.contains(&ancestor[..name_ends].to_ascii_lowercase().as_str())
    })
}

/// Elements that only their own end tag (or an ancestor's) closes: not an
/// optional end tag, not a formatting element a parser may reopen, not a
/// heading another heading closes, nothing tables move content out of.
const CLOSED_BY_THEIR_OWN_END: [&str; 17] = [
    "form",
    "div",
    "section",
    "article",
    "main",
    "nav",
    "header",
    "footer",
    "aside",
    "ul",
    "ol",
    "dl",
    "fieldset",
    "label",
    "span",
    "figure",
    "blockquote",
];

/// Elements whose end tag HTML lets a page leave out (HTML § 13.1.2.4).
const OPTIONAL_END: [&str; 19] = [
    "html", "head", "body", "li", "dt", "dd", "p", "rt", "rp", "optgroup", "option", "colgroup",
    "caption", "thead", "tbody", "tfoot", "tr", "td", "th",
];

/// The error that stops the parser once the value is known.
#[derive(Debug)]
struct Enough;

impl std::fmt::Display for Enough {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the value is known")
    }
}

impl std::error::Error for Enough {}

fn stream(selector: &Selector, body: &[u8], attribute: Option<&str>) -> Streamed {
    let matched = Cell::new(false);
    let value: RefCell<Option<String>> = RefCell::new(None);
    // Set by the first match's end tag handler, which must be 'static.
    let ended = Rc::new(Cell::new(false));
    let on_element = |element: &mut Element| {
        if matched.replace(true) {
            return Ok(());
        }
        match attribute {
            Some(name) => {
                *value.borrow_mut() = element.get_attribute(name).map(|v| decoded(&v));
                Err(Box::new(Enough) as Box<dyn std::error::Error + Send + Sync>)
            }
            None => {
                *value.borrow_mut() = Some(String::new());
                let tag = element.tag_name();
                if OPTIONAL_END.contains(&tag.as_str()) {
                    // Its end may be implied by what follows: the tree knows.
                    return Err(Box::new(Enough));
                }
                let ended = Rc::clone(&ended);
                if element.can_have_content() {
                    element.on_end_tag(Box::new(move |end| {
                        // Only its own end tag: an ancestor's that closes it
                        // too comes after text that is not its own.
                        ended.set(end.name().eq_ignore_ascii_case(&tag));
                        Err(Box::new(Enough))
                    }))
                } else {
                    // A void element (`<input>`) has no text.
                    ended.set(true);
                    Err(Box::new(Enough))
                }
            }
        }
    };
    let on_text = |chunk: &mut TextChunk| {
        if attribute.is_none() && matched.get() && !ended.get() {
            if let Some(text) = value.borrow_mut().as_mut() {
                match chunk.text_type() {
                    TextType::Data | TextType::RCData => text.push_str(&decoded(chunk.as_str())),
                    _ => text.push_str(chunk.as_str()),
                }
            }
        }
        Ok(())
    };
    let handlers = ElementContentHandlers::default().element(on_element);
    // A text handler makes the parser decode text it could skip.
    let handlers = match attribute {
        Some(_) => handlers,
        None => handlers.text(on_text),
    };
    let settings = Settings {
        element_content_handlers: vec![(Cow::Borrowed(selector), handlers)],
        ..Settings::new()
    };
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    // An error is `Enough`, or HTML lol_html gives up on (the tree decides).
    let stopped = rewriter.write(body).is_err() || rewriter.end().is_err();
    let value = value.take();
    match (attribute, matched.get()) {
        (_, false) if !stopped => Streamed::Found(None),
        (Some(_), true) => Streamed::Found(value),
        (None, true) if ended.get() => Streamed::Found(value.map(|v| v.trim().to_string())),
        _ => Streamed::Undecided,
    }
}

/// Text and attribute values as the page means them: entities decoded.
fn decoded(raw: &str) -> String {
    html_escape::decode_html_entities(raw).into_owned()
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
