//! Response header block decoding (RFC 7541 sections 3 and 6), reduced to
//! what a benchmark reports and checks: the status, the content length,
//! the field count and the uncompressed size, while the dynamic table
//! follows every insertion.

use super::dynamic_table::{DynamicTable, Entry};
use super::meaning::{Meaning, Name};
use super::static_table::{CONTENT_LENGTH_INDEX, STATIC_TABLE, STATUS_CODES, STATUS_INDEXES};
use super::{huffman, integer, HpackError};
use super::{BAD_CONTENT_LENGTH, BAD_STATUS, DUPLICATE_CONTENT_LENGTH, DUPLICATE_STATUS};
use std::collections::VecDeque;

const ZERO_INDEX: HpackError = HpackError("header field index 0");
const BAD_INDEX: HpackError = HpackError("header field index beyond the static and dynamic tables");
const STRING_TRUNCATED: HpackError =
    HpackError("string literal runs past the end of the header block");
const LATE_SIZE_UPDATE: HpackError = HpackError("dynamic table size update after a header field");
const SIZE_UPDATE_TOO_LARGE: HpackError =
    HpackError("dynamic table size update above our SETTINGS_HEADER_TABLE_SIZE");
const MISSING_SIZE_UPDATE: HpackError = HpackError(
    "header block does not start with the dynamic table size update \
     that our lower SETTINGS_HEADER_TABLE_SIZE requires",
);
const REDUCTION_NOT_SIGNALLED: HpackError = HpackError(
    "first dynamic table size update is above the lowest SETTINGS_HEADER_TABLE_SIZE \
     we set since the previous header block",
);

static STATIC_ENTRIES: [Entry; 61] = static_entries();

const fn static_entries() -> [Entry; 61] {
    let mut entries = [Entry {
        name_len: 0,
        value_len: 0,
        meaning: Meaning::None,
    }; 61];
    let mut i = 0;
    while i < 61 {
        let index = i + 1;
        entries[i] = Entry {
            name_len: STATIC_TABLE[i].0.len(),
            value_len: STATIC_TABLE[i].1.len(),
            meaning: if index >= *STATUS_INDEXES.start() && index <= *STATUS_INDEXES.end() {
                Meaning::Status(STATUS_CODES[index - *STATUS_INDEXES.start()])
            } else if index == CONTENT_LENGTH_INDEX {
                // The static entry's value is empty, not a number.
                Meaning::BadContentLength
            } else {
                Meaning::None
            },
        };
        i += 1;
    }
    entries
}

/// What a response (or trailer) header block amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockSummary {
    /// The value of `:status` when the block has one (3 ASCII digits →
    /// u16); None otherwise (trailers).
    pub status: Option<u16>,
    /// The value of `content-length` when the block has one.
    pub content_length: Option<u64>,
    /// Sum of name.len() + value.len() over all fields, after decoding
    /// (Huffman-decoded lengths), as nghttp2 counts header sizes.
    pub uncompressed_bytes: u64,
    /// Number of fields in the block.
    pub fields: u32,
}

impl BlockSummary {
    /// Adds one decoded field; a content error is kept, the first one only,
    /// to be reported once the whole block has reached the table.
    #[inline(always)]
    fn count(&mut self, field: &Entry, malformed: &mut Option<HpackError>) {
        self.fields = self.fields.saturating_add(1);
        self.uncompressed_bytes += (field.name_len + field.value_len) as u64;
        // A tag test: the derived `!=` would compare payloads too.
        if !matches!(field.meaning, Meaning::None) {
            self.take(field.meaning, malformed);
        }
    }

    /// A field with a meaning: most blocks have two, `:status` and
    /// `content-length`. As nghttp2 does, a second content-length is
    /// refused even when it repeats the first.
    #[inline(always)]
    fn take(&mut self, meaning: Meaning, malformed: &mut Option<HpackError>) {
        let problem = match meaning {
            Meaning::None => return,
            Meaning::Status(code) if self.status.is_none() => {
                self.status = Some(code);
                return;
            }
            Meaning::Status(_) => DUPLICATE_STATUS,
            Meaning::BadStatus => BAD_STATUS,
            Meaning::ContentLength(n) if self.content_length.is_none() => {
                self.content_length = Some(n);
                return;
            }
            Meaning::ContentLength(_) => DUPLICATE_CONTENT_LENGTH,
            Meaning::BadContentLength => BAD_CONTENT_LENGTH,
        };
        malformed.get_or_insert(problem);
    }

