//! The scan of a page like the last one: from the last state kept at a tag
//! that the page has as the last page had it, rejoining the last page's
//! scan at its match where it reaches a later kept state in the same state
//! ([`LastMatch`]), here or as far on as the page's bytes moved, and keeping
//! states along the page for the next.

use super::{Open, Scan, Scanned, Seen};
use crate::dom::compound::Chain;
use crate::dom::last_match::{moved, Checkpoint, Ended, LastMatch, Relocate, MOST_KEPT};

/// The scan from the page's start (`first_attribute`), with what the scan
/// of the last page kept ([`LastMatch`]): it starts at the last state kept
/// at a tag that `body` has as that page had it, goes on at that page's
/// match where it reaches a later state kept there in the same state and
/// the bytes from there are that page's, and keeps states along this page
/// for the next. The scanner's state at a tag's `<` depends on the bytes
/// before it alone, so the answer is the same either way.
pub fn first_attribute_after(
    chain: &Chain,
    body: &[u8],
    name: &str,
    last: &mut LastMatch<State>,
) -> Scanned {
    let (usable, recall) = last.recall(body);
    let mut scan = Scan::new(chain, body);
    let from = recall.start.map_or(0, |(at, state)| {
        scan.restore(state);
        *at
    });
    scan.next_checkpoint = from.saturating_add(recall.checkpoint_every);
    scan.recall = Some(recall);
    scan.set_due(from);
    let scanned = scan.outcome(from, name);
    let ended = match (scan.matched, scan.rejoined) {
        (Some((at, _)), Some(index)) if Some(at) == scan.recall_match() => {
            Ended::Rejoined { index }
        }
        (Some((at, seen)), None) => {
            let last_kept = scan
                .recall
                .as_ref()
                .and_then(|recall| recall.fresh.last().or(recall.start))
                .map(|(at, _)| *at);
            if last_kept != Some(at) {
                scan.keep(at, seen);
            }
            Ended::Matched { at }
        }
        _ => Ended::Elsewhere,
    };
    drop(scan);
    last.remember(body, usable, ended);
    scanned
}

/// The scanner's state at a tag's `<`, names kept as their places in the
/// page.
#[derive(Default)]
pub struct State {
    open: Vec<SavedOpen>,
    form: bool,
    formatting_open: usize,
    seen: Seen,
}

struct SavedOpen {
    name: std::ops::Range<usize>,
    classes: u32,
    sure: u32,
    maybe: u32,
}

