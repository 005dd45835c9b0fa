//! Parsing of the query parameters that shape a response.

use std::fmt;
use std::time::Duration;

use http::StatusCode;

/// Largest body `s=` may ask for. Bodies are sliced from a shared filler
/// buffer, so this bounds the time a single response takes, not memory.
pub(crate) const MAX_SIZE: u64 = 1 << 30;

/// Longest `delay=` accepted; anything longer is almost certainly a typo.
pub(crate) const MAX_DELAY: Duration = Duration::from_secs(3600);

/// How the response to one request should look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Body size in bytes; `None` means the default `hello, world\n` body.
    pub size: Option<u64>,
    pub delay: Option<Duration>,
    pub status: StatusCode,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            size: None,
            delay: None,
            status: StatusCode::OK,
        }
    }
}

/// A parameter with a value we can't use; displayed as a one-line message
/// that becomes the body of the 400 response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct QueryError {
    param: &'static str,
    value: String,
    expected: &'static str,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {}={:?}: expected {}",
            self.param, self.value, self.expected
        )
    }
}

impl std::error::Error for QueryError {}

/// Parses `s`, `delay` and `status`; other parameters are ignored and the
/// last occurrence of a repeated parameter wins.
pub(crate) fn parse_query(query: &str) -> Result<Shape, QueryError> {
    let mut shape = Shape::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let invalid = |param, expected| QueryError {
            param,
            value: value.to_owned(),
            expected,
        };
        match key {
            "s" => {
                let size = parse_size(value)
                    .ok_or_else(|| invalid("s", "a size up to 1g like 100, 16k or 2m"))?;
                shape.size = Some(size);
            }
            "delay" => {
                let delay = parse_duration(value).ok_or_else(|| {
                    invalid("delay", "a duration up to 1h like 500us, 10ms, 1s or 2")
                })?;
                shape.delay = Some(delay);
            }
            "status" => {
                shape.status = parse_status(value)
                    .ok_or_else(|| invalid("status", "a status code from 200 to 599"))?;
            }
            _ => {}
        }
    }
    Ok(shape)
}

/// Bytes, with an optional `k`, `m` or `g` (powers of 1024, either case).
pub(crate) fn parse_size(s: &str) -> Option<u64> {
    let (digits, multiplier) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 1 << 10),
        b'm' | b'M' => (&s[..s.len() - 1], 1 << 20),
        b'g' | b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    let n = parse_digits(digits)?.checked_mul(multiplier)?;
    (n <= MAX_SIZE).then_some(n)
}

/// A decimal number with an optional unit `us`, `ms` or `s`; no unit means
/// seconds. Parsed exactly (no floats) so `10ms` is precisely 10 ms.
pub(crate) fn parse_duration(s: &str) -> Option<Duration> {
    let (number, unit_nanos): (&str, u128) = if let Some(n) = s.strip_suffix("us") {
        (n, 1_000)
    } else if let Some(n) = s.strip_suffix("ms") {
        (n, 1_000_000)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1_000_000_000)
    } else {
        (s, 1_000_000_000)
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let whole = if whole.is_empty() {
        0
    } else {
        parse_digits(whole)?
    };
    let mut nanos = u128::from(whole).checked_mul(unit_nanos)?;
    if !fraction.is_empty() {
        // More than 18 fractional digits can't matter and would overflow.
        let digits = fraction.get(..fraction.len().min(18))?;
        let frac = u128::from(parse_digits(digits)?);
        nanos += frac * unit_nanos / 10u128.pow(digits.len() as u32);
        if !fraction[digits.len()..].bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
    }
    let delay = Duration::from_nanos(u64::try_from(nanos).ok()?);
    (delay <= MAX_DELAY).then_some(delay)
}

/// A final (non-1xx) status code.
pub(crate) fn parse_status(s: &str) -> Option<StatusCode> {
    let code = u16::try_from(parse_digits(s)?).ok()?;
    if !(200..=599).contains(&code) {
        return None;
    }
    StatusCode::from_u16(code).ok()
}

