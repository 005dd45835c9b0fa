//! A scenario file's errors: one line naming the file, the line and
//! column, and the field at fault, e.g.
//! `login.yaml:14:15: scenarios.login.steps[1].url: unknown variable 'tokn'`.

use marked_yaml::Span;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    /// 1-based, where the file says where.
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// The field at fault as a path from the top, e.g. `scenarios.login.steps[1].url`.
    pub field: Option<String>,
    pub message: String,
}

impl ScenarioError {
    /// An error of the file as a whole.
    pub fn of_file(file: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: file.to_string(),
            line: None,
            column: None,
            field: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        // One line, whatever the field (a key may be a quoted string over
        // several lines) or the message quotes.
        if let Some(field) = &self.field {
            write!(f, ": {}", field.replace(['\n', '\r'], " "))?;
        }
        write!(f, ": {}", self.message.replace(['\n', '\r'], " "))
    }
}

impl std::error::Error for ScenarioError {}

/// Builds errors for one file: each at a span, under a field path.
#[derive(Clone, Debug)]
pub struct Blame {
    pub file: String,
}

impl Blame {
    pub fn at(
        &self,
        span: &Span,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> ScenarioError {
        let start = span.start();
        ScenarioError {
            file: self.file.clone(),
            line: start.map(|m| m.line()),
            column: start.map(|m| m.column()),
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// An error of a field whose place in the file is not known.
    pub fn field(&self, field: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: self.file.clone(),
            line: None,
            column: None,
            field: Some(field.into()),
            message: message.into(),
        }
    }
}
