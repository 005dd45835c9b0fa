//! For loadgen's tests only: which modules of a crate import which, read
//! from its source as text, and the import cycles among them.
//!
//! A module may use its siblings only one way round, at every level
//! (`transport` and `quic`, `protocols::http2` and `protocols::http3`
//! alike). Containment is not an import: a child may use its parent's
//! items and a parent its children's. Test code (`#[cfg(test)] mod tests`,
//! `tests.rs`, anything under a `tests` module) is left out.
//!
//! Imports are every `use crate::…` and `use super::…` (braces expanded)
//! and every `crate::…` and `super::…` path in code; comments, doc links
//! included, are not imports.

mod cycles;
mod imports;
mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use source::Module;

/// The imports between sibling modules of one crate, grouped by the
/// module the siblings share (the scope; `[]` for the crate root): for
/// each module, the siblings it uses and the paths it uses them by.
#[derive(Debug, Default)]
pub struct ModuleGraph {
    edges: BTreeMap<Module, BTreeMap<String, BTreeMap<String, BTreeSet<String>>>>,
}

/// Sibling modules that import each other in a loop, named by their paths
/// from the crate root, with the imports that tie them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    pub modules: Vec<String>,
    /// `from -> to: path, path` for each import between the modules.
    pub imports: Vec<String>,
}

impl ModuleGraph {
    /// Reads the crate whose sources are under `src` (`lib.rs` or `main.rs`
    /// being its root).
    pub fn read(src: &Path) -> std::io::Result<ModuleGraph> {
        let files = source::files(src)?;
        let modules: BTreeSet<Module> = files.iter().map(|(module, _)| module.clone()).collect();
        let mut graph = ModuleGraph::default();
        for (from, text) in &files {
            for path in imports::paths_used(&source::code_of(text)) {
                let to = imports::target(&path, from, &modules);
                let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
                // One contains the other: a parent and its descendant.
                if common == from.len() || common == to.len() {
                    continue;
                }
                graph
                    .edges
                    .entry(from[..common].to_vec())
                    .or_default()
                    .entry(from[common].clone())
                    .or_default()
                    .entry(to[common].clone())
                    .or_default()
                    .insert(path);
            }
        }
        Ok(graph)
    }

    /// How many sibling-to-sibling imports were found, each counted once.
    pub fn imports(&self) -> usize {
        self.edges
            .values()
            .flat_map(|uses| uses.values())
            .map(BTreeMap::len)
            .sum()
    }

    /// One cycle per group of siblings that reach each other.
    pub fn cycles(&self) -> Vec<Cycle> {
        let mut found = Vec::new();
        for (scope, uses) in &self.edges {
            let named = |m: &String| -> String {
                let path: Vec<&str> = scope.iter().chain([m]).map(String::as_str).collect();
                path.join("::")
            };
            let graph: BTreeMap<String, BTreeSet<String>> = uses
                .iter()
                .map(|(from, to)| (from.clone(), to.keys().cloned().collect()))
                .collect();
            for members in cycles::strongly_connected(&graph) {
                let mut imports = Vec::new();
                for from in &members {
                    for (to, paths) in uses.get(from).into_iter().flatten() {
                        if members.contains(to) {
                            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                            let (from, to) = (named(from), named(to));
                            imports.push(format!("{from} -> {to}: {}", paths.join(", ")));
                        }
                    }
                }
                let modules = members.iter().map(named).collect();
                found.push(Cycle { modules, imports });
            }
        }
        found
    }
}

impl Cycle {
    /// Whether the cycle is made of exactly these modules, in any order.
    pub fn is(&self, modules: &[&str]) -> bool {
        let mine: BTreeSet<&str> = self.modules.iter().map(String::as_str).collect();
        mine == modules.iter().copied().collect()
    }
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.modules.join(" <-> "))?;
        for import in &self.imports {
            write!(f, "\n    {import}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    fn crate_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "loadgen-module-graph-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn finds_a_cycle_between_nested_siblings_and_none_through_parents() {
        let dir = crate_dir("nested");
        write(
            &dir,
            &[
                ("lib.rs", "mod a;\nmod b;\nuse crate::a::x::Thing;\n"),
                ("a/mod.rs", "mod x;\nmod y;\nuse crate::b::Other;\n"),
                ("a/x.rs", "use super::{y::Why, super::b};\n"),
                ("a/y.rs", "pub fn f() { crate::a::x::g() }\n"),
                ("b.rs", "use crate::a; // crate::a::x is no import here\n"),
            ],
        );
        let graph = ModuleGraph::read(&dir).unwrap();
        let cycles = graph.cycles();
        let _ = std::fs::remove_dir_all(&dir);
        // a <-> b at the root, a::x <-> a::y inside a; lib -> a and
        // a -> a::x are containment.
        assert_eq!(cycles.len(), 2, "{cycles:?}");
        assert!(cycles.iter().any(|c| c.is(&["a", "b"])), "{cycles:?}");
        assert!(cycles.iter().any(|c| c.is(&["a::x", "a::y"])), "{cycles:?}");
        assert_eq!(graph.imports(), 4);
    }

    #[test]
    fn leaves_out_comments_and_test_code() {
        let dir = crate_dir("tests");
        write(
            &dir,
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                ("a.rs", "use crate::b::B;\n"),
                (
                    "b.rs",
                    "/// Made by [`crate::a::make`].\npub struct B;\n\
                     #[cfg(test)]\nmod tests {\n    use crate::a;\n}\n",
                ),
                ("b/tests.rs", "use crate::a::make;\n"),
            ],
        );
        let graph = ModuleGraph::read(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(graph.cycles(), Vec::new());
        assert_eq!(graph.imports(), 1);
    }
}
