//! The scan of a page like the last one: from the last state kept at a tag
//! that the page has as the last page had it, rejoining the last page's
//! scan at its match where it reaches a later kept state in the same state
//! ([`LastMatch`]), here or as far on as the page's bytes moved, and keeping
//! states along the page for the next.

use super::alike;
use super::{Open, Scan, Scanned, Seen};
use crate::dom::compound::Chain;
use crate::dom::last_match::{
    moved, shift_at, Checkpoint, Ended, LastMatch, Recall, Skip, MOST_KEPT,
};
use crate::dom::regions::drop_from;

/// How far from where the last page had it a kept tag is looked for after
/// a difference: most differences (a name, a date, a count) change a
/// page's length by less.
const SEEK_WITHIN: usize = 128;

/// Kept tags looked for in vain in a row before the scan stops looking: a
/// page new to the scanner pays for no more.
const MOST_MISSES: usize = 2;

/// How many bytes before and from a kept tag's `<` must be this page's at
/// a tag for its state to be compared there. Where the last page kept its
/// regions, the bytes before a tag may be other text: only those from the
/// `<` on are.
const KEY_BEFORE: usize = 8;
const KEY_FROM: usize = 8;

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
    scan.noting = recall.noting;
    scan.seek_from_tag = !recall.regions.is_empty();
    scan.seek = (!recall.ahead.is_empty()).then_some(0);
    scan.recall = Some(recall);
    let at = match scan.skip_from_start(from) {
        Some(resumed_at) => {
            scan.set_due(resumed_at + 1);
            resumed_at
        }
        None => {
            scan.set_due(from);
            from
        }
    };
    let scanned = scan.outcome(at, name);
    // How much of the page before the match this scan read itself.
    let end = scan.matched.map_or(body.len(), |(at, _)| at);
    let read = end.saturating_sub(from).saturating_sub(scan.jumped);
    let crossed = scan.recall.as_ref().map_or(0, |recall| recall.crossed);
    let ended = match (scan.matched, scan.rejoined) {
        (Some((at, _)), Some(index)) if Some(at) == scan.recall_match() => {
            Ended::Rejoined { index }
        }
        (Some((at, seen)), None) => {
            let last_kept = scan.recall.as_ref().and_then(|recall| recall.last_kept());
            if last_kept != Some(at) {
                scan.keep(at, seen);
            }
            Ended::Matched { at }
        }
        _ => Ended::Elsewhere,
    };
    #[cfg(test)]
    let skips = scan.skips;
    drop(scan);
    #[cfg(test)]
    {
        last.skipped += skips;
    }
    last.remember(body, usable, ended, (read, crossed));
    scanned
}

/// The scanner's state at a tag's `<`. It names no place in the page, so
/// a page whose bytes moved has it as it is: only where it is kept moves.
#[derive(Default)]
pub struct State {
    open: Vec<SavedOpen>,
    /// The open elements' names, one after another.
    names: Vec<u8>,
    /// The fewest elements open at any point since the state kept before
    /// this one on its page (or the page's start): those below it were
    /// open all the way from there to here.
    low: usize,
    form: bool,
    formatting_open: usize,
    seen: Seen,
}

struct SavedOpen {
    /// In [`State::names`].
    name: std::ops::Range<usize>,
    classes: u32,
    sure: u32,
    maybe: u32,
}

/// How many of `open` elements, open at a state kept, are open still at
/// the last of `states`, those kept after it in turn along the same page.
fn open_through(open: usize, states: &[Checkpoint<State>]) -> usize {
    states
        .iter()
        .map(|(_, state)| state.low)
        .fold(open, usize::min)
}

