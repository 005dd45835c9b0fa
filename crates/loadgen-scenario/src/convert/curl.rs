//! A curl command line as one step: what "Copy as cURL" in a browser and
//! hand-written commands use. `-X`, `-H`, `-d` and its variants, `--json`,
//! `-u`, `-b`, `-A`, `-e`, `-I`, `-G`, `-L`, `-k` and the HTTP version
//! flags; an option that would change the request in a way a step cannot
//! say (`-F`, `-T`, a proxy) is refused by name rather than dropped.

use super::flow::{Body, Flow, Step};
use super::headers::kept;
use super::{ConvertError, Options};
use base64::Engine as _;

/// Options that only change what curl prints or how it connects, not the request.
const IGNORED: &[&str] = &[
    "-s",
    "--silent",
    "-S",
    "--show-error",
    "-v",
    "--verbose",
    "-i",
    "--include",
    "--compressed",
    "-f",
    "--fail",
    "--fail-with-body",
    "-N",
    "--no-buffer",
    "-#",
    "--progress-bar",
    "-g",
    "--globoff",
    "--http1.0",
    "-0",
];

/// Ignored options that take a value.
const IGNORED_WITH_VALUE: &[&str] = &[
    "-o",
    "--output",
    "-m",
    "--max-time",
    "--connect-timeout",
    "-w",
    "--write-out",
    "--retry",
    "-D",
    "--dump-header",
    "-c",
    "--cookie-jar",
];

