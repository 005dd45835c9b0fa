//! What each thread keeps of the last pages: a [`LastMatch`] per selector,
//! for eight selectors (a ninth takes the place of the one that came
//! first). Nothing is shared between threads, as nothing else a request
//! touches is.

use super::last_match::LastMatch;
use super::scan::State;
use std::cell::RefCell;

/// Selectors remembered per thread; the oldest makes way for a new one.
const SELECTORS: usize = 8;

struct Remembered {
    selector: Box<str>,
    last: LastMatch<State>,
}

thread_local! {
    /// The selectors, and which entry makes way next.
    static REMEMBERED: RefCell<(Vec<Remembered>, usize)> = const { RefCell::new((Vec::new(), 0)) };
}

/// `scan` with this thread's last match for `selector` (by its text: equal
/// texts are one selector).
pub fn with_last_match<T>(selector: &str, scan: impl FnOnce(&mut LastMatch<State>) -> T) -> T {
    REMEMBERED.with(|remembered| {
        // `scan` only scans, so this is the one borrow.
        let (entries, next) = &mut *remembered.borrow_mut();
        let index = match entries.iter().position(|e| *e.selector == *selector) {
            Some(index) => index,
            None if entries.len() < SELECTORS => {
                entries.push(Remembered {
                    selector: selector.into(),
                    last: LastMatch::default(),
                });
                entries.len() - 1
            }
            None => {
                let index = *next;
                *next = (index + 1) % SELECTORS;
                // The entry making way lends its room to the new selector's.
                let entry = &mut entries[index];
                entry.selector = selector.into();
                entry.last.forget();
                index
            }
        };
        scan(&mut entries[index].last)
    })
}
