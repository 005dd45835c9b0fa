//! Correlation: a value a request sends that an earlier response handed
//! out (a CSRF token in a form, a token in JSON, a link's query, a
//! header) is taken from that response at replay time by an extractor on
//! its step, and sent as `{{variable}}`, so each replay uses the value
//! its own server gave it, not the recording's stale one.
//!
//! Where a value came from is found in the recorded responses, most recent
//! first, with the most specific extractor that finds it there: a header
//! that is the value, a JSON path, an HTML element's attribute by CSS
//! selector, else a regular expression anchored on the text before it.
//! Every extractor is tried on the recorded body before it is kept: it
//! must give back exactly the value.

use super::flow::{Body, Extract, Flow, Recorded, Step};
use scraper::{Html, Selector};
use serde_json::Value;

/// Shorter values ("1", "true", "en") are too likely to turn up by chance.
const MIN_LEN: usize = 8;

/// Response headers that never hand out a value for the client to send back.
const NOT_SOURCES: &[&str] = &[
    "set-cookie",
    "date",
    "content-type",
    "content-length",
    "server",
];

pub fn correlate(flow: &mut Flow) {
    let mut known: Vec<(String, String)> = Vec::new();
    for k in 0..flow.steps.len() {
        for (hint, value) in sent(&flow.steps[k]) {
            if known.iter().any(|(v, _)| *v == value) {
                continue;
            }
            let name = variable_name(&hint, &known);
            let source = (0..k).rev().find_map(|j| {
                let response = flow.steps[j].response.as_ref()?;
                Some((j, extractor(response, &value, &name)?))
            });
            if let Some((j, extract)) = source {
                flow.steps[j].extract.push(extract);
                known.push((value, name));
            }
        }
        for (value, name) in &known {
            substitute(&mut flow.steps[k], value, &format!("{{{{{name}}}}}"));
        }
    }
}

/// What a request sends that may have come from a response, with a name
/// for it: query values, form fields, JSON strings, header values (a
/// bearer token without its scheme).
fn sent(step: &Step) -> Vec<(String, String)> {
    let mut values = Vec::new();
    if let Ok(url) = url::Url::parse(&step.url) {
        for (key, value) in url.query_pairs() {
            values.push((key.into_owned(), value.into_owned()));
        }
    }
    match &step.body {
        Body::Form(fields) => values.extend(fields.iter().cloned()),
        Body::Json(json) => json_strings(json, "value", &mut values),
        _ => {}
    }
    for (name, value) in &step.headers {
        if matches!(
            name.as_str(),
            "referer" | "origin" | "accept" | "content-type" | "user-agent"
        ) {
            continue;
        }
        match value.split_once(' ') {
            Some((scheme, token)) if name == "authorization" => values.push((
                format!("{}_token", scheme.to_ascii_lowercase()),
                token.to_string(),
            )),
            _ => values.push((name.clone(), value.clone())),
        }
    }
    values.retain(|(_, value)| value.len() >= MIN_LEN && !value.contains(char::is_whitespace));
    values
}

fn json_strings(value: &Value, key: &str, into: &mut Vec<(String, String)>) {
    match value {
        Value::String(text) => into.push((key.to_string(), text.clone())),
        Value::Array(items) => items.iter().for_each(|item| json_strings(item, key, into)),
        Value::Object(fields) => fields
            .iter()
            .for_each(|(name, item)| json_strings(item, name, into)),
        _ => {}
    }
}

/// A template variable's name from what the request calls the value:
/// letters, digits and `_`, not a built-in's, not one already taken.
fn variable_name(hint: &str, known: &[(String, String)]) -> String {
    let mut base: String = hint
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_matches('_')
        .to_string();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base = format!("value_{base}");
    }
    if crate::template::Builtin::named(&base).is_some() || base == "env" {
        base.push_str("_value");
    }
    let taken = |name: &str| known.iter().any(|(_, n)| n == name);
    if !taken(&base) {
        return base;
    }
    (2..)
        .map(|i| format!("{base}_{i}"))
        .find(|name| !taken(name))
        .expect("a free name")
}

