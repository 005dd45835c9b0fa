//! No import cycles among the engine's modules: a module may use its
//! siblings only one way round, at every level (`transport` and `quic`,
//! `protocols::http2` and `protocols::http3` alike). Containment is not an
//! import: a child may use its parent's items and a parent its children's.
//! Test code (`#[cfg(test)] mod tests`, `tests.rs`) is left out.
//!
//! Imports are read from the source as text: every `use crate::…` and
//! `use super::…` (braces expanded) and every `crate::…` path in code;
//! comments, doc links included, are not imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module by its path from the crate root, `[]` being the root.
type Module = Vec<String>;

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; `src/lib.rs` is the root.
fn module_of(src: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(src).expect("a file under src");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The source without comments (a doc link is no import) and without its
/// test module, which by this crate's habit comes last.
fn code_of(text: &str) -> String {
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    code.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Expands `a::{b, c::{d, e}}` into `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').expect("balanced braces")];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|item| !item.trim().is_empty())
        .flat_map(expand)
        .map(|tail| format!("{prefix}{tail}"))
        .collect()
}

/// Every path the text uses that starts at `crate` or `super`.
fn paths_used(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("use ") {
        let statement = &rest[at + 4..];
        let end = statement.find(';').unwrap_or(statement.len());
        let tree = statement[..end].split_whitespace().collect::<String>();
        if tree.starts_with("crate::") || tree.starts_with("super::") {
            paths.extend(expand(&tree));
        }
        rest = &statement[end..];
    }
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices("crate::") {
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let tail: String = text[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        paths.push(tail);
    }
    paths
}

/// The module a path names, or the module of the item it names.
fn target(path: &str, from: &Module, modules: &BTreeSet<Module>) -> Module {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Module = match segments.first() {
        Some(&"crate") => Vec::new(),
        // `super` in `a/b.rs` and in `a/b/mod.rs` (both module a::b) is a.
        _ => from[..from.len().saturating_sub(1)].to_vec(),
    };
    segments.remove(0);
    while segments.first() == Some(&"super") {
        base.pop();
        segments.remove(0);
    }
    let mut found = base.clone();
    let mut candidate = base;
    for segment in segments {
        candidate.push(segment.to_string());
        if modules.contains(&candidate) {
            found = candidate.clone();
        } else {
            break;
        }
    }
    found
}

#[test]
fn engine_modules_import_each_other_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    files.retain(|f| f.file_name().is_some_and(|n| n != "tests.rs"));
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(&src, f)).collect();
    // Edges between siblings, grouped by the scope (their common parent).
    let mut edges: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let from = module_of(&src, file);
        let text = std::fs::read_to_string(file).expect("readable source");
        for path in paths_used(&code_of(&text)) {
            let to = target(&path, &from, &modules);
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            // One contains the other: a parent and its descendant.
            if common == from.len() || common == to.len() {
                continue;
            }
            edges
                .entry(from[..common].to_vec())
                .or_default()
                .entry(from[common].clone())
                .or_default()
                .insert(to[common].clone());
        }
    }
    assert!(
        edges.get(&Vec::new()).is_some_and(|e| e.len() > 10),
        "the reader found too few imports to judge: {edges:?}"
    );
    let mut cycles = Vec::new();
    for (scope, graph) in &edges {
        for cycle in find_cycles(graph) {
            let prefix = if scope.is_empty() {
                String::new()
            } else {
                format!("{}::", scope.join("::"))
            };
            cycles.push(
                cycle
                    .iter()
                    .map(|m| format!("{prefix}{m}"))
                    .collect::<Vec<_>>()
                    .join(" -> "),
            );
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// One cycle per strongly connected component with more than one module.
fn find_cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = graph
        .keys()
        .chain(graph.values().flat_map(|targets| targets.iter()))
        .collect();
    let reaches = |from: &String, to: &String| -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(node) = stack.pop() {
            if node == to {
                return true;
            }
            if seen.insert(node) {
                stack.extend(graph.get(node).into_iter().flatten());
            }
        }
        false
    };
    let mut cycles: Vec<Vec<String>> = Vec::new();
    let mut placed = BTreeSet::new();
    for node in &nodes {
        if placed.contains(*node) {
            continue;
        }
        let component: Vec<String> = nodes
            .iter()
            .filter(|other| reaches(node, other) && reaches(other, node))
            .map(|other| other.to_string())
            .collect();
        placed.extend(component.iter().cloned());
        if component.len() > 1 {
            cycles.push(component);
        }
    }
    cycles
}
