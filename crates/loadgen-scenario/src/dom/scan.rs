//! The `dom` extractor's fast path for an attribute: the page's tags read
//! with HTML's tokenizer rules (comments, raw text, attributes, duplicate
//! attributes, tags cut off by the end of the page), looking for the first
//! start tag the selector matches, with a stack of open elements for its
//! ancestors. No tree, no text, no output: a regular expression's work,
//! give or take the tags.
//!
//! The stack is the tree's only while tree construction does nothing but
//! open and close elements where the tags say. Wherever it would do more
//! (close an element by implication, move content out of a table, drop a
//! nested form, reopen formatting elements, switch to foreign content),
//! the scanner stops and says [`Scanned::Unsure`]; the caller then asks
//! `lol_html` or the tree, as before. `scan_tests.rs` holds it to the
//! tree's answers on generated pages.
//!
//! A page like the last one is scanned from what the last page's scan
//! kept (`resume.rs`).

use super::bytes::{
    find, find_any, find_byte, find_pair, is_whitespace, name_end, opens_value, skip_whitespace,
    EQUALS, GREATER, NUL, SLASH, WHITESPACE,
};
use super::compound::{attribute, is_verbatim, Chain, Truth};
use super::elements;
use super::last_match::Recall;
use memchr::memchr;

mod alike;
mod resume;

pub use resume::{first_attribute_after, State};

/// What a scan found.
#[derive(Debug, PartialEq, Eq)]
pub enum Scanned {
    /// The first match's attribute (`None`: no match, or no such attribute).
    Found(Option<String>),
    /// Tree construction would not follow the tags here: ask the tree.
    Unsure,
}

impl Scanned {
    /// The value found, or `None` where the scanner hands over.
    pub fn answer(self) -> Option<Option<String>> {
        match self {
            Scanned::Found(value) => Some(value),
            Scanned::Unsure => None,
        }
    }
}

/// The first element `chain` matches in `body`, and its attribute `name`:
/// the scan from the page's start, which [`first_attribute_after`] is held
/// to.
pub fn first_attribute(chain: &Chain, body: &[u8], name: &str) -> Scanned {
    Scan::new(chain, body).outcome(0, name)
}

/// `<a>`, `<nobr>`, `<button>`: a second one closes the first.
const NOT_NESTED: u32 = elements::A | elements::NOBR | elements::BUTTON;

/// Deeper than this, the scanner hands over (it bounds the stack's memory).
const MOST_OPEN: usize = 512;

/// An element on the stack of open elements.
struct Open<'a> {
    /// As written in the page.
    name: &'a [u8],
    classes: u32,
    /// Bit `i`: the chain's ancestor `i` matches this element for certain
    /// (`sure`) or depending on case or decoding (`maybe`).
    sure: u32,
    maybe: u32,
}

/// What was seen so far, for the start tags tree construction merges into
/// the elements it made itself (a second `<body>`, `<html>` after content)
/// or drops (`<head>` after content).
#[derive(Default, Clone, Copy, PartialEq, Eq)]
struct Seen {
    any: bool,
    other_than_html: bool,
    body_content: bool,
    body: bool,
}

impl Seen {
    /// Text other than whitespace: the parser has made `<html>`, `<head>`
    /// and `<body>` for it.
    fn text(&mut self) {
        self.any = true;
        self.other_than_html = true;
        self.body_content = true;
    }
}

/// Where the scan goes on from, or how it ended.
type Flow = Result<usize, Scanned>;

