//! A crate's source files as modules, and their code without comments and
//! tests.

use std::path::Path;

/// A module by its path from the crate root, `[]` being the root.
pub type Module = Vec<String>;

/// Every module file under `src` with its text, test modules left out.
pub fn files(src: &Path) -> std::io::Result<Vec<(Module, String)>> {
    let mut paths = Vec::new();
    collect(src, &mut paths)?;
    let mut files = Vec::new();
    for path in paths {
        let relative = path.strip_prefix(src).expect("a file under src");
        let module = module_of(relative);
        if module.iter().any(|segment| segment == "tests") {
            continue;
        }
        files.push((module, std::fs::read_to_string(&path)?));
    }
    Ok(files)
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `a/b.rs` and `a/b/mod.rs` are `a::b`; `lib.rs` and `main.rs` are the
/// root.
fn module_of(relative: &Path) -> Module {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    let root = parts.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !root {
        parts.push(stem.to_string());
    }
    parts
}

/// The source without comments (a doc link is no import) and without its
/// test module, which by the workspace's habit comes last.
pub fn code_of(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_modules_by_their_files() {
        let module = |path: &str| module_of(Path::new(path)).join("::");
        assert_eq!(module("lib.rs"), "");
        assert_eq!(module("main.rs"), "");
        assert_eq!(module("a/b.rs"), "a::b");
        assert_eq!(module("a/b/mod.rs"), "a::b");
        assert_eq!(module("a/lib.rs"), "a::lib");
    }
}
