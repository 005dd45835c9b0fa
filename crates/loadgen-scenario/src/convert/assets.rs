//! Which recorded requests are the flow (documents, XHR, fetch) and which
//! are the static assets a page pulls in, left out by default: by the
//! browser's own resource type when the recording has it (Chromium's
//! `_resourceType`), else by the response's MIME type, else by the URL's
//! extension.

/// Resource types browsers record for assets.
const ASSET_TYPES: &[&str] = &[
    "image",
    "stylesheet",
    "script",
    "font",
    "media",
    "manifest",
    "texttrack",
    "imageset",
];

/// Resource types that are the flow.
const FLOW_TYPES: &[&str] = &["document", "xhr", "fetch"];

const ASSET_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "avif", "bmp", "css", "js", "mjs", "map",
    "woff", "woff2", "ttf", "otf", "eot", "mp4", "webm", "ogg", "mp3", "wav",
];

pub fn is_asset(resource_type: Option<&str>, mime: &str, url: &str) -> bool {
    if let Some(kind) = resource_type.map(str::to_ascii_lowercase) {
        if FLOW_TYPES.contains(&kind.as_str()) {
            return false;
        }
        if ASSET_TYPES.contains(&kind.as_str()) {
            return true;
        }
    }
    let mime = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if !mime.is_empty() {
        let asset_mime = ["image/", "font/", "video/", "audio/"]
            .iter()
            .any(|prefix| mime.starts_with(prefix))
            || mime == "text/css"
            || mime.contains("javascript")
            || mime.starts_with("application/font")
            || mime.starts_with("application/x-font");
        if asset_mime {
            return true;
        }
        if mime == "text/html" || mime.contains("json") || mime.contains("xml") {
            return false;
        }
    }
    let path = url::Url::parse(url)
        .map(|u| u.path().to_string())
        .unwrap_or_default();
    let last = path.rsplit('/').next().unwrap_or("");
    match last.rsplit_once('.') {
        Some((_, extension)) => ASSET_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::is_asset;

    #[test]
    fn resource_type_then_mime_then_extension() {
        assert!(!is_asset(
            Some("document"),
            "text/html",
            "http://h/app/login"
        ));
        assert!(!is_asset(
            Some("fetch"),
            "application/json",
            "http://h/api/me"
        ));
        assert!(is_asset(Some("image"), "", "http://h/logo"));
        assert!(is_asset(None, "text/css; charset=utf-8", "http://h/site"));
        assert!(is_asset(None, "application/javascript", "http://h/app"));
        assert!(!is_asset(None, "text/html", "http://h/index.js"));
        assert!(is_asset(None, "", "http://h/favicon.ico"));
        assert!(is_asset(Some("other"), "", "http://h/favicon.ico"));
        assert!(!is_asset(None, "", "http://h/app/logout"));
    }
}
