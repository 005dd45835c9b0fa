//! The scenario file's JSON Schema, made from the [`model`](super::model)
//! the reader uses, so the two cannot disagree. `docs/scenario.schema.json`
//! is this schema, written out (a test keeps it current); editors that
//! read YAML with a schema (`# yaml-language-server: $schema=...`) complete
//! and check scenario files with it.

/// The schema, as JSON.
pub fn schema() -> serde_json::Value {
    schemars::schema_for!(super::model::File).to_value()
}
