//! Decoding tables derived from the code at compile time.
//!
//! The HPACK code is canonical: ordering the symbols by (code length,
//! symbol) and counting upwards reproduces every code. So a code longer
//! than the direct-lookup width is found by comparing the next 32 bits
//! with one limit per length, and its symbol by its offset from the first
//! code of that length.

use super::codes::{CODES, LENGTHS};

/// Width of the direct lookup; every code for printable ASCII but a few
/// punctuation marks fits in 10 bits, which keeps the table at 2 KiB.
pub(super) const FAST_BITS: u32 = 10;

/// Indexed by the next `FAST_BITS` bits: `length << 8 | symbol` for a code
/// of at most `FAST_BITS` bits, 0 where the code is longer.
pub(super) static FAST: [u16; 1 << FAST_BITS] = build_fast();

/// Width of the lookup that counts symbols without producing them: 8 KiB
/// of table; 14 bits measured only 3% faster on header values.
pub(super) const PAIR_BITS: u32 = 13;

/// Indexed by the next `PAIR_BITS` bits: `count << 4 | bits` for the one
/// or two whole codes of at most `FAST_BITS` bits each that those bits
/// start with, 0 where the first code is longer than `FAST_BITS`. Halves
/// the serial lookups of `decoded_len` on typical header values.
pub(super) static PAIRS: [u8; 1 << PAIR_BITS] = build_pairs();

// Two codes' length in bits must fit the entry's low nibble.
const _: () = assert!(PAIR_BITS >= FAST_BITS && PAIR_BITS < 16);

pub(super) const MAX_LEN: usize = 30;

pub(super) struct Canonical {
    /// `LIMIT[len]`: one past the last code of length `len`, left-aligned
    /// in 32 bits. A 32-bit window below it and at or above the previous
    /// length's limit starts with a code of length `len`.
    pub(super) limit: [u64; MAX_LEN + 1],
    /// First (smallest) code of each length.
    pub(super) first_code: [u32; MAX_LEN + 1],
    /// Position in `symbols` of the first code of each length.
    pub(super) first_index: [u16; MAX_LEN + 1],
    /// Symbols ordered by (code length, symbol).
    pub(super) symbols: [u16; 257],
}

pub(super) static CANONICAL: Canonical = build_canonical();

const fn build_fast() -> [u16; 1 << FAST_BITS] {
    let mut table = [0u16; 1 << FAST_BITS];
    let mut sym = 0;
    while sym < 256 {
        let len = LENGTHS[sym] as u32;
        if len <= FAST_BITS {
            let start = (CODES[sym] << (FAST_BITS - len)) as usize;
            let mut i = 0;
            while i < 1 << (FAST_BITS - len) {
                table[start + i] = (len as u16) << 8 | sym as u16;
                i += 1;
            }
        }
        sym += 1;
    }
    table
}

const fn build_pairs() -> [u8; 1 << PAIR_BITS] {
    let fast = build_fast();
    let mut table = [0u8; 1 << PAIR_BITS];
    let mut index = 0;
    while index < 1 << PAIR_BITS {
        let first = fast[index >> (PAIR_BITS - FAST_BITS)];
        if first != 0 {
            let len1 = (first >> 8) as u32;
            // The bits after the first code, zero-filled: a code found in
            // them is real only if it ends within the known bits.
            let rest = (index << len1) & ((1 << PAIR_BITS) - 1);
            let second = fast[rest >> (PAIR_BITS - FAST_BITS)];
            let len2 = (second >> 8) as u32;
            table[index] = if second != 0 && len1 + len2 <= PAIR_BITS {
                (2 << 4) | (len1 + len2) as u8
            } else {
                (1 << 4) | len1 as u8
            };
        }
        index += 1;
    }
    table
}

const fn build_canonical() -> Canonical {
    let mut count = [0u32; MAX_LEN + 1];
    let mut sym = 0;
    while sym < 257 {
        count[LENGTHS[sym] as usize] += 1;
        sym += 1;
    }

    let mut symbols = [0u16; 257];
    let mut first_index = [0u16; MAX_LEN + 1];
    let mut n = 0;
    let mut len = 1;
    while len <= MAX_LEN {
        first_index[len] = n as u16;
        let mut sym = 0;
        while sym < 257 {
            if LENGTHS[sym] as usize == len {
                symbols[n] = sym as u16;
                n += 1;
            }
            sym += 1;
        }
        len += 1;
    }

    let mut first_code = [0u32; MAX_LEN + 1];
    let mut limit = [0u64; MAX_LEN + 1];
    let mut code = 0u32;
    let mut len = 1;
    while len <= MAX_LEN {
        code = (code + count[len - 1]) << 1;
        first_code[len] = code;
        limit[len] = ((code + count[len]) as u64) << (32 - len);
        len += 1;
    }

    Canonical {
        limit,
        first_code,
        first_index,
        symbols,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_canonical() {
        let c = &CANONICAL;
        let mut code = 0u32;
        let mut prev_len = 0;
        for (i, &sym) in c.symbols.iter().enumerate() {
            let len = LENGTHS[sym as usize] as u32;
            assert!(len >= prev_len, "symbols not ordered by length");
            if i > 0 {
                code = (code + 1) << (len - prev_len);
            } else {
                code <<= len;
            }
            prev_len = len;
            assert_eq!(code, CODES[sym as usize], "symbol {sym}");
            let len = len as usize;
            assert_eq!(
                code - c.first_code[len] + c.first_index[len] as u32,
                i as u32
            );
        }
        // EOS is the last, all-ones code, so the last limit covers every
        // 32-bit window and the length search always terminates.
        assert_eq!(c.limit[MAX_LEN], 1 << 32);
        assert_eq!(c.symbols[256], 256);
    }

    #[test]
    fn fast_table_matches_codes() {
        for (index, &entry) in FAST.iter().enumerate() {
            let window = (index as u32) << (32 - FAST_BITS);
            let expect = (0..256).find(|&s| {
                let len = LENGTHS[s] as u32;
                len <= FAST_BITS && window >> (32 - len) == CODES[s]
            });
            match expect {
                Some(s) => assert_eq!(entry, (LENGTHS[s] as u16) << 8 | s as u16),
                None => assert_eq!(entry, 0, "index {index}"),
            }
        }
    }

    #[test]
    fn pair_table_matches_codes() {
        let code_at = |window: u32, known: u32| {
            (0..256).find(|&s| {
                let len = LENGTHS[s] as u32;
                len <= FAST_BITS.min(known) && window >> (32 - len) == CODES[s]
            })
        };
        for (index, &entry) in PAIRS.iter().enumerate() {
            let window = (index as u32) << (32 - PAIR_BITS);
            let expect = match code_at(window, PAIR_BITS) {
                None => 0,
                Some(a) => {
                    let len1 = LENGTHS[a] as u32;
                    match code_at(window << len1, PAIR_BITS - len1) {
                        None => 1 << 4 | len1 as u8,
                        Some(b) => 2 << 4 | (len1 + LENGTHS[b] as u32) as u8,
                    }
                }
            };
            assert_eq!(entry, expect, "index {index:#x}");
        }
    }

    #[test]
    fn code_is_complete_prefix_code() {
        // Kraft sum of exactly 1: no bit string is left undecodable, which
        // the decoder's length search relies on.
        let sum: u64 = LENGTHS.iter().map(|&l| 1u64 << (30 - l)).sum();
        assert_eq!(sum, 1 << 30);
    }
}
