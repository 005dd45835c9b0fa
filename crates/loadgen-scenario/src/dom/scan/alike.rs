//! How far a page goes on as the last one did from a kept tag, where the
//! two may differ in what the scan never reads: text between tags once the
//! body has begun, quoted values no compound tests, and comments' text
//! (the last page's [`Region`]s, `dom/regions.rs`). A list made from other
//! data (other links, other names, other prices) in the same markup leaves
//! the scanner in the same state after each row, so the last page's states
//! still hold there, moved by as much as each row's length changed.
//!
//! The bytes are compared as they are. Where they part inside one of the
//! last page's regions (or at its end), each page's text runs on to its
//! own next `<`, each value to its own closing quote, and each comment to
//! its own first `-->` or `--!>` from its start: the tokenizer is in the
//! same state in both, and leaves it at the same byte. The two are
//! compared again from there. Anywhere else, the comparison ends.

use super::{comment_end, comment_text};
use crate::dom::bytes::find_byte;
use crate::dom::last_match::{moved, same_bytes, same_words};
use crate::dom::regions::{push_region, Region, MOST_REGIONS};

/// How far `page` (the last page up to its match) from `from` on goes on as
/// `body` does from `open` on, both at a kept tag's `<` in the same state,
/// give or take what differs inside `regions` (the last page's): the place
/// in `page` where they part otherwise, or its end, and how many regions
/// it went on past. Pushes to `moves` where `page`'s bytes are in `body`
/// from `from` on, and, if `fresh_regions` are kept, this page's regions
/// there, as far as it compared.
pub fn reach(
    page: &[u8],
    body: &[u8],
    (from, open): (usize, usize),
    regions: &[Region],
    moves: &mut Vec<(usize, isize)>,
    mut fresh_regions: Option<&mut Vec<Region>>,
) -> (usize, usize) {
    let mut shift = open as isize - from as isize;
    moves.push((from, shift));
    if regions.is_empty() {
        return (from + same_bytes(&page[from..], &body[open..]), 0);
    }
    let (mut at, mut here) = (from, open);
    let mut next = regions.partition_point(|&(region_from, _)| region_from < from);
    let mut crossed = 0;
    loop {
        let parted = at + shared(&page[at..], &body[here..]);
        // The regions passed are this page's too, moved.
        let mut passed = next;
        while regions.get(passed).is_some_and(|&(_, to)| to < parted) {
            passed += 1;
        }
        if let Some(fresh_regions) = fresh_regions.as_deref_mut() {
            keep_moved(fresh_regions, &regions[next..passed], shift);
        }
        next = passed;
        if parted >= page.len() {
            return (parted, crossed);
        }
        // Parted in a region, or at its end: each page's runs on to its
        // own `<` or closing quote.
        let Some(&(region_from, to)) = regions
            .get(next)
            .filter(|(region_from, _)| *region_from <= parted)
        else {
            return (parted, crossed);
        };
        let body_parted = here + (parted - at);
        let body_to = if page[to] == b'-' {
            // A comment's text, which ends at the first `-->` or `--!>`
            // from its start on, where this page's must not end at once.
            let text = here + (region_from - at);
            comment_text(body, text - 2)
                .and_then(|text| comment_end(body, text))
                .map(|(dashes, _)| dashes)
        } else {
            find_byte(page[to], body, body_parted)
        };
        let Some(body_to) = body_to else {
            return (parted, crossed);
        };
        if let (Some(fresh_regions), Some(region_from)) =
            (fresh_regions.as_deref_mut(), moved(region_from, shift))
        {
            push_region(fresh_regions, (region_from, body_to));
        }
        crossed += 1;
        next += 1;
        (at, here) = (to, body_to);
        let moved_by = here as isize - at as isize;
        if moved_by != shift {
            shift = moved_by;
            moves.push((at, shift));
        }
    }
}

/// Keeps `passed`, the last page's regions in bytes this page has `shift`
/// bytes later, as this page's.
fn keep_moved(fresh_regions: &mut Vec<Region>, passed: &[Region], shift: isize) {
    let room = MOST_REGIONS.saturating_sub(fresh_regions.len());
    let passed = &passed[..passed.len().min(room)];
    // Both ends are in bytes this page has, so in the page.
    fresh_regions.extend(passed.iter().map(|&(from, to)| {
        (
            from.wrapping_add_signed(shift),
            to.wrapping_add_signed(shift),
        )
    }));
}

/// How many leading bytes `a` and `b` share: sixteen at a time for the
/// first few words (where a list's rows differ, the next difference is
/// near, a row or two on), then [`same_bytes`].
fn shared(a: &[u8], b: &[u8]) -> usize {
    const NEAR: usize = 256;
    let near = a.len().min(b.len()).min(NEAR);
    match same_words(a, b, 0, near) {
        Ok(differs) => differs,
        Err(at) => at + same_bytes(&a[at..], &b[at..]),
    }
}
