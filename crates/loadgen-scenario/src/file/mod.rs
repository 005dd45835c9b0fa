//! Reading a scenario file (YAML, or JSON, which YAML reads too) into its
//! [`model`], with every error located in the file. JSON values inside the
//! file (a `json:` body, `json_path_equals`) are taken from the parsed
//! tree as written, so `42` stays a number and `"42"` a string.

mod bundle;
mod field_schemas;
mod files;
mod json_value;
mod locate;
pub mod model;
mod schema;

pub use schema::schema;

pub use bundle::Bundle;
pub use files::Files;

use crate::error::{Blame, ScenarioError};
use marked_yaml::{LoadError, LoaderOptions, Marker, Node};
use std::path::{Path, PathBuf};

/// Larger files are refused before they are parsed.
pub const MAX_FILE_BYTES: usize = 16 << 20;

/// A scenario file as read: its model, its parsed tree and where the
/// files it names come from.
pub struct Loaded {
    pub file: model::File,
    pub root: Node,
    pub blame: Blame,
    /// Files the scenario names (`body_file`, feeders).
    pub files: Files,
}

/// Reads the scenario file at `path`.
pub fn read(path: &Path) -> Result<Loaded, ScenarioError> {
    let (name, text) = read_text(path)?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    parse(&name, &text, dir)
}

/// The scenario file at `path` as text, and its name for errors.
fn read_text(path: &Path) -> Result<(String, String), ScenarioError> {
    let name = path.display().to_string();
    let text = std::fs::read(path).map_err(|e| {
        ScenarioError::of_file(&name, format!("cannot read the scenario file: {e}"))
    })?;
    if text.len() > MAX_FILE_BYTES {
        return Err(ScenarioError::of_file(
            &name,
            format!("the file is larger than {} MiB", MAX_FILE_BYTES >> 20),
        ));
    }
    let text = String::from_utf8(text)
        .map_err(|_| ScenarioError::of_file(&name, "the file is not UTF-8 text"))?;
    Ok((name, text))
}

/// Parses scenario `text`, named `name` in errors; relative paths in it are under `dir`.
pub fn parse(name: &str, text: &str, dir: PathBuf) -> Result<Loaded, ScenarioError> {
    parse_with(name, text, Files::Dir(dir))
}

/// Parses scenario `text`, named `name` in errors, whose named files come from `files`.
pub fn parse_with(name: &str, text: &str, files: Files) -> Result<Loaded, ScenarioError> {
    let blame = Blame {
        file: name.to_string(),
    };
    if text.len() > MAX_FILE_BYTES {
        return Err(ScenarioError::of_file(
            name,
            format!("the scenario is larger than {} MiB", MAX_FILE_BYTES >> 20),
        ));
    }
    let options = loader_options();
    let root =
        marked_yaml::parse_yaml_with_options(0, text, options).map_err(|e| load_error(name, &e))?;
    let file: model::File =
        marked_yaml::from_node(&root).map_err(|e| deserialize_error(name, &root, &e))?;
    Ok(Loaded {
        file,
        root,
        blame,
        files,
    })
}

/// Scenario `text` as the JSON document it stands for (plain scalars typed
/// as YAML's core schema types them), as a schema-aware editor sees it.
pub fn to_json(text: &str) -> Result<serde_json::Value, String> {
    let root = marked_yaml::parse_yaml_with_options(0, text, loader_options())
        .map_err(|e| e.to_string())?;
    Ok(json_value::of(&root))
}

/// Duplicate keys are errors; quoted scalars stay text (`'42'` is not a number).
pub(crate) fn loader_options() -> LoaderOptions {
    LoaderOptions::default()
        .error_on_duplicate_keys(true)
        .prevent_coercion(true)
}