/// The extractor that takes `value` from `response`, if the response has it.
fn extractor(response: &Recorded, value: &str, into: &str) -> Option<Extract> {
    for (name, header) in &response.headers {
        if header == value && !NOT_SOURCES.contains(&name.as_str()) {
            return Some(Extract::Header {
                name: name.clone(),
                into: into.to_string(),
            });
        }
    }
    let body = response.body.as_deref()?;
    if !body.contains(value) {
        return None;
    }
    if let Ok(json) = serde_json::from_str::<Value>(body) {
        if let Some(path) = json_path(&json, value, "$".to_string()) {
            return Some(Extract::Json {
                path,
                into: into.to_string(),
            });
        }
    }
    if response.mime.contains("html") || body.trim_start().starts_with('<') {
        if let Some((selector, attribute)) = dom(body, value) {
            return Some(Extract::Dom {
                selector,
                attribute,
                into: into.to_string(),
            });
        }
    }
    regex(body, value).map(|pattern| Extract::Regex {
        pattern,
        into: into.to_string(),
    })
}

/// An RFC 9535 path to the first string (or number) equal to `value`.
fn json_path(json: &Value, value: &str, at: String) -> Option<String> {
    match json {
        Value::String(text) if text == value => Some(at),
        Value::Number(n) if n.to_string() == value => Some(at),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| json_path(item, value, format!("{at}[{i}]"))),
        Value::Object(fields) => fields.iter().find_map(|(name, item)| {
            let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let step = if plain {
                format!("{at}.{name}")
            } else {
                format!(
                    "{at}[{}]",
                    serde_json::Value::String(name.clone())
                        .to_string()
                        .replace('"', "'")
                )
            };
            json_path(item, value, step)
        }),
        _ => None,
    }
}

/// A CSS selector to an element carrying `value` as an attribute (an
/// `<input name=csrf value=...>`, a `<meta name=csrf-token content=...>`),
/// and the attribute; kept only when its first match gives the value.
fn dom(body: &str, value: &str) -> Option<(String, String)> {
    let document = Html::parse_document(body);
    for element in document
        .root_element()
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
    {
        let Some((attribute, _)) = element.value().attrs().find(|(_, v)| *v == value) else {
            continue;
        };
        let tag = element.value().name();
        let mut candidates = Vec::new();
        if let Some(name) = element.value().attr("name") {
            candidates.push(format!("{tag}[name=\"{}\"]", css_string(name)));
        }
        if let Some(id) = element.value().attr("id") {
            candidates.push(format!("{tag}[id=\"{}\"]", css_string(id)));
        }
        for candidate in candidates {
            let Ok(selector) = Selector::parse(&candidate) else {
                continue;
            };
            let first = document.select(&selector).next();
            if first.and_then(|e| e.value().attr(attribute)) == Some(value) {
                return Some((candidate, attribute.to_string()));
            }
        }
    }
    None
}

