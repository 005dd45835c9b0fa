//! The static table (RFC 7541 Appendix A); index `i` is `STATIC_TABLE[i - 1]`.

pub(super) const STATIC_TABLE: [(&str, &str); 61] = [
    (":authority", ""),
    (":method", "GET"),
    (":method", "POST"),
    (":path", "/"),
    (":path", "/index.html"),
    (":scheme", "http"),
    (":scheme", "https"),
    (":status", "200"),
    (":status", "204"),
    (":status", "206"),
    (":status", "304"),
    (":status", "400"),
    (":status", "404"),
    (":status", "500"),
    ("accept-charset", ""),
    ("accept-encoding", "gzip, deflate"),
    ("accept-language", ""),
    ("accept-ranges", ""),
    ("accept", ""),
    ("access-control-allow-origin", ""),
    ("age", ""),
    ("allow", ""),
    ("authorization", ""),
    ("cache-control", ""),
    ("content-disposition", ""),
    ("content-encoding", ""),
    ("content-language", ""),
    ("content-length", ""),
    ("content-location", ""),
    ("content-range", ""),
    ("content-type", ""),
    ("cookie", ""),
    ("date", ""),
    ("etag", ""),
    ("expect", ""),
    ("expires", ""),
    ("from", ""),
    ("host", ""),
    ("if-match", ""),
    ("if-modified-since", ""),
    ("if-none-match", ""),
    ("if-range", ""),
    ("if-unmodified-since", ""),
    ("last-modified", ""),
    ("link", ""),
    ("location", ""),
    ("max-forwards", ""),
    ("proxy-authenticate", ""),
    ("proxy-authorization", ""),
    ("range", ""),
    ("referer", ""),
    ("refresh", ""),
    ("retry-after", ""),
    ("server", ""),
    ("set-cookie", ""),
    ("strict-transport-security", ""),
    ("transfer-encoding", ""),
    ("user-agent", ""),
    ("vary", ""),
    ("via", ""),
    ("www-authenticate", ""),
];

/// Indexes whose name is `:status`, and their values as numbers.
pub(super) const STATUS_INDEXES: std::ops::RangeInclusive<usize> = 8..=14;
pub(super) const STATUS_CODES: [u16; 7] = [200, 204, 206, 304, 400, 404, 500];
/// The index whose name is `content-length`.
pub(super) const CONTENT_LENGTH_INDEX: usize = 28;

/// How the static table can represent a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Match {
    /// Name and value: the index alone represents the field.
    Field(usize),
    /// Name only.
    Name(usize),
    None,
}

/// Searches the static table for `name` (and `value`). Linear: it runs
/// once per distinct request, not per request sent.
pub(super) fn find(name: &str, value: &str) -> Match {
    let mut found = Match::None;
    for (i, &(n, v)) in STATIC_TABLE.iter().enumerate() {
        if n == name {
            if v == value {
                return Match::Field(i + 1);
            }
            if found == Match::None {
                found = Match::Name(i + 1);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_entries() {
        for (i, code) in STATUS_INDEXES.zip(STATUS_CODES) {
            assert_eq!(STATIC_TABLE[i - 1], (":status", code.to_string().as_str()));
        }
        assert_eq!(STATIC_TABLE.iter().filter(|e| e.0 == ":status").count(), 7);
        assert_eq!(
            STATIC_TABLE[CONTENT_LENGTH_INDEX - 1],
            ("content-length", "")
        );
    }

    #[test]
    fn spot_checks() {
        assert_eq!(STATIC_TABLE[0].0, ":authority");
        assert_eq!(STATIC_TABLE[23].0, "cache-control");
        assert_eq!(STATIC_TABLE[32].0, "date");
        assert_eq!(STATIC_TABLE[53].0, "server");
        assert_eq!(STATIC_TABLE[60].0, "www-authenticate");
        // Names are lowercase and sorted by name after the pseudo-headers.
        for pair in STATIC_TABLE[14..].windows(2) {
            assert!(
                pair[0].0 <= pair[1].0 || pair[0].0 == "accept-ranges",
                "{pair:?}"
            );
        }
    }

    #[test]
    fn find_prefers_full_match() {
        assert_eq!(find(":method", "GET"), Match::Field(2));
        assert_eq!(find(":method", "POST"), Match::Field(3));
        assert_eq!(find(":method", "PUT"), Match::Name(2));
        assert_eq!(find(":path", "/index.html"), Match::Field(5));
        assert_eq!(find(":authority", "example.com"), Match::Name(1));
        assert_eq!(find("user-agent", "x"), Match::Name(58));
        assert_eq!(find("x-custom", ""), Match::None);
    }
}
