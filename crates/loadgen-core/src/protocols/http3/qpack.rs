//! QPACK (RFC 9204) as a client that never uses the dynamic table: it
//! advertises a table capacity of 0, so the server may only send static
//! references and literals, and every request's field section is encoded
//! once per run (as HTTP/2's `RequestBlocks` are) instead of per request.
//! Huffman coding is HPACK's (RFC 7541 Appendix B), shared with HTTP/2.

use loadgen_http2::hpack::{huffman, integer};

/// RFC 9204 Appendix A.
const STATIC_TABLE: [(&[u8], &[u8]); 99] = [
    (b":authority", b""),
    (b":path", b"/"),
    (b"age", b"0"),
    (b"content-disposition", b""),
    (b"content-length", b"0"),
    (b"cookie", b""),
    (b"date", b""),
    (b"etag", b""),
    (b"if-modified-since", b""),
    (b"if-none-match", b""),
    (b"last-modified", b""),
    (b"link", b""),
    (b"location", b""),
    (b"referer", b""),
    (b"set-cookie", b""),
    (b":method", b"CONNECT"),
    (b":method", b"DELETE"),
    (b":method", b"GET"),
    (b":method", b"HEAD"),
    (b":method", b"OPTIONS"),
    (b":method", b"POST"),
    (b":method", b"PUT"),
    (b":scheme", b"http"),
    (b":scheme", b"https"),
    (b":status", b"103"),
    (b":status", b"200"),
    (b":status", b"304"),
    (b":status", b"404"),
    (b":status", b"503"),
    (b"accept", b"*/*"),
    (b"accept", b"application/dns-message"),
    (b"accept-encoding", b"gzip, deflate, br"),
    (b"accept-ranges", b"bytes"),
    (b"access-control-allow-headers", b"cache-control"),
    (b"access-control-allow-headers", b"content-type"),
    (b"access-control-allow-origin", b"*"),
    (b"cache-control", b"max-age=0"),
    (b"cache-control", b"max-age=2592000"),
    (b"cache-control", b"max-age=604800"),
    (b"cache-control", b"no-cache"),
    (b"cache-control", b"no-store"),
    (b"cache-control", b"public, max-age=31536000"),
    (b"content-encoding", b"br"),
    (b"content-encoding", b"gzip"),
    (b"content-type", b"application/dns-message"),
    (b"content-type", b"application/javascript"),
    (b"content-type", b"application/json"),
    (b"content-type", b"application/x-www-form-urlencoded"),
    (b"content-type", b"image/gif"),
    (b"content-type", b"image/jpeg"),
    (b"content-type", b"image/png"),
    (b"content-type", b"text/css"),
    (b"content-type", b"text/html; charset=utf-8"),
    (b"content-type", b"text/plain"),
    (b"content-type", b"text/plain;charset=utf-8"),
    (b"range", b"bytes=0-"),
    (b"strict-transport-security", b"max-age=31536000"),
    (
        b"strict-transport-security",
        b"max-age=31536000; includesubdomains",
    ),
    (
        b"strict-transport-security",
        b"max-age=31536000; includesubdomains; preload",
    ),
    (b"vary", b"accept-encoding"),
    (b"vary", b"origin"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-xss-protection", b"1; mode=block"),
    (b":status", b"100"),
    (b":status", b"204"),
    (b":status", b"206"),
    (b":status", b"302"),
    (b":status", b"400"),
    (b":status", b"403"),
    (b":status", b"421"),
    (b":status", b"425"),
    (b":status", b"500"),
    (b"accept-language", b""),
    (b"access-control-allow-credentials", b"FALSE"),
    (b"access-control-allow-credentials", b"TRUE"),
    (b"access-control-allow-headers", b"*"),
    (b"access-control-allow-methods", b"get"),
    (b"access-control-allow-methods", b"get, post, options"),
    (b"access-control-allow-methods", b"options"),
    (b"access-control-expose-headers", b"content-length"),
    (b"access-control-request-headers", b"content-type"),
    (b"access-control-request-method", b"get"),
    (b"access-control-request-method", b"post"),
    (b"alt-svc", b"clear"),
    (b"authorization", b""),
    (
        b"content-security-policy",
        b"script-src 'none'; object-src 'none'; base-uri 'none'",
    ),
    (b"early-data", b"1"),
    (b"expect-ct", b""),
    (b"forwarded", b""),
    (b"if-range", b""),
    (b"origin", b""),
    (b"purpose", b"prefetch"),
    (b"server", b""),
    (b"timing-allow-origin", b"*"),
    (b"upgrade-insecure-requests", b"1"),
    (b"user-agent", b""),
    (b"x-forwarded-for", b""),
    (b"x-frame-options", b"deny"),
    (b"x-frame-options", b"sameorigin"),
];

/// Why a response's field section could not be decoded.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum DecodeError {
    /// It refers to the dynamic table, which this client allows no entries in.
    DynamicReference,
    /// A static index past the table's end.
    BadIndex(u64),
    /// It ends inside a field line, or an integer overflows.
    Truncated,
    /// A Huffman-coded string that does not decode.
    Huffman,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::DynamicReference => {
                f.write_str("the response refers to the QPACK dynamic table, whose capacity is 0")
            }
            DecodeError::BadIndex(index) => {
                write!(f, "QPACK static index {index} is out of the table")
            }
            DecodeError::Truncated => f.write_str("a QPACK field section ends inside a field line"),
            DecodeError::Huffman => f.write_str("a QPACK string is not valid Huffman code"),
        }
    }
}

