//! A step's request made for one send: URL, headers and body rendered from
//! their templates with the virtual user's values, and the `Cookie` header
//! from its jar.

use crate::suite::{BodySpec, JsonTemplate, StepSpec, UrlSpec};
use crate::template::{write_builtin, Source, Template, Values};
use crate::vu::Vu;
use bytes::Bytes;
use cookie_store::CookieStore;
use loadgen_core::request::Request;

pub struct Rendered {
    pub url: url::Url,
    pub request: Request,
}

/// The values a template reads during one of a virtual user's iterations.
pub struct IterationValues<'v> {
    vu: u64,
    iteration: u64,
    scenario: &'v str,
    variables: &'v [Option<String>],
    rows: &'v [usize],
    feeders: &'v [crate::feeder::Feeder],
}

impl<'v> IterationValues<'v> {
    pub fn of(vu: &'v Vu<'_>) -> IterationValues<'v> {
        IterationValues {
            vu: vu.id,
            iteration: vu.iteration,
            scenario: &vu.scenario.name,
            variables: &vu.variables,
            rows: &vu.rows,
            feeders: &vu.thread.suite.feeders,
        }
    }
}

impl Values for IterationValues<'_> {
    fn write(&mut self, source: &Source, out: &mut String) -> Result<(), String> {
        match source {
            Source::Builtin(builtin) => {
                write_builtin(*builtin, self.vu, self.iteration, self.scenario, out);
                Ok(())
            }
            Source::Feeder { feeder, column } => {
                let feeder_data = &self.feeders[*feeder];
                out.push_str(&feeder_data.rows[self.rows[*feeder]][*column]);
                Ok(())
            }
            Source::Extracted { slot, name } => match &self.variables[*slot] {
                Some(value) => {
                    out.push_str(value);
                    Ok(())
                }
                None => Err(format!(
                    "variable '{name}' has no value: the step that extracts it found nothing"
                )),
            },
        }
    }
}

/// The step's request as it goes out now.
pub fn request(vu: &Vu<'_>, step: &StepSpec) -> Result<Rendered, String> {
    let mut values = IterationValues::of(vu);
    let url = match &step.url {
        UrlSpec::Fixed(url) => url.clone(),
        UrlSpec::Templated { template, base } => {
            let text = template.render(&mut values)?;
            crate::compile::resolve_url(&text, base.as_ref())?
        }
    };
    let mut headers = Vec::with_capacity(step.headers.len() + 2);
    for (name, template) in &step.headers {
        let value = template.render(&mut values)?;
        if value.contains(['\r', '\n', '\0']) {
            return Err(format!("header '{name}' would hold a line break"));
        }
        headers.push((name.clone(), value));
    }
    let body = match &step.body {
        BodySpec::None => None,
        BodySpec::Text { template, .. } => Some(template.render(&mut values)?.into_bytes()),
        BodySpec::Form(fields) => {
            let mut form = form_urlencoded::Serializer::new(String::new());
            for (name, template) in fields {
                form.append_pair(name, &template.render(&mut values)?);
            }
            set_default(
                &mut headers,
                "content-type",
                "application/x-www-form-urlencoded",
            );
            Some(form.finish().into_bytes())
        }
        BodySpec::Json(template) => {
            let value = json(template, &mut values)?;
            set_default(&mut headers, "content-type", "application/json");
            Some(serde_json::to_vec(&value).expect("a JSON value serializes"))
        }
    };
    if let Some(body) = &body {
        headers.push(("content-length".to_string(), body.len().to_string()));
    }
    Ok(Rendered {
        request: Request {
            method: step.method.clone(),
            path: path_and_query(&url),
            authority: crate::origin::OriginKey::of(&url).authority(),
            headers,
            body: body.map(Bytes::from),
        },
        url,
    })
}

/// The path and query a request line (or `:path`) carries.
pub fn path_and_query(url: &url::Url) -> String {
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    }
}

fn set_default(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    if !headers.iter().any(|(n, _)| n == name) {
        headers.push((name.to_string(), value.to_string()));
    }
}

/// Sets the `Cookie` header to what the jar holds for `url`, RFC 6265's way.
pub fn cookie_header(request: &mut Request, jar: &CookieStore, url: &url::Url) {
    request.headers.retain(|(name, _)| name != "cookie");
    let mut value = String::new();
    for (name, cookie) in jar.get_request_values(url) {
        if !value.is_empty() {
            value.push_str("; ");
        }
        value.push_str(name);
        value.push('=');
        value.push_str(cookie);
    }
    if !value.is_empty() {
        request.headers.push(("cookie".to_string(), value));
    }
}

fn json(template: &JsonTemplate, values: &mut dyn Values) -> Result<serde_json::Value, String> {
    Ok(match template {
        JsonTemplate::Fixed(value) => value.clone(),
        JsonTemplate::String(text) => serde_json::Value::String(render_template(text, values)?),
        JsonTemplate::Array(items) => serde_json::Value::Array(
            items
                .iter()
                .map(|i| json(i, values))
                .collect::<Result<_, _>>()?,
        ),
        JsonTemplate::Object(entries) => serde_json::Value::Object(
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), json(v, values)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

fn render_template(template: &Template, values: &mut dyn Values) -> Result<String, String> {
    template.render(values)
}
