//! What a `{{name}}` may name, and where its value comes from: built-ins,
//! `env.NAME`, `FEEDER.COLUMN`, and variables set by extractors of earlier
//! steps of the same scenario.

use crate::error::{Blame, ScenarioError};
use crate::file::model::Text;
use crate::template::{Builtin, Resolved, Source, Template};
use std::collections::BTreeMap;

pub struct Names {
    blame: Blame,
    env: BTreeMap<String, String>,
    /// Feeder name to its index and columns.
    feeders: BTreeMap<String, (usize, Vec<String>)>,
    /// Every extracted variable, by slot.
    variables: Vec<String>,
}

impl Names {
    pub fn blame(&self) -> &Blame {
        &self.blame
    }

    pub fn new(blame: Blame) -> Names {
        Names {
            blame,
            env: BTreeMap::new(),
            feeders: BTreeMap::new(),
            variables: Vec::new(),
        }
    }

    pub fn define_env(&mut self, name: &Text, value: String) -> Result<(), ScenarioError> {
        if !is_plain_name(name) {
            return Err(self.blame.at(
                name.span(),
                format!("env.{}", name.as_str()),
                "an env name is letters, digits and '_'",
            ));
        }
        self.env.insert(name.as_str().to_string(), value);
        Ok(())
    }

    pub fn override_env(&mut self, name: &str, value: &str) {
        self.env.insert(name.to_string(), value.to_string());
    }

    pub fn define_feeder(
        &mut self,
        name: &Text,
        index: usize,
        columns: &[String],
    ) -> Result<(), ScenarioError> {
        let field = format!("data.{}", name.as_str());
        if !is_plain_name(name) || name.as_str() == "env" || Builtin::named(name).is_some() {
            return Err(self.blame.at(
                name.span(),
                field,
                "a feeder's name is letters, digits and '_', and not 'env' or a built-in",
            ));
        }
        self.feeders
            .insert(name.as_str().to_string(), (index, columns.to_vec()));
        Ok(())
    }

    /// The slot of variable `name`, which an extractor sets.
    pub fn variable(&mut self, name: &Text, field: &str) -> Result<usize, ScenarioError> {
        let text = name.as_str();
        if !is_plain_name(text)
            || Builtin::named(text).is_some()
            || self.feeders.contains_key(text)
            || text == "env"
        {
            return Err(self.blame.at(
                name.span(),
                field,
                format!(
                    "'{text}' cannot be a variable: use letters, digits and '_', \
                     and no built-in ({}) or feeder name",
                    builtin_list()
                ),
            ));
        }
        Ok(match self.variables.iter().position(|v| v == text) {
            Some(slot) => slot,
            None => {
                self.variables.push(text.to_string());
                self.variables.len() - 1
            }
        })
    }

    pub fn variables(&self) -> Vec<String> {
        self.variables.clone()
    }

    /// Parses `text` at `field`; `available` are the variables earlier steps set.
    pub fn template(
        &self,
        text: &Text,
        field: &str,
        available: &[String],
    ) -> Result<Template, ScenarioError> {
        Template::parse(text, &mut |name| self.resolve(name, available))
            .map_err(|why| self.blame.at(text.span(), field, why))
    }

    /// As [`Names::template`] for text with no place of its own in the
    /// file (a body file, a JSON string): errors point at `at`.
    pub fn template_at(
        &self,
        text: &str,
        at: &marked_yaml::Span,
        field: &str,
        available: &[String],
    ) -> Result<Template, ScenarioError> {
        Template::parse(text, &mut |name| self.resolve(name, available))
            .map_err(|why| self.blame.at(at, field, why))
    }

    fn resolve(&self, name: &str, available: &[String]) -> Result<Resolved, String> {
        if let Some(builtin) = Builtin::named(name) {
            return Ok(Resolved::Source(Source::Builtin(builtin)));
        }
        if let Some(var) = name.strip_prefix("env.") {
            return self.env.get(var).map(|v| Resolved::Fixed(v.clone())).ok_or_else(|| {
                format!("env.{var} is not set: give it a value under 'env:' or with --env {var}=VALUE")
            });
        }
        if let Some((feeder, column)) = name.split_once('.') {
            if let Some((index, columns)) = self.feeders.get(feeder) {
                return match columns.iter().position(|c| c == column) {
                    Some(c) => Ok(Resolved::Source(Source::Feeder {
                        feeder: *index,
                        column: c,
                    })),
                    None => Err(format!(
                        "feeder '{feeder}' has no column '{column}' (its columns: {})",
                        columns.join(", ")
                    )),
                };
            }
        }
        if available.iter().any(|v| v == name) {
            let slot = self
                .variables
                .iter()
                .position(|v| v == name)
                .expect("an available variable has a slot");
            return Ok(Resolved::Source(Source::Extracted {
                slot,
                name: name.to_string(),
            }));
        }
        let known = if available.is_empty() {
            "none yet".to_string()
        } else {
            available.join(", ")
        };
        Err(format!(
            "unknown variable '{name}': not a built-in ({}), an env.NAME, a FEEDER.COLUMN \
             or a variable an earlier step of this scenario extracts ({known})",
            builtin_list()
        ))
    }
}

fn builtin_list() -> String {
    Builtin::ALL
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
