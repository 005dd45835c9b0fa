//! HAR 1.2 (W3C draft, as Chromium, Firefox and Playwright write it) into
//! a [`Flow`]: one step per document, XHR or fetch request in the order
//! they started, a redirect the browser followed folded into the step that
//! started it, think times from the gaps between steps.

use super::assets::is_asset;
use super::flow::{Body, Flow, Recorded, Step};
use super::headers::kept;
use super::{ConvertError, Options};
use base64::Engine as _;
use serde::Deserialize;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

#[derive(Deserialize)]
struct Har {
    log: Log,
}

#[derive(Deserialize)]
struct Log {
    entries: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    started_date_time: String,
    /// Milliseconds from the request's start to the response's end; -1 or absent when unknown.
    #[serde(default)]
    time: f64,
    request: Request,
    response: Response,
    /// Chromium's `document`, `xhr`, `fetch`, `image`, ...; Firefox has none.
    #[serde(rename = "_resourceType")]
    resource_type: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<Pair>,
    post_data: Option<PostData>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PostData {
    #[serde(default)]
    mime_type: String,
    text: Option<String>,
    params: Option<Vec<Pair>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    status: i64,
    #[serde(default)]
    headers: Vec<Pair>,
    content: Option<Content>,
    #[serde(default, rename = "redirectURL")]
    redirect_url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Content {
    #[serde(default)]
    mime_type: String,
    text: Option<String>,
    encoding: Option<String>,
}

#[derive(Deserialize)]
struct Pair {
    name: String,
    #[serde(default)]
    value: String,
}

pub fn read(text: &str, options: Options) -> Result<Flow, ConvertError> {
    let har: Har = serde_json::from_str(text).map_err(|e| {
        ConvertError(format!(
            "not a HAR file: {e} (a HAR is JSON with log.entries; export it from the browser's network panel)"
        ))
    })?;
    let mut entries = Vec::with_capacity(har.log.entries.len());
    for (i, entry) in har.log.entries.into_iter().enumerate() {
        let started = OffsetDateTime::parse(&entry.started_date_time, &Rfc3339).map_err(|e| {
            ConvertError(format!(
                "not a HAR file: log.entries[{i}].startedDateTime '{}' is not an ISO 8601 time: {e}",
                entry.started_date_time
            ))
        })?;
        let http =
            entry.request.url.starts_with("http://") || entry.request.url.starts_with("https://");
        // A request that got no answer (blocked, cancelled: status 0 or -1),
        // or one that is not HTTP (data:, blob:, a WebSocket's upgrade), is
        // nothing a replay can send.
        if !http || entry.response.status < 100 || entry.response.status == 101 {
            continue;
        }
        entries.push((started, entry));
    }
    if entries.is_empty() {
        return Err(ConvertError(
            "the HAR file has no HTTP request with a response in log.entries".into(),
        ));
    }
    // Browsers write entries in the order they started, but not every tool does.
    entries.sort_by_key(|(started, _)| *started);

    let mut taken = vec![false; entries.len()];
    let mut flow = Flow::default();
    let mut ends = Vec::new();
    for first in 0..entries.len() {
        if taken[first] {
            continue;
        }
        taken[first] = true;
        let (started, entry) = &entries[first];
        let mime = entry
            .response
            .content
            .as_ref()
            .map(|c| c.mime_type.as_str())
            .unwrap_or("");
        if !options.include_assets
            && is_asset(entry.resource_type.as_deref(), mime, &entry.request.url)
        {
            continue;
        }
        // The hops of a redirect the browser followed.
        let mut last = first;
        let mut end = *started + millis(entry.time);
        while let Some(next) = followed(&entries, &taken, last) {
            taken[next] = true;
            last = next;
            let (hop_started, hop) = &entries[next];
            end = end.max(*hop_started + millis(hop.time));
        }
        let (_, final_entry) = &entries[last];
        let mut step = step_of(&entry.request, options);
        step.status = u16::try_from(final_entry.response.status).ok();
        if (300..400).contains(&final_entry.response.status) {
            // The browser stopped at the redirect (a fetch with
            // `redirect: "manual"`, or the recording ended): so does the step.
            step.follow_redirects = Some(0);
        }
        step.response = Some(recorded(&final_entry.response));
        flow.steps.push(step);
        ends.push((*started, end));
    }
    if flow.steps.is_empty() {
        return Err(ConvertError(
            "the HAR file has only static assets (images, stylesheets, scripts, fonts): --include-assets keeps them".into(),
        ));
    }
    // The pause after a step: from its last response to the next step's start.
    for i in 0..flow.steps.len().saturating_sub(1) {
        let gap = ends[i + 1].0 - ends[i].1;
        flow.steps[i].think_ms = u64::try_from(gap.whole_milliseconds()).unwrap_or(0);
    }
    flow.origin = origin(&flow.steps[0].url);
    Ok(flow)
}

/// The entry the browser requested because entry `from` redirected it there.
fn followed(entries: &[(OffsetDateTime, Entry)], taken: &[bool], from: usize) -> Option<usize> {
    let (_, entry) = &entries[from];
    let status = entry.response.status;
    if !(300..400).contains(&status) || status == 304 {
        return None;
    }
    let location = if entry.response.redirect_url.is_empty() {
        header(&entry.response.headers, "location")?
    } else {
        entry.response.redirect_url.as_str()
    };
    let target = url::Url::parse(&entry.request.url)
        .ok()?
        .join(location)
        .ok()?;
    let keeps_method = matches!(status, 307 | 308);
    (from + 1..entries.len()).find(|&i| {
        let (_, next) = &entries[i];
        !taken[i]
            && same_url(&next.request.url, &target)
            && (next.request.method == "GET"
                || keeps_method && next.request.method == entry.request.method)
    })
}

fn same_url(text: &str, target: &url::Url) -> bool {
    match url::Url::parse(text) {
        // Browsers drop the fragment from the request.
        Ok(mut url) => {
            let mut target = target.clone();
            url.set_fragment(None);
            target.set_fragment(None);
            url == target
        }
        Err(_) => false,
    }
}

fn step_of(request: &Request, options: Options) -> Step {
    let mut headers: Vec<(String, String)> = request
        .headers
        .iter()
        .filter(|h| kept(&h.name, options.keep_user_agent))
        .map(|h| (h.name.to_ascii_lowercase(), h.value.clone()))
        .collect();
    let mut body = Body::None;
    if let Some(post) = &request.post_data {
        body = body_of(post);
    }
    if matches!(body, Body::Form(_) | Body::Json(_)) {
        // The scenario's form and json bodies set their own.
        headers.retain(|(name, _)| name != "content-type");
    }
    // HTTP/2 recordings can name a header twice (Chromium's `cookie` in
    // pieces); a step's headers are a mapping, one value per name.
    let mut unique: Vec<(String, String)> = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        match unique.iter_mut().find(|(n, _)| *n == name) {
            Some((_, joined)) => {
                joined.push_str(", ");
                joined.push_str(&value);
            }
            None => unique.push((name, value)),
        }
    }
    Step {
        method: request.method.to_ascii_uppercase(),
        url: request.url.clone(),
        headers: unique,
        body,
        ..Step::default()
    }
}

fn body_of(post: &PostData) -> Body {
    let mime = post.mime_type.to_ascii_lowercase();
    let text = post.text.clone().unwrap_or_default();
    if mime.starts_with("application/x-www-form-urlencoded") {
        let fields: Vec<(String, String)> = match &post.params {
            // Firefox and Chromium decode the fields into params; the text is the wire form.
            Some(params) if text.is_empty() => params
                .iter()
                .map(|p| (p.name.clone(), p.value.clone()))
                .collect(),
            _ => form_urlencoded::parse(text.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        };
        return Body::form(fields, &text);
    }
    if mime.contains("json") {
        if let Ok(value) = serde_json::from_str(&text) {
            return Body::Json(value);
        }
    }
    if text.is_empty() {
        Body::None
    } else {
        Body::Text(text)
    }
}

fn recorded(response: &Response) -> Recorded {
    let content = response.content.as_ref();
    let body = content.and_then(|c| {
        let text = c.text.as_ref()?;
        if c.encoding.as_deref() == Some("base64") {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text.trim())
                .ok()?;
            String::from_utf8(bytes).ok()
        } else {
            Some(text.clone())
        }
    });
    Recorded {
        headers: response
            .headers
            .iter()
            .map(|h| (h.name.to_ascii_lowercase(), h.value.clone()))
            .collect(),
        body,
        mime: content.map(|c| c.mime_type.clone()).unwrap_or_default(),
    }
}

fn header<'a>(headers: &'a [Pair], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

fn millis(ms: f64) -> time::Duration {
    if ms.is_finite() && ms > 0.0 {
        time::Duration::microseconds((ms * 1000.0) as i64)
    } else {
        time::Duration::ZERO
    }
}

/// `scheme://host[:port]` of a URL.
pub fn origin(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    match url.origin() {
        origin @ url::Origin::Tuple(..) => Some(origin.ascii_serialization()),
        url::Origin::Opaque(_) => None,
    }
}
