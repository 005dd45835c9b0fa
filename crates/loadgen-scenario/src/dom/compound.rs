//! The selectors the tag scanner decides on its own: compound selectors (a
//! type or `*`, `#id`, `.class`, `[attribute]` with any of the six value
//! operators, `:not(...)` of one compound) joined by descendant
//! combinators. Anything else, escapes and comments included, is left to
//! `lol_html` and the tree, which `scraper` has already validated it for.
//!
//! A match is three-valued: where `scraper` might compare a value without
//! regard to ASCII case (the HTML attributes whose values selectors match
//! that way, or quirks mode) and the answer would change with it, or where
//! a value holds what the tokenizer would rewrite (a character reference, a
//! NUL, a carriage return), the scanner is [`Truth::Unsure`] and hands over.

use super::bytes::is_whitespace;

/// Whether an element matches, as far as its start tag tells.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Truth {
    No,
    Yes,
    Unsure,
}

impl Truth {
    fn and(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::No, _) | (_, Truth::No) => Truth::No,
            (Truth::Yes, Truth::Yes) => Truth::Yes,
            _ => Truth::Unsure,
        }
    }

    fn not(self) -> Truth {
        match self {
            Truth::No => Truth::Yes,
            Truth::Yes => Truth::No,
            Truth::Unsure => Truth::Unsure,
        }
    }

    /// An answer that is the same whether or not ASCII case counts.
    fn either_case(exact: bool, ignoring_case: bool) -> Truth {
        match (exact, ignoring_case) {
            (true, true) => Truth::Yes,
            (false, false) => Truth::No,
            _ => Truth::Unsure,
        }
    }
}

/// A start tag's attributes as written: names as in the page, values raw.
pub type Attributes<'a> = [(&'a [u8], &'a [u8])];

/// The first attribute of that name (HTML drops later duplicates).
pub fn attribute<'a>(attributes: &Attributes<'a>, name: &str) -> Option<&'a [u8]> {
    attributes
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name.as_bytes()))
        .map(|&(_, value)| value)
}

/// A value the tokenizer passes on unchanged: no character reference to
/// decode, no NUL or carriage return to replace.
pub fn is_verbatim(value: &[u8]) -> bool {
    !value.iter().any(|b| matches!(b, b'&' | b'\0' | b'\r'))
}

/// The chain of compounds, the last one the subject.
#[derive(Debug)]
pub struct Chain {
    pub ancestors: Vec<Compound>,
    pub subject: Compound,
    /// Whether the subject may be `<html>` or `<body>`, to which a later
    /// tag of theirs adds attributes (so the first match can come last).
    pub subject_may_be_root: bool,
    /// The compounds' type names, and whether one has none.
    names: Vec<Box<[u8]>>,
    any_name: bool,
    /// The attributes the compounds test, lowercase.
    tested: Vec<Box<[u8]>>,
}

#[derive(Debug, Default)]
pub struct Compound {
    /// Lowercase; `None` for `*` or no type.
    name: Option<String>,
    conditions: Vec<Condition>,
}

#[derive(Debug)]
enum Condition {
    Id(String),
    Class(String),
    Attribute {
        name: String,
        test: Option<(Operator, String, Case)>,
    },
    Not(Compound),
}

#[derive(Clone, Copy, Debug)]
enum Operator {
    Equals,
    Includes,
    DashMatch,
    Prefix,
    Suffix,
    Substring,
}

#[derive(Clone, Copy, Debug)]
enum Case {
    /// As the document and attribute decide: unsure when case matters.
    AsScraperDecides,
    Insensitive,
    Sensitive,
}

/// The most ancestors a chain keeps (one bit each in the scanner's stack).
pub const MOST_ANCESTORS: usize = 32;

