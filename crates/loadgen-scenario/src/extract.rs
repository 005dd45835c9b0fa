//! Extractors: a value from a response into a variable of the virtual
//! user, for later steps' templates. JSON paths are RFC 9535
//! (`serde_json_path`), CSS selectors go through a real HTML parser and
//! selector engine (`lol_html` as the body streams past, `scraper`'s tree
//! where that cannot decide: [`crate::dom`]), not a regular expression.

use crate::dom::DomSelector;
use crate::response::Response;
use serde_json_path::JsonPath;

pub enum Extract {
    /// The first match; a string is taken as it is, anything else as JSON text.
    Json(JsonPath),
    /// The first value of the header (name in lowercase).
    Header(String),
    Regex {
        pattern: regex::Regex,
        group: usize,
    },
    /// The first matching element's attribute, or its text.
    Dom {
        selector: DomSelector,
        attribute: Option<String>,
    },
}

impl Extract {
    /// The value, or `None` when the response does not have it.
    pub fn from(&self, response: &Response) -> Option<String> {
        match self {
            Extract::Json(path) => {
                let found = path.query(response.json()?).first()?;
                match found {
                    serde_json::Value::Null => None,
                    serde_json::Value::String(text) => Some(text.clone()),
                    other => Some(other.to_string()),
                }
            }
            Extract::Header(name) => response.header_values(name).next().map(str::to_string),
            Extract::Regex { pattern, group } => pattern
                .captures(&response.body_text())?
                .get(*group)
                .map(|m| m.as_str().to_string()),
            Extract::Dom {
                selector,
                attribute,
            } => selector.first(response, attribute.as_deref()),
        }
    }

    pub fn needs_body(&self) -> bool {
        !matches!(self, Extract::Header(_))
    }
}
