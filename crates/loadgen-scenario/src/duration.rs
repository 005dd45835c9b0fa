//! Durations as k6 writes them: `30s`, `1m30s`, `500ms`, `1h2m`, or a
//! plain number of seconds.

use loadgen_core::duration::parse_duration;
use std::time::Duration;

pub fn parse(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("expected a duration such as 30s, 1m30s or 500ms".into());
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        // One number and its unit: up to where the next number starts.
        let unit_start = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let next_number = rest[unit_start..]
            .find(|c: char| c.is_ascii_digit())
            .map_or(rest.len(), |i| unit_start + i);
        let part = parse_duration(&rest[..next_number])
            .map_err(|_| format!("'{text}' is not a duration such as 30s, 1m30s or 500ms"))?;
        total += part;
        rest = &rest[next_number..];
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k6_durations() {
        assert_eq!(parse("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse("1h2m3s").unwrap(), Duration::from_secs(3723));
        assert_eq!(parse("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse("1.5s").unwrap(), Duration::from_millis(1500));
        assert!(parse("soon").is_err());
        assert!(parse("").is_err());
        assert!(parse("10x").is_err());
    }
}