struct Scan<'a, 'c> {
    body: &'a [u8],
    chain: &'c Chain,
    open: Vec<Open<'a>>,
    /// The current start tag's attributes.
    attributes: Vec<(&'a [u8], &'a [u8])>,
    /// HTML's form element pointer: set by `<form>`, cleared by `</form>`.
    form: bool,
    /// Formatting elements on the stack: while one is, a later misnested
    /// end tag of its may move what is inside it (HTML § 13.2.6.4.7, the
    /// adoption agency algorithm), so no match inside it is final.
    formatting_open: usize,
    seen: Seen,
    /// Where the match's start tag begins, and what was seen before it.
    matched: Option<(usize, Seen)>,
    /// For [`first_attribute_after`]: the last page's scan, the place from
    /// which the next state is kept, and where that page's states ahead may
    /// be rejoined (`ahead[rejoin]`, and `rejoined` once they were).
    recall: Option<Recall<'a, State>>,
    next_checkpoint: usize,
    rejoin: usize,
    rejoined: Option<usize>,
    /// The last page's kept tag looked for after a difference
    /// (`ahead[seek]`), about `seek_shift` bytes from where that page had
    /// it, and how many were looked for in vain since the last was found.
    seek: Option<usize>,
    seek_shift: isize,
    misses: usize,
    /// The sought tag's window ends here in this page; the eight bytes
    /// before it, or from its `<` (`seek_from_tag`: where the last page
    /// kept its regions, the bytes before a tag may be other text).
    seek_to: usize,
    seek_key: Option<u64>,
    seek_from_tag: bool,
    /// How many bytes the scan went past without reading them (skipped,
    /// or rejoined over).
    jumped: usize,
    /// Whether the scan keeps the page's regions ([`Recall::noting`]).
    noting: bool,
    /// The fewest elements open since the last state kept or restored
    /// ([`State`]'s own).
    low: usize,
    #[cfg(test)]
    skips: usize,
    /// The first `<` at which any of that is due, and at which anything
    /// but the sought tag is.
    due: usize,
    due_other: usize,
}

/// Where a tag's name ends. A NUL in it stays part of it (the parser
/// writes U+FFFD), so `<textarea\0>` is no `<textarea>`: the tree decides.
#[inline(always)]
fn tag_name_end(body: &[u8], from: usize) -> Flow {
    let end = name_end(body, from);
    match body.get(end) {
        Some(0) => Err(Scanned::Unsure),
        _ => Ok(end),
    }
}

/// The page ends inside a tag: the tag is dropped, and nothing follows.
fn cut_off<T>() -> Result<T, Scanned> {
    Err(Scanned::Found(None))
}

impl<'a, 'c> Scan<'a, 'c> {
    fn new(chain: &'c Chain, body: &'a [u8]) -> Self {
        Scan {
            body,
            chain,
            open: Vec::with_capacity(32),
            attributes: Vec::with_capacity(8),
            form: false,
            formatting_open: 0,
            seen: Seen::default(),
            matched: None,
            recall: None,
            next_checkpoint: usize::MAX,
            rejoin: 0,
            rejoined: None,
            seek: None,
            seek_shift: 0,
            misses: 0,
            seek_to: 0,
            seek_key: None,
            seek_from_tag: false,
            jumped: 0,
            noting: false,
            low: 0,
            #[cfg(test)]
            skips: 0,
            due: usize::MAX,
            due_other: usize::MAX,
        }
    }

    /// The scan from `at`, a tag's `<` or the page's start.
    fn outcome(&mut self, at: usize, wanted: &str) -> Scanned {
        match self.run(at, wanted) {
            Ok(()) => Scanned::Found(None),
            Err(ended) => ended,
        }
    }

    fn run(&mut self, from: usize, wanted: &str) -> Result<(), Scanned> {
        let body = self.body;
        let mut at = from;
        while let Some(open) = find_byte(b'<', body, at) {
            if !self.seen.body_content {
                if !body[at..open].iter().all(|&b| is_whitespace(b)) {
                    self.seen.text();
                }
            } else if self.noting {
                // Text the body holds: the next page may have other text.
                // After a `<` read as text, from the byte after the next:
                // another byte there would make it a tag.
                let from = if at > 0 && body[at - 1] == b'<' {
                    at + 1
                } else {
                    at
                };
                if open > from {
                    self.note_region(from, open);
                }
            }
            if open >= self.due {
                if let Some(matched_at) = self.at_due(open) {
                    at = matched_at;
                    continue;
                }
            }
            at = match body.get(open + 1) {
                Some(b'!') if self.noting => self.declaration_noted(open)?,
                Some(b'!') => after_declaration(body, open + 2)?,
                Some(b'?') => after_greater_than(body, open + 2)?,
                Some(b'/') => match body.get(open + 2) {
                    Some(b) if b.is_ascii_alphabetic() => self.end_tag_at(open)?,
                    Some(b'>') => open + 3,
                    Some(_) => after_greater_than(body, open + 2)?,
                    None => break,
                },
                Some(b) if b.is_ascii_alphabetic() => {
                    let name_end = tag_name_end(body, open + 1)?;
                    let name = &body[open + 1..name_end];
                    let concerned = self.chain.concerns(name);
                    let end = if concerned {
                        self.attributes(name_end, true)?
                    } else {
                        self.skip_attributes(name_end)?
                    };
                    self.start_tag(open, name, end, concerned, wanted)?
                }
                _ => {
                    self.seen.text();
                    open + 1
                }
            };
        }
        Ok(())
    }

