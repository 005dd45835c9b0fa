//! URLs as steps write them and as requests carry them.

/// `text` as an absolute http(s) URL, relative ones against `base`.
pub fn resolve_url(text: &str, base: Option<&url::Url>) -> Result<url::Url, String> {
    let url = match url::Url::parse(text) {
        Ok(url) => url,
        Err(url::ParseError::RelativeUrlWithoutBase) => match base {
            Some(base) => base
                .join(text)
                .map_err(|e| format!("'{text}' is not a URL: {e}"))?,
            None => {
                return Err(format!(
                    "'{text}' is relative: give an absolute URL or defaults.base_url"
                ))
            }
        },
        Err(e) => return Err(format!("'{text}' is not a URL: {e}")),
    };
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!(
            "'{text}' is not an http:// or https:// URL with a host"
        ));
    }
    Ok(url)
}

/// The path and query a request line (or `:path`) carries.
pub fn path_and_query(url: &url::Url) -> String {
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    }
}