impl Chain {
    /// The chain, or `None` when the selector is outside this subset or its
    /// subject could be an element the parser makes without a tag (`html`,
    /// `head`, `body`), which the scanner never sees.
    pub fn parse(text: &str) -> Option<Chain> {
        let mut parser = Parser {
            text: text.as_bytes(),
            at: 0,
        };
        let mut compounds = Vec::new();
        parser.skip_whitespace();
        while !parser.done() {
            compounds.push(parser.compound()?);
            let before = parser.at;
            parser.skip_whitespace();
            if !parser.done() && parser.at == before {
                return None;
            }
        }
        let subject = compounds.pop()?;
        if compounds.len() > MOST_ANCESTORS {
            return None;
        }
        for implied in ["html", "head", "body"] {
            if subject.matches(implied.as_bytes(), &[]) != Truth::No {
                return None;
            }
        }
        let subject_may_be_root = subject
            .name
            .as_deref()
            .is_none_or(|name| name == "html" || name == "body");
        let mut names: Vec<Box<[u8]>> = Vec::new();
        let mut any_name = false;
        let mut tested = Vec::new();
        for compound in compounds.iter().chain([&subject]) {
            match &compound.name {
                Some(name) => names.push(name.as_bytes().into()),
                None => any_name = true,
            }
            compound.tested(&mut tested);
        }
        Some(Chain {
            ancestors: compounds,
            subject,
            subject_may_be_root,
            names,
            any_name,
            tested,
        })
    }
}

impl Chain {
    /// Whether an element with this tag name may match a compound: if not,
    /// its attributes need not be read.
    pub fn concerns(&self, name: &[u8]) -> bool {
        self.any_name
            || self
                .names
                .iter()
                .any(|wanted| name.eq_ignore_ascii_case(wanted))
    }
}

impl Chain {
    /// Whether a compound tests the attribute of this name: if not, its
    /// value decides nothing.
    pub fn tests(&self, attribute: &[u8]) -> bool {
        self.tested
            .iter()
            .any(|tested| attribute.eq_ignore_ascii_case(tested))
    }
}

impl Compound {
    /// The attributes this compound's conditions test, into `tested`.
    fn tested(&self, tested: &mut Vec<Box<[u8]>>) {
        for condition in &self.conditions {
            match condition {
                Condition::Id(_) => tested.push((*b"id").into()),
                Condition::Class(_) => tested.push((*b"class").into()),
                Condition::Attribute { name, .. } => tested.push(name.as_bytes().into()),
                Condition::Not(inner) => inner.tested(tested),
            }
        }
    }

    /// Whether an element with this tag name and these attributes matches.
    pub fn matches(&self, name: &[u8], attributes: &Attributes<'_>) -> Truth {
        if let Some(wanted) = &self.name {
            if !name.eq_ignore_ascii_case(wanted.as_bytes()) {
                return Truth::No;
            }
        }
        let mut truth = Truth::Yes;
        for condition in &self.conditions {
            truth = truth.and(condition.matches(name, attributes));
            if truth == Truth::No {
                break;
            }
        }
        truth
    }
}

impl Condition {
    fn matches(&self, name: &[u8], attributes: &Attributes<'_>) -> Truth {
        match self {
            Condition::Id(id) => test(
                attributes,
                "id",
                Operator::Equals,
                id,
                Case::AsScraperDecides,
            ),
            Condition::Class(class) => test(
                attributes,
                "class",
                Operator::Includes,
                class,
                Case::AsScraperDecides,
            ),
            Condition::Attribute { name, test: None } => match attribute(attributes, name) {
                Some(_) => Truth::Yes,
                None => Truth::No,
            },
            Condition::Attribute {
                name,
                test: Some((operator, wanted, case)),
            } => test(attributes, name, *operator, wanted, *case),
            Condition::Not(inner) => inner.matches(name, attributes).not(),
        }
    }
}

fn test(
    attributes: &Attributes<'_>,
    name: &str,
    operator: Operator,
    wanted: &str,
    case: Case,
) -> Truth {
    let Some(value) = attribute(attributes, name) else {
        return Truth::No;
    };
    if !is_verbatim(value) {
        return Truth::Unsure;
    }
    let wanted = wanted.as_bytes();
    let exact = operator.holds(value, wanted, <[u8]>::eq);
    let ignoring_case = operator.holds(value, wanted, <[u8]>::eq_ignore_ascii_case);
    match case {
        Case::Sensitive => truth(exact),
        Case::Insensitive => truth(ignoring_case),
        Case::AsScraperDecides => Truth::either_case(exact, ignoring_case),
    }
}

