//! The paths a module's code uses, and the modules they name.

use std::collections::BTreeSet;

use crate::source::Module;

/// Every path the text uses that starts at `crate` or `super`, in a `use`
/// or in code.
pub fn paths_used(text: &str) -> Vec<String> {
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
    for start in ["crate::", "super::"] {
        for (at, _) in text.match_indices(start) {
            // `my_crate::`, or the second `super` of `super::super::`.
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || b"_:".contains(&bytes[at - 1])) {
                continue;
            }
            let tail: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            // `use crate::a::{b, c}` is read as `crate::a` here too.
            paths.push(tail.trim_end_matches(':').to_string());
        }
    }
    paths
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

/// The module a path names, or the module of the item it names.
pub fn target(path: &str, from: &Module, modules: &BTreeSet<Module>) -> Module {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_nested_braces() {
        assert_eq!(
            expand("crate::a::{b,c::{d,e},}"),
            ["crate::a::b", "crate::a::c::d", "crate::a::c::e"]
        );
    }

    #[test]
    fn reads_use_statements_and_paths_in_code() {
        let text = "use crate::a::A;\nuse std::io;\n\
                    fn f() { crate::c::go(); my_crate::d(); super::super::e::go(); }";
        assert_eq!(
            paths_used(text),
            [
                "crate::a::A",
                "crate::a::A",
                "crate::c::go",
                "super::super::e::go"
            ]
        );
    }

    #[test]
    fn resolves_super_from_a_nested_module() {
        let module = |path: &str| -> Module { path.split("::").map(String::from).collect() };
        let modules: BTreeSet<Module> = [vec![], module("a"), module("a::b"), module("c")].into();
        let from = module("a::b");
        assert_eq!(target("super::super::c::Item", &from, &modules), ["c"]);
        assert_eq!(target("super::Item", &from, &modules), ["a"]);
        assert_eq!(target("crate::a::b::f", &from, &modules), ["a", "b"]);
    }
}
