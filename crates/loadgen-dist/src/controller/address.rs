//! A worker as `--workers` names it: `http://HOST:PORT` or `https://HOST:PORT`.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerAddress {
    pub tls: bool,
    /// Without brackets, for connecting and for TLS.
    pub host: String,
    pub port: u16,
    /// `host:port` as the `Host` header carries it.
    pub authority: String,
}

impl WorkerAddress {
    pub fn parse(text: &str) -> Result<WorkerAddress, String> {
        let bad = |why: &str| {
            format!("--workers: '{text}': {why}; expected http://HOST:PORT or https://HOST:PORT")
        };
        let uri: http::Uri = text.parse().map_err(|_| bad("not a URL"))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(bad("the scheme must be http or https")),
        };
        if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
            return Err(bad("a worker is named by its scheme, host and port only"));
        }
        let authority = uri.authority().ok_or_else(|| bad("the host is missing"))?;
        if authority.as_str().contains('@') {
            return Err(bad("credentials go in --token-file, not in the URL"));
        }
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        if host.is_empty() {
            return Err(bad("the host is missing"));
        }
        let port = authority.port_u16().unwrap_or(if tls { 443 } else { 80 });
        Ok(WorkerAddress {
            tls,
            host: host.to_string(),
            port,
            authority: format!("{}:{port}", authority.host()),
        })
    }
}

impl fmt::Display for WorkerAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "https" } else { "http" };
        write!(f, "{scheme}://{}", self.authority)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let w = WorkerAddress::parse("https://[::1]:9000/").unwrap();
        assert_eq!((w.tls, w.host.as_str(), w.port), (true, "::1", 9000));
        assert_eq!(w.to_string(), "https://[::1]:9000");
        let w = WorkerAddress::parse("http://worker-0.loadgen").unwrap();
        assert_eq!(
            (w.port, w.to_string().as_str()),
            (80, "http://worker-0.loadgen:80")
        );
        for bad in [
            "ftp://a:1",
            "a:1",
            "http://a:1/x",
            "http://u:p@a:1",
            "http://a:1/?q",
        ] {
            let err = WorkerAddress::parse(bad).unwrap_err();
            assert!(err.starts_with("--workers: "), "{bad}: {err}");
        }
    }
}
