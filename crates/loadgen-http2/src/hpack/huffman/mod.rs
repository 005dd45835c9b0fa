//! HPACK Huffman coding (RFC 7541 section 5.2, code in Appendix B).
//!
//! Decoding reads the input through a 64-bit window: a code of up to
//! `FAST_BITS` bits is one table lookup, a longer one falls back to the
//! canonical per-length search in `tables`. Each lookup depends on the
//! one before (a code starts where the previous one ends), so latency is
//! what counts: `decoded_len`, which runs for nearly every response field,
//! looks up two short codes at a time.

mod codes;
mod tables;

use super::HpackError;
use codes::{CODES, EOS, LENGTHS};
use tables::{CANONICAL, FAST, FAST_BITS, MAX_LEN, PAIRS, PAIR_BITS};

const EOS_IN_STRING: HpackError = HpackError("Huffman string contains the EOS symbol");
const LONG_PADDING: HpackError =
    HpackError("Huffman string ends with more than 7 bits that are not a symbol");
const BAD_PADDING: HpackError = HpackError("Huffman padding is not a prefix of EOS (all ones)");

/// Length in bytes of `src` once Huffman-coded.
pub fn encoded_len(src: &[u8]) -> usize {
    let bits: usize = src.iter().map(|&b| LENGTHS[b as usize] as usize).sum();
    bits.div_ceil(8)
}

/// Appends the Huffman coding of `src` to `dst`, padded with ones.
pub fn encode(src: &[u8], dst: &mut Vec<u8>) {
    dst.reserve(encoded_len(src));
    // Holds fewer than 8 pending bits plus one code of at most 30 bits.
    let mut acc: u64 = 0;
    let mut n: u32 = 0;
    for &b in src {
        let len = LENGTHS[b as usize] as u32;
        acc = acc << len | CODES[b as usize] as u64;
        n += len;
        while n >= 8 {
            n -= 8;
            dst.push((acc >> n) as u8);
        }
    }
    if n > 0 {
        dst.push((acc << (8 - n)) as u8 | 0xff >> n);
    }
}

/// Appends the decoding of `src` to `dst`. On error `dst` holds some of
/// the decoded bytes.
pub fn decode(src: &[u8], dst: &mut Vec<u8>) -> Result<(), HpackError> {
    // The shortest code is 5 bits.
    dst.reserve(src.len().saturating_mul(8) / 5);
    walk(src, |b| dst.push(b))
}

/// Length of the decoding of `src`, checked as strictly as `decode` but
/// without writing it anywhere.
pub fn decoded_len(src: &[u8]) -> Result<usize, HpackError> {
    let mut bits = Bits::new(src);
    let mut len = 0usize;
    // While input remains the window holds a whole code of any length.
    while bits.fill() {
        let entry = PAIRS[(bits.buf >> (64 - PAIR_BITS)) as usize];
        if entry != 0 {
            bits.consume((entry & 0xf) as u32);
            len += (entry >> 4) as usize;
            continue;
        }
        let (sym, code_len) = long_symbol(bits.buf);
        if sym == EOS {
            return Err(EOS_IN_STRING);
        }
        bits.consume(code_len);
        len += 1;
    }
    // The last few bits: pairs as long as they fit, then one by one.
    loop {
        let entry = PAIRS[(bits.buf >> (64 - PAIR_BITS)) as usize];
        let used = (entry & 0xf) as u32;
        if entry == 0 || used > bits.n {
            break;
        }
        bits.consume(used);
        len += (entry >> 4) as usize;
    }
    finish(&mut bits, |_| len += 1)?;
    Ok(len)
}

#[inline(always)]
fn walk(src: &[u8], emit: impl FnMut(u8)) -> Result<(), HpackError> {
    finish(&mut Bits::new(src), emit)
}

/// Decodes symbol by symbol to the end of the input, then checks the
/// padding.
#[inline(always)]
fn finish(bits: &mut Bits, mut emit: impl FnMut(u8)) -> Result<(), HpackError> {
    loop {
        bits.top_up();
        if bits.n == 0 {
            return Ok(());
        }
        let (sym, len) = symbol(bits.buf);
        if len > bits.n {
            // Only once the input is exhausted: otherwise `n` is at least
            // the longest code.
            return check_padding(bits.buf, bits.n);
        }
        if sym == EOS {
            return Err(EOS_IN_STRING);
        }
        bits.consume(len);
        emit(sym as u8);
    }
}

