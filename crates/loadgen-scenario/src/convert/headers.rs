//! The request headers a replay should send: those the application reads,
//! not those the client makes up on its own. HTTP/2 and HTTP/3
//! pseudo-headers, cookies (each virtual user's jar sends its own),
//! framing (`Content-Length`, `Host`, `Transfer-Encoding`), compression
//! (`Accept-Encoding`: loadgen asks for none) and browser noise (`sec-*`,
//! client hints, `Upgrade-Insecure-Requests`, caching validators) are left
//! out; `User-Agent` only when asked for.

const DROPPED: &[&str] = &[
    "cookie",
    "content-length",
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "upgrade",
    "accept-encoding",
    "accept-language",
    "upgrade-insecure-requests",
    "priority",
    "purpose",
    "dnt",
    "pragma",
    "cache-control",
    "if-none-match",
    "if-modified-since",
];

/// Whether a request header goes into the step.
pub fn kept(name: &str, keep_user_agent: bool) -> bool {
    let name = name.to_ascii_lowercase();
    if name.starts_with(':') || name.starts_with("sec-") || DROPPED.contains(&name.as_str()) {
        return false;
    }
    keep_user_agent || name != "user-agent"
}

#[cfg(test)]
mod tests {
    use super::kept;

    #[test]
    fn the_application_headers_stay() {
        for name in [
            "Accept",
            "Authorization",
            "X-CSRF-Token",
            "Content-Type",
            "Origin",
        ] {
            assert!(kept(name, false), "{name}");
        }
        for name in [
            ":authority",
            "Cookie",
            "sec-ch-ua",
            "Sec-Fetch-Mode",
            "Host",
            "accept-encoding",
        ] {
            assert!(!kept(name, false), "{name}");
        }
        assert!(!kept("User-Agent", false));
        assert!(kept("User-Agent", true));
    }
}
