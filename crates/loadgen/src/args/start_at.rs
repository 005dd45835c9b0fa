//! `--start-at`: the wall-clock time a run starts. Machines that run parts
//! of one run without a controller (`--shard` in a Kubernetes Indexed Job,
//! `--execution-segment` started by hand) are all given the same time and
//! start together, each on its own clock, which NTP keeps in step.

use loadgen_core::report::rfc3339;
use loadgen_report::merge::parse_rfc3339;
use std::time::{Duration, SystemTime};

/// Further ahead than this, a start time is more likely a mistake (a time in
/// milliseconds, a wrong year) than a plan.
const MAX_AHEAD: Duration = Duration::from_secs(24 * 3600);

/// `TIME`: seconds since the Unix epoch (`date +%s`, decimals allowed) or an
/// RFC 3339 time (`2026-11-23T15:00:00Z`).
pub fn parse(text: &str) -> Result<SystemTime, String> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        let seconds: f64 = text
            .parse()
            .map_err(|_| format!("'{text}' is not a number of seconds"))?;
        return Duration::try_from_secs_f64(seconds)
            .map(|since_epoch| SystemTime::UNIX_EPOCH + since_epoch)
            .map_err(|_| format!("'{text}' is not a number of seconds"));
    }
    parse_rfc3339(text).map_err(|why| {
        format!("{why}, nor a number of seconds since the Unix epoch such as 1795314876")
    })
}

/// How long to wait until `at`, seen at `now`. A time already past is
/// refused rather than started late: a part started after the others would
/// not run its share of their schedule, and the merged report would hide it.
pub fn wait_before(at: SystemTime, now: SystemTime) -> Result<Duration, String> {
    match at.duration_since(now) {
        Ok(ahead) if ahead > MAX_AHEAD => Err(format!(
            "--start-at: {} is more than 24 h ahead",
            rfc3339(at)
        )),
        Ok(ahead) => Ok(ahead),
        Err(past) => Err(format!(
            "--start-at: {} is already {:.3}s past; give every part a time far enough ahead \
             for all of them to be ready",
            rfc3339(at),
            past.duration().as_secs_f64()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn epoch(seconds: f64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs_f64(seconds)
    }

    #[test]
    fn reads_unix_seconds_and_rfc3339() {
        assert_eq!(parse("1795314876"), Ok(epoch(1795314876.0)));
        assert_eq!(parse(" 1795314876.5 "), Ok(epoch(1795314876.5)));
        assert_eq!(parse("1970-01-01T00:00:10Z"), Ok(epoch(10.0)));
        assert_eq!(parse("1970-01-01T01:00:10+01:00"), Ok(epoch(10.0)));
        for bad in ["", "soon", "1.2.3", "-5", "12:00"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn refuses_a_past_time_and_one_too_far_ahead() {
        let now = epoch(1_000_000.0);
        assert_eq!(
            wait_before(epoch(1_000_002.5), now),
            Ok(Duration::from_millis(2500))
        );
        assert_eq!(wait_before(now, now), Ok(Duration::ZERO));
        let past = wait_before(epoch(999_999.0), now).unwrap_err();
        assert!(past.contains("1.000s past"), "{past}");
        let far = wait_before(epoch(1_000_000.0 + 86_401.0), now).unwrap_err();
        assert!(far.contains("more than 24 h ahead"), "{far}");
    }
}