/// The symbol whose code starts `buf`, and that code's length. Bits of
/// `buf` past the end of the input may be anything: the code is prefix
/// free, so a code no longer than the remaining input is found correctly,
/// and a longer one means the input ends inside a code.
#[inline(always)]
fn symbol(buf: u64) -> (usize, u32) {
    let entry = FAST[(buf >> (64 - FAST_BITS)) as usize];
    if entry != 0 {
        return ((entry & 0xff) as usize, (entry >> 8) as u32);
    }
    long_symbol(buf)
}

#[inline(never)]
fn long_symbol(buf: u64) -> (usize, u32) {
    let c = &CANONICAL;
    let window = buf >> 32;
    // Not in FAST, so the code is longer than FAST_BITS; the limit for
    // MAX_LEN is 2^32, which ends the search.
    let mut len = FAST_BITS as usize + 1;
    while window >= c.limit[len] {
        len += 1;
    }
    let code = (window >> (32 - len)) as u32;
    let index = c.first_index[len] as u32 + (code - c.first_code[len]);
    (c.symbols[index as usize] as usize, len as u32)
}

fn check_padding(buf: u64, n: u32) -> Result<(), HpackError> {
    if n > 7 {
        return Err(LONG_PADDING);
    }
    if buf >> (64 - n) != (1 << n) - 1 {
        return Err(BAD_PADDING);
    }
    Ok(())
}

/// Input bits, most significant first: the next `n` bits are the top of
/// `buf`. Bits below them are zero or the input's following bits.
struct Bits<'a> {
    src: &'a [u8],
    pos: usize,
    buf: u64,
    n: u32,
}

impl<'a> Bits<'a> {
    fn new(src: &'a [u8]) -> Bits<'a> {
        Bits {
            src,
            pos: 0,
            buf: 0,
            n: 0,
        }
    }

    /// Makes sure the window holds a whole code of any length, unless the
    /// input ends first.
    #[inline(always)]
    fn top_up(&mut self) {
        if self.n < MAX_LEN as u32 {
            self.refill();
        }
    }

    /// `top_up`, then whether the window holds a whole code of any length.
    #[inline(always)]
    fn fill(&mut self) -> bool {
        self.top_up();
        self.n >= MAX_LEN as u32
    }

    /// Tops `buf` up to at least 56 bits, or to the end of the input.
    /// Requires `n < 64`.
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(word) = self.src[self.pos..].first_chunk::<8>() {
            // Loads 8 bytes but counts only the whole bytes that fit; the
            // rest are loaded again, at the same positions, next time.
            self.buf |= u64::from_be_bytes(*word) >> self.n;
            self.pos += ((63 - self.n) >> 3) as usize;
            self.n |= 56;
        } else {
            while self.n <= 56 && self.pos < self.src.len() {
                self.buf |= (self.src[self.pos] as u64) << (56 - self.n);
                self.pos += 1;
                self.n += 8;
            }
        }
    }

