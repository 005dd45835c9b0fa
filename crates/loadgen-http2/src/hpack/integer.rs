//! Prefix-coded integers (RFC 7541 section 5.1).

use super::HpackError;

pub(super) const TRUNCATED: HpackError = HpackError("header block ends inside an integer");
pub(super) const TOO_LARGE: HpackError = HpackError("integer larger than 2^32-1");
pub(super) const TOO_LONG: HpackError = HpackError("integer encoded in more than 6 bytes");

/// Decodes the integer whose prefix is the low `prefix_bits` bits of
/// `src[*pos]` and advances `pos` past it. Values above `u32::MAX` are
/// rejected, and so are encodings padded with more than the 5 continuation
/// bytes such a value needs, which would only serve to waste our time.
#[inline(always)]
pub fn decode(src: &[u8], pos: &mut usize, prefix_bits: u32) -> Result<usize, HpackError> {
    let mask = ((1u32 << prefix_bits) - 1) as u8;
    let Some(&first) = src.get(*pos) else {
        return Err(TRUNCATED);
    };
    *pos += 1;
    let value = first & mask;
    if value < mask {
        return Ok(value as usize);
    }
    decode_continuation(src, pos, mask as u64)
}

fn decode_continuation(src: &[u8], pos: &mut usize, mut value: u64) -> Result<usize, HpackError> {
    let mut shift = 0;
    loop {
        let Some(&b) = src.get(*pos) else {
            return Err(TRUNCATED);
        };
        *pos += 1;
        value += ((b & 0x7f) as u64) << shift;
        if value > u32::MAX as u64 {
            return Err(TOO_LARGE);
        }
        if b & 0x80 == 0 {
            return Ok(value as usize);
        }
        shift += 7;
        if shift > 28 {
            return Err(TOO_LONG);
        }
    }
}

/// Appends `value` with a `prefix_bits`-bit prefix; `flags` supplies the
/// first byte's bits above the prefix.
pub fn encode(value: usize, prefix_bits: u32, flags: u8, dst: &mut Vec<u8>) {
    let mask = (1usize << prefix_bits) - 1;
    if value < mask {
        dst.push(flags | value as u8);
        return;
    }
    dst.push(flags | mask as u8);
    let mut rest = value - mask;
    while rest >= 0x80 {
        dst.push(0x80 | (rest & 0x7f) as u8);
        rest >>= 7;
    }
    dst.push(rest as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(value: usize, prefix: u32) -> Vec<u8> {
        let mut v = Vec::new();
        encode(value, prefix, 0, &mut v);
        v
    }

    fn dec(src: &[u8], prefix: u32) -> Result<usize, HpackError> {
        let mut pos = 0;
        let v = decode(src, &mut pos, prefix)?;
        assert_eq!(pos, src.len(), "did not consume the whole encoding");
        Ok(v)
    }

    #[test]
    fn rfc_examples() {
        // RFC 7541 C.1.1 - C.1.3.
        assert_eq!(enc(10, 5), [0x0a]);
        assert_eq!(enc(1337, 5), [0x1f, 0x9a, 0x0a]);
        assert_eq!(enc(42, 8), [0x2a]);
        assert_eq!(dec(&[0x0a], 5), Ok(10));
        assert_eq!(dec(&[0x1f, 0x9a, 0x0a], 5), Ok(1337));
        assert_eq!(dec(&[0x2a], 8), Ok(42));
    }

    #[test]
    fn prefix_boundaries() {
        for prefix in 1..=8 {
            let max = (1usize << prefix) - 1;
            assert_eq!(enc(max - 1, prefix), [(max - 1) as u8]);
            assert_eq!(enc(max, prefix), [max as u8, 0]);
            assert_eq!(enc(max + 127, prefix), [max as u8, 0x7f]);
            assert_eq!(enc(max + 128, prefix), [max as u8, 0x80, 0x01]);
            for v in [0, max - 1, max, max + 1, max + 127, max + 128, 1 << 20] {
                assert_eq!(dec(&enc(v, prefix), prefix), Ok(v), "{v} / {prefix}");
            }
        }
    }

    #[test]
    fn flag_bits_are_ignored_and_kept() {
        let mut v = Vec::new();
        encode(3, 6, 0x40, &mut v);
        assert_eq!(v, [0x43]);
        assert_eq!(dec(&[0xc3], 6), Ok(3));
        assert_eq!(dec(&[0xff, 0x00], 7), Ok(127));
    }

    #[test]
    fn u32_max_is_the_limit() {
        let max = u32::MAX as usize;
        for prefix in [4, 5, 6, 7] {
            assert_eq!(dec(&enc(max, prefix), prefix), Ok(max));
            assert_eq!(dec(&enc(max + 1, prefix), prefix), Err(TOO_LARGE));
        }
        assert_eq!(
            dec(&[0x7f, 0xff, 0xff, 0xff, 0xff, 0x7f], 7),
            Err(TOO_LARGE)
        );
    }

    #[test]
    fn overlong_encodings_rejected() {
        // Zero padded with continuation bytes: 5 are accepted, 6 are not.
        assert_eq!(dec(&[0x1f, 0x80, 0x80, 0x80, 0x80, 0x00], 5), Ok(31));
        assert_eq!(
            dec(&[0x1f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 5),
            Err(TOO_LONG)
        );
        assert_eq!(
            dec(&[0x1f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80], 5),
            Err(TOO_LONG)
        );
    }

    #[test]
    fn truncated() {
        assert_eq!(dec(&[], 5), Err(TRUNCATED));
        assert_eq!(dec(&[0x1f], 5), Err(TRUNCATED));
        assert_eq!(dec(&[0x1f, 0x9a], 5), Err(TRUNCATED));
    }
}