impl<'a> Scan<'a, '_> {
    /// Keeps the state at the `<` at `at`, with `seen` as seen before it.
    pub(super) fn keep(&mut self, at: usize, seen: Seen) {
        if at >= MOST_KEPT {
            self.next_checkpoint = usize::MAX;
            return;
        }
        let Some(mut recall) = self.recall.take() else {
            return;
        };
        self.keep_in(&mut recall, at, seen);
        self.recall = Some(recall);
    }

    /// [`Scan::keep`], at a place short of [`MOST_KEPT`], with the recall
    /// taken out of the scan.
    fn keep_in(&mut self, recall: &mut Recall<'_, State>, at: usize, seen: Seen) {
        // A scan that starts at a kept state and rejoins or skips at once
        // has it kept already.
        if recall.last_kept() != Some(at) {
            let mut state = recall.spare.pop().unwrap_or_default();
            self.save(seen, &mut state);
            recall.fresh.push((at, state));
        }
        self.low = self.open.len();
        self.next_checkpoint = at.saturating_add(recall.checkpoint_every);
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
        // Where this page would have the last page's kept tags. The scan
        // passes them one or two at a time: a step each, not a search.
        let here = |(at, _): &Checkpoint<State>| moved(*at, recall.shift);
        let mut rejoin = usize::MAX;
        while let Some(kept) = recall.ahead.get(self.rejoin) {
            match here(kept) {
                Some(at) if at >= open => {
                    rejoin = at;
                    break;
                }
                _ => self.rejoin += 1,
            }
        }
        self.due_other = self.next_checkpoint.min(rejoin);
        self.due = match self.seek {
            Some(_) => self.due_other.min(self.seek_due(open)),
            None => self.due_other,
        };
    }

    /// The next `<` from `open` on at which the kept tag sought may be:
    /// within [`SEEK_WITHIN`] of where the last page had it, moved by as
    /// much as the bytes the scan last skipped had moved. One passed by is
    /// a miss, and the next kept tag is sought.
    fn seek_due(&mut self, open: usize) -> usize {
        let Some(recall) = &self.recall else {
            return usize::MAX;
        };
        while let Some(target) = self.seek {
            let Some(&(at, _)) = recall.ahead.get(target) else {
                break;
            };
            let Some(near) = moved(at, self.seek_shift) else {
                break;
            };
            if open <= near.saturating_add(SEEK_WITHIN) {
                self.seek_to = near.saturating_add(SEEK_WITHIN);
                self.seek_key = key(recall.page, at, self.seek_from_tag);
                // Where the pages differ, not before.
                return open.max(near.saturating_sub(SEEK_WITHIN)).max(recall.same);
            }
            self.misses += 1;
            if self.misses >= MOST_MISSES {
                break;
            }
            self.seek = Some(target + 1);
        }
        self.seek = None;
        self.seek_to = 0;
        usize::MAX
    }

    /// At a `<` where a state is due: where the scan goes on instead, if it
    /// rejoins the last page's scan (at its match).
    pub(super) fn at_due(&mut self, open: usize) -> Option<usize> {
        if open < self.due_other && open <= self.seek_to {
            // Only the kept tag sought may be here: most tags are told
            // from it by the eight bytes before them.
            if let Some(resumed_at) = self.seek_at(open) {
                return Some(resumed_at);
            }
            self.due = (open + 1).min(self.due_other);
            return None;
        }
        self.set_due(open);
        if let Some(matched_at) = self.rejoin_at(open) {
            return Some(matched_at);
        }
        if open <= self.seek_to {
            if let Some(resumed_at) = self.seek_at(open) {
                return Some(resumed_at);
            }
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
        let same_from_here = || {
            page.get(from..)
                .is_some_and(|rest| self.body[open..].starts_with(rest))
        };
        if !self.is_in(state) || !same_from_here() {
            return None;
        }
        // The elements open at the match that were open here too: in the
        // same state, no more than the scan has open.
        let still_open = open_through(state.open.len(), &ahead[self.rejoin + 1..]);
        // This page's own state here is kept: the states kept after it
        // follow it, where this page has them (`LastMatch::remember`).
        self.keep(open, self.seen);
        self.rejoined = Some(self.rejoin);
        self.restore_from(matched, still_open);
        self.next_checkpoint = usize::MAX;
        self.due = usize::MAX;
        let matched_at = moved(*matched_at, shift)?;
        self.jumped += matched_at - open;
        Some(matched_at)
    }

    /// Where the scan goes on if the `<` at `open` is the kept tag sought.
    #[inline(always)]
    fn seek_at(&mut self, open: usize) -> Option<usize> {
        if self.seek_key.is_none() || key(self.body, open, self.seek_from_tag) != self.seek_key {
            return None;
        }
        let resumed_at = self.skip_at(open)?;
        self.set_due(resumed_at + 1);
        Some(resumed_at)
    }

    /// Where this page has the kept tag sought at the `<` at `open`, in
    /// the same state, the scan skips the bytes that follow it as they
    /// followed it on the last page, or differ from them only in text and
    /// in attribute values the scan does not read (`alike.rs`): it goes on
    /// at the last state kept within them, and keeps the states between,
    /// each where this page has its tag. Then the next kept tag is
    /// sought, as far on as the last of these moved. A page that differs
    /// from the last in more than one place (a name above a form and a date
    /// in its head), or in every row of a list made from other data, is
    /// read only where it differs otherwise, give or take the distance
    /// between kept states.
    fn skip_at(&mut self, open: usize) -> Option<usize> {
        let recall = self.recall.as_ref()?;
        let (page, ahead) = (recall.page, recall.ahead);
        let target = self.seek?;
        let (from, state) = ahead.get(target)?;
        let from = *from;
        // `seek_at` compared the bytes before the `<`; these are from it on.
        let wanted = &page[from..(from + KEY_FROM).min(page.len())];
        // Where the key was those bytes, `seek_at` compared them already.
        let compared = self.seek_from_tag || self.body[open..].starts_with(wanted);
        if !compared || !self.is_in(state) {
            return None;
        }
        self.skip_with_recall(open, Some(target))
    }

    /// Where the scan goes on if the page, which differs from the last one
    /// first after `from`, the kept tag the scan starts at, goes on as the
    /// last page did from there but for what differs inside its regions
    /// (a list's first row of other data): as [`Scan::skip_at`] from a
    /// kept tag found after the difference, without reading up to one.
    fn skip_from_start(&mut self, from: usize) -> Option<usize> {
        let recall = self.recall.as_ref()?;
        if recall.start.is_none() || recall.regions.is_empty() || recall.ahead.is_empty() {
            return None;
        }
        self.skip_with_recall(from, None)
    }

    /// [`Scan::skip_from`] with the recall taken out of the scan.
    fn skip_with_recall(&mut self, open: usize, target: Option<usize>) -> Option<usize> {
        let mut recall = self.recall.take()?;
        let skipped = self.skip_from(&mut recall, open, target);
        self.recall = Some(recall);
        let resume_at = skipped?;
        #[cfg(test)]
        {
            self.skips += 1;
        }
        self.misses = 0;
        Some(resume_at)
    }

    /// [`Scan::skip_at`] once the kept tag sought, `ahead[target]`, is found
    /// at `open`, in the same state, with the recall taken out of the
    /// scan; or, with no `target`, from the kept tag the scan starts at.
    fn skip_from(
        &mut self,
        recall: &mut Recall<'a, State>,
        open: usize,
        target: Option<usize>,
    ) -> Option<usize> {
        let (page, ahead) = (recall.page, recall.ahead);
        let ((from, kept), first) = match target {
            Some(target) => (&ahead[target], target + 1),
            None => (recall.start?, 0),
        };
        // The kept tags in the bytes this page has from here as the last
        // page had them from `from`, give or take what the scan does not
        // read; the last of them is where to go on.
        let moves_from = recall.moves.len();
        let regions_from = recall.fresh_regions.len();
        let noting = recall.noting;
        let (reach, crossed) = alike::reach(
            page,
            self.body,
            (*from, open),
            recall.regions,
            recall.moves,
            noting.then_some(&mut *recall.fresh_regions),
        );
        let moves = &recall.moves[moves_from..];
        // Not one at `reach`: there this page has another byte than the
        // last page's `<`, and a state kept anywhere but at a tag could
        // move onto the next one's place.
        let skipped = ahead[first..].partition_point(|(at, _)| *at < reach);
        let resume_at = skipped.checked_sub(1).and_then(|last| {
            let (resume_from, _) = &ahead[first + last];
            moved(*resume_from, shift_at(moves, *resume_from)).filter(|&at| at < MOST_KEPT)
        });
        let Some(resume_at) = resume_at else {
            recall.moves.truncate(moves_from);
            recall.fresh_regions.truncate(regions_from);
            return None;
        };
        let last = first + skipped - 1;
        let still_open = open_through(kept.open.len(), &ahead[first..=last]);
        // From where it goes on, the scan keeps its own: those noted after
        // it here are the few within the distance between kept states.
        drop_from(recall.fresh_regions, resume_at);
        recall.crossed += crossed;
        self.jumped += resume_at - open;
        // This page's own state here; the last page's states up to where
        // the scan goes on are kept after it, where this page has them
        // (`LastMatch::remember`).
        self.keep_in(recall, open, self.seen);
        self.restore_from(&ahead[last].1, still_open);
        let moves = &recall.moves[moves_from..];
        self.seek_shift = moves.last().map_or(0, |&(_, shift)| shift);
        recall.skips.push(Skip {
            kept: recall.fresh.len(),
            states: first..last + 1,
            moves: moves_from..recall.moves.len(),
        });
        self.next_checkpoint = resume_at.saturating_add(recall.checkpoint_every);
        self.seek = Some(last + 1);
        // The states skipped over are this page's now: none is rejoined.
        self.rejoin = self.rejoin.max(last + 1);
        Some(resume_at)
    }

    /// Whether the scan is in `state` (names compared by their bytes: the
    /// pages may differ before here, and so may where the names are).
    fn is_in(&self, state: &State) -> bool {
        self.form == state.form
            && self.formatting_open == state.formatting_open
            && self.seen == state.seen
            && self.open.len() == state.open.len()
            && self.open.iter().zip(&state.open).all(|(open, saved)| {
                open.classes == saved.classes
                    && open.sure == saved.sure
                    && open.maybe == saved.maybe
                    && state.names.get(saved.name.clone()) == Some(open.name)
            })
    }

    /// The state before a tag, with `seen` as seen before it, into `state`.
    fn save(&self, seen: Seen, state: &mut State) {
        state.open.clear();
        state.names.clear();
        for open in &self.open {
            let from = state.names.len();
            state.names.extend_from_slice(open.name);
            state.open.push(SavedOpen {
                name: from..state.names.len(),
                classes: open.classes,
                sure: open.sure,
                maybe: open.maybe,
            });
        }
        state.low = self.low;
        state.form = self.form;
        state.formatting_open = self.formatting_open;
        state.seen = seen;
    }

    /// A state kept on the last page, where this page has that page's
    /// bytes (or tags) up to it from a tag on: its first `still_open`
    /// elements are this scan's own (open at that tag), the rest were
    /// opened after it.
    fn restore_from(&mut self, state: &'a State, still_open: usize) {
        self.open.truncate(still_open);
        self.open
            .extend(state.open[still_open..].iter().map(|saved| Open {
                name: &state.names[saved.name.clone()],
                classes: saved.classes,
                sure: saved.sure,
                maybe: saved.maybe,
            }));
        self.low = self.open.len();
        self.form = state.form;
        self.formatting_open = state.formatting_open;
        self.seen = state.seen;
    }

    /// A saved state, on a page with the same bytes up to it.
    fn restore(&mut self, state: &'a State) {
        self.restore_from(state, 0);
    }
}

/// The eight bytes before `at` (or from it, `from_tag`), if there are
/// eight.
#[inline(always)]
fn key(bytes: &[u8], at: usize, from_tag: bool) -> Option<u64> {
    let from = if from_tag {
        at
    } else {
        at.checked_sub(KEY_BEFORE)?
    };
    let key = bytes.get(from..from + size_of::<u64>())?;
    Some(u64::from_le_bytes(key.try_into().ok()?))
}
