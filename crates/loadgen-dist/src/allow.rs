//! `--allow-target HOST[:PORT]`: the targets a worker may load, so that a
//! leaked token does not make it an open load relay. A plan is compared by
//! where its connections would go (its URI's host and port, or
//! `--connect-to`'s, or `-B`'s), by name as written, without a DNS lookup:
//! `localhost` and `127.0.0.1` are two entries. Addresses compare as
//! addresses (`::1` is `0:0:0:0:0:0:0:1`). UNIX sockets on the worker's own
//! machine are never a target.

use loadgen_core::uri::ConnectTo;
use std::fmt;
use std::net::IpAddr;

/// One allowed host, on one port or on any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedTarget {
    host: String,
    port: Option<u16>,
}

impl AllowedTarget {
    /// `example.com`, `example.com:8443`, `127.0.0.1:8080`, `[::1]:8080`, `::1`.
    pub fn parse(text: &str) -> Result<AllowedTarget, String> {
        let bad = |why: &str| {
            format!("--allow-target: '{text}': {why}; expected HOST[:PORT], e.g. 10.0.0.5:8080")
        };
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| bad("missing ']' after the IPv6 address"))?;
            match after {
                "" => (host, None),
                _ => (
                    host,
                    Some(
                        after
                            .strip_prefix(':')
                            .ok_or_else(|| bad("unexpected text after ']'"))?,
                    ),
                ),
            }
        } else if text.matches(':').count() > 1 {
            (text, None)
        } else {
            match text.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (text, None),
            }
        };
        if host.is_empty() || host.contains(['/', ' ']) {
            return Err(bad("the host is missing or not a host name"));
        }
        let port = port
            .map(|p| match p.parse::<u16>() {
                Ok(port) if port > 0 => Ok(port),
                _ => Err(bad("the port must be a number from 1 to 65535")),
            })
            .transpose()?;
        Ok(AllowedTarget {
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    fn permits(&self, host: &str, port: u16) -> bool {
        let same_host = match (self.host.parse::<IpAddr>(), host.parse::<IpAddr>()) {
            (Ok(allowed), Ok(asked)) => allowed == asked,
            _ => self.host.eq_ignore_ascii_case(host),
        };
        same_host && self.port.is_none_or(|allowed| allowed == port)
    }
}

impl fmt::Display for AllowedTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        match self.port {
            Some(port) => write!(f, "{host}:{port}"),
            None => write!(f, "{host}:*"),
        }
    }
}

/// The allowed targets; empty means any target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowList(Vec<AllowedTarget>);

impl AllowList {
    pub fn new(targets: Vec<AllowedTarget>) -> AllowList {
        AllowList(targets)
    }

    /// Whether every target is allowed (no `--allow-target`).
    pub fn allows_any(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a plan that connects to `connect` may run here; else why not.
    pub fn check(&self, connect: &ConnectTo) -> Result<(), String> {
        let (host, port) = match connect {
            ConnectTo::Tcp { host, port } => (host.as_str(), *port),
            ConnectTo::Unix { path } => {
                return Err(format!(
                    "the plan connects to the UNIX socket {}: a worker loads network targets only",
                    path.display()
                ))
            }
        };
        if self.allows_any() || self.0.iter().any(|t| t.permits(host, port)) {
            return Ok(());
        }
        let allowed: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        let shown = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        Err(format!(
            "the target {shown} is not allowed on this worker (allowed: {})",
            allowed.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(host: &str, port: u16) -> ConnectTo {
        ConnectTo::Tcp {
            host: host.into(),
            port,
        }
    }

    fn list(entries: &[&str]) -> AllowList {
        AllowList::new(
            entries
                .iter()
                .map(|e| AllowedTarget::parse(e).unwrap())
                .collect(),
        )
    }

    #[test]
    fn hosts_and_ports() {
        let allow = list(&["Example.com:8443", "127.0.0.1", "[::1]:80"]);
        assert!(allow.check(&tcp("example.com", 8443)).is_ok());
        assert!(allow.check(&tcp("example.com", 443)).is_err());
        assert!(allow.check(&tcp("127.0.0.1", 1)).is_ok());
        assert!(allow.check(&tcp("0:0:0:0:0:0:0:1", 80)).is_ok());
        assert!(allow.check(&tcp("::1", 81)).is_err());
        let refusal = allow.check(&tcp("10.1.2.3", 80)).unwrap_err();
        assert!(refusal.contains("10.1.2.3:80") && refusal.contains("127.0.0.1:*"));
        assert!(AllowList::default().check(&tcp("anything", 1)).is_ok());
    }

    #[test]
    fn unix_sockets_are_never_targets() {
        let unix = ConnectTo::Unix {
            path: "/run/docker.sock".into(),
        };
        assert!(AllowList::default().check(&unix).is_err());
    }

    #[test]
    fn parse_errors() {
        for bad in ["", ":80", "host:0", "host:x", "[::1", "[::1]x", "a/b"] {
            let err = AllowedTarget::parse(bad).unwrap_err();
            assert!(err.starts_with("--allow-target: "), "{bad}: {err}");
        }
        assert_eq!(AllowedTarget::parse("::1").unwrap().to_string(), "[::1]:*");
    }
}
