//! The last page's match, per selector and thread. A scenario takes its
//! token from the same page again and again, and the pages differ from the
//! token on: where a new page begins with the last one's bytes up to the
//! `<` of the tag that matched there, the scanner starts at that tag, in
//! the state it had there, instead of reading every tag before it again.
//! Comparing the bytes costs a `memcmp`; reading the tags, a few times a
//! regular expression's search (docs/performance.md, "The `dom` extractor").

use super::scan::State;
use std::cell::RefCell;

/// Beyond this, a match's place is not kept: the bytes before it are
/// kept to compare, and this bounds them.
const MOST_KEPT: usize = 128 * 1024;

/// Selectors remembered per thread; the oldest makes way for a new one.
const SELECTORS: usize = 8;

#[derive(Default)]
pub struct LastMatch {
    /// The last page's bytes up to and with its match's `<`; empty for none.
    before: Vec<u8>,
    state: State,
}

impl LastMatch {
    /// Where to resume on `body`, and the state there, if `body` begins as
    /// the last page did up to its match.
    pub fn resumes(&self, body: &[u8]) -> Option<(usize, &State)> {
        let at = self.before.len().checked_sub(1)?;
        body.starts_with(&self.before).then_some((at, &self.state))
    }

    /// This page's match at `at`, with the state `save` writes.
    pub fn keep(&mut self, body: &[u8], at: usize, save: impl FnOnce(&mut State)) {
        self.before.clear();
        if at < MOST_KEPT {
            self.before.extend_from_slice(&body[..=at]);
            save(&mut self.state);
        }
    }
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
