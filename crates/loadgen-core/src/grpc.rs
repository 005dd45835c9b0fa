//! gRPC calls as the engine counts them: a call succeeds when its
//! `grpc-status` is OK, whatever the HTTP status says, and its status is
//! named as gRPC names it (`doc/statuscodes.md` in grpc/grpc).

/// The status names, indexed by code.
pub const STATUS_NAMES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

pub const OK: u16 = 0;
pub const UNKNOWN: u16 = 2;
pub const INTERNAL: u16 = 13;

/// A status code's name; codes outside gRPC's list keep their number.
pub fn status_name(code: u16) -> String {
    match STATUS_NAMES.get(usize::from(code)) {
        Some(name) => (*name).to_string(),
        None => code.to_string(),
    }
}

/// The code a status name (or a number) stands for.
pub fn status_code(name: &str) -> Option<u16> {
    STATUS_NAMES
        .iter()
        .position(|known| known.eq_ignore_ascii_case(name))
        .map(|code| code as u16)
        .or_else(|| name.parse().ok())
}

/// A call's status from its response: the `grpc-status` field when it
/// holds a number; else, as gRPC clients do (`doc/http-grpc-status-mapping.md`),
/// one made from an HTTP status other than 200, and INTERNAL for a 200
/// without a status (the server broke the protocol).
/// `trailer` is `u16::MAX` when the field held no number.
pub fn call_status(http_status: u16, trailer: Option<u16>) -> u16 {
    match trailer {
        Some(code) if code != u16::MAX => code,
        _ if http_status == 200 => INTERNAL,
        _ => match http_status {
            400 => INTERNAL,
            401 => 16,
            403 => 7,
            404 => 12,
            429 | 502 | 503 | 504 => 14,
            _ => UNKNOWN,
        },
    }
}

/// A `grpc-message` as sent (percent-encoded UTF-8) made readable.
pub fn decode_message(encoded: &[u8]) -> String {
    let mut bytes = Vec::with_capacity(encoded.len());
    let mut rest = encoded;
    while let Some((&byte, tail)) = rest.split_first() {
        let hex = |b: u8| (b as char).to_digit(16);
        match tail {
            [high, low, after @ ..] if byte == b'%' => match (hex(*high), hex(*low)) {
                (Some(high), Some(low)) => {
                    bytes.push((high * 16 + low) as u8);
                    rest = after;
                    continue;
                }
                _ => bytes.push(byte),
            },
            _ => bytes.push(byte),
        }
        rest = tail;
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_go_both_ways() {
        for (code, name) in STATUS_NAMES.iter().enumerate() {
            assert_eq!(status_name(code as u16), *name);
            assert_eq!(status_code(name), Some(code as u16));
        }
        assert_eq!(status_code("unavailable"), Some(14));
        assert_eq!(status_name(99), "99");
        assert_eq!(status_code("99"), Some(99));
        assert_eq!(status_code("NOPE"), None);
    }

    #[test]
    fn messages_are_percent_decoded() {
        assert_eq!(decode_message(b"try%20later"), "try later");
        assert_eq!(decode_message(b"caf%C3%A9 100%"), "café 100%");
        assert_eq!(decode_message(b"%zz%4"), "%zz%4");
    }

    #[test]
    fn the_trailer_wins_and_http_statuses_stand_in_for_a_missing_one() {
        assert_eq!(call_status(200, Some(0)), OK);
        assert_eq!(call_status(200, Some(14)), 14);
        assert_eq!(call_status(503, Some(3)), 3);
        assert_eq!(call_status(200, None), INTERNAL);
        assert_eq!(call_status(200, Some(u16::MAX)), INTERNAL);
        assert_eq!(call_status(503, None), 14);
        assert_eq!(call_status(404, None), 12);
        assert_eq!(call_status(500, None), UNKNOWN);
    }
}