fn css_string(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A regular expression whose first match's group 1 is `value`: the text
/// just before the value's first appearance (from the attribute or word it
/// stands in, else the shortest that finds it first), then the characters
/// the value is made of.
fn regex(body: &str, value: &str) -> Option<String> {
    let at = body.find(value)?;
    let line_start = body[..at].rfind('\n').map_or(0, |i| i + 1);
    let mut before = &body[line_start..at];
    // At most the 48 characters before it (a minified page is one long line).
    if let Some((i, _)) = before.char_indices().rev().nth(47) {
        before = &before[i..];
    }
    let class = char_class(value);
    // `href="/app/logout?token=` starts after its quote.
    let natural = before
        .rfind(['"', '\'', ' ', '<', '>', '(', ','])
        .map_or(0, |i| i + 1);
    let mut starts = vec![natural];
    starts.extend(before.char_indices().map(|(i, _)| i).rev());
    for start in starts {
        let prefix = &before[start..];
        let length = prefix.chars().count();
        if length < 4 && start > 0 {
            continue;
        }
        let pattern = format!("{}({class}+)", regex::escape(prefix));
        let Ok(re) = regex::Regex::new(&pattern) else {
            continue;
        };
        let found = re.captures(body).and_then(|c| c.get(1)).map(|m| m.as_str());
        if found == Some(value) {
            return Some(pattern);
        }
    }
    None
}

/// The narrowest of a few character classes that holds every character of `value`.
fn char_class(value: &str) -> String {
    if value
        .chars()
        .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    {
        return "[0-9a-f]".into();
    }
    if value.chars().all(|c| c.is_ascii_hexdigit()) {
        return "[0-9A-Fa-f]".into();
    }
    let mut class = String::from("[A-Za-z0-9");
    let mut extra: Vec<char> = value
        .chars()
        .filter(|c| !c.is_ascii_alphanumeric())
        .collect();
    extra.sort_unstable();
    extra.dedup();
    for c in extra {
        class.push_str(&regex::escape(&c.to_string()));
    }
    class.push(']');
    class
}

/// `value` replaced by `template` wherever the step sends it.
fn substitute(step: &mut Step, value: &str, template: &str) {
    let encoded: String = form_urlencoded::byte_serialize(value.as_bytes()).collect();
    step.url = step.url.replace(value, template);
    if encoded != value {
        step.url = step.url.replace(&encoded, template);
    }
    for (_, header) in &mut step.headers {
        *header = header.replace(value, template);
    }
    match &mut step.body {
        Body::Form(fields) => {
            for (_, field) in fields {
                *field = field.replace(value, template);
            }
        }
        Body::Json(json) => substitute_json(json, value, template),
        Body::Text(text) => {
            *text = text.replace(value, template);
            if encoded != value {
                *text = text.replace(&encoded, template);
            }
        }
        Body::None | Body::File(_) => {}
    }
}

fn substitute_json(json: &mut Value, value: &str, template: &str) {
    match json {
        Value::String(text) => *text = text.replace(value, template),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| substitute_json(item, value, template)),
        Value::Object(fields) => fields
            .values_mut()
            .for_each(|item| substitute_json(item, value, template)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(body: &str) -> Recorded {
        Recorded {
            headers: vec![],
            body: Some(body.into()),
            mime: "text/html".into(),
        }
    }

    #[test]
    fn an_input_becomes_a_dom_extractor() {
        let page =
            r#"<form id="login"><input type="hidden" name="csrf" value="0123456789abcdef"></form>"#;
        assert_eq!(
            extractor(&html(page), "0123456789abcdef", "csrf"),
            Some(Extract::Dom {
                selector: r#"input[name="csrf"]"#.into(),
                attribute: "value".into(),
                into: "csrf".into()
            })
        );
    }

    #[test]
    fn a_link_becomes_a_regex_that_finds_it_first() {
        let page = "<a href=\"/other?token=aaaaaaaa\">x</a>\n<a id=\"logout\" href=\"/app/logout?token=0123456789abcdef\">Log out</a>";
        let Some(Extract::Regex { pattern, .. }) =
            extractor(&html(page), "0123456789abcdef", "token")
        else {
            panic!("a regex");
        };
        let re = regex::Regex::new(&pattern).unwrap();
        assert_eq!(&re.captures(page).unwrap()[1], "0123456789abcdef");
    }

    #[test]
    fn json_and_headers() {
        let response = Recorded {
            headers: vec![("x-request-token".into(), "tok-123456789".into())],
            body: Some(r#"{"data": {"items": [{"access-token": "eyJhbGciOi.x.y"}]}}"#.into()),
            mime: "application/json".into(),
        };
        assert_eq!(
            extractor(&response, "eyJhbGciOi.x.y", "t"),
            Some(Extract::Json {
                path: "$.data.items[0]['access-token']".into(),
                into: "t".into()
            })
        );
        assert_eq!(
            extractor(&response, "tok-123456789", "t"),
            Some(Extract::Header {
                name: "x-request-token".into(),
                into: "t".into()
            })
        );
    }

    #[test]
    fn a_sent_value_turns_into_its_variable() {
        let mut flow = Flow::default();
        flow.steps.push(Step {
            method: "POST".into(),
            url: "http://h/api/token".into(),
            response: Some(Recorded {
                headers: vec![],
                body: Some(r#"{"token": "abcdefgh12345"}"#.into()),
                mime: "application/json".into(),
            }),
            ..Step::default()
        });
        flow.steps.push(Step {
            method: "GET".into(),
            url: "http://h/api/me".into(),
            headers: vec![("authorization".into(), "Bearer abcdefgh12345".into())],
            ..Step::default()
        });
        correlate(&mut flow);
        assert_eq!(
            flow.steps[0].extract,
            vec![Extract::Json {
                path: "$.token".into(),
                into: "bearer_token".into()
            }]
        );
        assert_eq!(flow.steps[1].headers[0].1, "Bearer {{bearer_token}}");
    }
}