/// QPACK's prefix integers are HPACK's (RFC 9204 §4.1.1); values past
/// `u32::MAX` are refused.
fn put_int(out: &mut Vec<u8>, flags: u8, n: u32, value: u64) {
    integer::encode(value as usize, n, flags, out);
}

fn get_int(input: &[u8], at: &mut usize, n: u32) -> Result<u64, DecodeError> {
    integer::decode(input, at, n)
        .map(|value| value as u64)
        .map_err(|_| DecodeError::Truncated)
}

/// Appends a string literal: `flags` above an H bit at `huffman_bit` and an
/// integer prefix of the bits below it; Huffman-coded when that is shorter.
fn put_string(out: &mut Vec<u8>, flags: u8, huffman_bit: u8, text: &[u8]) {
    let n = huffman_bit.trailing_zeros();
    let coded = huffman::encoded_len(text);
    if coded < text.len() {
        put_int(out, flags | huffman_bit, n, coded as u64);
        huffman::encode(text, out);
    } else {
        put_int(out, flags, n, text.len() as u64);
        out.extend_from_slice(text);
    }
}

/// Reads a string literal whose H bit is `huffman_bit` of the first byte;
/// a Huffman-coded one is decoded into `scratch` from `from` on. Returns
/// where the text is: in `input` or in `scratch`.
fn get_string(
    input: &[u8],
    at: &mut usize,
    huffman_bit: u8,
    scratch: &mut Vec<u8>,
) -> Result<Text, DecodeError> {
    let coded = input.get(*at).ok_or(DecodeError::Truncated)? & huffman_bit != 0;
    let len = get_int(input, at, huffman_bit.trailing_zeros())?;
    let start = *at;
    let end = start
        .checked_add(usize::try_from(len).map_err(|_| DecodeError::Truncated)?)
        .filter(|end| *end <= input.len())
        .ok_or(DecodeError::Truncated)?;
    *at = end;
    if coded {
        let from = scratch.len();
        huffman::decode(&input[start..end], scratch).map_err(|_| DecodeError::Huffman)?;
        Ok(Text::Scratch(from, scratch.len()))
    } else {
        Ok(Text::Input(start, end))
    }
}

/// Where a decoded string is: a range of the field section or of the scratch buffer.
#[derive(Clone, Copy)]
enum Text {
    Input(usize, usize),
    Scratch(usize, usize),
}

impl Text {
    fn get<'a>(self, input: &'a [u8], scratch: &'a [u8]) -> &'a [u8] {
        match self {
            Text::Input(start, end) => &input[start..end],
            Text::Scratch(start, end) => &scratch[start..end],
        }
    }
}

/// A request's field section: the pseudo-fields, then `fields` (names in
/// lower case, connection-specific ones already left out).
pub(super) fn encode_request<'a>(
    method: &'a str,
    scheme: &'a str,
    authority: &'a str,
    path: &'a str,
    fields: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<u8> {
    let pseudo = [
        (":method", method),
        (":scheme", scheme),
        (":authority", authority),
        (":path", path),
    ];
    encode_section(pseudo.into_iter().chain(fields))
}

/// A field section of `fields` in order.
pub(super) fn encode_section<'a>(fields: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<u8> {
    // Required Insert Count 0 and Delta Base 0: no dynamic table.
    let mut out = vec![0, 0];
    for (name, value) in fields {
        encode_field(&mut out, name.as_bytes(), value.as_bytes());
    }
    out
}

fn encode_field(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    if let Some(index) = STATIC_TABLE
        .iter()
        .position(|&entry| entry == (name, value))
    {
        // Indexed field line, static (T = 1).
        put_int(out, 0b1100_0000, 6, index as u64);
    } else if let Some(index) = STATIC_TABLE.iter().position(|&(n, _)| n == name) {
        // Literal with a static name reference (N = 0, T = 1).
        put_int(out, 0b0101_0000, 4, index as u64);
        put_string(out, 0, 0x80, value);
    } else {
        // Literal with a literal name (N = 0).
        put_string(out, 0b0010_0000, 0b0000_1000, name);
        put_string(out, 0, 0x80, value);
    }
}

