//! The HPACK decoder's two paths against arbitrary header blocks.
//!
//! Input: a byte that sets the table size both decoders start with (in
//! steps of 32 bytes), a seed, then header blocks: the seed cuts the bytes
//! into blocks and, now and then, lowers or raises the table size between
//! them, as an acknowledged SETTINGS_HEADER_TABLE_SIZE would. Every block
//! goes to a [`Decoder::new`] with `decode` and to a
//! [`Decoder::keeping_fields`] with `decode_fields`.
//!
//! Invariants: no panic; both give the same summary, or the same error,
//! for every block; their tables agree in size and length and stay within
//! the size allowed; the fields `decode_fields` hands out add up to its
//! summary. Decoding stops at the first error that ends a connection.

use crate::pieces;

use loadgen_http2::hpack::Decoder;

/// Table sizes the seed may switch to between blocks, up to twice the
/// largest starting size.
const LARGEST_TABLE_SIZE: u32 = 16 * 1024;

pub fn check(input: &[u8]) {
    let Some(split) = pieces::Split::new(input) else {
        return;
    };
    let mut allowed = usize::from(split.settings) * 32;
    let mut sizes = Decoder::new(allowed);
    let mut fields = Decoder::keeping_fields(allowed);
    let mut blocks = split.pieces();
    while let Some(block) = blocks.next() {
        if blocks.below(4) == 0 {
            let size = blocks.below(LARGEST_TABLE_SIZE) as usize;
            sizes.set_max_table_size(size);
            fields.set_max_table_size(size);
            // A larger size applies once the peer's size update asks for
            // it; a smaller one at once, whatever the table held.
            allowed = allowed.max(size);
        }
        let (mut count, mut bytes) = (0u32, 0u64);
        let plain = sizes.decode(block);
        let detailed = fields.decode_fields(block, &mut |name, value| {
            count += 1;
            bytes += (name.len() + value.len()) as u64;
        });
        assert_eq!(plain, detailed, "the two paths disagree on {block:?}");
        assert_eq!(sizes.table_size(), fields.table_size());
        assert_eq!(sizes.table_len(), fields.table_len());
        assert!(sizes.table_size() <= allowed, "the table outgrew its size");
        match detailed {
            Ok(summary) => {
                assert_eq!(summary.fields, count);
                assert_eq!(summary.uncompressed_bytes, bytes);
            }
            Err(e) if e.is_malformed_response() => {}
            Err(_) => return,
        }
    }
}
