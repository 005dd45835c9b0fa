//! The decoder's dynamic table (RFC 7541 section 4).
//!
//! Entries keep lengths, not bytes. Everything a later block can ask of an
//! entry is its name's and value's lengths (for the uncompressed size and
//! for the size of a new entry that reuses the name) and what it means to
//! the client (its [`Meaning`]: a status, a content length). The table's
//! size accounting depends only on lengths, so it stays exact without
//! storing any strings.

use super::meaning::Meaning;
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) name_len: usize,
    pub(super) value_len: usize,
    pub(super) meaning: Meaning,
}

impl Entry {
    /// Entry size as RFC 7541 section 4.1 defines it.
    fn size(&self) -> usize {
        self.name_len
            .saturating_add(self.value_len)
            .saturating_add(32)
    }
}

#[derive(Debug, Clone)]
pub(super) struct DynamicTable {
    /// Newest first, so dynamic index 62 is `entries[0]`.
    entries: VecDeque<Entry>,
    size: usize,
    max_size: usize,
}

impl DynamicTable {
    pub(super) fn new(max_size: usize) -> DynamicTable {
        // Room for the most entries the table can hold (all empty
        // strings), so inserting never reallocates; capped so that a
        // huge advertised size does not reserve memory up front.
        let capacity = (max_size / 32).min(4096);
        DynamicTable {
            entries: VecDeque::with_capacity(capacity),
            size: 0,
            max_size,
        }
    }

    /// `index` counts from 0 for the newest entry.
    #[inline]
    pub(super) fn get(&self, index: usize) -> Option<&Entry> {
        self.entries.get(index)
    }

    /// Adds an entry, evicting the oldest ones to make room. An entry
    /// larger than the whole table empties it and is not added (4.4).
    #[inline(always)]
    pub(super) fn insert(&mut self, entry: Entry) {
        let size = entry.size();
        if size > self.max_size {
            self.entries.clear();
            self.size = 0;
            return;
        }
        self.evict_to(self.max_size - size);
        self.entries.push_front(entry);
        self.size += size;
    }

    /// Applies a dynamic table size update (6.3), evicting as needed.
    pub(super) fn set_max_size(&mut self, max_size: usize) {
        self.max_size = max_size;
        self.evict_to(max_size);
    }

    fn evict_to(&mut self, target: usize) {
        while self.size > target {
            let Some(old) = self.entries.pop_back() else {
                break;
            };
            self.size -= old.size();
        }
    }

    pub(super) fn size(&self) -> usize {
        self.size
    }

    pub(super) fn max_size(&self) -> usize {
        self.max_size
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name_len: usize, value_len: usize) -> Entry {
        Entry {
            name_len,
            value_len,
            meaning: Meaning::None,
        }
    }

    #[test]
    fn eviction_keeps_size_within_max() {
        let mut t = DynamicTable::new(100);
        t.insert(entry(10, 10)); // 52
        t.insert(entry(5, 5)); // 42
        assert_eq!((t.len(), t.size()), (2, 94));
        t.insert(entry(1, 1)); // 34: evicts the oldest
        assert_eq!((t.len(), t.size()), (2, 76));
        assert_eq!(t.get(0), Some(&entry(1, 1)));
        assert_eq!(t.get(1), Some(&entry(5, 5)));
        assert_eq!(t.get(2), None);
    }

    #[test]
    fn entry_exactly_filling_the_table_is_kept() {
        let mut t = DynamicTable::new(100);
        t.insert(entry(1, 1));
        t.insert(entry(30, 38));
        assert_eq!((t.len(), t.size()), (1, 100));
    }

    #[test]
    fn oversized_entry_empties_the_table() {
        let mut t = DynamicTable::new(100);
        t.insert(entry(1, 1));
        t.insert(entry(60, 9));
        assert_eq!((t.len(), t.size()), (0, 0));
    }

    #[test]
    fn size_update_evicts() {
        let mut t = DynamicTable::new(4096);
        for _ in 0..10 {
            t.insert(entry(4, 4));
        }
        t.set_max_size(200);
        assert_eq!((t.len(), t.size()), (5, 200));
        t.set_max_size(0);
        assert_eq!((t.len(), t.size(), t.max_size()), (0, 0, 0));
    }
}
