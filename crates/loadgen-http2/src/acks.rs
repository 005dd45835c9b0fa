//! Acknowledgements (of PING and SETTINGS) that were queued for the server
//! and not yet written. The server decides how many it makes us send: one
//! that sends PINGs or SETTINGS and never reads what we write would make
//! the output grow without end, so their number is capped, as nghttp2
//! caps it (`max_outbound_ack`, 1000 by default).

use std::collections::VecDeque;

/// How many acknowledgements may wait to be written, nghttp2's default.
pub(crate) const MOST_QUEUED: usize = 1000;

/// Where each unwritten acknowledgement ends in the connection's output
/// buffer, oldest first.
#[derive(Default)]
pub(crate) struct QueuedAcks {
    ends: VecDeque<usize>,
}

impl QueuedAcks {
    /// Whether one more may be queued.
    pub fn has_room(&self) -> bool {
        self.ends.len() < MOST_QUEUED
    }

    /// One was appended to the output, which now ends at `end`.
    pub fn queued(&mut self, end: usize) {
        self.ends.push_back(end);
    }

    /// The output was written up to `position`: the acknowledgements
    /// before it are no longer waiting. The buffer restarts at 0 when it
    /// is written whole, and so does this.
    pub fn written_up_to(&mut self, position: usize) {
        while self.ends.front().is_some_and(|&end| end <= position) {
            self.ends.pop_front();
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.ends.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_acknowledgement_waits_until_its_last_byte_is_written() {
        let mut acks = QueuedAcks::default();
        acks.queued(17);
        acks.queued(26);
        acks.written_up_to(16);
        assert_eq!(acks.len(), 2);
        acks.written_up_to(17);
        assert_eq!(acks.len(), 1);
        acks.written_up_to(100);
        assert_eq!(acks.len(), 0);
    }

    #[test]
    fn there_is_room_for_the_cap_and_no_more() {
        let mut acks = QueuedAcks::default();
        for end in 1..=MOST_QUEUED {
            assert!(acks.has_room());
            acks.queued(end);
        }
        assert!(!acks.has_room());
        acks.written_up_to(1);
        assert!(acks.has_room());
    }
}
