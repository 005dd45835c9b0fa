//! Lays out the functions a benchmark run executes next to each other in
//! release builds of the `loadgen` binary (`symbol-order.txt`, made by
//! `scripts/symbol-order`).
//!
//! Why: the kernel maps a file's pages into a process a window at a time
//! around each page it touches, so the resident size of the code is the
//! number of distinct windows a run touches, not the bytes it runs. An
//! HTTP/1.1 run executes about 1 MB of an 11 MB `.text`, scattered over all
//! of it: 3.7 MB of code resident, 1.4 MB once laid out together
//! (docs/performance.md, "The code a run maps").
//!
//! The names are mangled names, exact: a Rust name ends in a hash of the
//! build's configuration (the compiler, dependency versions and features), so
//! the file matches the build it was made from, `cargo build --release -p
//! loadgen` with this `Cargo.lock`, and ever less of the binary as these
//! change (`scripts/symbol-order` makes it anew). A name the binary lacks
//! is passed over: the build is the same, only laid out less well. Rust
//! names without their hash would match any build, but they name every
//! instance of a generic function at once, and so pull most of the code
//! to the front again.
//!
//! Only lld (Rust's default linker on x86_64-unknown-linux-gnu since 1.90)
//! and mold take `--symbol-ordering-file`, so the order is applied only
//! there; `LOADGEN_SYMBOL_ORDER=0` turns it off.

use std::env;
use std::fs;
use std::path::Path;
use std::process::Command;

const ORDER_FILE: &str = "symbol-order.txt";

fn main() {
    println!("cargo:rerun-if-changed={ORDER_FILE}");
    println!("cargo:rerun-if-env-changed=LOADGEN_SYMBOL_ORDER");
    if !wanted() {
        return;
    }
    let manifest_dir = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let order = fs::read_to_string(Path::new(&manifest_dir).join(ORDER_FILE))
        .expect("symbol-order.txt is part of the package");
    let names: String = order
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .flat_map(|name| [name, "\n"])
        .collect();
    let out_dir = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let names_file = Path::new(&out_dir).join("symbol-order.txt");
    fs::write(&names_file, names).expect("OUT_DIR is writable");
    println!(
        "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
        names_file.display()
    );
    // Names the binary lacks are expected (see above), not worth a warning each.
    println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
}

/// A release build for x86-64 Linux with glibc, linked by the default
/// linker of a Rust that links with lld, unless turned off.
fn wanted() -> bool {
    let var = |name: &str| env::var(name).unwrap_or_default();
    if var("LOADGEN_SYMBOL_ORDER") == "0" || var("PROFILE") != "release" {
        return false;
    }
    if var("TARGET") != "x86_64-unknown-linux-gnu" {
        return false;
    }
    // A linker of one's own (a -C linker or -fuse-ld flag, or cargo's
    // per-target setting) may be one that does not know the option.
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    if flags.contains("linker") || flags.contains("fuse-ld") {
        return false;
    }
    if env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some() {
        return false;
    }
    rustc_minor().is_some_and(|minor| minor >= 90)
}

/// The minor version of the compiler building this crate (`rustc 1.95.0 (...)`).
fn rustc_minor() -> Option<u32> {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let output = Command::new(rustc).arg("--version").output().ok()?;
    let version = String::from_utf8(output.stdout).ok()?;
    let mut parts = version.split_whitespace().nth(1)?.split('.');
    if parts.next()? != "1" {
        return None;
    }
    parts.next()?.parse().ok()
}
