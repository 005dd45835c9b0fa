//! The last page's match, per selector and thread. A scenario takes its
//! token from the same page again and again, and the pages differ in a few
//! places (the token, a nonce): the scanner's state at a tag's `<` depends
//! on the bytes before it alone, so it keeps its state at a tag every so
//! often and at the match, and a new page is scanned from the last of those
//! tags that it has as the last page had it, in the state the scan had
//! there. Finding where two pages part costs about a `memcmp`; reading the
//! tags before, a few times a regular expression's search
//! (docs/performance.md, "The `dom` extractor").

use super::scan::State;
use std::cell::RefCell;

/// Beyond this, a match is not kept: the page's bytes before it are kept
/// to compare, and this bounds them.
const MOST_KEPT: usize = 128 * 1024;

/// Selectors remembered per thread; the oldest makes way for a new one.
const SELECTORS: usize = 8;

/// States of the scan at tags' `<`, in the page's order. Entries past
/// `len` are room kept from an earlier page, so that keeping a state does
/// not allocate once the pages repeat.
#[derive(Default)]
pub struct Checkpoints {
    entries: Vec<(usize, State)>,
    len: usize,
}

impl Checkpoints {
    /// The last state, and the place of its tag's `<`.
    pub fn last(&self) -> Option<(usize, &State)> {
        let (at, state) = self.entries[..self.len].last()?;
        Some((*at, state))
    }

    /// A state at `at`, which `save` writes into the room of an entry.
    pub fn push(&mut self, at: usize, save: impl FnOnce(&mut State)) {
        if self.len == self.entries.len() {
            self.entries.push((at, State::default()));
        }
        let entry = &mut self.entries[self.len];
        entry.0 = at;
        save(&mut entry.1);
        self.len += 1;
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}

/// How far apart the states kept along a page are, at least. A page that
/// differs from the last one before its match (a nonce in its head) is
/// scanned from the last state before the difference.
const CHECKPOINT_EVERY: usize = 1024;

pub struct LastMatch {
    /// The last page up to and with its match's `<`; empty for none.
    page: Vec<u8>,
    checkpoints: Checkpoints,
    pub checkpoint_every: usize,
    /// How many bytes the page being scanned has as `page` has them.
    same: usize,
}

impl Default for LastMatch {
    fn default() -> Self {
        LastMatch {
            page: Vec::new(),
            checkpoints: Checkpoints::default(),
            checkpoint_every: CHECKPOINT_EVERY,
            same: 0,
        }
    }
}

impl LastMatch {
    /// Where states were kept, in the page's order (the last at the match).
    #[cfg(test)]
    pub fn kept_places(&self) -> Vec<usize> {
        let entries = &self.checkpoints.entries[..self.checkpoints.len];
        entries.iter().map(|(at, _)| *at).collect()
    }

    /// The states to go on from on `body`: those at tags that `body` has as
    /// the last page had them; the scan starts at the last of them.
    pub fn take(&mut self, body: &[u8]) -> Checkpoints {
        let mut checkpoints = std::mem::take(&mut self.checkpoints);
        self.same = same_bytes(&self.page, body);
        let usable = checkpoints.entries[..checkpoints.len]
            .iter()
            .take_while(|(at, _)| *at < self.same)
            .count();
        checkpoints.truncate(usable);
        checkpoints
    }

    /// The states after a scan of `body`: kept where it ended at a match,
    /// whose state is the last of them.
    pub fn put_back(&mut self, body: &[u8], mut checkpoints: Checkpoints, matched: bool) {
        match checkpoints.last() {
            Some((at, _)) if matched && at < MOST_KEPT => {
                if at < self.same {
                    // The bytes kept already are this page's up to there.
                    self.page.truncate(at + 1);
                } else {
                    self.page.clear();
                    self.page.extend_from_slice(&body[..=at]);
                }
            }
            _ => {
                self.page.clear();
                checkpoints.truncate(0);
            }
        }
        self.checkpoints = checkpoints;
    }
}

/// How many leading bytes `a` and `b` share: `memcmp` over spans (most
/// pages are the last one up to its match), then sixteen bytes at a time.
fn same_bytes(a: &[u8], b: &[u8]) -> usize {
    const SPAN: usize = 512;
    const WORD: usize = 16;
    let len = a.len().min(b.len());
    if a[..len] == b[..len] {
        return len;
    }
    let mut at = 0;
    while at + SPAN <= len && a[at..at + SPAN] == b[at..at + SPAN] {
        at += SPAN;
    }
    while at + WORD <= len {
        let word = |bytes: &[u8]| u128::from_le_bytes(bytes[at..at + WORD].try_into().unwrap());
        let differ = word(a) ^ word(b);
        if differ != 0 {
            return at + (differ.trailing_zeros() / 8) as usize;
        }
        at += WORD;
    }
    at + a[at..len]
        .iter()
        .zip(&b[at..len])
        .take_while(|(x, y)| x == y)
        .count()
}

struct Remembered {
    selector: Box<str>,
    last: LastMatch,
}

thread_local! {
    /// The selectors, and which entry makes way next.
    static REMEMBERED: RefCell<(Vec<Remembered>, usize)> = const { RefCell::new((Vec::new(), 0)) };
}

/// `scan` with this thread's last match for `selector` (by its text: equal
/// texts are one selector).
pub fn with_last_match<T>(selector: &str, scan: impl FnOnce(&mut LastMatch) -> T) -> T {
    REMEMBERED.with(|remembered| {
        // `scan` only scans, so this is the one borrow.
        let (entries, next) = &mut *remembered.borrow_mut();
        let index = match entries.iter().position(|e| *e.selector == *selector) {
            Some(index) => index,
            None => {
                let entry = Remembered {
                    selector: selector.into(),
                    last: LastMatch::default(),
                };
                if entries.len() < SELECTORS {
                    entries.push(entry);
                    entries.len() - 1
                } else {
                    let index = *next;
                    *next = (index + 1) % SELECTORS;
                    entries[index] = entry;
                    index
                }
            }
        };
        scan(&mut entries[index].last)
    })
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
