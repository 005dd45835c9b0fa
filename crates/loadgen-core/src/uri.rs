//! Which server to talk to and which paths to request, following h2load's
//! rule: scheme, host and port come from the first URI (or from `-B`), and
//! every URI contributes only its path and query.

use crate::plan_error::{PlanError, PlanField};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    Http,
    Https,
    /// WebSocket over cleartext (RFC 6455).
    Ws,
    /// WebSocket over TLS.
    Wss,
}

impl Scheme {
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
            Scheme::Ws => "ws",
            Scheme::Wss => "wss",
        }
    }

    pub fn is_tls(self) -> bool {
        matches!(self, Scheme::Https | Scheme::Wss)
    }

    pub fn is_websocket(self) -> bool {
        matches!(self, Scheme::Ws | Scheme::Wss)
    }

    fn default_port(self) -> u16 {
        match self {
            Scheme::Http | Scheme::Ws => 80,
            Scheme::Https | Scheme::Wss => 443,
        }
    }
}

/// Where connections go: a TCP host and port, or a UNIX domain socket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConnectTo {
    Tcp { host: String, port: u16 },
    Unix { path: PathBuf },
}

/// The server every client of a run connects to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    pub scheme: Scheme,
    /// Host without brackets: used for TLS server name and address lookup.
    pub host: String,
    pub port: u16,
    /// `host[:port]` as it goes into `Host` and `:authority`.
    pub authority: String,
    pub connect: ConnectTo,
}

/// Splits the URIs of a run into the endpoint and the per-request paths.
pub fn resolve(
    uris: &[String],
    base_uri: Option<&str>,
) -> Result<(Endpoint, Vec<String>), PlanError> {
    let first = uris.first().ok_or_else(|| {
        PlanError::new(
            PlanField::Uris,
            "no URI given: pass at least one, e.g. http://127.0.0.1:8080/",
        )
    })?;
    let unix_path = base_uri.and_then(|b| b.strip_prefix("unix:"));
    if let Some(path) = unix_path {
        if path.is_empty() {
            return Err(PlanError::new(
                PlanField::BaseUri,
                "invalid base URI 'unix:': the socket path is missing (e.g. unix:/run/app.sock)",
            ));
        }
    }
    let origin_source = match base_uri {
        Some(base) if unix_path.is_none() => base,
        _ => first.as_str(),
    };
    let origin = parse_absolute(origin_source).map_err(|e| match base_uri {
        Some(_) if unix_path.is_none() => PlanError::new(PlanField::BaseUri, e),
        _ => PlanError::new(PlanField::Uris, e),
    })?;
    let mut endpoint = Endpoint {
        scheme: origin.scheme,
        host: origin.host.clone(),
        port: origin.port,
        authority: origin.authority.clone(),
        connect: ConnectTo::Tcp {
            host: origin.host,
            port: origin.port,
        },
    };
    if let Some(path) = unix_path {
        endpoint.connect = ConnectTo::Unix {
            path: PathBuf::from(path),
        };
    }
    let paths = uris
        .iter()
        .map(|uri| path_of(uri))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PlanError::new(PlanField::Uris, e))?;
    Ok((endpoint, paths))
}

/// Parses `--connect-to`'s `HOST[:PORT]` (an IPv6 address with a port in
/// brackets, `[::1]:8443`); the port defaults to the URI's.
pub fn parse_connect_to(text: &str, default_port: u16) -> Result<ConnectTo, PlanError> {
    let bad = |why: &str| {
        PlanError::new(
            PlanField::ConnectTo,
            format!("'{text}': {why}; expected HOST[:PORT], e.g. 127.0.0.1:8443"),
        )
    };
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| bad("missing ']' after the IPv6 address"))?;
        match after {
            "" => (host, None),
            _ => match after.strip_prefix(':') {
                Some(port) => (host, Some(port)),
                None => return Err(bad("unexpected text after ']'")),
            },
        }
    } else if text.matches(':').count() > 1 {
        // A bare IPv6 address: no port can be told apart from it.
        (text, None)
    } else {
        match text.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        }
    };
    if host.is_empty() {
        return Err(bad("the host is missing"));
    }
    let port = match port {
        None => default_port,
        Some(port) => match port.parse::<u16>() {
            Ok(port) if port > 0 => port,
            _ => return Err(bad("the port must be a number from 1 to 65535")),
        },
    };
    Ok(ConnectTo::Tcp {
        host: host.to_string(),
        port,
    })
}

