//! What a response header field says that the client acts on: the status,
//! and the length the body must have. Every other field only counts for
//! its size. The dynamic table keeps a field's meaning instead of its
//! bytes, so a field sent once and referred to by index afterwards means
//! the same every time.

/// What one field means. Flat, so that an entry of the dynamic table
/// stays small: it is copied for every field a block refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Meaning {
    /// Any other field.
    None,
    /// `:status` and its code.
    Status(u16),
    /// `:status` whose value is not 3 ASCII digits.
    BadStatus,
    /// `content-length` and its value.
    ContentLength(u64),
    /// `content-length` whose value is not a number (RFC 9110 section
    /// 8.6: one or more digits).
    BadContentLength,
}

/// Which field with a meaning a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Name {
    Other,
    Status,
    ContentLength,
}

/// The names Huffman-coded. A string has exactly one valid Huffman coding
/// (padding is fixed by the code lengths), so comparing coded bytes is
/// comparing names.
pub(super) const STATUS_HUFFMAN: [u8; 5] = [0xb8, 0x84, 0x8d, 0x36, 0xa3];
pub(super) const CONTENT_LENGTH_HUFFMAN: [u8; 10] =
    [0x21, 0xea, 0x49, 0x6a, 0x4a, 0xd4, 0x16, 0xa9, 0x93, 0x3f];

impl Name {
    pub(super) fn of(name: &[u8]) -> Name {
        match name {
            b":status" => Name::Status,
            b"content-length" => Name::ContentLength,
            _ => Name::Other,
        }
    }

    pub(super) fn of_huffman(coded: &[u8]) -> Name {
        match coded {
            c if c == STATUS_HUFFMAN => Name::Status,
            c if c == CONTENT_LENGTH_HUFFMAN => Name::ContentLength,
            _ => Name::Other,
        }
    }

    /// What a field of this name with `value` means.
    pub(super) fn meaning(self, value: &[u8]) -> Meaning {
        match self {
            Name::Other => Meaning::None,
            Name::Status => status(value).map_or(Meaning::BadStatus, Meaning::Status),
            Name::ContentLength => {
                length(value).map_or(Meaning::BadContentLength, Meaning::ContentLength)
            }
        }
    }
}

impl Meaning {
    pub(super) fn name(self) -> Name {
        match self {
            Meaning::None => Name::Other,
            Meaning::Status(_) | Meaning::BadStatus => Name::Status,
            Meaning::ContentLength(_) | Meaning::BadContentLength => Name::ContentLength,
        }
    }
}

fn status(value: &[u8]) -> Option<u16> {
    match *value {
        [a, b, c] if value.iter().all(u8::is_ascii_digit) => {
            let digit = |d: u8| u16::from(d - b'0');
            Some(digit(a) * 100 + digit(b) * 10 + digit(c))
        }
        _ => None,
    }
}

/// As nghttp2 reads it: digits only, at least one, and a number that fits.
/// Every response has one, so the usual value, of at most 19 digits (which
/// cannot overflow), is read without checked arithmetic.
fn length(value: &[u8]) -> Option<u64> {
    if value.is_empty() {
        return None;
    }
    if value.len() <= 19 {
        let mut n = 0u64;
        for &b in value {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                return None;
            }
            n = n * 10 + u64::from(digit);
        }
        return Some(n);
    }
    value.iter().try_fold(0u64, |n, &b| {
        if !b.is_ascii_digit() {
            return None;
        }
        n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hpack::huffman;

    #[test]
    fn a_meaning_is_as_small_as_a_length() {
        assert_eq!(std::mem::size_of::<Meaning>(), 16);
    }

    #[test]
    fn huffman_names_are_the_encodings() {
        for (name, coded) in [
            (&b":status"[..], &STATUS_HUFFMAN[..]),
            (b"content-length", &CONTENT_LENGTH_HUFFMAN[..]),
        ] {
            let mut encoded = Vec::new();
            huffman::encode(name, &mut encoded);
            assert_eq!(encoded, coded, "{}", String::from_utf8_lossy(name));
            assert_eq!(Name::of_huffman(coded), Name::of(name));
        }
    }

    #[test]
    fn status_values() {
        let status = |v: &[u8]| Name::Status.meaning(v);
        assert_eq!(status(b"200"), Meaning::Status(200));
        assert_eq!(status(b"099"), Meaning::Status(99));
        for bad in [&b"20"[..], b"2000", b"2x0", b" 200", b""] {
            assert_eq!(status(bad), Meaning::BadStatus, "{bad:?}");
        }
    }

    #[test]
    fn content_length_values() {
        let length = |v: &[u8]| Name::ContentLength.meaning(v);
        assert_eq!(length(b"0"), Meaning::ContentLength(0));
        assert_eq!(length(b"013"), Meaning::ContentLength(13));
        assert_eq!(
            length(b"9999999999999999999"),
            Meaning::ContentLength(9_999_999_999_999_999_999)
        );
        assert_eq!(
            length(b"18446744073709551615"),
            Meaning::ContentLength(u64::MAX)
        );
        assert_eq!(
            length(b"000000000000000000000042"),
            Meaning::ContentLength(42)
        );
        for bad in [
            &b""[..],
            b"-1",
            b" 13",
            b"13 ",
            b"1,3",
            b"0x10",
            b"1/",
            b"18446744073709551616",
        ] {
            assert_eq!(length(bad), Meaning::BadContentLength, "{bad:?}");
        }
        assert_eq!(Name::of(b"content-type").meaning(b"1"), Meaning::None);
    }
}
