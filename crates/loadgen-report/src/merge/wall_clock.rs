//! Where each report sits on the wall clock. Reports carry their start as
//! an RFC 3339 timestamp (`started_at`, milliseconds, as
//! [`rfc3339`](loadgen_core::report::rfc3339) writes it) and their length
//! as `elapsed_s`; merging needs both as instants to line reports up.

use std::time::{Duration, SystemTime};

/// The measured part of one report, on the wall clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: SystemTime,
    pub end: SystemTime,
}

impl Span {
    /// From `started_at` and `elapsed_s`. The end is taken as the start plus
    /// `elapsed_s` rather than from `ended_at`, which is that same instant cut
    /// to the millisecond: so the span of one report is its own elapsed time.
    pub fn of(started_at: &str, elapsed_s: f64) -> Result<Span, String> {
        let start = parse_rfc3339(started_at).map_err(|why| format!("started_at: {why}"))?;
        let elapsed = seconds(elapsed_s).map_err(|why| format!("elapsed_s: {why}"))?;
        let end = later(start, elapsed).map_err(|why| format!("elapsed_s: {why}"))?;
        Ok(Span { start, end })
    }
}

/// The last instant a report can give: `started_at` is RFC 3339, whose
/// years end at 9999, and logs give seconds with three decimals, which an
/// `f64` holds exactly up to then. A later time was altered, and a log
/// written back from it would not read again.
const LATEST: Duration = Duration::from_millis(253_402_300_799_999);

/// `length` after `time`, if a report can show it (see [`LATEST`]).
pub fn later(time: SystemTime, length: Duration) -> Result<SystemTime, String> {
    time.checked_add(length)
        .filter(|at| {
            at.duration_since(SystemTime::UNIX_EPOCH)
                .map_or(true, |since| since <= LATEST)
        })
        .ok_or_else(|| {
            format!(
                "{} s later lies after 9999-12-31, beyond any time a report's clock can show",
                length.as_secs()
            )
        })
}

/// A length in seconds as a report writes it: finite and not negative.
pub fn seconds(s: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(s).map_err(|_| format!("{s} is not a length of time in seconds"))
}

/// The whole wall-clock second nearest to `time`, in seconds since the Unix
/// epoch. Rows and log intervals are one second long, so for a full one
/// this is the second that holds the larger part of it.
pub fn nearest_second(time: SystemTime) -> u64 {
    let since_epoch = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    (since_epoch + Duration::from_millis(500)).as_secs()
}

/// `2026-11-22T02:14:36.123Z`, or any RFC 3339 date-time: fractions of any
/// length, `Z` or a numeric offset, `T`, `t` or a space between date and time.
pub fn parse_rfc3339(text: &str) -> Result<SystemTime, String> {
    let fail = || format!("'{text}' is not an RFC 3339 time such as 2026-11-22T02:14:36.123Z");
    let bytes = text.as_bytes();
    if bytes.len() < 20 || !matches!(bytes[10], b'T' | b't' | b' ') {
        return Err(fail());
    }
    let number = |from: usize, to: usize| -> Result<u64, String> {
        let digits = text.get(from..to).ok_or_else(fail)?;
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(fail());
        }
        digits.parse().map_err(|_| fail())
    };
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if separators.iter().any(|(at, sep)| bytes[*at] != *sep) {
        return Err(fail());
    }
    let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
    let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
    // 60 is a leap second; it reads as the first second of the next minute.
    if !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return Err(fail());
    }
    let mut rest = &text[19..];
    let mut nanos = 0u32;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(fail());
        }
        // Nanoseconds are as fine as a SystemTime goes; further digits are dropped.
        let kept = &fraction[..digits.min(9)];
        nanos = kept.parse::<u32>().map_err(|_| fail())? * 10u32.pow(9 - kept.len() as u32);
        rest = &fraction[digits..];
    }
    let offset_s: i64 = match rest.as_bytes() {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let base = text.len() - rest.len();
            let (hours, minutes) = (number(base + 1, base + 3)?, number(base + 4, base + 6)?);
            if hours > 23 || minutes > 59 {
                return Err(fail());
            }
            let offset = (hours * 3600 + minutes * 60) as i64;
            if *sign == b'+' {
                offset
            } else {
                -offset
            }
        }
        _ => return Err(fail()),
    };
    let days = days_from_civil(year as i64, month as i64, day as i64);
    let local = days * 86_400 + (hour * 3600 + minute * 60 + second) as i64;
    let utc = u64::try_from(local - offset_s)
        .map_err(|_| format!("'{text}' is before 1970, when no report was made"))?;
    Ok(SystemTime::UNIX_EPOCH + Duration::new(utc, nanos))
}

