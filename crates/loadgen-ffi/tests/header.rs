//! The checked-in C header is what cbindgen makes of the crate now.

use std::path::Path;

#[test]
fn the_c_header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8");
    let path = crate_dir.join("include/loadgen.h");
    if std::env::var_os("LOADGEN_FFI_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("the header is written");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "crates/loadgen-ffi/include/loadgen.h is stale; regenerate it with\n  \
         LOADGEN_FFI_BLESS=1 cargo test -p loadgen-ffi --test header"
    );
}
