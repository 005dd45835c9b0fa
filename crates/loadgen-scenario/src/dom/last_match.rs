//! The last page's match, per selector and thread. A scenario takes its
//! token from the same page again and again, and the pages differ in a few
//! places (the token, a nonce). The scanner's state at a tag's `<` depends
//! on the bytes before it alone, so the scan keeps its state at a tag every
//! so often and at the match, and a new page is scanned:
//!
//! - from the last kept tag that it has as the last page had it, in the
//!   state the scan had there;
//! - up to the next kept tag after the bytes where it differs, if the scan
//!   reaches it in the same state and the bytes from there to the match are
//!   the last page's: the scan goes on at the match. Those bytes may have
//!   moved, by as much as the page's length changed (a user's name of
//!   another length above a form): if the last page's bytes just before
//!   its match are that far on, the kept tags are looked for as far on;
//! - else, up to a kept tag found within 128 bytes of where the last page
//!   had it, in the same state: the bytes that follow it as they followed
//!   it on the last page are skipped ([`Skip`]), to the last state kept
//!   within them, and the next kept tag is looked for as far on as these
//!   moved. A page that differs in several places is read near them alone.
//!   The bytes compared may differ inside the last page's [`Region`]s (text
//!   between tags, values no compound tests, comments), which a page keeps
//!   where its own scan read most of it or went past many of them: a list
//!   made from other data is skipped row after row ([`Moves`],
//!   `scan/alike.rs`). Where a page first differs inside a region, the
//!   skip starts at the kept tag the scan starts from, and the scan reads
//!   nothing up to it.
//!
//! The last page is the last one kept. A page that its scan read little of
//! (less than a quarter of its bytes before the match) differs from the
//! kept one in a few places, where the next page will likely differ too:
//! it leaves the kept page in place, which serves the next as well and
//! costs nothing to keep, where keeping the new one would move its states,
//! regions and bytes. One kept page serves at most [`KEEP_FOR`] pages, so a
//! difference that stays (a name changed once) is compared for no longer.
//!
//! Comparing bytes costs about a `memcmp`; reading the tags, a few times a
//! regular expression's search (docs/performance.md, "The `dom` extractor").
//! The HTTP/1.1 parser keeps the last response head for the same reason
//! (`loadgen-core`'s `protocols/http1/parser/head_memo.rs`); a head is
//! recalled whole, a page from where it parts from the last one.

use super::regions::{push_region, Region, Regions};

/// Beyond this, no state is kept: the page's bytes before a match are kept
/// to compare, and this bounds them and the states.
pub const MOST_KEPT: usize = 128 * 1024;

/// How far apart the states kept along a page are, at least: after a
/// difference, the scan reads about this far before it can go on at the
/// match.
const CHECKPOINT_EVERY: usize = 128;

/// States whose room is kept for the next ones.
const MOST_SPARE: usize = 64;

/// How many pages in a row one kept page serves, at most, before the next
/// takes its place.
const KEEP_FOR: usize = 16;

/// A page whose scan read this share of its bytes before the match, or
/// more, takes the kept page's place at once: it was read much as if new.
const READ_TO_REPLACE: usize = 4;

/// How many of the last page's bytes before its match (and its `<`) are
/// compared, in a page that differs before its match, to tell whether the
/// rest moved.
const TAIL: usize = 48;
/// Fewer bytes than this say too little about where they are.
const SHORTEST_TAIL: usize = 16;

/// Where stretches of the last page are in a page like it: from each
/// `(at, shift)` on, up to the next, the last page's bytes (or, where the
/// two differ in what the scan does not read, its tags) are `shift` bytes
/// later in the page. In the order of `at`.
pub type Moves = [(usize, isize)];

/// How far the last page's `at` moved, by `moves` (0 for none).
pub fn shift_at(moves: &Moves, at: usize) -> isize {
    if let [(_, shift)] = moves {
        // Most stretches skipped moved by one shift.
        return *shift;
    }
    let after = moves.partition_point(|&(from, _)| from <= at);
    moves
        .get(after.saturating_sub(1))
        .map_or(0, |&(_, shift)| shift)
}

/// A scan's state at the `<` of the tag at a place in the page.
/// Boxed: lists of states are spliced and moved a page at a time, and
/// a pointer moves for less than a state.
pub type Checkpoint<S> = (usize, Box<S>);

