//! The last response head a thread parsed, kept so that the same head is
//! not parsed again.
//!
//! A server under load answers with the same head over and over (a `Date`
//! that changes once a second is the usual difference), and parsing one
//! costs about a third of the client's instructions for a small HTTP/1.1
//! response (docs/performance.md, "HTTP/1.1: the head parsed once").
//! Comparing bytes costs a tenth of that. What is recalled is the parse's
//! own result: a head is the same bytes up to its blank line, and nothing
//! after it changes how it parses.

use std::cell::RefCell;

/// What framing takes from a response head.
#[derive(Debug, Clone, Copy)]
pub(super) struct HeadFacts {
    /// The head's length, status line to blank line.
    pub used: usize,
    pub status: u16,
    pub header_bytes: usize,
    pub content_length: Option<u64>,
    pub chunked: bool,
    /// The head alone says the connection closes after this response.
    pub close: bool,
}

/// Heads longer than this are parsed every time: they are rare, and the
/// memo of each thread stays small.
const MEMO_MAX_BYTES: usize = 1024;

struct HeadMemo {
    bytes: Vec<u8>,
    facts: Option<HeadFacts>,
}

thread_local! {
    // One per worker thread rather than one per connection: the connections
    // of a thread usually get the same head, and ten thousand connections
    // do not hold ten thousand copies of it.
    static LAST_HEAD: RefCell<HeadMemo> = const {
        RefCell::new(HeadMemo {
            bytes: Vec::new(),
            facts: None,
        })
    };
}

/// What the head at the start of `buf` says, if it is the one this thread
/// parsed last.
pub(super) fn recall(buf: &[u8]) -> Option<HeadFacts> {
    LAST_HEAD.with_borrow(|last| {
        let facts = last.facts?;
        (buf.get(..last.bytes.len()) == Some(&last.bytes[..])).then_some(facts)
    })
}

/// Keeps `head`, as parsed into `facts`, as this thread's last head.
pub(super) fn remember(head: &[u8], facts: HeadFacts) {
    LAST_HEAD.with_borrow_mut(|last| {
        last.bytes.clear();
        last.facts = None;
        if head.len() <= MEMO_MAX_BYTES {
            last.bytes.extend_from_slice(head);
            last.facts = Some(facts);
        }
    });
}