/// Decodes a response's field section, calling `field` with each name and
/// value in order. Huffman-coded strings are decoded into `scratch`, which
/// is reused from field to field, so decoding allocates nothing once it
/// has grown.
pub(super) fn decode(
    section: &[u8],
    scratch: &mut Vec<u8>,
    mut field: impl FnMut(&[u8], &[u8]),
) -> Result<(), DecodeError> {
    let mut at = 0;
    let required_insert_count = get_int(section, &mut at, 8)?;
    if required_insert_count != 0 {
        return Err(DecodeError::DynamicReference);
    }
    // Delta Base: meaningless without the dynamic table.
    get_int(section, &mut at, 7)?;
    let static_entry = |index: u64| {
        usize::try_from(index)
            .ok()
            .and_then(|i| STATIC_TABLE.get(i))
            .ok_or(DecodeError::BadIndex(index))
    };
    while at < section.len() {
        scratch.clear();
        let first = section[at];
        if first & 0b1000_0000 != 0 {
            // Indexed field line.
            if first & 0b0100_0000 == 0 {
                return Err(DecodeError::DynamicReference);
            }
            let (name, value) = static_entry(get_int(section, &mut at, 6)?)?;
            field(name, value);
        } else if first & 0b0100_0000 != 0 {
            // Literal with a name reference.
            if first & 0b0001_0000 == 0 {
                return Err(DecodeError::DynamicReference);
            }
            let (name, _) = static_entry(get_int(section, &mut at, 4)?)?;
            let value = get_string(section, &mut at, 0x80, scratch)?;
            field(name, value.get(section, scratch));
        } else if first & 0b0010_0000 != 0 {
            // Literal with a literal name.
            let name = get_string(section, &mut at, 0b0000_1000, scratch)?;
            let value = get_string(section, &mut at, 0x80, scratch)?;
            field(name.get(section, scratch), value.get(section, scratch));
        } else {
            // Post-base references: the dynamic table again.
            return Err(DecodeError::DynamicReference);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(section: &[u8]) -> Result<Vec<(String, String)>, DecodeError> {
        let mut fields = Vec::new();
        decode(section, &mut Vec::new(), |n, v| {
            fields.push((
                String::from_utf8_lossy(n).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            ))
        })?;
        Ok(fields)
    }

    #[test]
    fn rfc_9204_b1_literal_with_static_name_reference() {
        let section = [
            0x00, 0x00, 0x51, 0x0b, 0x2f, 0x69, 0x6e, 0x64, 0x65, 0x78, 0x2e, 0x68, 0x74, 0x6d,
            0x6c,
        ];
        assert_eq!(
            decoded(&section).unwrap(),
            [(":path".to_string(), "/index.html".to_string())]
        );
    }

    #[test]
    fn requests_round_trip_through_static_references_and_literals() {
        let section = encode_request(
            "GET",
            "https",
            "localhost:8443",
            "/baseline2?a=1&b=1",
            [
                ("user-agent", "loadgen"),
                ("accept-encoding", "br;q=1, gzip;q=0.8"),
                ("x-long-custom-header-name", "v"),
            ],
        );
        // :method GET and :scheme https are one byte each.
        assert_eq!(&section[..4], &[0, 0, 0xc0 | 17, 0xc0 | 23]);
        assert_eq!(
            decoded(&section).unwrap(),
            [
                (":method", "GET"),
                (":scheme", "https"),
                (":authority", "localhost:8443"),
                (":path", "/baseline2?a=1&b=1"),
                ("user-agent", "loadgen"),
                ("accept-encoding", "br;q=1, gzip;q=0.8"),
                ("x-long-custom-header-name", "v"),
            ]
            .map(|(n, v)| (n.to_string(), v.to_string()))
        );
    }

    #[test]
    fn long_lengths_take_continuation_bytes() {
        let value = "x".repeat(300);
        let section = encode_request("POST", "https", "a", "/", [("x-big", value.as_str())]);
        let fields = decoded(&section).unwrap();
        assert_eq!(fields[4].1, value);
    }

    #[test]
    fn dynamic_references_and_truncation_are_refused() {
        assert_eq!(decoded(&[1, 0]), Err(DecodeError::DynamicReference));
        assert_eq!(decoded(&[0, 0, 0x80]), Err(DecodeError::DynamicReference));
        assert_eq!(decoded(&[0, 0, 0x40]), Err(DecodeError::DynamicReference));
        assert_eq!(decoded(&[0, 0, 0x10]), Err(DecodeError::DynamicReference));
        assert_eq!(
            decoded(&[0, 0, 0x51, 0x05, b'/']),
            Err(DecodeError::Truncated)
        );
        assert_eq!(
            decoded(&[0, 0, 0xff, 0x40]),
            Err(DecodeError::BadIndex(127))
        );
    }
}