/// Bytes a scan skipped as the last page had them: the states the last
/// page kept there are this page's too, moved.
pub struct Skip {
    /// How many states the scan had kept, the last at the tag it skipped
    /// from (none where it skipped from the kept tag it started at).
    pub kept: usize,
    /// The states skipped (in [`Recall::ahead`]).
    pub states: std::ops::Range<usize>,
    /// How far the bytes from the tag skipped from moved (in
    /// [`Recall::moves`]).
    pub moves: std::ops::Range<usize>,
}

/// What the scan of the last page kept, its states of type `S`.
pub struct LastMatch<S> {
    /// The last page up to and with its match's `<`; empty for none.
    page: Vec<u8>,
    /// The whole last page's length.
    page_len: usize,
    /// States along it, in its order; the last at the match.
    states: Vec<Checkpoint<S>>,
    /// States the scan of the current page keeps, and the last page's it
    /// skipped over.
    fresh: Vec<Checkpoint<S>>,
    skips: Vec<Skip>,
    moves: Vec<(usize, isize)>,
    /// The last page's regions, and the current page's.
    regions: Regions,
    /// The last page's states after where the current page differs, while
    /// they are put in place.
    ahead: Vec<Checkpoint<S>>,
    /// States no longer kept, whose room the next ones reuse.
    spare: Vec<Box<S>>,
    pub checkpoint_every: usize,
    /// How many pages in a row the kept page serves, at most
    /// ([`KEEP_FOR`]); 1 keeps every page.
    pub keep_for: usize,
    /// How many pages the kept page has served since it was kept.
    served: usize,
    /// How many leading bytes the page being scanned shares with `page`.
    same: usize,
    /// How far its bytes before the last page's match moved.
    shift: isize,
    /// Pages that rejoined the last page's scan after its bytes moved.
    #[cfg(test)]
    pub moved_rejoins: usize,
    /// Stretches of pages skipped as the last page had them.
    #[cfg(test)]
    pub skipped: usize,
    /// Regions gone on past, where pages differed in them.
    #[cfg(test)]
    pub crossed: usize,
}

/// `at` moved by `shift`, if that is in a page.
pub fn moved(at: usize, shift: isize) -> Option<usize> {
    at.checked_add_signed(shift)
}

impl<S> Default for LastMatch<S> {
    fn default() -> Self {
        LastMatch {
            page: Vec::new(),
            page_len: 0,
            states: Vec::new(),
            fresh: Vec::new(),
            skips: Vec::new(),
            moves: Vec::new(),
            regions: Regions::default(),
            ahead: Vec::new(),
            spare: Vec::new(),
            checkpoint_every: CHECKPOINT_EVERY,
            keep_for: KEEP_FOR,
            served: 0,
            same: 0,
            shift: 0,
            #[cfg(test)]
            moved_rejoins: 0,
            #[cfg(test)]
            skipped: 0,
            #[cfg(test)]
            crossed: 0,
        }
    }
}

/// What a scan of a new page takes from the last one.
pub struct Recall<'m, S> {
    /// Where to start, and the state there.
    pub start: Option<&'m Checkpoint<S>>,
    /// The last page up to its match.
    pub page: &'m [u8],
    /// How many leading bytes the new page shares with it.
    pub same: usize,
    /// Its states after where the new page differs: where the scan may
    /// rejoin it. The last is the match.
    pub ahead: &'m [Checkpoint<S>],
    /// How far the last page's bytes before its match moved in the new
    /// page (0 if they did not, or were not found): the states ahead are
    /// looked for this far from where they were.
    pub shift: isize,
    /// The states the scan keeps, from its start on, and the stretches of
    /// the last page's it skipped.
    pub fresh: &'m mut Vec<Checkpoint<S>>,
    pub skips: &'m mut Vec<Skip>,
    /// Where the bytes of each stretch skipped moved ([`Skip::moves`]).
    pub moves: &'m mut Vec<(usize, isize)>,
    /// The last page's regions, and this page's up to where the scan is
    /// (if it keeps them, `noting`), and how many of the last page's the
    /// scan went on past.
    pub regions: &'m [Region],
    pub fresh_regions: &'m mut Vec<Region>,
    pub noting: bool,
    pub crossed: usize,
    pub spare: &'m mut Vec<Box<S>>,
    pub checkpoint_every: usize,
}