    /// The block's summary, or its first content error.
    fn or(self, malformed: Option<HpackError>) -> Result<BlockSummary, HpackError> {
        match malformed {
            Some(error) => Err(error),
            None => Ok(self),
        }
    }
}

/// HPACK decoding state of one connection.
///
/// After an error for which [`HpackError::is_malformed_response`] is true
/// the whole block has been applied to the dynamic table and decoding can
/// go on; after any other error the table is out of step with the peer's
/// and the connection must end with COMPRESSION_ERROR.
#[derive(Debug, Clone)]
pub struct Decoder {
    table: DynamicTable,
    /// Our SETTINGS_HEADER_TABLE_SIZE: the cap for size updates.
    max_table_size: usize,
    /// Set when that setting dropped below the table's current maximum:
    /// the next block must start with a size update no larger than this.
    pending_reduction: Option<usize>,
    /// Decoded `:status` values; reused so that steady state does not
    /// allocate.
    scratch: Vec<u8>,
    /// Each dynamic entry's name and value, one after the other, newest
    /// first like the table; kept only by [`Decoder::keeping_fields`]. The
    /// table evicts from its end, so this follows it by truncating to the
    /// table's length.
    contents: Option<VecDeque<Box<[u8]>>>,
}

impl Decoder {
    /// `max_table_size`: the SETTINGS_HEADER_TABLE_SIZE we advertised
    /// (default 4096).
    pub fn new(max_table_size: usize) -> Decoder {
        Decoder {
            table: DynamicTable::new(max_table_size),
            max_table_size,
            pending_reduction: None,
            scratch: Vec::new(),
            contents: None,
        }
    }

    /// Applies a new SETTINGS_HEADER_TABLE_SIZE once the peer has
    /// acknowledged it. If it is below the table's current maximum, the
    /// peer must shrink the table at the start of its next header block
    /// (RFC 7541 section 4.2), which `decode` checks.
    pub fn set_max_table_size(&mut self, max_table_size: usize) {
        self.max_table_size = max_table_size;
        if max_table_size < self.table.max_size() {
            let lowest = self
                .pending_reduction
                .map_or(max_table_size, |p| p.min(max_table_size));
            self.pending_reduction = Some(lowest);
        }
    }

    /// A decoder whose table keeps names and values, so that
    /// [`Decoder::decode_fields`] can tell every field of a block.
    pub fn keeping_fields(max_table_size: usize) -> Decoder {
        Decoder {
            contents: Some(VecDeque::new()),
            ..Decoder::new(max_table_size)
        }
    }

    /// Current size of the dynamic table in the RFC's accounting (sum of
    /// name + value + 32 over its entries).
    pub fn table_size(&self) -> usize {
        self.table.size()
    }

    /// Number of entries in the dynamic table.
    pub fn table_len(&self) -> usize {
        self.table.len()
    }

    /// Decodes one complete header block (the concatenated HEADERS +
    /// CONTINUATION fragments). A decoder that keeps fields must decode
    /// every block with [`Decoder::decode_fields`] instead, so that the
    /// kept names and values follow every insertion.
    pub fn decode(&mut self, block: &[u8]) -> Result<BlockSummary, HpackError> {
        debug_assert!(self.contents.is_none(), "use decode_fields");
        let mut pos = self.size_updates(block)?;
        let mut summary = BlockSummary::default();
        // Content errors are reported once the block is fully applied to
        // the table, so the connection can outlive a malformed response.
        let mut malformed = None;
        while let Some(&first) = block.get(pos) {
            let field = if first & 0x80 != 0 {
                let index = integer::decode(block, &mut pos, 7)?;
                *self.entry(index)?
            } else if first & 0xe0 == 0x20 {
                return Err(LATE_SIZE_UPDATE);
            } else {
                self.literal(block, &mut pos, first & 0x40 != 0)?
            };
            summary.count(&field, &mut malformed);
        }
        summary.or(malformed)
    }