impl Loaded {
    /// Every file the scenario names, as written, with the field that names
    /// it and where: feeders first, then `body_file`s in the file's order.
    pub fn named_files(&self) -> Vec<(String, String, &marked_yaml::Span)> {
        let mut named = Vec::new();
        for (name, feeder) in &self.file.data.0 {
            named.push((
                feeder.file.as_str().to_string(),
                format!("data.{}.file", name.as_str()),
                feeder.file.span(),
            ));
        }
        for (name, scenario) in &self.file.scenarios.0 {
            for (i, step) in scenario.steps.iter().enumerate() {
                if let Some(path) = &step.body_file {
                    named.push((
                        path.as_str().to_string(),
                        format!("scenarios.{}.steps[{i}].body_file", name.as_str()),
                        path.span(),
                    ));
                }
            }
        }
        named
    }

    /// The JSON value at `path` (keys and indices from the top), as written.
    pub fn json_at(&self, path: &[Key<'_>]) -> Option<serde_json::Value> {
        let mut node = &self.root;
        for key in path {
            node = match key {
                Key::Field(name) => node.as_mapping()?.get_node(name)?,
                Key::Index(i) => node.as_sequence()?.get_node(*i)?,
            };
        }
        Some(json_value::of(node))
    }
}

/// One step of a path into the tree.
#[derive(Clone, Copy, Debug)]
pub enum Key<'a> {
    Field(&'a str),
    Index(usize),
}

fn deserialize_error(name: &str, root: &Node, e: &marked_yaml::FromNodeError) -> ScenarioError {
    let path = e
        .path()
        .filter(|p| !p.is_empty() && *p != ".")
        .unwrap_or("");
    let mut mark = e.start_mark();
    let mut field = (!path.is_empty()).then(|| path.to_string());
    if let marked_yaml::Error::UnknownFieldError(unknown, _, _) = &**e {
        // The reader's path ends with the unknown field; its mapping is before it.
        let parent = path
            .strip_suffix(unknown.as_str())
            .unwrap_or(path)
            .trim_end_matches('.');
        if let Some(place) = locate::unknown_key(root, parent, unknown) {
            mark = place.mark;
            field = Some(place.path);
        }
    } else if let Some(at) = mark.and_then(|m| locate::node_at(root, path, m)) {
        field = Some(at);
    }
    ScenarioError {
        file: name.to_string(),
        line: mark.map(|m| m.line()),
        column: mark.map(|m| m.column()),
        field: field.filter(|f| !f.is_empty()),
        message: e.to_string_without_path(),
    }
}

trait WithoutPath {
    fn to_string_without_path(&self) -> String;
}

impl WithoutPath for marked_yaml::FromNodeError {
    fn to_string_without_path(&self) -> String {
        let error: &marked_yaml::Error = self;
        tidy(&error.to_string())
    }
}

/// serde's messages, in the file's terms.
fn tidy(message: &str) -> String {
    message
        .replace("Unknown field", "unknown field")
        .replace("Value was not a boolean", "expected true or false")
}

fn load_error(name: &str, error: &LoadError) -> ScenarioError {
    let (mark, message): (Option<&Marker>, String) = match error {
        LoadError::TopLevelMustBeMapping(m) => (Some(m), "the top level must be a mapping".into()),
        LoadError::TopLevelMustBeSequence(m) => {
            (Some(m), "the top level must be a sequence".into())
        }
        LoadError::UnexpectedAnchor(m) => (Some(m), "anchors and aliases are not supported".into()),
        LoadError::MappingKeyMustBeScalar(m) => (Some(m), "keys must be plain values".into()),
        LoadError::UnexpectedTag(m) => (Some(m), "YAML tags are not supported".into()),
        LoadError::ScanError(m, e) => (Some(m), format!("not valid YAML: {e}")),
        LoadError::DuplicateKey(inner) => (
            inner.key.span().start(),
            format!("'{}' appears twice in the same mapping", inner.key.as_str()),
        ),
    };
    ScenarioError {
        file: name.to_string(),
        line: mark.map(|m| m.line()),
        column: mark.map(|m| m.column()),
        field: None,
        message,
    }
}
