//! One scenario's steps: URL, method, headers, body, timeouts, redirects,
//! think time; checks and extractors are in [`super::step_checks`].

use super::names::Names;
use super::step_checks;
use super::{header_name, positive_duration, redirects, think_time, StepDefaults};
use crate::error::ScenarioError;
use crate::file::model::Step;
use crate::file::{Key, Loaded};
use crate::suite::{BodySpec, JsonTemplate, StepSpec, UrlSpec};
use crate::template::Template;
use crate::urls::resolve_url;
use loadgen_core::request::{Wants, USER_AGENT};
use marked_yaml::Spanned;

#[allow(clippy::too_many_arguments)]
pub(super) fn compile_steps(
    loaded: &Loaded,
    scenario: &str,
    steps: &Spanned<Vec<Step>>,
    field: &str,
    defaults: &StepDefaults,
    names: &mut Names,
    step_names: &mut Vec<String>,
    checks: &mut Vec<(usize, String)>,
) -> Result<Vec<StepSpec>, ScenarioError> {
    let blame = &loaded.blame;
    let mut compiled: Vec<StepSpec> = Vec::new();
    // Variables set by the steps before the one being read.
    let mut available: Vec<String> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let field = format!("{field}.steps[{index}]");
        let name = step.name.as_str();
        if name.trim().is_empty() {
            return Err(blame.at(
                step.name.span(),
                format!("{field}.name"),
                "a step needs a name",
            ));
        }
        if compiled.iter().any(|s| s.name == name) {
            return Err(blame.at(
                step.name.span(),
                format!("{field}.name"),
                format!("'{name}' names two steps of this scenario; step names key their metrics"),
            ));
        }
        let slot = match step_names.iter().position(|n| n == name) {
            Some(slot) => slot,
            None => {
                step_names.push(name.to_string());
                step_names.len() - 1
            }
        };

        let url = url(step, &field, defaults, names, &available, blame)?;
        let body = body(loaded, scenario, index, step, &field, names, &available)?;
        let method = match &step.method {
            Some(method) => {
                let upper = method.as_str().to_ascii_uppercase();
                if http::Method::from_bytes(upper.as_bytes()).is_err() {
                    return Err(blame.at(
                        method.span(),
                        format!("{field}.method"),
                        format!("'{}' is not an HTTP method", method.as_str()),
                    ));
                }
                upper
            }
            None if matches!(body, BodySpec::None) => "GET".to_string(),
            None => "POST".to_string(),
        };
        let mut headers: Vec<(String, Template)> =
            vec![("user-agent".to_string(), Template::fixed(USER_AGENT))];
        let mut set =
            |name: String, template: Template| match headers.iter_mut().find(|(n, _)| *n == name) {
                Some(existing) => existing.1 = template,
                None => headers.push((name, template)),
            };
        for (name, template) in &defaults.headers {
            set(name.clone(), template.clone());
        }
        for (name, value) in &step.headers.0 {
            let at = format!("{field}.headers.{}", name.as_str());
            let header = header_name(name, &at, blame)?;
            if matches!(
                header.as_str(),
                "host" | "content-length" | "transfer-encoding" | "connection" | "cookie"
            ) {
                return Err(blame.at(
                    name.span(),
                    at,
                    format!(
                        "'{header}' is set by loadgen (from the URL, the body and the cookie jar)"
                    ),
                ));
            }
            set(header, names.template(value, &at, &available)?);
        }
        if let BodySpec::Text {
            content_type: Some(kind),
            ..
        } = &body
        {
            if !headers.iter().any(|(n, _)| n == "content-type") {
                headers.push(("content-type".to_string(), Template::fixed(kind)));
            }
        }

        let (step_checks, step_extract, reads) = step_checks::compile(
            loaded, scenario, index, step, &field, slot, names, checks, &available,
        )?;
        let cookies = step.cookies.unwrap_or(defaults.cookies);
        let follow_redirects = match &step.follow_redirects {
            Some(text) => redirects(text, &format!("{field}.follow_redirects"), blame)?,
            None => defaults.follow_redirects,
        };
        let wants = Wants {
            headers: reads.headers || cookies || follow_redirects > 0,
            body: reads.body,
        };
        for (slot, _) in &step_extract {
            let variable = names.variables()[*slot].clone();
            if !available.contains(&variable) {
                available.push(variable);
            }
        }
        let mut spec = StepSpec {
            name: name.to_string(),
            slot,
            method,
            url,
            headers,
            body,
            timeout: positive_duration(step.timeout.as_ref(), &format!("{field}.timeout"), blame)?
                .unwrap_or(defaults.timeout),
            think_time: match &step.think_time {
                Some(text) => think_time(text, &format!("{field}.think_time"), blame)?,
                None => defaults.think_time,
            },
            follow_redirects,
            cookies,
            checks: step_checks,
            abort_on_failure: step.abort_on_failure,
            extract: step_extract,
            wants,
            all_headers: reads.headers,
            prepared: None,
        };
        spec.prepared = crate::render::prepare(&spec);
        compiled.push(spec);
    }
    Ok(compiled)
}

