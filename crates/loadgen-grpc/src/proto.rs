//! `--proto`: .proto files compiled in-process by protox, so that no
//! `protoc` needs to be installed.

use crate::one_line;
use prost_reflect::DescriptorPool;
use std::path::{Path, PathBuf};

/// Compiles `files` and what they import. `includes` are protoc's `-I`
/// directories; without any, each file's own directory is one, which is
/// what a lone .proto file beside its imports needs. The well-known types
/// (`google/protobuf/*.proto`) are always there.
pub fn from_proto(files: &[PathBuf], includes: &[PathBuf]) -> Result<DescriptorPool, String> {
    if files.is_empty() {
        return Err("--proto: no .proto file given".into());
    }
    let includes = if includes.is_empty() {
        let mut dirs: Vec<PathBuf> = Vec::new();
        for file in files {
            let dir = match file.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        dirs
    } else {
        includes.to_vec()
    };
    let mut compiler = protox::Compiler::new(&includes)
        .map_err(|e| format!("--proto: {}", one_line(&format!("{e:?}"))))?;
    for file in files {
        // protoc takes a file by its path or by its name under an -I directory.
        if !file.is_file() && !includes.iter().any(|dir| dir.join(file).is_file()) {
            return Err(format!("--proto: {}: no such file", file.display()));
        }
        compiler
            .open_file(file)
            .map_err(|e| describe(file, &includes, &e))?;
    }
    Ok(compiler.descriptor_pool())
}

/// protox's Debug form is the one with the location (`name:line:col:
/// message`); its Display form has the message only.
fn describe(file: &Path, includes: &[PathBuf], error: &protox::Error) -> String {
    let text = one_line(&format!("{error:?}"));
    if error.is_file_not_found() && error.file().is_none() {
        let dirs: Vec<String> = includes.iter().map(|d| d.display().to_string()).collect();
        return format!(
            "--proto: {}: {text} (include directories: {}; add one with -I)",
            file.display(),
            dirs.join(", ")
        );
    }
    match error.file() {
        // The message names the file, as the include path sees it.
        Some(name) if text.starts_with(name) => format!("--proto: {text}"),
        Some(name) => format!("--proto: {name}: {text}"),
        None => format!("--proto: {}: {text}", file.display()),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn protos() -> PathBuf {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/protos"))
    }

    /// The test service's descriptors.
    pub(crate) fn test_pool() -> DescriptorPool {
        from_proto(&[protos().join("echo.proto")], &[]).expect("echo.proto compiles")
    }

    #[test]
    fn imports_resolve_from_the_files_directory_and_the_well_known_types() {
        let pool = test_pool();
        for file in [
            "echo.proto",
            "common.proto",
            "google/protobuf/timestamp.proto",
        ] {
            assert!(pool.get_file_by_name(file).is_some(), "{file}");
        }
        assert!(pool.get_service_by_name("loadgen.echo.v1.Echo").is_some());
    }

    #[test]
    fn include_directories_work_as_protocs() {
        let pool = from_proto(&[PathBuf::from("echo.proto")], &[protos()]).unwrap();
        assert!(pool.get_message_by_name("loadgen.common.v1.Tag").is_some());
    }

    #[test]
    fn a_syntax_error_names_file_line_and_column() {
        let err = from_proto(&[protos().join("broken.proto")], &[]).unwrap_err();
        assert!(!err.contains('\n'), "{err}");
        assert!(err.starts_with("--proto: broken.proto:7:"), "{err}");
    }

    #[test]
    fn a_missing_import_or_file_is_named() {
        let dir = std::env::temp_dir().join(format!("loadgen-grpc-proto-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("lonely.proto");
        std::fs::write(
            &file,
            "syntax = \"proto3\";\nimport \"elsewhere.proto\";\nmessage M {}\n",
        )
        .unwrap();
        let err = from_proto(&[file], &[]).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(!err.contains('\n'), "{err}");
        assert!(err.contains("lonely.proto:2:"), "{err}");
        assert!(err.contains("elsewhere.proto"), "{err}");
        let err = from_proto(&[protos().join("nope.proto")], &[]).unwrap_err();
        assert!(err.ends_with("nope.proto: no such file"), "{err}");
    }
}
