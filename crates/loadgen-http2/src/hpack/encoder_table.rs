//! The request direction's dynamic table, as one connection's encoder
//! knows it: whether the server's decoder holds a set of shared fields,
//! and what the server allows. The table holds at most one set, inserted
//! once and never evicted, so this is all the state there is.

use super::encoder::{size_update, TABLE_SIZE};
use super::request_blocks::RequestBlock;

#[derive(Debug)]
pub(crate) struct EncoderTable {
    /// The most the server's decoder holds: 4,096 until its
    /// SETTINGS_HEADER_TABLE_SIZE lowers it. The encoder uses no more,
    /// so it never has to raise it.
    limit: usize,
    /// A lowered limit the next header block must announce first.
    owed_update: Option<usize>,
    holds: Holds,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Holds {
    Nothing,
    /// The entries of a set of blocks (`SharedEntries`).
    Set {
        id: u64,
        size: usize,
    },
    /// A lowered limit evicted the set: only plain blocks from now on.
    Spoiled,
}

impl Default for EncoderTable {
    fn default() -> Self {
        EncoderTable {
            limit: TABLE_SIZE,
            owed_update: None,
            holds: Holds::Nothing,
        }
    }
}

/// The most a size update takes: a 5-bit prefix and 4 more bytes for any
/// u32.
pub(crate) type Prefix = ([u8; 5], usize);

impl EncoderTable {
    /// The server's SETTINGS_HEADER_TABLE_SIZE. The change applies once
    /// it reads our acknowledgement, which is queued before any block
    /// that follows; a lower limit must then be announced at the start of
    /// the next block (RFC 7541 section 4.2; nghttp2 refuses a block
    /// without it).
    pub fn server_limit(&mut self, limit: u32) {
        let limit = limit as usize;
        if limit >= self.limit {
            return;
        }
        self.limit = limit;
        self.owed_update = Some(limit);
        if let Holds::Set { size, .. } = self.holds {
            if size > limit {
                // The update evicts the oldest entries until the rest fit.
                self.holds = Holds::Spoiled;
            }
        }
    }

    /// The bytes to send for `block`: a size update if one is owed, and
    /// the block's form that fits what the server's table holds.
    #[inline]
    pub fn choose<'a>(&mut self, block: RequestBlock<'a>) -> (Prefix, &'a [u8]) {
        let mut prefix = ([0; 5], 0);
        if let Some(size) = self.owed_update.take() {
            let mut update = Vec::with_capacity(5);
            size_update(size, &mut update);
            prefix.0[..update.len()].copy_from_slice(&update);
            prefix.1 = update.len();
        }
        let Some(indexed) = block.indexed else {
            return (prefix, block.plain);
        };
        let chosen = match self.holds {
            Holds::Set { id, .. } if id == indexed.shared.id => indexed.later,
            Holds::Nothing if indexed.shared.size <= self.limit => {
                self.holds = Holds::Set {
                    id: indexed.shared.id,
                    size: indexed.shared.size,
                };
                indexed.first
            }
            _ => block.plain,
        };
        (prefix, chosen)
    }
}