/// From the first of the month to the first of the next: leap years included.
fn days_in_month(year: u64, month: u64) -> u64 {
    let (year, month) = (year as i64, month as i64);
    let next = if month == 12 {
        days_from_civil(year + 1, 1, 1)
    } else {
        days_from_civil(year, month + 1, 1)
    };
    (next - days_from_civil(year, month, 1)) as u64
}

/// Howard Hinnant's days-from-civil algorithm, the inverse of the one
/// `rfc3339` formats with: days since 1970-01-01.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::report::rfc3339;

    #[test]
    fn reads_back_what_reports_write() {
        for millis in [0u64, 951_782_400_000, 1_795_314_876_123, 4_102_444_799_999] {
            let time = SystemTime::UNIX_EPOCH + Duration::from_millis(millis);
            let text = rfc3339(time);
            assert_eq!(parse_rfc3339(&text), Ok(time), "{text}");
        }
    }

    #[test]
    fn offsets_fractions_and_leap_seconds() {
        let utc = parse_rfc3339("2026-11-22T02:34:36.123Z").unwrap();
        let east = parse_rfc3339("2026-11-22T04:34:36.123+02:00").unwrap();
        let west = parse_rfc3339("2026-11-21t21:04:36.123-05:30").unwrap();
        assert_eq!((east, west), (utc, utc));
        let fine = parse_rfc3339("2026-11-22 02:34:36.123456789123Z").unwrap();
        assert_eq!(
            fine.duration_since(utc).unwrap(),
            Duration::from_nanos(456_789)
        );
        let whole = parse_rfc3339("2026-11-22T02:34:36Z").unwrap();
        assert_eq!(
            utc.duration_since(whole).unwrap(),
            Duration::from_millis(123)
        );
        let leap = parse_rfc3339("2016-12-31T23:59:60Z").unwrap();
        assert_eq!(leap, parse_rfc3339("2017-01-01T00:00:00Z").unwrap());
    }

    #[test]
    fn refuses_what_is_not_a_time() {
        for text in [
            "",
            "yesterday",
            "2026-11-22",
            "2026-11-22T02:34:36",
            "2026-11-22T02:34:36.Z",
            "2026-13-01T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-11-22T24:00:00Z",
            "2026-11-22T02:34:36+2:00",
            "1969-12-31T23:59:59Z",
            "2026-11-22T02:34:36.1234Zjunk",
            "+026-11-22T02:34:36Z",
        ] {
            let err = parse_rfc3339(text).unwrap_err();
            assert!(err.contains(text) && !err.contains('\n'), "{text}: {err}");
        }
        assert!(parse_rfc3339("2024-02-29T00:00:00Z").is_ok());
    }

    #[test]
    fn spans_and_seconds() {
        let span = Span::of("2026-11-22T02:34:36.900Z", 0.25).unwrap();
        assert_eq!(
            span.end.duration_since(span.start).unwrap(),
            Duration::from_millis(250)
        );
        assert_eq!(nearest_second(span.start), 1_795_314_877);
        assert_eq!(
            nearest_second(span.start - Duration::from_millis(401)),
            1_795_314_876
        );
        assert!(Span::of("2026-11-22T02:34:36.900Z", -1.0)
            .unwrap_err()
            .starts_with("elapsed_s: "));
        assert!(Span::of("now", 1.0)
            .unwrap_err()
            .starts_with("started_at: "));
    }
}
