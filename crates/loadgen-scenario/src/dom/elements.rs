//! What HTML's tree construction does with an element's start tag, as far
//! as the tag scanner needs to know (HTML § 13.2.6.4.7, "in body"), looked
//! up once per tag in a table built at compile time: a `match` over a
//! hundred names cost more than the rest of the tag.

/// No end tag: never on the stack of open elements.
pub const VOID: u32 = 1;
/// Text up to its own end tag: `<style>`, `<title>`, `<textarea>`...
pub const RAW_TEXT: u32 = 1 << 1;
/// Like raw text, but `<!--` inside may hide the end tag.
pub const SCRIPT: u32 = 1 << 2;
/// Tree construction may move, drop, rename or reparent what follows
/// (tables, `select`, `template`, foreign content, framesets...): the
/// scanner hands over.
pub const HAND_OVER: u32 = 1 << 3;
/// Closes a `<p>` in button scope.
pub const CLOSES_P: u32 = 1 << 4;
/// HTML's "special" category (as html5ever, which `scraper` parses with,
/// lists it), where `<li>`, `<dd>` and `<dt>` stop looking for one to close.
pub const SPECIAL: u32 = 1 << 5;
pub const HEADING: u32 = 1 << 6;
/// `<html>`, `<head>`, `<body>`: made by the parser whether written or not.
pub const DOCUMENT: u32 = 1 << 7;
/// Allowed in `<head>`: they do not start the body.
pub const HEAD_CONTENT: u32 = 1 << 8;
/// Formatting elements: a misnested end tag of theirs runs the adoption
/// agency algorithm, which moves elements parsed before it.
pub const FORMATTING: u32 = 1 << 9;

// Single elements the rules name.
pub const P: u32 = 1 << 10;
pub const BR: u32 = 1 << 11;
pub const BUTTON: u32 = 1 << 12;
pub const LI: u32 = 1 << 13;
/// `<dd>` or `<dt>`, which close each other.
pub const DD_DT: u32 = 1 << 14;
pub const A: u32 = 1 << 15;
pub const NOBR: u32 = 1 << 16;
pub const FORM: u32 = 1 << 17;
pub const HTML: u32 = 1 << 18;
pub const HEAD: u32 = 1 << 19;
pub const BODY: u32 = 1 << 20;
/// `address`, `div`, `p`: special, but `<li>` looks past them.
pub const LOOKED_PAST: u32 = 1 << 21;

const BLOCK: u32 = CLOSES_P | SPECIAL;