fn url(
    step: &Step,
    field: &str,
    defaults: &StepDefaults,
    names: &Names,
    available: &[String],
    blame: &crate::error::Blame,
) -> Result<UrlSpec, ScenarioError> {
    let at = format!("{field}.url");
    let template = names.template(&step.url, &at, available)?;
    let Some(fixed) = template.as_fixed() else {
        return Ok(UrlSpec::Templated {
            template,
            base: defaults.base.clone(),
        });
    };
    let url = resolve_url(fixed, defaults.base.as_ref())
        .map_err(|why| blame.at(step.url.span(), at, why))?;
    Ok(UrlSpec::Fixed(url))
}

fn body(
    loaded: &Loaded,
    scenario: &str,
    index: usize,
    step: &Step,
    field: &str,
    names: &Names,
    available: &[String],
) -> Result<BodySpec, ScenarioError> {
    let blame = &loaded.blame;
    let given = [
        step.body.as_ref().map(|t| ("body", t.span())),
        step.body_file.as_ref().map(|t| ("body_file", t.span())),
        step.form.as_ref().map(|_| ("form", step.name.span())),
        step.json_at.as_ref().map(|j| ("json", j.span())),
    ];
    let mut present = given.iter().flatten();
    let Some(first) = present.next() else {
        return Ok(BodySpec::None);
    };
    if let Some(second) = present.next() {
        return Err(blame.at(
            second.1,
            format!("{field}.{}", second.0),
            format!(
                "a step has one body: '{}' and '{}' are both given",
                first.0, second.0
            ),
        ));
    }
    if let Some(text) = &step.body {
        return Ok(BodySpec::Text {
            template: names.template(text, &format!("{field}.body"), available)?,
            content_type: None,
        });
    }
    if let Some(path) = &step.body_file {
        let at = format!("{field}.body_file");
        let bytes = loaded
            .files
            .read(path.as_str())
            .map_err(|why| blame.at(path.span(), &at, why))?;
        let text = String::from_utf8(bytes).map_err(|_| {
            let shown = loaded.files.shown(path.as_str());
            blame.at(path.span(), &at, format!("{shown} is not UTF-8 text"))
        })?;
        return Ok(BodySpec::Text {
            template: names.template_at(&text, path.span(), &at, available)?,
            content_type: None,
        });
    }
    if let Some(form) = &step.form {
        let mut fields = Vec::new();
        for (name, value) in &form.0 {
            let at = format!("{field}.form.{}", name.as_str());
            fields.push((
                name.as_str().to_string(),
                names.template(value, &at, available)?,
            ));
        }
        return Ok(BodySpec::Form(fields));
    }
    let at = step.json_at.as_ref().expect("the one body given");
    let value = loaded
        .json_at(&[
            Key::Field("scenarios"),
            Key::Field(scenario),
            Key::Field("steps"),
            Key::Index(index),
            Key::Field("json"),
        ])
        .unwrap_or(serde_json::Value::Null);
    let field = format!("{field}.json");
    Ok(BodySpec::Json(json_template(&value, &|text| {
        names.template_at(text, at.span(), &field, available)
    })?))
}

fn json_template(
    value: &serde_json::Value,
    template: &dyn Fn(&str) -> Result<Template, ScenarioError>,
) -> Result<JsonTemplate, ScenarioError> {
    use serde_json::Value;
    Ok(match value {
        Value::String(text) if text.contains("{{") => JsonTemplate::String(template(text)?),
        Value::Array(items) if contains_template(value) => JsonTemplate::Array(
            items
                .iter()
                .map(|item| json_template(item, template))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(entries) if contains_template(value) => JsonTemplate::Object(
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), json_template(v, template)?)))
                .collect::<Result<_, ScenarioError>>()?,
        ),
        other => JsonTemplate::Fixed(other.clone()),
    })
}

fn contains_template(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(text) => text.contains("{{"),
        serde_json::Value::Array(items) => items.iter().any(contains_template),
        serde_json::Value::Object(entries) => entries.values().any(contains_template),
        _ => false,
    }
}
