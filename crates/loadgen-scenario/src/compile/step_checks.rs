//! A step's checks and extractors, compiled: JSON paths (RFC 9535),
//! regular expressions and CSS selectors are parsed here, so a bad one is
//! an error in the file before anything is sent.

use super::names::Names;
use crate::check::Check;
use crate::dom::DomSelector;
use crate::error::{Blame, ScenarioError};
use crate::extract::Extract;
use crate::file::model::{Step, Text};
use crate::file::{Key, Loaded};
use serde_json_path::JsonPath;

/// What the checks and extractors read of a response.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reads {
    pub headers: bool,
    pub body: bool,
}

type Compiled = (Vec<(usize, Check)>, Vec<(usize, Extract)>, Reads);

#[allow(clippy::too_many_arguments)]
pub(super) fn compile<'a>(
    loaded: &Loaded,
    scenario: &str,
    index: usize,
    step: &'a Step,
    field: &str,
    step_slot: usize,
    names: &mut Names,
    all_checks: &mut Vec<(usize, String)>,
    available: &[String],
) -> Result<Compiled, ScenarioError> {
    let blame = &loaded.blame;
    let c = &step.checks;
    let at = |name: &str| format!("{field}.checks.{name}");
    let mut checks: Vec<(String, Check)> = Vec::new();
    if let Some(codes) = &c.status_in {
        if codes.is_empty() || codes.iter().any(|c| !(100..=599).contains(c)) {
            return Err(blame.at(
                codes.span(),
                at("status_in"),
                "a list of status codes from 100 to 599",
            ));
        }
        let list = codes
            .iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        checks.push((
            format!("status_in [{list}]"),
            Check::StatusIn(codes.to_vec()),
        ));
    }
    for text in c.body_includes.iter().flatten() {
        let template = names.template(text, &at("body_includes"), available)?;
        checks.push((
            format!("body_includes {:?}", text.as_str()),
            Check::BodyIncludes(template),
        ));
    }
    for name in c.header_exists.iter().flatten() {
        let header = super::header_name(name, &at("header_exists"), blame)?;
        checks.push((
            format!("header_exists {header}"),
            Check::HeaderExists(header),
        ));
    }
    for (name, value) in c.header_equals.iter().flat_map(|m| &m.0) {
        let header = super::header_name(name, &at("header_equals"), blame)?;
        let template = names.template(
            value,
            &format!("{}.{header}", at("header_equals")),
            available,
        )?;
        checks.push((
            format!("header_equals {header} == {:?}", value.as_str()),
            Check::HeaderEquals(header, template),
        ));
    }
    for (name, value) in c.header_includes.iter().flat_map(|m| &m.0) {
        let header = super::header_name(name, &at("header_includes"), blame)?;
        let template = names.template(
            value,
            &format!("{}.{header}", at("header_includes")),
            available,
        )?;
        checks.push((
            format!("header_includes {header} ~ {:?}", value.as_str()),
            Check::HeaderIncludes(header, template),
        ));
    }
    for path in c.json_path_exists.iter().flatten() {
        let parsed = json_path(path, &at("json_path_exists"), blame)?;
        checks.push((
            format!("json_path_exists {}", path.as_str()),
            Check::JsonPathExists(parsed),
        ));
    }
    if let Some(spanned) = &c.json_path_equals_at {
        let value = loaded.json_at(&[
            Key::Field("scenarios"),
            Key::Field(scenario),
            Key::Field("steps"),
            Key::Index(index),
            Key::Field("checks"),
            Key::Field("json_path_equals"),
        ]);
        let Some(serde_json::Value::Object(entries)) = value else {
            return Err(blame.at(
                spanned.span(),
                at("json_path_equals"),
                "a mapping of JSON paths to the values they must equal",
            ));
        };
        for (path, expected) in entries {
            let parsed = JsonPath::parse(&path).map_err(|e| {
                blame.at(
                    spanned.span(),
                    format!("{}.{path}", at("json_path_equals")),
                    format!("not an RFC 9535 JSON path: {e}"),
                )
            })?;
            checks.push((
                format!("json_path_equals {path} == {expected}"),
                Check::JsonPathEquals(parsed, expected),
            ));
        }
    }
    for pattern in c.regex_match.iter().flatten() {
        let compiled = regex(pattern, &at("regex_match"), blame)?;
        checks.push((
            format!("regex_match /{}/", pattern.as_str()),
            Check::RegexMatch(compiled),
        ));
    }

    let mut reads = Reads::default();
    let mut slotted = Vec::new();
    for (name, check) in checks {
        reads.headers |= check.needs_headers();
        reads.body |= check.needs_body();
        let slot = match all_checks
            .iter()
            .position(|(s, n)| *s == step_slot && *n == name)
        {
            Some(slot) => slot,
            None => {
                all_checks.push((step_slot, name));
                all_checks.len() - 1
            }
        };
        slotted.push((slot, check));
    }

    let mut extract = Vec::new();
    for (i, e) in step.extract.iter().enumerate() {
        let at = format!("{field}.extract[{i}]");
        let kind = e.kind.as_str();
        fn given(value: &Option<Text>) -> Option<&Text> {
            value.as_ref()
        }
        let needs = |value: Option<&'a Text>, name: &str| {
            value.ok_or_else(|| {
                blame.at(
                    e.kind.span(),
                    format!("{at}.{name}"),
                    format!("a {kind} extractor needs '{name}'"),
                )
            })
        };
        let options: [(&str, bool); 5] = [
            ("path", e.path.is_some()),
            ("name", e.name.is_some()),
            ("pattern", e.pattern.is_some()),
            ("selector", e.selector.is_some()),
            ("attribute", e.attribute.is_some()),
        ];
        let own: &[&str] = match kind {
            "json" => &["path"],
            "header" => &["name"],
            "regex" => &["pattern"],
            "dom" => &["selector", "attribute"],
            other => {
                return Err(blame.at(
                    e.kind.span(),
                    format!("{at}.type"),
                    format!("unknown extractor '{other}': use json, header, regex or dom"),
                ))
            }
        };
        if let Some((stray, _)) = options.iter().find(|(name, is)| *is && !own.contains(name)) {
            return Err(blame.at(
                e.kind.span(),
                format!("{at}.{stray}"),
                format!("'{stray}' is not an option of a {kind} extractor"),
            ));
        }
        if e.group.is_some() && kind != "regex" {
            return Err(blame.at(
                e.kind.span(),
                format!("{at}.group"),
                "'group' is an option of regex extractors",
            ));
        }
        let compiled = match kind {
            "json" => Extract::Json(json_path(
                needs(given(&e.path), "path")?,
                &format!("{at}.path"),
                blame,
            )?),
            "header" => Extract::Header(super::header_name(
                needs(given(&e.name), "name")?,
                &format!("{at}.name"),
                blame,
            )?),
            "regex" => {
                let text = needs(given(&e.pattern), "pattern")?;
                let pattern = regex(text, &format!("{at}.pattern"), blame)?;
                let group = e.group.as_ref().map_or(1, |g| **g);
                if group >= pattern.captures_len() {
                    return Err(blame.at(
                        e.group.as_ref().map_or(text.span(), |g| g.span()),
                        format!("{at}.group"),
                        format!(
                            "the pattern has {} group(s); group {group} does not exist",
                            pattern.captures_len() - 1
                        ),
                    ));
                }
                Extract::Regex { pattern, group }
            }
            _ => {
                let text = needs(given(&e.selector), "selector")?;
                let selector = DomSelector::parse(text).map_err(|err| {
                    blame.at(
                        text.span(),
                        format!("{at}.selector"),
                        format!("not a CSS selector: {err}"),
                    )
                })?;
                Extract::Dom {
                    selector,
                    attribute: e.attribute.as_ref().map(|a| a.as_str().to_string()),
                }
            }
        };
        reads.headers |= matches!(compiled, Extract::Header(_));
        reads.body |= compiled.needs_body();
        let slot = names.variable(&e.into, &format!("{at}.as"))?;
        extract.push((slot, compiled));
    }
    Ok((slotted, extract, reads))
}

fn json_path(text: &Text, field: &str, blame: &Blame) -> Result<JsonPath, ScenarioError> {
    JsonPath::parse(text).map_err(|e| {
        blame.at(
            text.span(),
            field,
            format!(
                "'{}' is not an RFC 9535 JSON path (such as $.user.id): {e}",
                text.as_str()
            ),
        )
    })
}

fn regex(text: &Text, field: &str, blame: &Blame) -> Result<regex::Regex, ScenarioError> {
    regex::RegexBuilder::new(text)
        // Bounds what a pattern may cost to build, whatever its author wrote.
        .size_limit(1 << 20)
        .build()
        .map_err(|e| {
            blame.at(
                text.span(),
                field,
                format!("not a regular expression: {}", one_line(&e.to_string())),
            )
        })
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