impl<S> Recall<'_, S> {
    /// Keeps a region of this page.
    pub fn note_region(&mut self, from: usize, to: usize) {
        if self.noting {
            push_region(self.fresh_regions, (from, to));
        }
    }

    /// Where the last state kept so far is.
    pub fn last_kept(&self) -> Option<usize> {
        match self.skips.last() {
            Some(skip) if skip.kept == self.fresh.len() => {
                let (at, _) = self.ahead.get(skip.states.end.checked_sub(1)?)?;
                moved(*at, shift_at(&self.moves[skip.moves.clone()], *at))
            }
            _ => self.fresh.last().or(self.start).map(|(at, _)| *at),
        }
    }
}

/// How a scan with a [`Recall`] ended.
pub enum Ended {
    /// Not at a match it can keep: no match, a hand-over, or a match
    /// other than the last page's after it rejoined that page's scan.
    Elsewhere,
    /// At a match: at the start, or the last of the states kept.
    Matched { at: usize },
    /// At the last page's match, rejoined at `ahead[index]`, which the
    /// page has [`Recall::shift`] bytes from where the last page had it;
    /// the scan kept its own state there last.
    Rejoined { index: usize },
}

impl<S: Default> LastMatch<S> {
    /// Where the states kept on `body` end, and a view for its scan.
    pub fn recall(&mut self, body: &[u8]) -> (usize, Recall<'_, S>) {
        let same = same_bytes(&self.page, body);
        self.same = same;
        self.shift = shift_of_tail(&self.page, self.page_len, body, same);
        let usable = self.states.partition_point(|(at, _)| *at < same);
        let (before, ahead) = self.states.split_at(usable);
        self.fresh.clear();
        self.skips.clear();
        self.moves.clear();
        let noting = self.regions.start(before.last().map_or(0, |(at, _)| *at));
        let (regions, fresh_regions) = self.regions.for_scan();
        let recall = Recall {
            start: before.last(),
            page: &self.page,
            same,
            ahead,
            shift: self.shift,
            fresh: &mut self.fresh,
            skips: &mut self.skips,
            moves: &mut self.moves,
            regions,
            fresh_regions,
            noting,
            crossed: 0,
            spare: &mut self.spare,
            checkpoint_every: self.checkpoint_every,
        };
        (usable, recall)
    }

    /// After the scan of `body`, which kept the first `usable` states: the
    /// page kept for the next, this one or, if it [`LastMatch::serves`],
    /// the one kept before; whether the next page's scan keeps its regions
    /// (`read`: how many bytes this one read, `crossed`: how many regions
    /// it went on past).
    pub fn remember(
        &mut self,
        body: &[u8],
        usable: usize,
        ended: Ended,
        (read, crossed): (usize, usize),
    ) {
        #[cfg(test)]
        {
            self.crossed += crossed;
        }
        let matched_at = match ended {
            Ended::Elsewhere => None,
            Ended::Matched { at } => Some(at),
            Ended::Rejoined { .. } => {
                #[cfg(test)]
                {
                    self.moved_rejoins += usize::from(self.shift != 0);
                }
                self.states
                    .last()
                    .and_then(|&(at, _)| moved(at, self.shift))
            }
        };
        let read_much = matched_at.is_some_and(|at| read.saturating_mul(READ_TO_REPLACE) >= at);
        if let Some(at) = matched_at.filter(|&at| at < MOST_KEPT && self.serves(read_much)) {
            // The kept page stays; what the scan kept of this one goes.
            self.served += 1;
            let next_may_be_kept = self.served + 1 >= self.keep_for;
            self.regions
                .keep_last(next_may_be_kept, (at, read, crossed));
            let spare = self.fresh.drain(..).map(|(_, state)| state);
            self.spare.extend(spare);
            self.spare.truncate(MOST_SPARE);
            self.skips.clear();
            return;
        }
        self.served = 0;
        // A page read much is likely followed by another, which is kept too.
        let next_may_be_kept = read_much || self.keep_for <= 1;
        let mut rejoined = None;
        let matched = match ended {
            Ended::Elsewhere => None,
            Ended::Matched { at } => {
                // Where it started at the last page's match, nothing was kept.
                self.put_in_place(usable, None);
                Some(at)
            }
            Ended::Rejoined { index } => {
                let shift = self.shift;
                rejoined = self
                    .states
                    .get(usable + index)
                    .map(|&(from, _)| (from, shift));
                self.put_in_place(usable, Some(index));
                matched_at
            }
        };
        match matched {
            Some(at) if at < MOST_KEPT => {
                // The first `same` bytes are this page's already.
                let same = self.same.min(at + 1);
                self.page.truncate(same);
                self.page.extend_from_slice(&body[same..=at]);
                self.page_len = body.len();
                self.regions
                    .keep(rejoined, next_may_be_kept, (at, read, crossed));
            }
            _ => {
                self.page.clear();
                self.regions.forget();
                self.states.append(&mut self.fresh);
                self.skips.clear();
                self.spare_from(0..self.states.len());
            }
        }
    }

