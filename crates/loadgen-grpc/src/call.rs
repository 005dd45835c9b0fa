//! The shape of a gRPC call on the wire that is the same whatever the
//! message: its path from `--call`, its URI on the server, and the headers
//! every call carries.

/// `/package.Service/Method` from `package.Service/Method` (or its dotted form).
pub fn method_path(call: &str) -> Result<String, String> {
    let (service, method) = match call.trim_start_matches('/').split_once('/') {
        Some(parts) => parts,
        None => call
            .rsplit_once('.')
            .ok_or_else(|| format!("--call: '{call}' is not of the form package.Service/Method"))?,
    };
    let name = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    };
    if !name(service) || !name(method) || method.contains('.') {
        return Err(format!(
            "--call: '{call}' is not of the form package.Service/Method"
        ));
    }
    Ok(format!("/{service}/{method}"))
}

/// The request URI of a call to the server at `server` (scheme, host and
/// port; the path comes from --call).
pub fn call_uri(server: &str, path: &str) -> Result<String, String> {
    let rest = server.find("://").map_or(0, |i| i + 3);
    let origin_end = server[rest..].find('/').map_or(server.len(), |i| rest + i);
    if !matches!(&server[origin_end..], "" | "/") {
        return Err(format!(
            "'{server}': give the server's URI without a path (scheme://host:port); the path comes from --call"
        ));
    }
    Ok(format!("{}{path}", &server[..origin_end]))
}

/// What every gRPC request carries besides `-H`'s metadata (which may
/// replace them).
pub fn add_call_headers(headers: &mut Vec<(String, String)>) {
    for (name, value) in [("content-type", "application/grpc"), ("te", "trailers")] {
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            headers.insert(0, (name.to_string(), value.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_become_paths() {
        assert_eq!(method_path("pkg.Echo/Echo").unwrap(), "/pkg.Echo/Echo");
        assert_eq!(method_path("/pkg.Echo/Echo").unwrap(), "/pkg.Echo/Echo");
        assert_eq!(method_path("pkg.Echo.Echo").unwrap(), "/pkg.Echo/Echo");
        for bad in ["Echo", "pkg.Echo/", "pkg.Echo/a.b", "pkg Echo/Echo", ""] {
            assert!(method_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_server_uri_takes_the_calls_path() {
        let path = "/pkg.Echo/Echo";
        assert_eq!(
            call_uri("http://127.0.0.1:50051", path).unwrap(),
            "http://127.0.0.1:50051/pkg.Echo/Echo"
        );
        assert_eq!(
            call_uri("https://h:1/", path).unwrap(),
            "https://h:1/pkg.Echo/Echo"
        );
        assert!(call_uri("http://h:1/other", path).is_err());
    }

    #[test]
    fn metadata_may_replace_the_call_headers() {
        let mut headers = vec![(
            "Content-Type".to_string(),
            "application/grpc+proto".to_string(),
        )];
        add_call_headers(&mut headers);
        assert_eq!(
            headers,
            [
                ("te".to_string(), "trailers".to_string()),
                (
                    "Content-Type".to_string(),
                    "application/grpc+proto".to_string()
                )
            ]
        );
    }
}
