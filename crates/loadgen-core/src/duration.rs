//! Durations as h2load writes them: an integer or decimal with an optional
//! unit (`h`, `m`, `s`, `ms`, `us`). No unit means seconds. Sizes as h2load
//! writes them: an integer with an optional `K`, `M` or `G`. Every flag and
//! every front end that reads a duration or a size reads it this way.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// Parses `10`, `10s`, `500ms`, `1m`, `1.5s`, `250us`, `2h`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    if number.is_empty() {
        return Err(format!(
            "invalid duration '{text}': expected a number such as 10s, 500ms or 1m"
        ));
    }
    let value: f64 = number
        .parse()
        .map_err(|_| format!("invalid duration '{text}': '{number}' is not a number"))?;
    let seconds_per_unit = match unit {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "m" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(format!(
                "invalid duration '{text}': unknown unit '{other}' (use h, m, s, ms or us)"
            ))
        }
    };
    let seconds = value * seconds_per_unit;
    if !seconds.is_finite() || seconds > 1e9 {
        return Err(format!("invalid duration '{text}': too large"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Parses h2load's `<SIZE>`: an integer with an optional K, M or G (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (number, shift) = match text.char_indices().last() {
        Some((i, 'k' | 'K')) => (&text[..i], 10),
        Some((i, 'm' | 'M')) => (&text[..i], 20),
        Some((i, 'g' | 'G')) => (&text[..i], 30),
        _ => (text, 0),
    };
    let value: u64 = number.parse().map_err(|_| {
        format!("invalid size '{text}': expected an integer with an optional K, M or G")
    })?;
    value
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("invalid size '{text}': too large"))
}

/// A duration read and shown in this grammar (`10s`, `500ms`): what a
/// command line takes, and shows as its default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HumanDuration(pub Duration);

impl FromStr for HumanDuration {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        parse_duration(text).map(HumanDuration)
    }
}

impl fmt::Display for HumanDuration {
    /// The largest unit that shows the duration whole: `10s`, `1m`, `250ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.0.as_micros();
        let units = [
            (3_600_000_000, "h"),
            (60_000_000, "m"),
            (1_000_000, "s"),
            (1_000, "ms"),
        ];
        for (size, unit) in units {
            if us >= size && us.is_multiple_of(size) {
                return write!(f, "{}{unit}", us / size);
            }
        }
        write!(f, "{us}us")
    }
}

/// A size read and shown in this grammar (`16K`, `4K`, `1M`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HumanSize(pub u64);

impl FromStr for HumanSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        parse_size(text).map(HumanSize)
    }
}

impl fmt::Display for HumanSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (shift, unit) in [(30, "G"), (20, "M"), (10, "K")] {
            let size = 1u64 << shift;
            if self.0 >= size && self.0.is_multiple_of(size) {
                return write!(f, "{}{unit}", self.0 / size);
            }
        }
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h2load_forms() {
        assert_eq!(parse_duration("10").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1m").unwrap(), Duration::from_secs(60));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_duration("250us").unwrap(), Duration::from_micros(250));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration(" 0 ").unwrap(), Duration::ZERO);
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["", "s", "ten", "10x", "10 s", "1.2.3s", "-1", "1e400"] {
            assert!(parse_duration(bad).is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("16K").unwrap(), 16 * 1024);
        assert_eq!(parse_size("1m").unwrap(), 1 << 20);
        assert_eq!(parse_size("3").unwrap(), 3);
        assert!(parse_size("1T").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn shown_as_read() {
        for text in ["10s", "1m", "2h", "500ms", "250us", "0us"] {
            let parsed: HumanDuration = text.parse().unwrap();
            assert_eq!(parsed.to_string(), text);
        }
        assert_eq!(
            HumanDuration(Duration::from_millis(1500)).to_string(),
            "1500ms"
        );
        for text in ["16K", "4K", "1M", "3"] {
            let parsed: HumanSize = text.parse().unwrap();
            assert_eq!(parsed.to_string(), text);
        }
    }
}