    /// An end tag from its `<` at `open`, a letter after its `</`; where
    /// the scan goes on.
    #[inline(always)]
    fn end_tag_at(&mut self, open: usize) -> Flow {
        if let Some(end) = self.closes_current(open + 2) {
            return Ok(end);
        }
        let body = self.body;
        let name_end = tag_name_end(body, open + 2)?;
        let end = match body.get(name_end) {
            Some(b'>') => name_end + 1,
            _ => self.attributes(name_end, false)?,
        };
        self.end_tag(&body[open + 2..name_end])?;
        Ok(end)
    }

    /// Reads a tag's attributes, from its name's end to its `>` (HTML
    /// § 13.2.5.32 to 13.2.5.40), keeping them for a start tag; the end of
    /// the page inside a tag drops it, and nothing follows.
    fn attributes(&mut self, name_end: usize, keep: bool) -> Flow {
        let body = self.body;
        self.attributes.clear();
        let mut at = name_end;
        loop {
            at = skip_whitespace(body, at);
            let Some(&byte) = body.get(at) else {
                return cut_off();
            };
            match byte {
                b'>' => return Ok(at + 1),
                b'/' => {
                    at += 1;
                    if body.get(at) == Some(&b'>') {
                        return Ok(at + 1);
                    }
                    continue;
                }
                // The parser writes U+FFFD for it: not worth following.
                0 => return Err(Scanned::Unsure),
                _ => {}
            }
            // An attribute's name; a leading `=` is part of it.
            let name_from = at;
            at = find(body, at + 1, WHITESPACE | SLASH | GREATER | EQUALS | NUL);
            let attribute_name = &body[name_from..at];
            at = skip_whitespace(body, at);
            let mut value: &[u8] = b"";
            if body.get(at) == Some(&b'=') {
                at = skip_whitespace(body, at + 1);
                match body.get(at) {
                    None => return cut_off(),
                    Some(&quote @ (b'"' | b'\'')) => {
                        let Some(close) = find_byte(quote, body, at + 1) else {
                            return cut_off();
                        };
                        value = &body[at + 1..close];
                        if keep && self.noting && !self.chain.tests(attribute_name) {
                            // A value no compound tests: the next page may
                            // have another.
                            self.note_region(at + 1, close);
                        }
                        at = close + 1;
                    }
                    Some(b'>') => {}
                    Some(_) => {
                        let value_from = at;
                        at = find(body, at, WHITESPACE | GREATER);
                        value = &body[value_from..at];
                    }
                }
            }
            if keep {
                self.attributes.push((attribute_name, value));
            }
        }
    }

    /// Where a tag whose attributes no selector reads ends: at the first
    /// `>` outside a quoted value. Where a quote comes after anything but
    /// whitespace and `name=` since the tag's name or the last value, the
    /// tag goes to the tokenizer's full reading.
    fn skip_attributes(&mut self, name_end: usize) -> Flow {
        let body = self.body;
        let mut at = name_end;
        loop {
            let Some(stop) = find_any(body, at, [b'>', b'"', b'\'']) else {
                return cut_off();
            };
            let byte = body[stop];
            if byte == b'>' {
                return Ok(stop + 1);
            }
            if !opens_value(&body[at..stop]) {
                return self.attributes(name_end, false);
            }
            let Some(close) = find_byte(byte, body, stop + 1) else {
                return cut_off();
            };
            if self.noting {
                self.note_region(stop + 1, close);
            }
            at = close + 1;
        }
    }

