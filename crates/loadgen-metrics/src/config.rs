//! What a run asks to export, read from the command line's words.

use crate::destination::Destination;
use crate::snapshot::Labels;
use crate::totals::Workload;
use http::header::{HeaderName, HeaderValue};
use std::net::SocketAddr;
use std::time::Duration;

/// Labels every series carries already; a tag may not take their names.
pub const OWN_LABELS: [&str; 10] = [
    "protocol",
    "status_class",
    "kind",
    "direction",
    "latency",
    "scenario",
    "step",
    "check",
    "result",
    "le",
];

#[derive(Clone, Debug)]
pub struct Config {
    pub pushes: Vec<Destination>,
    pub listen: Option<SocketAddr>,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// On every series, in the order given.
    pub tags: Labels,
    /// After the run: the longest wait for the final push to get through
    /// and for a scrape to fetch the final values.
    pub linger: Duration,
    pub workload: Workload,
}

impl Config {
    pub fn is_empty(&self) -> bool {
        self.pushes.is_empty() && self.listen.is_none()
    }
}

/// `Name: value`.
pub fn header(text: &str) -> Result<(HeaderName, HeaderValue), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| format!("'{text}': expected 'Name: value'"))?;
    let name = HeaderName::try_from(name.trim())
        .map_err(|_| format!("'{}' is not a header name", name.trim()))?;
    let mut value = HeaderValue::try_from(value.trim())
        .map_err(|_| format!("the value of '{name}' is not a header value"))?;
    value.set_sensitive(true);
    Ok((name, value))
}

/// `key=value`, the key a Prometheus label name that is not one of ours.
pub fn tag(text: &str) -> Result<(String, String), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("'{text}': expected key=value"))?;
    let valid = key
        .chars()
        .enumerate()
        .all(|(i, c)| c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()));
    if key.is_empty() || !valid || key.starts_with("__") {
        return Err(format!(
            "'{key}' is not a label name: letters, digits and '_', not first a digit, not first '__'"
        ));
    }
    if OWN_LABELS.contains(&key) {
        return Err(format!("'{key}' is a label of loadgen's own series"));
    }
    Ok((key.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_tags_are_checked() {
        let (name, value) = header("Authorization: Bearer abc").unwrap();
        assert_eq!(
            (name.as_str(), value.to_str().unwrap()),
            ("authorization", "Bearer abc")
        );
        assert!(header("no colon").is_err());
        assert_eq!(tag("zone=eu-1").unwrap(), ("zone".into(), "eu-1".into()));
        assert!(tag("1zone=x").is_err());
        assert!(tag("__name__=x").is_err());
        assert!(tag("le=1").is_err());
        assert!(tag("zone").is_err());
    }
}
