//! The scan of a page like the last one: from the last state kept at a tag
//! that the page has as the last page had it, rejoining the last page's
//! scan at its match where it reaches a later kept state in the same state
//! ([`LastMatch`]), and keeping states along the page for the next.

use super::{Open, Scan, Scanned, Seen};
use crate::dom::compound::Chain;
use crate::dom::last_match::{Ended, LastMatch, MOST_KEPT};

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

    /// Where the last page's match is.
    fn recall_match(&self) -> Option<usize> {
        Some(self.recall.as_ref()?.ahead.last()?.0)
    }

    /// The next `<` from `open` on at which a state is kept or compared.
    fn set_due(&mut self, open: usize) {
        let Some(recall) = &self.recall else {
            return;
        };
        let ahead = &recall.ahead[self.rejoin.min(recall.ahead.len())..];
        self.rejoin += ahead.partition_point(|(at, _)| *at < open);
        let rejoin = recall
            .ahead
            .get(self.rejoin)
            .map_or(usize::MAX, |(at, _)| *at);
        self.due = self.next_checkpoint.min(rejoin);
    }

    /// At a `<` where a state is due: where the scan goes on instead, if it
    /// rejoins the last page's scan (at its match).
    pub(super) fn at_due(&mut self, open: usize) -> Option<usize> {
        self.set_due(open);
        let recall = self.recall.as_ref()?;
        if let Some((at, state)) = recall.ahead.get(self.rejoin) {
            let same_from_here = || {
                recall
                    .page
                    .get(open..)
                    .is_some_and(|rest| self.body[open..].starts_with(rest))
            };
            if *at == open && self.is_in(state, recall.page) && same_from_here() {
                let (matched_at, matched) = recall.ahead.last()?;
                let matched_at = *matched_at;
                self.rejoined = Some(self.rejoin);
                self.restore(matched);
                self.next_checkpoint = usize::MAX;
                self.due = usize::MAX;
                return Some(matched_at);
            }
        }
        if open >= self.next_checkpoint {
            self.keep(open, self.seen);
        }
        self.set_due(open + 1);
        None
    }

    /// Whether the scan is in `state`, kept on `page` (names compared by
    /// place and bytes: the pages may differ before here).
    fn is_in(&self, state: &State, page: &[u8]) -> bool {
        let body = self.body.as_ptr() as usize;
        self.form == state.form
            && self.formatting_open == state.formatting_open
            && self.seen == state.seen
            && self.open.len() == state.open.len()
            && self.open.iter().zip(&state.open).all(|(open, saved)| {
                let from = open.name.as_ptr() as usize - body;
                open.classes == saved.classes
                    && open.sure == saved.sure
                    && open.maybe == saved.maybe
                    && from == saved.name.start
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

    /// A saved state, on a page with the same bytes up to it.
    fn restore(&mut self, state: &State) {
        let body = self.body;
        self.open.clear();
        self.open.extend(state.open.iter().map(|o| Open {
            name: &body[o.name.clone()],
            classes: o.classes,
            sure: o.sure,
            maybe: o.maybe,
        }));
        self.form = state.form;
        self.formatting_open = state.formatting_open;
        self.seen = state.seen;
    }
}