fn truth(holds: bool) -> Truth {
    if holds {
        Truth::Yes
    } else {
        Truth::No
    }
}

impl Operator {
    /// Selectors Level 4, § 6: an empty value never matches `~=`, `^=`,
    /// `$=` or `*=`, nor does one with whitespace match `~=`.
    fn holds(self, value: &[u8], wanted: &[u8], same: fn(&[u8], &[u8]) -> bool) -> bool {
        let starts = |v: &[u8], w: &[u8]| v.len() >= w.len() && same(&v[..w.len()], w);
        match self {
            Operator::Equals => same(value, wanted),
            Operator::Includes => {
                !wanted.is_empty()
                    && !wanted.iter().copied().any(is_whitespace)
                    && value
                        .split(|&b| is_whitespace(b))
                        .any(|word| same(word, wanted))
            }
            Operator::DashMatch => {
                same(value, wanted)
                    || (starts(value, wanted) && value.get(wanted.len()) == Some(&b'-'))
            }
            Operator::Prefix => !wanted.is_empty() && starts(value, wanted),
            Operator::Suffix => {
                !wanted.is_empty()
                    && value.len() >= wanted.len()
                    && same(&value[value.len() - wanted.len()..], wanted)
            }
            Operator::Substring => {
                !wanted.is_empty()
                    && value.len() >= wanted.len()
                    && value
                        .windows(wanted.len())
                        .any(|window| same(window, wanted))
            }
        }
    }
}

struct Parser<'t> {
    text: &'t [u8],
    at: usize,
}

impl Parser<'_> {
    fn done(&self) -> bool {
        self.at >= self.text.len()
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(is_whitespace) {
            self.at += 1;
        }
    }

    fn compound(&mut self) -> Option<Compound> {
        let mut compound = Compound::default();
        let universal = self.eat(b'*');
        if !universal && self.peek().is_some_and(starts_identifier) {
            compound.name = Some(self.identifier()?.to_ascii_lowercase());
        }
        let mut written = universal || compound.name.is_some();
        while let Some(condition) = self.condition()? {
            compound.conditions.push(condition);
            written = true;
        }
        written.then_some(compound)
    }

    /// `Ok(None)`-like: `Some(None)` when no condition starts here, `None`
    /// when one does but is outside the subset.
    fn condition(&mut self) -> Option<Option<Condition>> {
        let condition = match self.peek() {
            Some(b'#') => {
                self.at += 1;
                Condition::Id(self.identifier()?)
            }
            Some(b'.') => {
                self.at += 1;
                Condition::Class(self.identifier()?)
            }
            Some(b'[') => {
                self.at += 1;
                self.attribute()?
            }
            Some(b':') => {
                let rest = &self.text[self.at..];
                if !rest.starts_with(b":not(") {
                    return None;
                }
                self.at += 5;
                self.skip_whitespace();
                let inner = self.compound()?;
                if inner
                    .conditions
                    .iter()
                    .any(|c| matches!(c, Condition::Not(_)))
                {
                    return None;
                }
                self.skip_whitespace();
                if !self.eat(b')') {
                    return None;
                }
                Condition::Not(inner)
            }
            _ => return Some(None),
        };
        Some(Some(condition))
    }

    fn attribute(&mut self) -> Option<Condition> {
        self.skip_whitespace();
        let name = self.identifier()?.to_ascii_lowercase();
        self.skip_whitespace();
        if self.eat(b']') {
            return Some(Condition::Attribute { name, test: None });
        }
        let operator = match self.peek()? {
            b'=' => Operator::Equals,
            b'~' => Operator::Includes,
            b'|' => Operator::DashMatch,
            b'^' => Operator::Prefix,
            b'$' => Operator::Suffix,
            b'*' => Operator::Substring,
            _ => return None,
        };
        self.at += 1;
        if !matches!(operator, Operator::Equals) && !self.eat(b'=') {
            return None;
        }
        self.skip_whitespace();
        let value = match self.peek()? {
            quote @ (b'"' | b'\'') => {
                self.at += 1;
                let start = self.at;
                while self.peek()? != quote {
                    if matches!(self.peek()?, b'\\' | b'\n' | b'\r' | b'\x0C') {
                        return None;
                    }
                    self.at += 1;
                }
                let value = std::str::from_utf8(&self.text[start..self.at]).ok()?;
                self.at += 1;
                value.to_string()
            }
            _ => self.identifier()?,
        };
        let before_flag = self.at;
        self.skip_whitespace();
        let case = match self.peek()? {
            b'i' | b'I' if self.at > before_flag => Case::Insensitive,
            b's' | b'S' if self.at > before_flag => Case::Sensitive,
            b']' => Case::AsScraperDecides,
            _ => return None,
        };
        if !matches!(case, Case::AsScraperDecides) {
            self.at += 1;
            self.skip_whitespace();
        }
        if !self.eat(b']') {
            return None;
        }
        Some(Condition::Attribute {
            name,
            test: Some((operator, value, case)),
        })
    }

    /// A CSS identifier without escapes.
    fn identifier(&mut self) -> Option<String> {
        let start = self.at;
        if !self.peek().is_some_and(starts_identifier) {
            return None;
        }
        while self
            .peek()
            .is_some_and(|b| starts_identifier(b) || b.is_ascii_digit())
        {
            self.at += 1;
        }
        let name = std::str::from_utf8(&self.text[start..self.at]).ok()?;
        // `-1` or `--` would be numbers or custom properties to CSS.
        let second = name.as_bytes().get(1).copied();
        if name.starts_with('-') && !second.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
            return None;
        }
        Some(name.to_string())
    }
}

