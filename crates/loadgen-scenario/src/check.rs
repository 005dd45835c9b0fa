//! loadgen-rs's eight checks. Each list entry of a step's `checks` is one
//! check with its own pass and fail counters, named as written
//! (`body_includes "Welcome"`); `status_in` is one check for its list.
//! A check passes or fails; it ends the iteration only when the step says
//! `abort_on_failure`.

use crate::response::Response;
use crate::template::{Template, Values};
use serde_json_path::JsonPath;

pub enum Check {
    StatusIn(Vec<u16>),
    BodyIncludes(Template),
    HeaderExists(String),
    HeaderEquals(String, Template),
    HeaderIncludes(String, Template),
    JsonPathExists(JsonPath),
    JsonPathEquals(JsonPath, serde_json::Value),
    RegexMatch(regex::Regex),
}

impl Check {
    /// Whether the check holds for `response`. A template whose variable
    /// has no value makes the check fail.
    pub fn holds(&self, response: &Response, values: &mut dyn Values) -> bool {
        match self {
            Check::StatusIn(codes) => codes.contains(&response.status),
            Check::BodyIncludes(text) => match text.render(values) {
                Ok(text) => response.body_text().contains(text.as_str()),
                Err(_) => false,
            },
            Check::HeaderExists(name) => response.header_values(name).next().is_some(),
            Check::HeaderEquals(name, value) => match value.render(values) {
                Ok(value) => response.header_values(name).any(|v| v == value),
                Err(_) => false,
            },
            Check::HeaderIncludes(name, value) => match value.render(values) {
                Ok(value) => response
                    .header_values(name)
                    .any(|v| v.contains(value.as_str())),
                Err(_) => false,
            },
            Check::JsonPathExists(path) => response
                .json()
                .and_then(|json| path.query(json).first())
                .is_some_and(|found| !found.is_null()),
            Check::JsonPathEquals(path, expected) => response
                .json()
                .and_then(|json| path.query(json).first())
                .is_some_and(|found| found == expected),
            Check::RegexMatch(pattern) => pattern.is_match(&response.body_text()),
        }
    }

    /// Whether it reads the body.
    pub fn needs_body(&self) -> bool {
        matches!(
            self,
            Check::BodyIncludes(_)
                | Check::JsonPathExists(_)
                | Check::JsonPathEquals(..)
                | Check::RegexMatch(_)
        )
    }

    /// Whether it reads headers.
    pub fn needs_headers(&self) -> bool {
        matches!(
            self,
            Check::HeaderExists(_) | Check::HeaderEquals(..) | Check::HeaderIncludes(..)
        )
    }
}
