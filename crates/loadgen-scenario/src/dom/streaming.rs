//! Matching while the page streams past `lol_html`: the `dom` extractor's
//! way for a text, and for an attribute where the tag scanner hands over.

use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{ElementContentHandlers, HtmlRewriter, Selector, Settings};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// What a streamed match ended with.
pub enum Streamed {
    Found(Option<String>),
    /// The first match's end could not be seen: ask the tree.
    Undecided,
}

/// Whether a streaming parser matches `text` as the tree does: compound
/// selectors (a type, `#id`, `.class`, `[attribute]`, `:not(...)` of those)
/// that an element's own start tag decides, joined only by descendant
/// combinators whose ancestors are elements no tag but their own end tag
/// closes (`form#login input[name=csrf]`). Other combinators and
/// `:nth-child` and the like ask where the element is among its siblings,
/// which a streaming parser gets wrong where an end tag was left out: to
/// `lol_html`, the second `<li>` of `<li>a<li>b` is inside the first.
pub fn streams_as_the_tree(text: &str) -> bool {
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

pub fn stream(selector: &Selector, body: &[u8], attribute: Option<&str>) -> Streamed {
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
pub fn decoded(raw: &str) -> String {
    html_escape::decode_html_entities(raw).into_owned()
}