fn starts_identifier(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'-' || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(text: &str) -> Compound {
        Chain::parse(text).expect(text).subject
    }

    #[test]
    fn the_subset_parses_and_the_rest_does_not() {
        for inside in [
            "input[name=csrf]",
            r#"form#login input[name="csrf"]"#,
            "div.msg  span:not(.x)",
            "[ name = 'csrf' i ]",
            "a[href^='/x y']",
            "*[data-token]",
            "input:not([type=hidden])",
            "li.a.b#c[d|=e][f$=g][h*=i][j~=k]",
        ] {
            assert!(Chain::parse(inside).is_some(), "{inside}");
        }
        for outside in [
            "form > input",
            "a, b",
            "p:first-child",
            r"#a\:b",
            "a /* c */ b",
            "ns|a",
            "[ns|a]",
            ":not(:not(.a))",
            ":not(.a)",
            "*",
            "html",
            "[a=1b]",
            "#-1",
        ] {
            assert!(Chain::parse(outside).is_none(), "{outside}");
        }
    }

    #[test]
    fn values_match_as_selectors_do_or_are_unsure() {
        let attrs: &Attributes<'_> = &[
            (b"NAME", b"csrf"),
            (b"name", b"later"),
            (b"class", b"a  Big\tc"),
            (b"type", b"HIDDEN"),
            (b"lang", b"en-GB"),
            (b"value", b"a&amp;b"),
        ];
        let m = |s: &str| subject(s).matches(b"input", attrs);
        assert_eq!(m("input[name=csrf]"), Truth::Yes);
        assert_eq!(m("INPUT[name=later]"), Truth::No);
        assert_eq!(m(".Big"), Truth::Yes);
        assert_eq!(m(".big"), Truth::Unsure);
        assert_eq!(m(".d"), Truth::No);
        assert_eq!(m("[type=hidden]"), Truth::Unsure);
        assert_eq!(m("[type=hidden i]"), Truth::Yes);
        assert_eq!(m("[type=hidden s]"), Truth::No);
        assert_eq!(m("[lang|=en]"), Truth::Yes);
        assert_eq!(m("[lang|=e]"), Truth::No);
        assert_eq!(m("[lang^=en]"), Truth::Yes);
        assert_eq!(m("[lang$=GB]"), Truth::Yes);
        assert_eq!(m("[lang*='n-G']"), Truth::Yes);
        assert_eq!(m("[lang^='']"), Truth::No);
        assert_eq!(m("[value=x]"), Truth::Unsure);
        assert_eq!(m("input:not([type=text])"), Truth::Yes);
        assert_eq!(m("input:not(.big)"), Truth::Unsure);
        assert_eq!(m("form"), Truth::No);
    }
}