    /// [`after_declaration`] from the `<` at `open`, where the scan keeps
    /// the page's regions: a comment's text is one, since the next page
    /// may have other text there.
    fn declaration_noted(&mut self, open: usize) -> Flow {
        let body = self.body;
        let Some(text) = comment_text(body, open + 2) else {
            return after_other_declaration(body, open + 2);
        };
        let (dashes, after) = comment_end(body, text).ok_or(Scanned::Found(None))?;
        self.note_region(text, dashes);
        Ok(after)
    }

    /// A region of this page ([`Recall::note_region`]).
    fn note_region(&mut self, from: usize, to: usize) {
        if let Some(recall) = &mut self.recall {
            recall.note_region(from, to);
        }
    }

    /// A start tag from `<` at `from`, `concerned` when a compound of the
    /// selector may match its element (else its attributes were not read).
    fn start_tag(
        &mut self,
        from: usize,
        name: &'a [u8],
        end: usize,
        concerned: bool,
        wanted: &str,
    ) -> Flow {
        let seen_before = self.seen;
        let classes = elements::classes(name);
        if classes & elements::HAND_OVER != 0 || !self.opens_where_written(classes) {
            return Err(Scanned::Unsure);
        }
        let subject = if concerned {
            self.chain.subject.matches(name, &self.attributes)
        } else {
            Truth::No
        };
        match subject {
            Truth::No => {}
            subject => match (subject, self.ancestors_match()) {
                (_, Truth::No) => {}
                (Truth::Yes, Truth::Yes)
                    if self.formatting_open == 0 && !self.root_tag_follows(end) =>
                {
                    self.matched = Some((from, seen_before));
                    return Err(self.value(wanted));
                }
                _ => return Err(Scanned::Unsure),
            },
        }
        if classes & (elements::VOID | elements::DOCUMENT) != 0 {
            return Ok(end);
        }
        if self.open.len() >= MOST_OPEN {
            return Err(Scanned::Unsure);
        }
        let (mut sure, mut maybe) = (0, 0);
        let ancestors = if concerned {
            &self.chain.ancestors[..]
        } else {
            &[]
        };
        for (i, ancestor) in ancestors.iter().enumerate() {
            match ancestor.matches(name, &self.attributes) {
                Truth::Yes => sure |= 1 << i,
                Truth::Unsure => maybe |= 1 << i,
                Truth::No => {}
            }
        }
        self.open.push(Open {
            name,
            classes,
            sure,
            maybe,
        });
        self.form |= classes & elements::FORM != 0;
        self.formatting_open += usize::from(classes & elements::FORMATTING != 0);
        if classes & (elements::RAW_TEXT | elements::SCRIPT) != 0 {
            // Its end tag read here, not at the loop's next `<`: that the
            // raw text ends there depends on the bytes after that `<`, and
            // a state kept at it would not hold for a page that differs
            // from there on.
            let end_tag = self.raw_text_end(name, end, classes & elements::SCRIPT != 0)?;
            return self.end_tag_at(end_tag);
        }
        Ok(end)
    }

    /// Whether tree construction puts this start tag's element where the
    /// tags say, with no element closed or merged on the way.
    fn opens_where_written(&mut self, classes: u32) -> bool {
        let seen = &mut self.seen;
        let first_of_its_kind = if classes & elements::HTML != 0 {
            !seen.any
        } else if classes & elements::HEAD != 0 {
            !seen.other_than_html
        } else if classes & elements::BODY != 0 {
            !seen.body_content && !seen.body
        } else {
            true
        };
        seen.any = true;
        seen.other_than_html |= classes & elements::HTML == 0;
        seen.body |= classes & elements::BODY != 0;
        seen.body_content |= classes & (elements::DOCUMENT | elements::HEAD_CONTENT) == 0;
        if !first_of_its_kind {
            return false;
        }
        let top = self.open.last();
        let closes_something = (classes & elements::CLOSES_P != 0 && self.p_in_button_scope())
            || (classes & (elements::LI | elements::DD_DT) != 0 && self.closes_list_item(classes))
            || (classes & elements::HEADING != 0
                && top.is_some_and(|o| o.classes & elements::HEADING != 0))
            || (classes & (elements::A | elements::NOBR | elements::BUTTON) != 0
                && self
                    .open
                    .iter()
                    .any(|o| o.classes & classes & NOT_NESTED != 0))
            || (classes & elements::FORM != 0 && self.form);
        !closes_something
    }

