//! How a fuzz input is cut into the pieces a socket might deliver: the
//! input's second byte seeds a small generator of piece sizes, so that the
//! bytes themselves stay contiguous (mutations and dictionary words keep
//! their meaning) while every input is also tried in its own segmentation.
//! The crate root that includes a harness includes this module beside it.

/// The input as it is fed: a settings byte, the piece sizes, the bytes.
pub struct Split<'a> {
    pub settings: u8,
    pub bytes: &'a [u8],
    seed: u8,
}

impl<'a> Split<'a> {
    /// `None` for inputs too short to hold the two leading bytes.
    pub fn new(input: &'a [u8]) -> Option<Split<'a>> {
        match input {
            [settings, seed, bytes @ ..] => Some(Split {
                settings: *settings,
                bytes,
                seed: *seed,
            }),
            _ => None,
        }
    }

    /// The bytes in consecutive pieces of 1 byte to 4 KiB, covering all of them.
    pub fn pieces(&self) -> Pieces<'a> {
        Pieces {
            rest: self.bytes,
            // xorshift must not start at zero.
            state: u32::from(self.seed) | 0x100,
        }
    }
}

pub struct Pieces<'a> {
    rest: &'a [u8],
    state: u32,
}

impl Pieces<'_> {
    /// The next number of the xorshift32 sequence.
    fn next_random(&mut self) -> u32 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.state = x;
        x
    }

    /// A number below `bound` (not uniformly: it needs not be).
    // Not every target draws numbers besides the piece sizes.
    #[allow(dead_code)]
    pub fn below(&mut self, bound: u32) -> u32 {
        self.next_random() % bound.max(1)
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        // Mostly small pieces, sometimes large: sizes are spread over
        // powers of two up to 4 KiB.
        let scale = self.below(13);
        let size = 1 + self.below(1 << scale) as usize;
        let (piece, rest) = self.rest.split_at(size.min(self.rest.len()));
        self.rest = rest;
        Some(piece)
    }
}