impl<'a> Scan<'a, '_> {
    /// Keeps the state at the `<` at `at`, with `seen` as seen before it.
    pub(super) fn keep(&mut self, at: usize, seen: Seen) {
        if at >= MOST_KEPT {
            self.next_checkpoint = usize::MAX;
            return;
        }
        let Some(recall) = self.recall.take() else {
            return;
        };
        let mut state = recall.spare.pop().unwrap_or_default();
        self.save(seen, &mut state);
        recall.fresh.push((at, state));
        self.next_checkpoint = at.saturating_add(recall.checkpoint_every);
        self.recall = Some(recall);
    }

    /// Where this page has the last page's match, if it rejoins that
    /// page's scan.
    fn recall_match(&self) -> Option<usize> {
        let recall = self.recall.as_ref()?;
        moved(recall.ahead.last()?.0, recall.shift)
    }

    /// The next `<` from `open` on at which a state is kept or compared.
    fn set_due(&mut self, open: usize) {
        let Some(recall) = &self.recall else {
            return;
        };
        // Where this page would have the last page's kept tags.
        let here = |(at, _): &Checkpoint<State>| moved(*at, recall.shift);
        let ahead = &recall.ahead[self.rejoin.min(recall.ahead.len())..];
        self.rejoin += ahead.partition_point(|kept| here(kept).is_none_or(|at| at < open));
        let rejoin = recall
            .ahead
            .get(self.rejoin)
            .and_then(here)
            .unwrap_or(usize::MAX);
        self.due = self.next_checkpoint.min(rejoin);
    }

    /// At a `<` where a state is due: where the scan goes on instead, if it
    /// rejoins the last page's scan (at its match).
    pub(super) fn at_due(&mut self, open: usize) -> Option<usize> {
        self.set_due(open);
        if let Some(matched_at) = self.rejoin_at(open) {
            return Some(matched_at);
        }
        if open >= self.next_checkpoint {
            self.keep(open, self.seen);
        }
        self.set_due(open + 1);
        None
    }

    /// Rejoins the last page's scan at the `<` at `open` where this page
    /// has the next of its kept tags, in the same state, with the same
    /// bytes from there to its match: the scan goes on at the match, in the
    /// state kept there.
    fn rejoin_at(&mut self, open: usize) -> Option<usize> {
        let recall = self.recall.as_ref()?;
        let (page, ahead, shift) = (recall.page, recall.ahead, recall.shift);
        let (from, state) = ahead.get(self.rejoin)?;
        let (matched_at, matched) = ahead.last()?;
        let from = *from;
        if moved(from, shift) != Some(open) || open >= MOST_KEPT {
            return None;
        }
        // The elements open at the match that were open here too.
        let still_open = matched
            .open
            .iter()
            .take_while(|o| o.name.start < from)
            .count();
        let same_from_here = || {
            page.get(from..)
                .is_some_and(|rest| self.body[open..].starts_with(rest))
        };
        if still_open > self.open.len() || !self.is_in(state, page) || !same_from_here() {
            return None;
        }
        // This page's own state here is kept: the states kept after it
        // move to this page's places from it (`LastMatch::remember`).
        self.keep(open, self.seen);
        self.rejoined = Some(self.rejoin);
        self.restore_moved(matched, still_open, shift);
        self.next_checkpoint = usize::MAX;
        self.due = usize::MAX;
        moved(*matched_at, shift)
    }

    /// Whether the scan is in `state`, kept on `page` (names compared by
    /// their bytes: the pages may differ before here, and so may where the
    /// names are).
    fn is_in(&self, state: &State, page: &[u8]) -> bool {
        self.form == state.form
            && self.formatting_open == state.formatting_open
            && self.seen == state.seen
            && self.open.len() == state.open.len()
            && self.open.iter().zip(&state.open).all(|(open, saved)| {
                open.classes == saved.classes
                    && open.sure == saved.sure
                    && open.maybe == saved.maybe
                    && page.get(saved.name.clone()) == Some(open.name)
            })
    }

    /// The state before a tag, with `seen` as seen before it, into `state`.
    fn save(&self, seen: Seen, state: &mut State) {
        let page = self.body.as_ptr() as usize;
        state.open.clear();
        state.open.extend(self.open.iter().map(|o| {
            let from = o.name.as_ptr() as usize - page;
            SavedOpen {
                name: from..from + o.name.len(),
                classes: o.classes,
                sure: o.sure,
                maybe: o.maybe,
            }
        }));
        state.form = self.form;
        state.formatting_open = self.formatting_open;
        state.seen = seen;
    }

    /// The state kept at the last page's match, where this page has the
    /// same bytes as that page from the rejoined tag to the match, `shift`
    /// bytes later: its first `still_open` elements are this scan's own
    /// (open at the rejoined tag, and named where this page names them),
    /// the rest were opened after that tag.
    fn restore_moved(&mut self, state: &State, still_open: usize, shift: isize) {
        let body = self.body;
        self.open.truncate(still_open);
        self.open.extend(state.open[still_open..].iter().map(|o| {
            // After the rejoined tag, so `shift` moves it to its place here.
            let start = o.name.start.wrapping_add_signed(shift);
            Open {
                name: &body[start..start + o.name.len()],
                classes: o.classes,
                sure: o.sure,
                maybe: o.maybe,
            }
        }));
        self.form = state.form;
        self.formatting_open = state.formatting_open;
        self.seen = state.seen;
    }

    /// A saved state, on a page with the same bytes up to it.
    fn restore(&mut self, state: &State) {
        self.restore_moved(state, 0, 0);
    }
}

impl Relocate for State {
    fn relocate(&mut self, from: usize, shift: isize, there: &State) {
        for (i, open) in self.open.iter_mut().enumerate() {
            open.name = match there.open.get(i) {
                // Open at `from` too: where this page names it.
                Some(was_open) if open.name.start < from => was_open.name.clone(),
                _ => {
                    let start = open.name.start.wrapping_add_signed(shift);
                    start..start + open.name.len()
                }
            };
        }
    }

    fn same_places(&self, other: &State) -> bool {
        self.open.len() == other.open.len()
            && self
                .open
                .iter()
                .zip(&other.open)
                .all(|(a, b)| a.name == b.name)
    }
}
