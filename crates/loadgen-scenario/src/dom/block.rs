//! A block of the page's bytes compared at once: sixteen with SSE2, which
//! every x86-64 CPU has, and eight in a `u64` ("SWAR") elsewhere. A
//! comparison gives a mask of the bytes it holds for; the scanner wants
//! the first of them.

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub use sse2::Block;
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub use swar::Block;

// The intrinsics are `unsafe` to call only because a CPU might lack the
// feature; this module is compiled only where the build has SSE2 on (every
// x86-64 target has it by default), so every call below is sound.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x,
    };

    /// Sixteen bytes; bit `i` of a mask is byte `i`.
    pub struct Block(__m128i);

    impl Block {
        pub const WIDTH: usize = 16;

        /// The bytes from `at`, if the page has sixteen there.
        #[inline(always)]
        pub fn at(body: &[u8], at: usize) -> Option<Block> {
            let bytes = body.get(at..at + Self::WIDTH)?;
            let (low, high) = bytes.split_at(8);
            let low = u64::from_le_bytes(low.try_into().ok()?);
            let high = u64::from_le_bytes(high.try_into().ok()?);
            // SAFETY: SSE2 is enabled for this build (the module's `cfg`).
            Some(Block(unsafe { _mm_set_epi64x(high as i64, low as i64) }))
        }

        /// The bytes equal to `byte`.
        #[inline(always)]
        pub fn equal(&self, byte: u8) -> u32 {
            // SAFETY: SSE2 is enabled for this build (the module's `cfg`).
            unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self.0, _mm_set1_epi8(byte as i8))) as u32 }
        }

        /// The bytes below `limit` (at least 1), compared unsigned.
        #[inline(always)]
        pub fn below(&self, limit: u8) -> u32 {
            // SAFETY: SSE2 is enabled for this build (the module's `cfg`).
            unsafe {
                let floor = _mm_min_epu8(self.0, _mm_set1_epi8((limit - 1) as i8));
                _mm_movemask_epi8(_mm_cmpeq_epi8(floor, self.0)) as u32
            }
        }

        /// Where in the block the first marked byte is.
        #[inline(always)]
        pub fn first(marks: u32) -> usize {
            marks.trailing_zeros() as usize
        }
    }
}

#[cfg(any(not(all(target_arch = "x86_64", target_feature = "sse2")), test))]
mod swar {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;

    /// Eight bytes; the high bit of byte `i` of a mask is byte `i`.
    pub struct Block(u64);

    impl Block {
        pub const WIDTH: usize = 8;

        #[inline(always)]
        pub fn at(body: &[u8], at: usize) -> Option<Block> {
            let bytes = body.get(at..at + Self::WIDTH)?;
            Some(Block(u64::from_le_bytes(bytes.try_into().ok()?)))
        }

        #[inline(always)]
        pub fn equal(&self, byte: u8) -> u64 {
            below(self.0 ^ (ONES * u64::from(byte)), 1)
        }

        #[inline(always)]
        pub fn below(&self, limit: u8) -> u64 {
            below(self.0, limit)
        }

        #[inline(always)]
        pub fn first(marks: u64) -> usize {
            (marks.trailing_zeros() / 8) as usize
        }
    }

    /// The high bit of each byte below `limit` (at most 128). Bytes above
    /// the first such byte may be marked too, never bytes before it: only
    /// the first mark is read.
    fn below(word: u64, limit: u8) -> u64 {
        word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGHS
    }
}

#[cfg(test)]
mod tests {
    fn first_marks(body: &[u8], at: usize) -> Vec<Option<usize>> {
        let mut found = Vec::new();
        if let Some(block) = super::Block::at(body, at) {
            let first = |marks| (marks != 0).then(|| super::Block::first(marks));
            found.push(first(block.equal(b'<')));
            found.push(first(block.below(b'!')));
        }
        found
    }

    #[test]
    fn a_block_marks_what_a_byte_loop_finds() {
        let page: Vec<u8> = (0..=255u8)
            .rev()
            .chain(b"ab<c d\x01e<\x80\xff ".iter().copied())
            .collect();
        for at in 0..page.len() {
            let Some(window) = page.get(at..at + super::Block::WIDTH) else {
                assert!(first_marks(&page, at).is_empty());
                continue;
            };
            let expect = vec![
                window.iter().position(|&b| b == b'<'),
                window.iter().position(|&b| b < b'!'),
            ];
            assert_eq!(first_marks(&page, at), expect, "at {at}");
            // The eight-byte fallback, wherever it is not the one in use.
            if let Some(block) = super::swar::Block::at(&page, at) {
                let narrow = &window[..8];
                let first = |marks| (marks != 0).then(|| super::swar::Block::first(marks));
                assert_eq!(
                    first(block.equal(b'<')),
                    narrow.iter().position(|&b| b == b'<')
                );
                assert_eq!(
                    first(block.below(b'!')),
                    narrow.iter().position(|&b| b < b'!')
                );
            }
        }
    }
}