struct Origin {
    scheme: Scheme,
    host: String,
    port: u16,
    authority: String,
}

fn parse_absolute(text: &str) -> Result<Origin, String> {
    let uri: http::Uri = text
        .parse()
        .map_err(|e| format!("invalid URI '{text}': {e}"))?;
    let scheme = match uri.scheme_str() {
        Some("http") => Scheme::Http,
        Some("https") => Scheme::Https,
        Some("ws") => Scheme::Ws,
        Some("wss") => Scheme::Wss,
        Some(other) => {
            return Err(format!(
                "invalid URI '{text}': unsupported scheme '{other}' (use http, https, ws or wss)"
            ))
        }
        None => {
            return Err(format!(
                "invalid URI '{text}': expected an absolute URI such as http://127.0.0.1:8080/"
            ))
        }
    };
    let authority = uri
        .authority()
        .ok_or_else(|| format!("invalid URI '{text}': no host"))?;
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    if host.is_empty() {
        return Err(format!("invalid URI '{text}': no host"));
    }
    let port = match written_port(authority.as_str()) {
        None => scheme.default_port(),
        Some(port) => match port.parse::<u16>() {
            Ok(port) if port > 0 => port,
            _ => {
                return Err(format!(
                    "invalid URI '{text}': port '{port}' is not a number from 1 to 65535"
                ))
            }
        },
    };
    Ok(Origin {
        scheme,
        host,
        port,
        authority: authority.as_str().to_string(),
    })
}

/// The port as written in an authority, if one is: `http::Uri` accepts any
/// characters after the colon and `port_u16` reads a port that does not fit
/// in 16 bits as none, which would send the run to the scheme's default port.
fn written_port(authority: &str) -> Option<&str> {
    let host_and_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let after_host = match host_and_port.strip_prefix('[') {
        // An IPv6 literal: its colons are inside the brackets.
        Some(bracketed) => bracketed.split_once(']').map_or("", |(_, after)| after),
        None => host_and_port.find(':').map_or("", |i| &host_and_port[i..]),
    };
    after_host.strip_prefix(':')
}