    /// Nothing kept, as for a selector new to the thread, but the room of
    /// what was: a thread's entry that makes way for another selector
    /// lends it, so that the new selector's scan reuses the states (up to
    /// [`MOST_SPARE`]), bytes and lists the other one kept, where making
    /// them anew, a state at a time, cost a first page a third of its time.
    pub fn forget(&mut self) {
        let mut room = std::mem::take(self);
        let states = room.fresh.drain(..).chain(room.states.drain(..));
        room.spare.extend(states.map(|(_, state)| state));
        room.spare.truncate(MOST_SPARE);
        room.page.clear();
        room.skips.clear();
        room.moves.clear();
        room.ahead.clear();
        *self = LastMatch {
            page: room.page,
            states: room.states,
            fresh: room.fresh,
            skips: room.skips,
            moves: room.moves,
            regions: room.regions.emptied(),
            ahead: room.ahead,
            spare: room.spare,
            ..LastMatch::default()
        };
    }

    /// Whether the kept page serves the next page as well as this one,
    /// whose scan read little of it (not `read_much`): it differs from the
    /// kept page in a few places, where the next will likely differ too,
    /// and keeping it would cost more than its scan did.
    fn serves(&self, read_much: bool) -> bool {
        !read_much && !self.page.is_empty() && self.served + 1 < self.keep_for
    }

    /// The states kept on this page after the first `usable`: those the
    /// scan kept, between them the last page's it skipped, and, if it
    /// rejoined the last page's scan at the state `rejoined` after those
    /// `usable`, the last page's after that one, all where this page has
    /// them. The last page's others are no longer kept.
    fn put_in_place(&mut self, usable: usize, rejoined: Option<usize>) {
        // The last page's states after the rejoined one, which follow the
        // scan's own state there.
        let tail = rejoined.map_or(0, |index| self.states.len() - (usable + index + 1));
        if self.skips.is_empty() {
            // Most pages: the states the scan kept in place of the last
            // page's, the rest of the list moved once.
            let replaced = usable..self.states.len() - tail;
            let spare = self
                .states
                .splice(replaced, self.fresh.drain(..))
                .map(|(_, state)| state);
            self.spare.extend(spare);
        } else {
            self.ahead.clear();
            self.ahead.extend(self.states.drain(usable..));
            let mut fresh = self.fresh.drain(..);
            let (mut kept, mut taken) = (0, 0);
            for skip in self.skips.drain(..) {
                self.states.extend(fresh.by_ref().take(skip.kept - kept));
                kept = skip.kept;
                let moves = &self.moves[skip.moves];
                let mut stretch = 0;
                let skipped = skip.states.start - taken..skip.states.end - taken;
                taken += skipped.len();
                self.states
                    .extend(self.ahead.drain(skipped).map(|(at, state)| {
                        // The states come in the page's order, all after
                        // where the first stretch starts.
                        while moves.get(stretch + 1).is_some_and(|&(from, _)| from <= at) {
                            stretch += 1;
                        }
                        // Where it moved is in the page.
                        (at.wrapping_add_signed(moves[stretch].1), state)
                    }));
            }
            self.states.extend(fresh);
            let tail = self.ahead.drain(self.ahead.len() - tail..);
            self.states.extend(tail);
            let spare = self.ahead.drain(..).map(|(_, state)| state);
            self.spare.extend(spare);
        }
        self.spare.truncate(MOST_SPARE);
        if self.shift != 0 && rejoined.is_some() {
            let tail_from = self.states.len() - tail;
            for (at, _) in &mut self.states[tail_from..] {
                // After the rejoined tag, which is in the page moved.
                *at = at.wrapping_add_signed(self.shift);
            }
        }
    }