    #[inline(always)]
    fn consume(&mut self, len: u32) {
        self.buf <<= len;
        self.n -= len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn round_trip(input: &[u8]) {
        let mut enc = Vec::new();
        encode(input, &mut enc);
        assert_eq!(enc.len(), encoded_len(input));
        let mut dec = Vec::new();
        decode(&enc, &mut dec).unwrap();
        assert_eq!(dec, input);
        assert_eq!(decoded_len(&enc).unwrap(), input.len());
    }

    #[test]
    fn rfc_examples() {
        // RFC 7541 C.4.1 and C.6.1.
        let cases: [(&str, &str); 4] = [
            ("www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"),
            ("no-cache", "a8eb 1064 9cbf"),
            ("302", "6402"),
            (
                "Mon, 21 Oct 2013 20:13:21 GMT",
                "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff",
            ),
        ];
        for (plain, coded) in cases {
            let mut enc = Vec::new();
            encode(plain.as_bytes(), &mut enc);
            assert_eq!(enc, hex(coded), "{plain}");
            let mut dec = Vec::new();
            decode(&hex(coded), &mut dec).unwrap();
            assert_eq!(dec, plain.as_bytes());
        }
    }

    #[test]
    fn every_byte_round_trips() {
        for b in 0..=255u8 {
            round_trip(&[b]);
            round_trip(&[b, b, b]);
            round_trip(&[b'a', b, b'z']);
        }
        let all: Vec<u8> = (0..=255).collect();
        round_trip(&all);
        let reversed: Vec<u8> = (0..=255).rev().collect();
        round_trip(&reversed);
        round_trip(b"");
    }

    #[test]
    fn pseudo_random_strings_round_trip() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..2000 {
            let len = (next() % 80) as usize;
            let input: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next();
                    // Mostly header-like text, sometimes any byte.
                    if i % 3 == 0 {
                        r as u8
                    } else {
                        b' ' + (r % 95) as u8
                    }
                })
                .collect();
            round_trip(&input);
        }
    }

    #[test]
    fn decoded_len_agrees_with_decode() {
        let inputs: [&[u8]; 4] = [
            b"nginx/1.24.0",
            b"\"6571f2a4-267\"",
            b"text/html; charset=utf-8",
            &[0, 1, 2, 200, 255, 127, b'~'],
        ];
        for input in inputs {
            let mut enc = Vec::new();
            encode(input, &mut enc);
            let mut dec = Vec::new();
            decode(&enc, &mut dec).unwrap();
            assert_eq!(decoded_len(&enc).unwrap(), dec.len());
        }
    }

    #[test]
    fn decoded_len_agrees_with_decode_on_any_input() {
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut valid = 0;
        for _ in 0..200_000 {
            let len = (next() % 12) as usize;
            // Mostly ones, so that padding and long codes come up often.
            let input: Vec<u8> = (0..len).map(|_| (next() | next()) as u8).collect();
            let mut dec = Vec::new();
            let decoded = decode(&input, &mut dec).map(|()| dec.len());
            assert_eq!(decoded_len(&input), decoded, "{input:02x?}");
            valid += decoded.is_ok() as u32;
        }
        assert!(valid > 1000, "only {valid} valid inputs");
    }

    #[test]
    fn rejects_eos() {
        // EOS alone (30 ones) padded with two ones.
        let eos = [0xff, 0xff, 0xff, 0xff];
        assert_eq!(decode(&eos, &mut Vec::new()), Err(EOS_IN_STRING));
        assert_eq!(decoded_len(&eos), Err(EOS_IN_STRING));
        // 'a' (00011) then EOS then padding.
        let mut bits: u64 = 0b00011;
        bits = bits << 30 | 0x3fff_ffff;
        bits = bits << 5 | 0b11111;
        let v = bits.to_be_bytes()[3..].to_vec();
        assert_eq!(decoded_len(&v), Err(EOS_IN_STRING));
        // EOS after a long run of short codes, reached in the fast loop.
        let mut long = Vec::new();
        encode(&[b'0'; 40], &mut long);
        long.pop();
        long.extend_from_slice(&[0xff; 5]);
        assert!(decoded_len(&long).is_err());
    }

    #[test]
    fn rejects_long_padding() {
        // '0' is 00000; one whole byte of ones after it is 8+3 bits.
        assert_eq!(decoded_len(&[0b0000_0111, 0xff]), Err(LONG_PADDING));
        assert_eq!(decoded_len(&[0xff]), Err(LONG_PADDING));
        assert_eq!(decoded_len(&[0xff, 0xff]), Err(LONG_PADDING));
    }

    #[test]
    fn rejects_padding_other_than_ones() {
        // '0' (00000) then 011 as padding.
        assert_eq!(decoded_len(&[0b0000_0011]), Err(BAD_PADDING));
        let mut v = Vec::new();
        // 11 bits of codes, 5 of padding.
        encode(b"ab", &mut v);
        *v.last_mut().unwrap() &= 0xfe;
        assert!(decoded_len(&v).is_err());
    }

    #[test]
    fn accepts_exact_fit_and_short_padding() {
        // Eight '0' symbols are exactly 5 bytes, no padding.
        assert_eq!(decoded_len(&[0; 5]).unwrap(), 8);
        // '0' with 3 bits of padding.
        assert_eq!(decoded_len(&[0b0000_0111]).unwrap(), 1);
        assert_eq!(decoded_len(&[]).unwrap(), 0);
    }
}