fn path_of(text: &str) -> Result<String, String> {
    if text.starts_with('/') {
        return Ok(text.to_string());
    }
    let uri: http::Uri = text
        .parse()
        .map_err(|e| format!("invalid URI '{text}': {e}"))?;
    if uri.scheme().is_none() {
        return Err(format!(
            "invalid URI '{text}': expected an absolute URI or a path starting with '/'"
        ));
    }
    Ok(uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/")
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uris(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn first_uri_gives_the_origin() {
        let (ep, paths) = resolve(
            &uris(&["http://127.0.0.1:8080/a?x=1", "https://other:9/b", "/c"]),
            None,
        )
        .unwrap();
        assert_eq!(ep.scheme, Scheme::Http);
        assert_eq!(ep.authority, "127.0.0.1:8080");
        assert_eq!(
            ep.connect,
            ConnectTo::Tcp {
                host: "127.0.0.1".into(),
                port: 8080
            }
        );
        assert_eq!(paths, ["/a?x=1", "/b", "/c"]);
    }

    #[test]
    fn default_ports_and_empty_path() {
        let (ep, paths) = resolve(&uris(&["https://example.com"]), None).unwrap();
        assert_eq!(ep.port, 443);
        assert_eq!(ep.authority, "example.com");
        assert_eq!(paths, ["/"]);
    }

    #[test]
    fn ipv6_host() {
        let (ep, _) = resolve(&uris(&["http://[::1]:81/"]), None).unwrap();
        assert_eq!(ep.host, "::1");
        assert_eq!(ep.authority, "[::1]:81");
    }

    #[test]
    fn base_uri_overrides_origin() {
        let (ep, paths) = resolve(&uris(&["http://a:1/x", "/y"]), Some("https://b:2")).unwrap();
        assert_eq!(
            (ep.scheme, ep.host.as_str(), ep.port),
            (Scheme::Https, "b", 2)
        );
        assert_eq!(paths, ["/x", "/y"]);
    }

    #[test]
    fn unix_base_uri_keeps_scheme_and_authority_of_first_uri() {
        let (ep, _) = resolve(&uris(&["https://svc/x"]), Some("unix:/tmp/s.sock")).unwrap();
        assert_eq!(ep.scheme, Scheme::Https);
        assert_eq!(ep.authority, "svc");
        assert_eq!(
            ep.connect,
            ConnectTo::Unix {
                path: "/tmp/s.sock".into()
            }
        );
    }

    #[test]
    fn bad_uris_are_rejected() {
        assert!(resolve(&[], None).is_err());
        assert!(resolve(&uris(&["ftp://x/"]), None).is_err());
        assert!(resolve(&uris(&["localhost:80"]), None).is_err());
        assert!(resolve(&uris(&["http://"]), None).is_err());
        assert!(resolve(&uris(&["http://a/", "relative"]), None).is_err());
        assert!(resolve(&uris(&["http://a/"]), Some("unix:")).is_err());
    }

    #[test]
    fn ports_must_be_numbers_from_1_to_65535() {
        for (uri, port) in [
            ("http://127.0.0.1:99999/", "99999"),
            ("http://127.0.0.1:65536/", "65536"),
            ("https://127.0.0.1:abc/", "abc"),
            ("http://127.0.0.1:0/", "0"),
            ("http://127.0.0.1:/", ""),
            ("http://[::1]:70000/", "70000"),
            ("http://user@host:8o8o/", "8o8o"),
        ] {
            let error = resolve(&uris(&[uri]), None).unwrap_err().to_string();
            assert!(
                error.contains(&format!("port '{port}'")) && !error.contains('\n'),
                "{uri}: {error}"
            );
        }
        let error = resolve(&uris(&["/x"]), Some("http://127.0.0.1:99999")).unwrap_err();
        assert_eq!(error.field, PlanField::BaseUri);
        let error = error.to_string();
        assert!(error.contains("port '99999'"), "{error}");
    }

    #[test]
    fn valid_ports_and_ipv6_literals_are_kept() {
        for (uri, host, port) in [
            ("http://127.0.0.1:65535/", "127.0.0.1", 65535),
            ("http://127.0.0.1:1/", "127.0.0.1", 1),
            ("http://[::1]:8080/", "::1", 8080),
            ("https://[::1]/", "::1", 443),
            ("http://[2001:db8::1]/", "2001:db8::1", 80),
            ("http://user@host:8080/", "host", 8080),
        ] {
            let (ep, _) = resolve(&uris(&[uri]), None).unwrap();
            assert_eq!((ep.host.as_str(), ep.port), (host, port), "{uri}");
        }
    }

    #[test]
    fn connect_to_takes_host_and_optional_port() {
        let tcp = |host: &str, port: u16| ConnectTo::Tcp {
            host: host.into(),
            port,
        };
        assert_eq!(parse_connect_to("10.0.0.2", 443), Ok(tcp("10.0.0.2", 443)));
        assert_eq!(
            parse_connect_to("backend:8443", 443),
            Ok(tcp("backend", 8443))
        );
        assert_eq!(parse_connect_to("[::1]:8080", 80), Ok(tcp("::1", 8080)));
        assert_eq!(parse_connect_to("[::1]", 80), Ok(tcp("::1", 80)));
        assert_eq!(parse_connect_to("::1", 80), Ok(tcp("::1", 80)));
        for bad in [
            "",
            ":80",
            "host:",
            "host:0",
            "host:99999",
            "host:http",
            "[::1",
            "[::1]x",
        ] {
            let error = parse_connect_to(bad, 80).unwrap_err();
            assert_eq!(error.field, PlanField::ConnectTo, "{bad:?}: {error}");
        }
    }

    #[test]
    fn connect_to_keeps_the_uris_authority() {
        let plan = crate::plan::PlanInput {
            uris: uris(&["https://example.com/"]),
            connect_to: Some("127.0.0.1:8443".into()),
            ..Default::default()
        }
        .build()
        .unwrap();
        assert_eq!(plan.endpoint.authority, "example.com");
        assert_eq!(plan.endpoint.host, "example.com");
        assert_eq!(
            plan.endpoint.connect,
            ConnectTo::Tcp {
                host: "127.0.0.1".into(),
                port: 8443
            }
        );
        let unix = crate::plan::PlanInput {
            uris: uris(&["http://localhost/"]),
            base_uri: Some("unix:/tmp/s".into()),
            connect_to: Some("127.0.0.1".into()),
            ..Default::default()
        }
        .build();
        assert_eq!(unix.unwrap_err().field, PlanField::ConnectTo);
    }
}
