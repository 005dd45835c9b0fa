//! The tag scanner's byte searches. Most of a page's distances are short
//! (a tag's name, an attribute's value, the text between two tags), and a
//! loop of a byte at a time spends more on the branch that leaves it than
//! on the bytes: these look at a block of bytes at once ([`Block`]) and
//! hand long distances to `memchr`.

use super::block::Block;
use memchr::memchr;

// What a byte is to the tokenizer, looked up rather than compared.
pub const WHITESPACE: u8 = 1;
pub const SLASH: u8 = 1 << 1;
pub const GREATER: u8 = 1 << 2;
pub const EQUALS: u8 = 1 << 3;
pub const NUL: u8 = 1 << 4;
/// What an attribute's name is made of, on the fast path.
const NAME: u8 = 1 << 5;

static BYTES: [u8; 256] = {
    let mut bytes = [0; 256];
    // A carriage return is a line feed once the input stream is normalized.
    bytes[b' ' as usize] = WHITESPACE;
    bytes[b'\t' as usize] = WHITESPACE;
    bytes[b'\n' as usize] = WHITESPACE;
    bytes[0x0C] = WHITESPACE;
    bytes[b'\r' as usize] = WHITESPACE;
    bytes[b'/' as usize] = SLASH;
    bytes[b'>' as usize] = GREATER;
    bytes[b'=' as usize] = EQUALS;
    bytes[0] = NUL;
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b':' | b'.') {
            bytes[b] = NAME;
        }
        b += 1;
    }
    bytes
};

pub fn is_whitespace(b: u8) -> bool {
    BYTES[usize::from(b)] & WHITESPACE != 0
}

/// The first byte from `from` of any of these kinds, or the page's end.
pub fn find(body: &[u8], from: usize, kinds: u8) -> usize {
    body[from..]
        .iter()
        .position(|&b| BYTES[usize::from(b)] & kinds != 0)
        .map_or(body.len(), |offset| from + offset)
}

pub fn skip_whitespace(body: &[u8], from: usize) -> usize {
    body.get(from..).map_or(from, |rest| {
        rest.iter()
            .position(|&b| BYTES[usize::from(b)] & WHITESPACE == 0)
            .map_or(body.len(), |offset| from + offset)
    })
}

/// A tag name's end: whitespace, `/`, `>` or NUL (so [`find`] with those
/// kinds), found by the bytes below `!` first: the other control bytes a
/// name may hold are rare enough to check one at a time.
#[inline(always)]
pub fn name_end(body: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(block) = Block::at(body, at) {
        let candidates = block.below(b'!') | block.equal(b'/') | block.equal(b'>');
        if candidates != 0 {
            let candidate = at + Block::first(candidates);
            if BYTES[usize::from(body[candidate])] & (WHITESPACE | SLASH | GREATER | NUL) != 0 {
                return candidate;
            }
            // A control byte that is part of the name.
            return find(body, candidate + 1, WHITESPACE | SLASH | GREATER | NUL);
        }
        at += Block::WIDTH;
    }
    find(body, at, WHITESPACE | SLASH | GREATER | NUL)
}

/// The first of `needles` from `from`.
#[inline(always)]
pub fn find_any<const N: usize>(body: &[u8], from: usize, needles: [u8; N]) -> Option<usize> {
    let mut at = from;
    while let Some(block) = Block::at(body, at) {
        let found = needles
            .iter()
            .fold(0, |found, &needle| found | block.equal(needle));
        if found != 0 {
            return Some(at + Block::first(found));
        }
        at += Block::WIDTH;
    }
    body[at..]
        .iter()
        .position(|b| needles.contains(b))
        .map(|offset| at + offset)
}

/// `byte`'s first place from `from`: the next sixteen bytes at once, then
/// `memchr`. Inlined: most calls find the byte in those sixteen, where a
/// call's own cost was most of the search's.
#[inline(always)]
pub fn find_byte(byte: u8, body: &[u8], from: usize) -> Option<usize> {
    const NEAR: usize = 16;
    let mut at = from;
    while at < from + NEAR {
        let Some(block) = Block::at(body, at) else {
            return body[at..]
                .iter()
                .position(|&b| b == byte)
                .map(|offset| at + offset);
        };
        let found = block.equal(byte);
        if found != 0 {
            return Some(at + Block::first(found));
        }
        at += Block::WIDTH;
    }
    memchr(byte, &body[at..]).map(|offset| at + offset)
}

/// `pair`'s first place from `from`: its first byte's, where the second
/// follows. `memmem` would build a searcher on each call, which costs more
/// than the search over a comment's or a title's few bytes.
#[inline]
pub fn find_pair(pair: [u8; 2], body: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let found = find_byte(pair[0], body, at)?;
        if body.get(found + 1) == Some(&pair[1]) {
            return Some(found);
        }
        at = found + 1;
    }
}

/// Whether a quote after `segment`, which follows a tag's name or a
/// quoted value, opens a value: `segment` is whitespace, an attribute's
/// name and `=`.
pub fn opens_value(segment: &[u8]) -> bool {
    let Some((b'=', rest)) = segment.split_last() else {
        return false;
    };
    let name_from = rest
        .iter()
        .position(|&b| !is_whitespace(b))
        .unwrap_or(rest.len());
    name_from > 0
        && name_from < rest.len()
        && rest[name_from..]
            .iter()
            .all(|&b| BYTES[usize::from(b)] & NAME != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_searches_find_what_a_byte_loop_finds() {
        let page = b"<a class=\"x\" href='/y'>text \x01< more\tnames/ and > and \0 and \"\" end";
        for from in 0..page.len() {
            let expect = |needles: &[u8]| {
                page[from..]
                    .iter()
                    .position(|b| needles.contains(b))
                    .map(|offset| from + offset)
            };
            assert_eq!(find_any(page, from, [b'>', b'"', b'\'']), expect(b">\"'"));
            assert_eq!(find_byte(b'<', page, from), expect(b"<"));
            assert_eq!(find_byte(b'"', page, from), expect(b"\""));
            assert_eq!(
                name_end(page, from),
                find(page, from, WHITESPACE | SLASH | GREATER | NUL)
            );
        }
        let long = [b"x".repeat(40), b"<".to_vec()].concat();
        assert_eq!(find_byte(b'<', &long, 3), Some(40));
        assert_eq!(find_byte(b'>', &long, 3), None);
    }
}
