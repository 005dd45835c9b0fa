//! A [`Flow`] as a scenario file: the recording's origin as
//! `{{env.BASE_URL}}` (so `--env BASE_URL=...` replays it elsewhere), one
//! virtual user running the steps once, each step checked for the status
//! it was recorded with, and a threshold that every check passes.

use super::flow::{Body, Extract, Flow, Step};
use serde_json::Value;
use yaml_rust2::yaml::Hash;
use yaml_rust2::{Yaml, YamlEmitter};

const BASE_URL: &str = "{{env.BASE_URL}}";

pub fn scenario(flow: &Flow) -> String {
    let mut file = Hash::new();
    if let Some(origin) = &flow.origin {
        file.insert(key("env"), map([("BASE_URL", text(origin))]));
    }
    let mut defaults = Hash::new();
    if flow.origin.is_some() {
        defaults.insert(key("base_url"), text(BASE_URL));
    }
    if let Some(protocol) = flow.protocol {
        defaults.insert(key("protocol"), text(protocol));
    }
    if flow.insecure {
        defaults.insert(key("insecure"), Yaml::Boolean(true));
    }
    if !defaults.is_empty() {
        file.insert(key("defaults"), Yaml::Hash(defaults));
    }
    let mut names: Vec<String> = Vec::new();
    let steps = flow
        .steps
        .iter()
        .map(|step| {
            let title = step.title();
            let name = (1..)
                .map(|i| {
                    if i == 1 {
                        title.clone()
                    } else {
                        format!("{title} #{i}")
                    }
                })
                .find(|n| !names.contains(n))
                .expect("a free name");
            names.push(name.clone());
            step_yaml(flow, step, &name)
        })
        .collect();
    let scenario = map([
        ("executor", text("per-vu-iterations")),
        ("vus", Yaml::Integer(1)),
        ("iterations", Yaml::Integer(1)),
        ("steps", Yaml::Array(steps)),
    ]);
    file.insert(key("scenarios"), map([("recorded", scenario)]));
    // A recording's statuses are checked; a curl command line has none.
    if flow.steps.iter().any(|step| step.status.is_some()) {
        file.insert(
            key("thresholds"),
            map([("checks", Yaml::Array(vec![text("rate==1")]))]),
        );
    }
    let mut out = String::new();
    let mut emitter = YamlEmitter::new(&mut out);
    emitter.multiline_strings(true);
    emitter
        .dump(&Yaml::Hash(file))
        .expect("writing into a String cannot fail");
    // The emitter starts with a document marker, which the file does without.
    let body = out.strip_prefix("---\n").unwrap_or(&out);
    format!("# Made by loadgen convert (docs/convert.md); run it with: loadgen run FILE\n{body}\n")
}

fn step_yaml(flow: &Flow, step: &Step, name: &str) -> Yaml {
    let mut out = Hash::new();
    out.insert(key("name"), text(name));
    let has_body = step.body != Body::None;
    let default_method = if has_body { "POST" } else { "GET" };
    if step.method != default_method {
        out.insert(key("method"), text(&step.method));
    }
    out.insert(key("url"), text(&relative(flow, &step.url)));
    if !step.headers.is_empty() {
        let mut headers = Hash::new();
        for (name, value) in &step.headers {
            headers.insert(key(name), text(&on_base(flow, value)));
        }
        out.insert(key("headers"), Yaml::Hash(headers));
    }
    match &step.body {
        Body::None => {}
        Body::Form(fields) => {
            let mut form = Hash::new();
            for (name, value) in fields {
                form.insert(key(name), text(value));
            }
            out.insert(key("form"), Yaml::Hash(form));
        }
        Body::Json(json) => {
            out.insert(key("json"), json_yaml(json));
        }
        Body::Text(body) => {
            out.insert(key("body"), text(body));
        }
        Body::File(path) => {
            out.insert(key("body_file"), text(path));
        }
    }
    if let Some(follow) = step.follow_redirects {
        out.insert(key("follow_redirects"), Yaml::Integer(i64::from(follow)));
    }
    if step.think_ms > 0 {
        out.insert(key("think_time"), text(&format!("{}ms", step.think_ms)));
    }
    if let Some(status) = step.status {
        out.insert(
            key("checks"),
            map([(
                "status_in",
                Yaml::Array(vec![Yaml::Integer(i64::from(status))]),
            )]),
        );
    }
    if !step.extract.is_empty() {
        let extract = step.extract.iter().map(extract_yaml).collect();
        out.insert(key("extract"), Yaml::Array(extract));
    }
    Yaml::Hash(out)
}

fn extract_yaml(extract: &Extract) -> Yaml {
    match extract {
        Extract::Header { name, into } => map([
            ("type", text("header")),
            ("name", text(name)),
            ("as", text(into)),
        ]),
        Extract::Json { path, into } => map([
            ("type", text("json")),
            ("path", text(path)),
            ("as", text(into)),
        ]),
        Extract::Dom {
            selector,
            attribute,
            into,
        } => map([
            ("type", text("dom")),
            ("selector", text(selector)),
            ("attribute", text(attribute)),
            ("as", text(into)),
        ]),
        Extract::Regex { pattern, into } => map([
            ("type", text("regex")),
            ("pattern", text(pattern)),
            ("as", text(into)),
        ]),
    }
}

/// A URL on the recording's origin, relative to `base_url`.
fn relative(flow: &Flow, url: &str) -> String {
    match &flow.origin {
        Some(origin) => match url.strip_prefix(origin.as_str()) {
            Some(rest) if rest.starts_with('/') => rest.to_string(),
            Some("") => "/".to_string(),
            _ => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// A header value naming the recording's origin (`Origin`, `Referer`) names the replay's.
fn on_base(flow: &Flow, value: &str) -> String {
    match &flow.origin {
        Some(origin) => value.replace(origin.as_str(), BASE_URL),
        None => value.to_string(),
    }
}

fn json_yaml(json: &Value) -> Yaml {
    match json {
        Value::Null => Yaml::Null,
        Value::Bool(b) => Yaml::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Yaml::Integer(i),
            None => Yaml::Real(n.to_string()),
        },
        Value::String(s) => text(s),
        Value::Array(items) => Yaml::Array(items.iter().map(json_yaml).collect()),
        Value::Object(fields) => {
            let mut out = Hash::new();
            for (name, value) in fields {
                out.insert(key(name), json_yaml(value));
            }
            Yaml::Hash(out)
        }
    }
}

fn key(name: &str) -> Yaml {
    Yaml::String(name.to_string())
}

fn text(value: &str) -> Yaml {
    Yaml::String(value.to_string())
}

fn map<const N: usize>(entries: [(&str, Yaml); N]) -> Yaml {
    let mut out = Hash::new();
    for (name, value) in entries {
        out.insert(key(name), value);
    }
    Yaml::Hash(out)
}