    /// [`Decoder::decode`], also handing each field's name and value to
    /// `on_field`. Only for a decoder made with [`Decoder::keeping_fields`]:
    /// fields may refer to the table's entries. Never inlined: it serves
    /// the few connections that ask for fields, and inlined it would crowd
    /// the plain path.
    #[inline(never)]
    pub fn decode_fields(
        &mut self,
        block: &[u8],
        on_field: &mut impl FnMut(&[u8], &[u8]),
    ) -> Result<BlockSummary, HpackError> {
        assert!(
            self.contents.is_some(),
            "decode_fields needs a decoder made with Decoder::keeping_fields"
        );
        let mut pos = self.size_updates(block)?;
        self.follow_table();
        let mut summary = BlockSummary::default();
        let mut malformed = None;
        let (mut name, mut value) = (Vec::new(), Vec::new());
        while let Some(&first) = block.get(pos) {
            name.clear();
            value.clear();
            let entry = if first & 0x80 != 0 {
                let index = integer::decode(block, &mut pos, 7)?;
                let entry = *self.entry(index)?;
                let (n, v) = self.contents(index)?;
                name.extend_from_slice(n);
                value.extend_from_slice(v);
                entry
            } else if first & 0xe0 == 0x20 {
                return Err(LATE_SIZE_UPDATE);
            } else {
                let insert = first & 0x40 != 0;
                let index = integer::decode(block, &mut pos, if insert { 6 } else { 4 })?;
                if index == 0 {
                    string_into(block, &mut pos, &mut name)?;
                } else {
                    name.extend_from_slice(self.contents(index)?.0);
                }
                string_into(block, &mut pos, &mut value)?;
                let entry = Entry {
                    name_len: name.len(),
                    value_len: value.len(),
                    meaning: Name::of(&name).meaning(&value),
                };
                if insert {
                    self.table.insert(entry);
                    if let Some(contents) = &mut self.contents {
                        contents.push_front([&name[..], &value[..]].concat().into_boxed_slice());
                    }
                    self.follow_table();
                }
                entry
            };
            on_field(&name, &value);
            summary.count(&entry, &mut malformed);
        }
        summary.or(malformed)
    }

    /// The name and value at `index` of the static or dynamic table.
    fn contents(&self, index: usize) -> Result<(&[u8], &[u8]), HpackError> {
        match index {
            0 => Err(ZERO_INDEX),
            1..=61 => {
                let (name, value) = STATIC_TABLE[index - 1];
                Ok((name.as_bytes(), value.as_bytes()))
            }
            _ => {
                let entry = self.table.get(index - 62).ok_or(BAD_INDEX)?;
                let bytes = self
                    .contents
                    .as_ref()
                    .and_then(|c| c.get(index - 62))
                    .ok_or(BAD_INDEX)?;
                Ok(bytes.split_at(entry.name_len))
            }
        }
    }

    /// Drops kept contents the table has evicted (an insertion, or a
    /// smaller size, evicts from the oldest end).
    fn follow_table(&mut self) {
        if let Some(contents) = &mut self.contents {
            contents.truncate(self.table.len());
        }
    }

    /// Applies the size updates that may open a block (6.3) and returns
    /// the position of the first field.
    fn size_updates(&mut self, block: &[u8]) -> Result<usize, HpackError> {
        let mut pos = 0;
        while let Some(&first) = block.get(pos) {
            if first & 0xe0 != 0x20 {
                break;
            }
            let size = integer::decode(block, &mut pos, 5)?;
            if size > self.max_table_size {
                return Err(SIZE_UPDATE_TOO_LARGE);
            }
            if let Some(lowest) = self.pending_reduction.take() {
                if size > lowest {
                    return Err(REDUCTION_NOT_SIGNALLED);
                }
            }
            self.table.set_max_size(size);
        }
        if self.pending_reduction.is_some() {
            return Err(MISSING_SIZE_UPDATE);
        }
        Ok(pos)
    }

    #[inline]
    fn entry(&self, index: usize) -> Result<&Entry, HpackError> {
        match index {
            0 => Err(ZERO_INDEX),
            1..=61 => Ok(&STATIC_ENTRIES[index - 1]),
            _ => self.table.get(index - 62).ok_or(BAD_INDEX),
        }
    }

