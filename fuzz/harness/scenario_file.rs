//! The scenario file that `loadgen run FILE` reads (YAML, or JSON), through
//! `loadgen_scenario::file::parse` and, when it parses, the compilation
//! that checks it (templates, executors, checks and extractors: regular
//! expressions, JSON paths, CSS selectors, thresholds). A scenario file is
//! written by hand and may be anything.
//!
//! Input: the file's text (bytes that are not UTF-8 replaced, as the
//! reader refuses them before parsing).
//!
//! Invariants: no panic; every error is one line, naming the file first,
//! and a line number in it is one of the text's lines (as YAML counts
//! them). A file that names
//! another file (a feeder's `file`, `body_file`, `ca_file`) is parsed but
//! not compiled, so that the fuzzer reads nothing from disk.

use loadgen_scenario::compile::{compile, Options};
use loadgen_scenario::file::{model, parse};
use loadgen_scenario::ScenarioError;
use std::path::PathBuf;

const NAME: &str = "fuzz.yaml";

pub fn check(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let dir = PathBuf::from("/nonexistent/loadgen-fuzz");
    let loaded = match parse(NAME, &text, dir) {
        Ok(loaded) => loaded,
        Err(e) => return one_line(&e, &text),
    };
    if names_a_file(&loaded.file) {
        return;
    }
    if let Err(e) = compile(&loaded, &Options::default()) {
        one_line(&e, &text);
    }
}

fn names_a_file(file: &model::File) -> bool {
    !file.data.0.is_empty()
        || file.defaults.ca_file.is_some()
        || file
            .scenarios
            .0
            .iter()
            .any(|(_, scenario)| scenario.steps.iter().any(|s| s.body_file.is_some()))
}

fn one_line(error: &ScenarioError, text: &str) {
    let shown = error.to_string();
    assert!(
        !shown.contains(['\n', '\r']),
        "an error of more than one line: {shown:?}"
    );
    assert!(
        shown.starts_with(NAME),
        "an error not naming the file: {shown:?}"
    );
    if let Some(line) = error.line {
        // YAML's line breaks are CR LF, CR and LF (YAML 1.2, b-break). A
        // text ending without a line end still has its last line; an error
        // at the end of the input may point just past it.
        let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count();
        assert!(
            (1..=lines + 1).contains(&line),
            "line {line} in a text of {lines} lines: {shown:?}"
        );
    }
}
