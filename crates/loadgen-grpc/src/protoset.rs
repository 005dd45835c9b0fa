//! `--protoset`: a binary FileDescriptorSet, as
//! `protoc --descriptor_set_out=FILE --include_imports` writes it.

use crate::one_line;
use prost_reflect::DescriptorPool;
use std::path::Path;

pub fn from_protoset(path: &Path) -> Result<DescriptorPool, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("--protoset: cannot read {}: {e}", path.display()))?;
    let pool = DescriptorPool::decode(bytes.as_slice()).map_err(|e| {
        format!(
            "--protoset: {} is not a usable FileDescriptorSet (protoc --descriptor_set_out=FILE --include_imports): {}",
            path.display(),
            one_line(&e.to_string())
        )
    })?;
    // Any bytes that happen to parse as an empty message would otherwise
    // fail later as a missing service.
    if pool.files().len() == 0 {
        return Err(format!(
            "--protoset: {} holds no file descriptors",
            path.display()
        ));
    }
    Ok(pool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::tests::test_pool;

    fn write(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!(
            "loadgen-grpc-{}-{name}.protoset",
            std::process::id()
        ));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn a_set_round_trips() {
        let path = write("good", &test_pool().encode_to_vec());
        let pool = from_protoset(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(pool.get_service_by_name("loadgen.echo.v1.Echo").is_some());
    }

    #[test]
    fn garbage_gives_one_clear_line() {
        for (name, bytes) in [
            (
                "garbage",
                &b"\xff\xff\xff\xff this is not a descriptor set"[..],
            ),
            ("text", &b"syntax = \"proto3\";\nmessage M {}\n"[..]),
        ] {
            let path = write(name, bytes);
            let err = from_protoset(&path).unwrap_err();
            std::fs::remove_file(&path).unwrap();
            assert!(!err.contains('\n'), "{err}");
            assert!(
                err.starts_with(&format!("--protoset: {}", path.display())),
                "{err}"
            );
        }
        let empty = write("empty", b"");
        let err = from_protoset(&empty).unwrap_err();
        std::fs::remove_file(&empty).unwrap();
        assert!(err.ends_with("holds no file descriptors"), "{err}");
        let err = from_protoset(Path::new("/nonexistent/x.protoset")).unwrap_err();
        assert!(
            err.starts_with("--protoset: cannot read /nonexistent/x.protoset"),
            "{err}"
        );
    }

    #[test]
    fn a_set_without_its_imports_says_what_is_missing() {
        // Only echo.proto, as protoc writes without --include_imports.
        let pool = test_pool();
        let echo = pool.get_file_by_name("echo.proto").unwrap();
        let mut set = Vec::new();
        prost::encoding::bytes::encode(1, &echo.encode_to_vec(), &mut set);
        let path = write("partial", &set);
        let err = from_protoset(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(!err.contains('\n'), "{err}");
        assert!(err.contains("--include_imports"), "{err}");
    }
}