    /// These states are no longer kept: their room is.
    fn spare_from(&mut self, states: std::ops::Range<usize>) {
        let spare = self.states.drain(states).map(|(_, state)| state);
        self.spare.extend(spare);
        self.spare.truncate(MOST_SPARE);
    }

    /// Every page after the first keeps its regions, however it was read.
    #[cfg(test)]
    pub fn note_always(&mut self) {
        self.regions.note_always = true;
    }

    /// The page kept, up to and with its match's `<`.
    #[cfg(test)]
    pub fn kept_page(&self) -> &[u8] {
        &self.page
    }

    /// Where states were kept, in the page's order (the last at the match).
    #[cfg(test)]
    pub fn kept_places(&self) -> Vec<usize> {
        self.states.iter().map(|(at, _)| *at).collect()
    }
}

/// How far the last bytes of `page` (the last page up to its match, of
/// `page_len` bytes in all) moved in `body`, which has the first `same` of
/// them. A page that differs from the last in one place (a name, a date, a
/// nonce of another length) has them where they were, moved by the
/// difference in length; 0 where they are where they were, or not there.
fn shift_of_tail(page: &[u8], page_len: usize, body: &[u8], same: usize) -> isize {
    if same >= page.len() {
        return 0;
    }
    let from = page.len().saturating_sub(TAIL).max(same + 1);
    let tail = &page[from..];
    let longer = body.len() as isize - page_len as isize;
    let moved_tail = moved(from, longer).and_then(|at| body.get(at..at + tail.len()));
    if tail.len() >= SHORTEST_TAIL && longer != 0 && moved_tail == Some(tail) {
        longer
    } else {
        0
    }
}

/// How many leading bytes `a` and `b` share: `memcmp` over spans (most
/// pages are the last one up to its match), then sixteen bytes at a time.
pub fn same_bytes(a: &[u8], b: &[u8]) -> usize {
    const SPAN: usize = 512;
    let len = a.len().min(b.len());
    let mut at = 0;
    while at + SPAN <= len && a[at..at + SPAN] == b[at..at + SPAN] {
        at += SPAN;
    }
    at = match same_words(a, b, at, len) {
        Ok(differs) => return differs,
        Err(at) => at,
    };
    at + a[at..len]
        .iter()
        .zip(&b[at..len])
        .take_while(|(x, y)| x == y)
        .count()
}

/// `a` and `b` compared sixteen bytes at a time from `at` while a whole
/// word is before `end` (both are that long): where the first word that
/// differs differs, or where the words stopped.
pub fn same_words(a: &[u8], b: &[u8], mut at: usize, end: usize) -> Result<usize, usize> {
    const WORD: usize = 16;
    while at + WORD <= end {
        let word = |bytes: &[u8]| u128::from_le_bytes(bytes[at..at + WORD].try_into().unwrap());
        let differ = word(a) ^ word(b);
        if differ != 0 {
            return Ok(at + (differ.trailing_zeros() / 8) as usize);
        }
        at += WORD;
    }
    Err(at)
}

#[cfg(test)]
mod tests {
    use super::same_bytes;

    #[test]
    fn same_bytes_counts_what_a_byte_loop_counts() {
        let a: Vec<u8> = (0..1_300u32).map(|i| (i % 251) as u8).collect();
        for differ in (0..=a.len()).filter(|d| d % 37 < 3 || d % 512 < 2 || *d == a.len()) {
            let mut b = a.clone();
            if let Some(byte) = b.get_mut(differ) {
                *byte ^= 0x40;
            }
            for end in [differ, a.len(), a.len() / 2] {
                let expected = a.iter().zip(&b[..end]).take_while(|(x, y)| x == y).count();
                assert_eq!(same_bytes(&a, &b[..end]), expected, "{differ} {end}");
                assert_eq!(same_bytes(&b[..end], &a), expected, "{differ} {end}");
            }
        }
    }
}