pub fn read(text: &str, options: Options) -> Result<Flow, ConvertError> {
    // A command copied over several lines ends them with a backslash.
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let words = shlex::split(joined.trim())
        .ok_or_else(|| ConvertError("the curl command line has an unclosed quote".into()))?;
    let mut words = words.into_iter().peekable();
    match words.next().as_deref() {
        Some("curl") => {}
        Some(other) => {
            return Err(ConvertError(format!(
                "not a curl command line: it starts with '{other}', not 'curl'"
            )))
        }
        None => return Err(ConvertError("the curl command line is empty".into())),
    }
    let mut method = None;
    let mut url = None;
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut data: Vec<String> = Vec::new();
    let mut data_file = None;
    let mut json = false;
    let mut get = false;
    let mut follow = false;
    let mut flow = Flow::default();
    while let Some(word) = words.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_string(), Some(value.to_string()))
            }
            _ => (word.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, ConvertError> {
            match inline.clone().or_else(|| words.next()) {
                Some(v) => Ok(v),
                None => Err(ConvertError(format!("curl option {name} needs a value"))),
            }
        };
        match flag.as_str() {
            "-X" | "--request" => method = Some(value(&flag)?.to_ascii_uppercase()),
            "-H" | "--header" => {
                let header = value(&flag)?;
                let Some((name, v)) = header.split_once(':') else {
                    return Err(ConvertError(format!(
                        "curl -H '{header}': no ':' between name and value"
                    )));
                };
                headers.push((name.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
            "-d" | "--data" | "--data-raw" | "--data-binary" | "--data-ascii" => {
                let v = value(&flag)?;
                match v.strip_prefix('@') {
                    Some(path) if flag != "--data-raw" => data_file = Some(path.to_string()),
                    _ => data.push(v),
                }
            }
            "--data-urlencode" => {
                let v = value(&flag)?;
                let encoded = match v.split_once('=') {
                    Some((name, field)) => format!("{name}={}", encode(field)),
                    None => encode(&v),
                };
                data.push(encoded);
            }
            "--json" => {
                data.push(value(&flag)?);
                json = true;
            }
            "-u" | "--user" => {
                let credentials = base64::engine::general_purpose::STANDARD.encode(value(&flag)?);
                headers.push(("authorization".into(), format!("Basic {credentials}")));
            }
            "-b" | "--cookie" => headers.push(("cookie".into(), value(&flag)?)),
            "-A" | "--user-agent" => headers.push(("user-agent".into(), value(&flag)?)),
            "-e" | "--referer" => headers.push(("referer".into(), value(&flag)?)),
            "-I" | "--head" => method = Some("HEAD".into()),
            "-G" | "--get" => get = true,
            "-L" | "--location" => follow = true,
            "-k" | "--insecure" => flow.insecure = true,
            "--http1.1" => flow.protocol = Some("h1"),
            "--http2" | "--http2-prior-knowledge" => flow.protocol = Some("h2"),
            "--http3" | "--http3-only" => flow.protocol = Some("h3"),
            "--url" => url = Some(value(&flag)?),
            f if IGNORED.contains(&f) => {}
            f if IGNORED_WITH_VALUE.contains(&f) => {
                value(f)?;
            }
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(ConvertError(format!(
                    "curl option {f} has no equivalent in a scenario step"
                )))
            }
            _ => {
                if url.replace(word.clone()).is_some() {
                    return Err(ConvertError(
                        "the curl command line names more than one URL; a step sends one request"
                            .into(),
                    ));
                }
            }
        }
    }
    let url = url.ok_or_else(|| ConvertError("the curl command line names no URL".into()))?;
    let mut url = if url.contains("://") {
        url
    } else {
        format!("http://{url}")
    };
    if url::Url::parse(&url).is_err() {
        return Err(ConvertError(format!("curl URL '{url}' is not a valid URL")));
    }
    let content_type = headers
        .iter()
        .find(|(n, _)| n == "content-type")
        .map(|(_, v)| v.to_ascii_lowercase());
    let mut body = Body::None;
    if get && !data.is_empty() {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&data.join("&"));
    } else if let Some(path) = data_file {
        body = Body::File(path);
    } else if !data.is_empty() {
        let text = data.join("&");
        let form = !json
            && content_type
                .as_deref()
                .is_none_or(|t| t.starts_with("application/x-www-form-urlencoded"));
        body = if form {
            form_body(&text)
        } else if json || content_type.as_deref().is_some_and(|t| t.contains("json")) {
            serde_json::from_str(&text).map_or(Body::Text(text), Body::Json)
        } else {
            Body::Text(text)
        };
    }
    if matches!(body, Body::Form(_) | Body::Json(_)) {
        headers.retain(|(n, _)| n != "content-type");
    }
    // Headers curl was told to send are the user's, cookies included;
    // only the ones about the connection go.
    headers.retain(|(n, _)| n == "cookie" || n == "user-agent" || kept(n, options.keep_user_agent));
    let has_body = body != Body::None;
    let method = method.unwrap_or_else(|| if has_body { "POST" } else { "GET" }.into());
    flow.origin = super::har::origin(&url);
    flow.steps.push(Step {
        method,
        url,
        headers,
        body,
        follow_redirects: (!follow).then_some(0),
        ..Step::default()
    });
    Ok(flow)
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn form_body(text: &str) -> Body {
    let fields = form_urlencoded::parse(text.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    Body::form(fields, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_post_with_headers_and_form_data() {
        let flow = read(
            "curl -X POST 'http://127.0.0.1:8080/app/login' \\\n  -H 'Accept: text/html' -H 'Accept-Encoding: gzip' \\\n  --data-raw 'username=alice&password=secret' --compressed",
            Options::default(),
        )
        .unwrap();
        let step = &flow.steps[0];
        assert_eq!(step.method, "POST");
        assert_eq!(step.url, "http://127.0.0.1:8080/app/login");
        assert_eq!(step.headers, vec![("accept".into(), "text/html".into())]);
        assert_eq!(
            step.body,
            Body::Form(vec![
                ("username".into(), "alice".into()),
                ("password".into(), "secret".into())
            ])
        );
        assert_eq!(step.follow_redirects, Some(0));
        assert_eq!(flow.origin.as_deref(), Some("http://127.0.0.1:8080"));
    }

    #[test]
    fn json_get_and_refusals() {
        let flow = read(
            r#"curl -L --json '{"a": 1}' https://h/api"#,
            Options::default(),
        )
        .unwrap();
        assert_eq!(flow.steps[0].body, Body::Json(serde_json::json!({"a": 1})));
        assert_eq!(flow.steps[0].follow_redirects, None);
        let flow = read("curl -G -d q=1 http://h/s", Options::default()).unwrap();
        assert_eq!(
            (flow.steps[0].method.as_str(), flow.steps[0].url.as_str()),
            ("GET", "http://h/s?q=1")
        );
        let error = read("curl -F a=@x http://h/", Options::default()).unwrap_err();
        assert_eq!(
            error.0,
            "curl option -F has no equivalent in a scenario step"
        );
        assert!(read("wget http://h/", Options::default()).is_err());
        assert!(read("curl 'http://h/", Options::default()).is_err());
    }
}