    /// Whether an `<html>` or `<body>` tag later in the page may add
    /// attributes to an element the parser made before this one.
    fn root_tag_follows(&self, from: usize) -> bool {
        if !self.chain.subject_may_be_root {
            return false;
        }
        let rest = &self.body[from..];
        memchr::memchr_iter(b'<', rest).any(|open| {
            let name = rest.get(open + 1..open + 5);
            let root = name.is_some_and(|n| {
                n.eq_ignore_ascii_case(b"html") || n.eq_ignore_ascii_case(b"body")
            });
            root && rest
                .get(open + 5)
                .is_none_or(|&b| b == b'/' || b == b'>' || is_whitespace(b))
        })
    }

    fn is_open(&self, name: &[u8]) -> bool {
        self.open.iter().any(|o| o.name.eq_ignore_ascii_case(name))
    }

    fn p_in_button_scope(&self) -> bool {
        for open in self.open.iter().rev() {
            if open.classes & elements::P != 0 {
                return true;
            }
            if open.classes & elements::BUTTON != 0 {
                return false;
            }
        }
        false
    }

    /// `<li>` closes an open `<li>`, `<dd>` and `<dt>` an open `<dd>` or
    /// `<dt>`, unless a special element other than `address`, `div` or `p`
    /// comes first (HTML § 13.2.6.4.7).
    fn closes_list_item(&self, classes: u32) -> bool {
        let closes = classes & (elements::LI | elements::DD_DT);
        for open in self.open.iter().rev() {
            if open.classes & closes != 0 {
                return true;
            }
            if open.classes & (elements::SPECIAL | elements::LOOKED_PAST) == elements::SPECIAL {
                return false;
            }
        }
        false
    }

    /// Most end tags are `</name>` for the current element: popped, and
    /// where the scan goes on, without reading the tag a byte at a time.
    fn closes_current(&mut self, name_from: usize) -> Option<usize> {
        let current = self.open.last()?;
        let name_end = name_from + current.name.len();
        let closes = self.body.get(name_end) == Some(&b'>')
            && self.body[name_from..name_end].eq_ignore_ascii_case(current.name);
        if !closes {
            return None;
        }
        self.pop();
        Some(name_end + 1)
    }

    fn pop(&mut self) {
        let closed = self.open.pop().map_or(0, |o| o.classes);
        self.low = self.low.min(self.open.len());
        self.form &= closed & elements::FORM == 0;
        self.formatting_open -= usize::from(closed & elements::FORMATTING != 0);
    }

    fn end_tag(&mut self, name: &[u8]) -> Result<(), Scanned> {
        if self
            .open
            .last()
            .is_some_and(|o| o.name.eq_ignore_ascii_case(name))
        {
            self.pop();
            return Ok(());
        }
        let classes = elements::classes(name);
        // `</html>`, `</head>` and `</body>` close nothing later content
        // would not reopen, but the parser makes the elements they end.
        if classes & elements::DOCUMENT != 0 {
            if classes & elements::HEAD != 0 {
                self.seen.any = true;
                self.seen.other_than_html = true;
            } else {
                self.seen.text();
            }
            return Ok(());
        }
        // `</p>` and `</br>` make elements when none is open; a heading's
        // end tag closes any heading; the rest close what is above them.
        let closes_or_makes = classes & (elements::P | elements::BR) != 0
            || (classes & elements::HEADING != 0
                && self.open.iter().any(|o| o.classes & elements::HEADING != 0))
            || self.is_open(name);
        if closes_or_makes {
            return Err(Scanned::Unsure);
        }
        self.form &= classes & elements::FORM == 0;
        Ok(())
    }

