//! Times on the wall clock as people read them: UTC, RFC 3339, without
//! pulling in a date crate for one format. Reports stamp their start and
//! end with it; TLS errors show certificate validity with it.

use std::time::SystemTime;

/// `2026-11-22T02:14:36.123Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let since_epoch = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    format!(
        "{}.{:03}Z",
        date_and_time(since_epoch.as_secs()),
        since_epoch.subsec_millis()
    )
}

/// `2026-11-22T02:14:36Z`: whole seconds since the Unix epoch, as X.509
/// validity and TLS verification times are given.
pub fn rfc3339_seconds(since_epoch: u64) -> String {
    format!("{}Z", date_and_time(since_epoch))
}

fn date_and_time(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
    )
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_795_314_876_123);
        assert_eq!(rfc3339(t), "2026-11-22T02:34:36.123Z");
        let leap = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_seconds(1_795_314_876), "2026-11-22T02:34:36Z");
    }
}