    /// A literal field (6.2.1 with `insert`, else 6.2.2 or 6.2.3, which a
    /// decoder treats alike).
    fn literal(
        &mut self,
        block: &[u8],
        pos: &mut usize,
        insert: bool,
    ) -> Result<Entry, HpackError> {
        let index = integer::decode(block, pos, if insert { 6 } else { 4 })?;
        let (name_len, name) = if index == 0 {
            let (name, huffman) = string(block, pos)?;
            if huffman {
                (huffman::decoded_len(name)?, Name::of_huffman(name))
            } else {
                (name.len(), Name::of(name))
            }
        } else {
            let entry = self.entry(index)?;
            let name = if matches!(entry.meaning, Meaning::None) {
                Name::Other
            } else {
                entry.meaning.name()
            };
            (entry.name_len, name)
        };

        let (value, huffman) = string(block, pos)?;
        let (value_len, meaning) = if name != Name::Other {
            let value = if huffman {
                self.scratch.clear();
                huffman::decode(value, &mut self.scratch)?;
                &self.scratch[..]
            } else {
                value
            };
            (value.len(), name.meaning(value))
        } else if huffman {
            (huffman::decoded_len(value)?, Meaning::None)
        } else {
            (value.len(), Meaning::None)
        };

        let entry = Entry {
            name_len,
            value_len,
            meaning,
        };
        if insert {
            self.table.insert(entry);
        }
        Ok(entry)
    }

    /// (name length, value length) of each dynamic entry, newest first.
    #[cfg(test)]
    pub(super) fn table_entries(&self) -> Vec<(usize, usize)> {
        (0..self.table.len())
            .map(|i| {
                let e = self.table.get(i).unwrap();
                (e.name_len, e.value_len)
            })
            .collect()
    }
}

/// A string literal (5.2): its coded bytes and whether they are
/// Huffman-coded.
#[inline]
fn string<'b>(block: &'b [u8], pos: &mut usize) -> Result<(&'b [u8], bool), HpackError> {
    let huffman = block.get(*pos).is_some_and(|b| b & 0x80 != 0);
    let len = integer::decode(block, pos, 7)?;
    let bytes = block[*pos..].get(..len).ok_or(STRING_TRUNCATED)?;
    *pos += len;
    Ok((bytes, huffman))
}

/// A string literal (5.2), decoded, appended to `out`.
fn string_into(block: &[u8], pos: &mut usize, out: &mut Vec<u8>) -> Result<(), HpackError> {
    let (bytes, huffman) = string(block, pos)?;
    if huffman {
        huffman::decode(bytes, out)
    } else {
        out.extend_from_slice(bytes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_out_decoded_and_from_the_table() {
        // RFC 7541 C.4: requests with Huffman coding, the second one
        // referring to entries the first one inserted.
        let first = [
            0x82, 0x86, 0x84, 0x41, 0x8c, 0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab,
            0x90, 0xf4, 0xff,
        ];
        let second = [
            0x82, 0x86, 0x84, 0xbe, 0x58, 0x86, 0xa8, 0xeb, 0x10, 0x64, 0x9c, 0xbf,
        ];
        let mut decoder = Decoder::keeping_fields(4096);
        let mut lengths = Decoder::new(4096);
        let mut fields = Vec::new();
        for block in [&first[..], &second[..]] {
            fields.clear();
            let summary = decoder
                .decode_fields(block, &mut |n, v| fields.push((n.to_vec(), v.to_vec())))
                .unwrap();
            assert_eq!(summary, lengths.decode(block).unwrap());
        }
        let text: Vec<(&str, &str)> = fields
            .iter()
            .map(|(n, v)| {
                (
                    std::str::from_utf8(n).unwrap(),
                    std::str::from_utf8(v).unwrap(),
                )
            })
            .collect();
        assert_eq!(
            text,
            [
                (":method", "GET"),
                (":scheme", "http"),
                (":path", "/"),
                (":authority", "www.example.com"),
                ("cache-control", "no-cache"),
            ]
        );
        assert_eq!(decoder.table_size(), lengths.table_size());
    }

    #[test]
    fn static_entries_match_table() {
        for (i, (entry, (name, value))) in STATIC_ENTRIES.iter().zip(STATIC_TABLE).enumerate() {
            assert_eq!((entry.name_len, entry.value_len), (name.len(), value.len()));
            let expect = Name::of(name.as_bytes()).meaning(value.as_bytes());
            assert_eq!(entry.meaning, expect, "index {}", i + 1);
        }
    }
}