const ELEMENTS: &[(&[u8], u32)] = &[
    (b"area", VOID | SPECIAL),
    (b"br", VOID | SPECIAL | BR),
    (b"embed", VOID | SPECIAL),
    (b"img", VOID | SPECIAL),
    (b"wbr", VOID | SPECIAL),
    (b"input", VOID | SPECIAL),
    (b"param", VOID | SPECIAL),
    (b"source", VOID | SPECIAL),
    (b"track", VOID | SPECIAL),
    (b"keygen", VOID),
    (b"base", VOID | SPECIAL | HEAD_CONTENT),
    (b"basefont", VOID | SPECIAL | HEAD_CONTENT),
    (b"bgsound", VOID | SPECIAL | HEAD_CONTENT),
    (b"link", VOID | SPECIAL | HEAD_CONTENT),
    (b"meta", VOID | SPECIAL | HEAD_CONTENT),
    (b"hr", VOID | BLOCK),
    (b"title", RAW_TEXT | SPECIAL | HEAD_CONTENT),
    (b"style", RAW_TEXT | SPECIAL | HEAD_CONTENT),
    (b"noscript", RAW_TEXT | SPECIAL | HEAD_CONTENT),
    (b"noframes", RAW_TEXT | SPECIAL | HEAD_CONTENT),
    (b"textarea", RAW_TEXT | SPECIAL),
    (b"iframe", RAW_TEXT | SPECIAL),
    (b"noembed", RAW_TEXT | SPECIAL),
    (b"xmp", RAW_TEXT | BLOCK),
    (b"script", SCRIPT | SPECIAL | HEAD_CONTENT),
    (b"html", DOCUMENT | SPECIAL | HTML),
    (b"head", DOCUMENT | SPECIAL | HEAD),
    (b"body", DOCUMENT | SPECIAL | BODY),
    (b"address", BLOCK | LOOKED_PAST),
    (b"div", BLOCK | LOOKED_PAST),
    (b"p", BLOCK | LOOKED_PAST | P),
    (b"article", BLOCK),
    (b"aside", BLOCK),
    (b"center", BLOCK),
    (b"details", BLOCK),
    (b"dir", BLOCK),
    (b"dl", BLOCK),
    (b"fieldset", BLOCK),
    (b"figure", BLOCK),
    (b"footer", BLOCK),
    (b"header", BLOCK),
    (b"hgroup", BLOCK),
    (b"main", BLOCK),
    (b"menu", BLOCK),
    (b"nav", BLOCK),
    (b"ol", BLOCK),
    (b"section", BLOCK),
    (b"summary", BLOCK),
    (b"ul", BLOCK),
    (b"pre", BLOCK),
    (b"listing", BLOCK),
    (b"form", BLOCK | FORM),
    // Newer than HTML's list of special elements, and not in html5ever's.
    (b"dialog", CLOSES_P),
    (b"search", CLOSES_P),
    (b"h1", BLOCK | HEADING),
    (b"h2", BLOCK | HEADING),
    (b"h3", BLOCK | HEADING),
    (b"h4", BLOCK | HEADING),
    (b"h5", BLOCK | HEADING),
    (b"h6", BLOCK | HEADING),
    (b"li", BLOCK | LI),
    (b"dd", BLOCK | DD_DT),
    (b"dt", BLOCK | DD_DT),
    (b"a", FORMATTING | A),
    (b"nobr", FORMATTING | NOBR),
    (b"b", FORMATTING),
    (b"big", FORMATTING),
    (b"code", FORMATTING),
    (b"em", FORMATTING),
    (b"font", FORMATTING),
    (b"i", FORMATTING),
    (b"s", FORMATTING),
    (b"small", FORMATTING),
    (b"strike", FORMATTING),
    (b"strong", FORMATTING),
    (b"tt", FORMATTING),
    (b"u", FORMATTING),
    (b"button", SPECIAL | BUTTON),
    (b"table", HAND_OVER),
    (b"caption", HAND_OVER),
    (b"colgroup", HAND_OVER),
    (b"col", HAND_OVER),
    (b"tbody", HAND_OVER),
    (b"thead", HAND_OVER),
    (b"tfoot", HAND_OVER),
    (b"tr", HAND_OVER),
    (b"td", HAND_OVER),
    (b"th", HAND_OVER),
    (b"select", HAND_OVER),
    (b"option", HAND_OVER),
    (b"optgroup", HAND_OVER),
    (b"template", HAND_OVER),
    (b"svg", HAND_OVER),
    (b"math", HAND_OVER),
    (b"frameset", HAND_OVER),
    (b"frame", HAND_OVER),
    (b"image", HAND_OVER),
    (b"isindex", HAND_OVER),
    (b"applet", HAND_OVER),
    (b"marquee", HAND_OVER),
    (b"object", HAND_OVER),
    (b"menuitem", HAND_OVER),
    (b"rb", HAND_OVER),
    (b"rp", HAND_OVER),
    (b"rt", HAND_OVER),
    (b"rtc", HAND_OVER),
];

/// Names of more than eight bytes, which do not fit a table key.
const LONG: &[(&[u8], u32)] = &[
    (b"blockquote", BLOCK),
    (b"figcaption", BLOCK),
    (b"plaintext", HAND_OVER),
];

/// A tag name's classes, whatever its ASCII case.
pub fn classes(name: &[u8]) -> u32 {
    if name.len() > 8 {
        return LONG
            .iter()
            .find(|(long, _)| name.eq_ignore_ascii_case(long))
            .map_or(0, |&(_, classes)| classes);
    }
    let mut key = 0u64;
    for (i, byte) in name.iter().enumerate() {
        key |= u64::from(byte.to_ascii_lowercase()) << (8 * i);
    }
    let mut slot = slot(key);
    loop {
        let (at, classes) = TABLE[slot];
        if at == key {
            return classes;
        }
        if at == 0 {
            return 0;
        }
        slot = (slot + 1) % SLOTS;
    }
}

const SLOTS: usize = 512;

/// Open addressing, keyed by the name's bytes; 0 is no name.
static TABLE: [(u64, u32); SLOTS] = table();

const fn slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - 9)) as usize
}

const fn table() -> [(u64, u32); SLOTS] {
    let mut table = [(0u64, 0u32); SLOTS];
    let mut i = 0;
    while i < ELEMENTS.len() {
        let (name, classes) = ELEMENTS[i];
        assert!(name.len() <= 8);
        let mut key = 0u64;
        let mut at = 0;
        while at < name.len() {
            key |= (name[at] as u64) << (8 * at);
            at += 1;
        }
        let mut slot = slot(key);
        while table[slot].0 != 0 {
            slot = (slot + 1) % SLOTS;
        }
        table[slot] = (key, classes);
        i += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_finds_its_classes_in_any_case() {
        for &(name, expected) in ELEMENTS.iter().chain(LONG) {
            assert_eq!(classes(name), expected, "{}", String::from_utf8_lossy(name));
            let upper = name.to_ascii_uppercase();
            assert_eq!(classes(&upper), expected);
        }
        for other in [
            &b"span"[..],
            b"label",
            b"x-widget",
            b"section1",
            b"blockquotes",
            b"\xc3\xa9",
        ] {
            assert_eq!(classes(other), 0);
        }
    }
}
