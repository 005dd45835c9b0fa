//! Why the server's certificate was refused, in words and dates a person
//! reads: rustls gives validity times as Unix seconds ("verification time
//! 1795314876 (UNIX)"), shown here in UTC as RFC 3339.

use crate::wall_time::rfc3339_seconds;
use rustls::CertificateError;

/// `error` as one clause, its times as dates.
pub fn describe(error: &CertificateError) -> String {
    match error {
        CertificateError::ExpiredContext { time, not_after } => format!(
            "the certificate expired at {}; it is now {}",
            rfc3339_seconds(not_after.as_secs()),
            rfc3339_seconds(time.as_secs())
        ),
        CertificateError::NotValidYetContext { time, not_before } => format!(
            "the certificate is not valid before {}; it is now {} (is this machine's clock right?)",
            rfc3339_seconds(not_before.as_secs()),
            rfc3339_seconds(time.as_secs())
        ),
        CertificateError::ExpiredRevocationListContext { time, next_update } => format!(
            "the certificate revocation list expired at {}; it is now {}",
            rfc3339_seconds(next_update.as_secs()),
            rfc3339_seconds(time.as_secs())
        ),
        CertificateError::Expired => "the certificate has expired".into(),
        CertificateError::NotValidYet => "the certificate is not valid yet".into(),
        other => other.to_string(),
    }
}

/// The same for a certificate error that reached us as text: QUIC's
/// handshake errors carry rustls's message, not the error. The three
/// messages with times are read back into their error (a test holds this
/// to rustls's wording); any other text is left as it is.
pub fn describe_text(reason: &str) -> String {
    let text = reason
        .strip_prefix("invalid peer certificate: ")
        .unwrap_or(reason);
    let times = |lead: &str, bound: &str| -> Option<(u64, u64)> {
        let rest = text.strip_prefix(lead)?;
        let (time, rest) = rest.split_once(" (UNIX), but ")?;
        let rest = rest.strip_prefix(bound)?;
        let (limit, _) = rest.split_once(' ')?;
        Some((time.parse().ok()?, limit.parse().ok()?))
    };
    let unix = |secs: u64| {
        rustls::pki_types::UnixTime::since_unix_epoch(std::time::Duration::from_secs(secs))
    };
    let error = if let Some((time, not_after)) = times(
        "certificate expired: verification time ",
        "certificate is not valid after ",
    ) {
        CertificateError::ExpiredContext {
            time: unix(time),
            not_after: unix(not_after),
        }
    } else if let Some((time, not_before)) = times(
        "certificate not valid yet: verification time ",
        "certificate is not valid before ",
    ) {
        CertificateError::NotValidYetContext {
            time: unix(time),
            not_before: unix(not_before),
        }
    } else if let Some((time, next_update)) = times(
        "certificate revocation list expired: verification time ",
        "CRL is not valid after ",
    ) {
        CertificateError::ExpiredRevocationListContext {
            time: unix(time),
            next_update: unix(next_update),
        }
    } else {
        return reason.to_string();
    };
    describe(&error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::UnixTime;
    use std::time::Duration;

    fn at(secs: u64) -> UnixTime {
        UnixTime::since_unix_epoch(Duration::from_secs(secs))
    }

    fn with_times() -> [CertificateError; 3] {
        [
            CertificateError::ExpiredContext {
                time: at(1_795_314_876),
                not_after: at(1_735_689_600),
            },
            CertificateError::NotValidYetContext {
                time: at(1_735_689_600),
                not_before: at(1_795_314_876),
            },
            CertificateError::ExpiredRevocationListContext {
                time: at(1_795_314_876),
                next_update: at(1_735_689_600),
            },
        ]
    }

    #[test]
    fn times_are_dates() {
        let [expired, not_yet, crl] = with_times().map(|e| describe(&e));
        assert_eq!(
            expired,
            "the certificate expired at 2025-01-01T00:00:00Z; it is now 2026-11-22T02:34:36Z"
        );
        assert!(
            not_yet.starts_with("the certificate is not valid before 2026-11-22T02:34:36Z"),
            "{not_yet}"
        );
        assert!(crl.contains("expired at 2025-01-01T00:00:00Z"), "{crl}");
    }

    #[test]
    fn rustls_messages_read_back_to_the_same_words() {
        // QUIC hands over rustls's text; it must read as the TCP path's.
        for error in with_times() {
            let text = rustls::Error::InvalidCertificate(error.clone()).to_string();
            assert!(text.contains("(UNIX)"), "{text}");
            assert_eq!(describe_text(&text), describe(&error), "{text}");
        }
        let other = rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer).to_string();
        assert_eq!(describe_text(&other), other);
    }
}