    /// Whether the chain's ancestors are on the stack, nearest first (for
    /// descendant combinators the nearest match never loses).
    fn ancestors_match(&self) -> Truth {
        let holds = |bits: fn(&Open<'_>) -> u32| {
            let mut needed = self.chain.ancestors.len();
            for open in self.open.iter().rev() {
                if needed == 0 {
                    break;
                }
                if bits(open) & (1 << (needed - 1)) != 0 {
                    needed -= 1;
                }
            }
            needed == 0
        };
        if holds(|o| o.sure) {
            Truth::Yes
        } else if holds(|o| o.sure | o.maybe) {
            Truth::Unsure
        } else {
            Truth::No
        }
    }

    fn value(&self, wanted: &str) -> Scanned {
        match attribute(&self.attributes, wanted) {
            None => Scanned::Found(None),
            Some(value) if !is_verbatim(value) => Scanned::Unsure,
            Some(value) => match std::str::from_utf8(value) {
                Ok(value) => Scanned::Found(Some(value.to_string())),
                Err(_) => Scanned::Unsure,
            },
        }
    }

    /// Where the raw text of the element just opened ends: the `<` of its
    /// own end tag (HTML § 13.2.5.2 to 13.2.5.4). A script holding `<!--`
    /// may hide its end tag in an escaped `<script>`: the tree decides.
    fn raw_text_end(&self, name: &[u8], from: usize, script: bool) -> Flow {
        let body = self.body;
        let mut at = from;
        while let Some(open) = find_pair(*b"</", body, at) {
            let name_end = open + 2 + name.len();
            let is_end_tag = body
                .get(name_end)
                .is_some_and(|&b| b == b'/' || b == b'>' || is_whitespace(b))
                && body[open + 2..name_end].eq_ignore_ascii_case(name);
            if is_end_tag {
                if script && holds_comment_start(&body[..open], from) {
                    return Err(Scanned::Unsure);
                }
                return Ok(open);
            }
            at = open + 2;
        }
        // The rest of the page is its text.
        Err(Scanned::Found(None))
    }
}

/// After `<!`: a comment ends at `-->` or `--!>` (or at once, `<!-->` and
/// `<!--->`); a doctype, CDATA outside foreign content or a bogus comment
/// at the next `>`.
fn after_declaration(body: &[u8], from: usize) -> Flow {
    match comment_text(body, from) {
        Some(text) => comment_end(body, text)
            .map(|(_, after)| after)
            .ok_or(Scanned::Found(None)),
        None => after_other_declaration(body, from),
    }
}

/// [`after_declaration`] where no comment's text starts at `from`.
fn after_other_declaration(body: &[u8], from: usize) -> Flow {
    if !body[from..].starts_with(b"--") {
        return after_greater_than(body, from);
    }
    // `<!-->` or `<!--->`.
    let text = from + 2;
    Ok(if body[text..].starts_with(b">") {
        text + 1
    } else {
        text + 2
    })
}

/// Where the text of a comment starts, after `<!` at `from`, if it is a
/// comment that does not end at once.
fn comment_text(body: &[u8], from: usize) -> Option<usize> {
    let text = from + 2;
    let rest = body.get(text..)?;
    let ends_at_once = rest.starts_with(b">") || rest.starts_with(b"->");
    (body[from..].starts_with(b"--") && !ends_at_once).then_some(text)
}

/// Where the comment whose text starts at `text` ends: the `--` of its
/// `-->` or `--!>`, and the byte after that.
fn comment_end(body: &[u8], text: usize) -> Option<(usize, usize)> {
    let mut at = text;
    while let Some(dashes) = find_pair(*b"--", body, at) {
        match body.get(dashes + 2) {
            Some(b'>') => return Some((dashes, dashes + 3)),
            Some(b'!') if body.get(dashes + 3) == Some(&b'>') => return Some((dashes, dashes + 4)),
            _ => at = dashes + 1,
        }
    }
    None
}

/// Whether `text` holds `<!--` from `from` on.
fn holds_comment_start(text: &[u8], from: usize) -> bool {
    let mut at = from;
    while let Some(open) = find_pair(*b"<!", text, at) {
        if text[open + 2..].starts_with(b"--") {
            return true;
        }
        at = open + 1;
    }
    false
}

fn after_greater_than(body: &[u8], from: usize) -> Flow {
    match memchr(b'>', &body[from..]) {
        Some(offset) => Ok(from + offset + 1),
        None => Err(Scanned::Found(None)),
    }
}