/// Plain ASCII digits only: `u64::from_str` would also take a leading `+`.
fn parse_digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size("100"), Some(100));
        assert_eq!(parse_size("1k"), Some(1024));
        assert_eq!(parse_size("256K"), Some(256 * 1024));
        assert_eq!(parse_size("2m"), Some(2 << 20));
        assert_eq!(parse_size("3M"), Some(3 << 20));
        assert_eq!(parse_size("1g"), Some(1 << 30));
        assert_eq!(parse_size("1024m"), Some(1 << 30));
    }

    #[test]
    fn invalid_sizes() {
        for s in [
            "",
            "k",
            "-1",
            "+1",
            "1.5k",
            "1kb",
            "abc",
            "1 k",
            "2g",
            "1025m",
            "99999999999999999999",
            "18446744073709551615k",
        ] {
            assert_eq!(parse_size(s), None, "{s:?}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms"), Some(Duration::from_millis(10)));
        assert_eq!(parse_duration("1s"), Some(Duration::from_secs(1)));
        assert_eq!(parse_duration("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_duration("500us"), Some(Duration::from_micros(500)));
        assert_eq!(parse_duration("0"), Some(Duration::ZERO));
        assert_eq!(parse_duration("1.5ms"), Some(Duration::from_micros(1500)));
        assert_eq!(parse_duration("0.25"), Some(Duration::from_millis(250)));
        assert_eq!(parse_duration(".5s"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("1."), Some(Duration::from_secs(1)));
        assert_eq!(parse_duration("3600s"), Some(MAX_DELAY));
    }

    #[test]
    fn invalid_durations() {
        for s in [
            "",
            "ms",
            "s",
            ".",
            "-1s",
            "1h",
            "1m",
            "1 ms",
            "1.2.3",
            "abc",
            "1e3",
            "3601",
            "99999999999999999999s",
            "1.x",
        ] {
            assert_eq!(parse_duration(s), None, "{s:?}");
        }
    }

    #[test]
    fn statuses() {
        assert_eq!(parse_status("200"), Some(StatusCode::OK));
        assert_eq!(parse_status("503"), Some(StatusCode::SERVICE_UNAVAILABLE));
        assert_eq!(parse_status("599").map(|s| s.as_u16()), Some(599));
        for s in [
            "", "100", "101", "199", "600", "99", "2000", "abc", "-200", "20x",
        ] {
            assert_eq!(parse_status(s), None, "{s:?}");
        }
    }

    #[test]
    fn empty_query_is_default() {
        assert_eq!(parse_query(""), Ok(Shape::default()));
        assert_eq!(parse_query("&&"), Ok(Shape::default()));
    }

    #[test]
    fn combined() {
        let shape = parse_query("s=1k&delay=5ms&status=503").unwrap();
        assert_eq!(
            shape,
            Shape {
                size: Some(1024),
                delay: Some(Duration::from_millis(5)),
                status: StatusCode::SERVICE_UNAVAILABLE,
            }
        );
    }

    #[test]
    fn unknown_ignored_and_last_wins() {
        let shape = parse_query("foo=bar&s=1&x&s=2").unwrap();
        assert_eq!(shape.size, Some(2));
        assert_eq!(shape.delay, None);
        assert_eq!(shape.status, StatusCode::OK);
    }

    #[test]
    fn invalid_params() {
        let err = parse_query("s=12q").unwrap_err();
        assert_eq!(err.param, "s");
        assert!(err.to_string().starts_with("invalid s=\"12q\": expected"));
        assert!(!err.to_string().contains('\n'));
        assert_eq!(parse_query("delay=soon").unwrap_err().param, "delay");
        assert_eq!(parse_query("status=100").unwrap_err().param, "status");
        assert_eq!(parse_query("s").unwrap_err().param, "s");
        assert_eq!(parse_query("s=1&status=").unwrap_err().param, "status");
    }
}
