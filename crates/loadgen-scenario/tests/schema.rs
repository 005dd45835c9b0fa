//! The shipped JSON Schema is the one the reader's model makes, and every
//! example validates against it. `LOADGEN_UPDATE_SCHEMA=1 cargo test -p
//! loadgen-scenario --test schema` rewrites the shipped file.

use loadgen_scenario::compile::{compile, Options};
use loadgen_scenario::file::{parse, schema, to_json};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn shipped_path() -> PathBuf {
    repo().join("docs/scenario.schema.json")
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&schema()).expect("a valid JSON Schema")
}

/// The file's text as the JSON value a schema-aware editor sees.
fn as_json(text: &str) -> serde_json::Value {
    to_json(text).expect("YAML")
}

#[test]
fn the_shipped_schema_is_current() {
    let made = serde_json::to_string_pretty(&schema()).unwrap() + "\n";
    let path = shipped_path();
    if std::env::var_os("LOADGEN_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &made).unwrap();
    }
    let shipped = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        shipped == made,
        "{} is not the model's schema; rewrite it with LOADGEN_UPDATE_SCHEMA=1 cargo test -p loadgen-scenario --test schema",
        path.display()
    );
}

#[test]
fn every_example_is_valid_and_reads() {
    let validator = validator();
    let mut seen = 0;
    for entry in std::fs::read_dir(repo().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&as_json(&text))
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
        parse(
            &path.display().to_string(),
            &text,
            path.parent().unwrap().to_path_buf(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        seen += 1;
    }
    assert!(seen > 0);
}

#[test]
fn the_schema_refuses_what_the_reader_refuses() {
    let validator = validator();
    for (text, why) in [
        (
            "scenarios: {a: {executor: constant-vus, steps: [{name: x, url: /, methd: GET}]}}",
            "unknown step field",
        ),
        (
            "scenarios: {a: {executor: constant-vus, steps: [{url: /}]}}",
            "step without a name",
        ),
        (
            "defaults: {base_uri: x}\nscenarios: {}",
            "unknown defaults field",
        ),
        ("{}", "no scenarios"),
        (
            "scenarios: {a: {executor: constant-vu, duration: 1s, steps: [{name: x, url: /}]}}",
            "no such executor",
        ),
    ] {
        let value = as_json(text);
        assert!(!validator.is_valid(&value), "{why}: {text}");
        let read = parse("bad.yaml", text, std::env::temp_dir())
            .and_then(|loaded| compile(&loaded, &Options::default()).map(drop));
        assert!(read.is_err(), "{why}: {text}");
    }
    let fine = "defaults: {headers: {x-count: 5}, follow_redirects: false}\nscenarios: {a: {executor: per-vu-iterations, steps: [{name: x, url: /, form: {n: 1}}]}}";
    assert!(validator.is_valid(&as_json(fine)));
    parse("fine.yaml", fine, std::env::temp_dir()).expect("reads");
}
