//! Compiles proto/echo.proto into a FileDescriptorSet in OUT_DIR, for the
//! gRPC server reflection service, with protox (pure Rust, no protoc).

use std::path::PathBuf;

use prost::Message;

fn main() {
    println!("cargo:rerun-if-changed=proto/echo.proto");
    let set = protox::Compiler::new(["proto"])
        .and_then(|mut compiler| {
            // Reflection clients want the schema, not the comments' positions.
            compiler.include_source_info(false).include_imports(true);
            compiler.open_files(["echo.proto"])?;
            Ok(compiler.file_descriptor_set())
        })
        .unwrap_or_else(|err| panic!("compiling proto/echo.proto: {err}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("echo_descriptor_set.bin"), set.encode_to_vec())
        .expect("write the descriptor set");
}
