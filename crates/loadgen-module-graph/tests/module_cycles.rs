//! No import cycle between the modules of any crate in the workspace: a
//! module uses its siblings only one way round, at every level (what counts
//! as an import: the crate's documentation).

use std::path::Path;

use loadgen_module_graph::ModuleGraph;

/// Crates not read, each with the reason.
const NOT_READ: &[(&str, &str)] = &[];

/// Cycles let through, each with the reason.
const LET_THROUGH: &[(&str, &[&str], &str)] = &[];

#[test]
fn no_crate_has_an_import_cycle() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/");
    let mut names: Vec<String> = std::fs::read_dir(crates)
        .expect("readable crates/")
        .map(|entry| entry.expect("directory entry").file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .filter(|name| crates.join(name).join("src").is_dir())
        .collect();
    names.sort();
    for name in NOT_READ
        .iter()
        .map(|(name, _)| name)
        .chain(LET_THROUGH.iter().map(|(name, _, _)| name))
    {
        assert!(names.iter().any(|n| n == name), "no crate {name}");
    }

    let mut imports = 0;
    let mut cycles = Vec::new();
    for name in &names {
        if NOT_READ.iter().any(|(skipped, _)| skipped == name) {
            continue;
        }
        let graph = ModuleGraph::read(&crates.join(name).join("src")).expect("readable source");
        imports += graph.imports();
        for cycle in graph.cycles() {
            let let_through = LET_THROUGH
                .iter()
                .any(|(krate, modules, _)| krate == name && cycle.is(modules));
            if !let_through {
                cycles.push(format!("{name}: {cycle}"));
            }
        }
    }
    assert!(
        imports > 200,
        "the reader found too few imports to judge ({imports} in {names:?})"
    );
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}
