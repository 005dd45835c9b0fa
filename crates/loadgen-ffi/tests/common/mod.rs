//! Shared harness of the C ABI's tests: the built-in target, the exports
//! called with Rust strings, and the built artifacts (the shared library,
//! the `loadgen` binary) found in the target directory.

#![allow(dead_code)]

use loadgen_ffi as ffi;
use loadgen_target::{Target, TargetConfig};
use serde_json::Value;
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::path::PathBuf;
use std::process::Command;

/// The built-in target on loopback, cleartext and TLS.
pub fn target() -> Target {
    Target::start(TargetConfig {
        clear_addr: Some(([127, 0, 0, 1], 0).into()),
        tls_addr: Some(([127, 0, 0, 1], 0).into()),
        ..TargetConfig::default()
    })
    .expect("the built-in target starts")
}

pub fn base_url(target: &Target) -> String {
    format!(
        "http://{}",
        target.clear_addr().expect("a cleartext address")
    )
}

/// Takes a string the library returned: its text, freed.
pub fn take(pointer: *mut c_char) -> Option<String> {
    if pointer.is_null() {
        return None;
    }
    let text = unsafe { CStr::from_ptr(pointer) }
        .to_str()
        .expect("UTF-8")
        .to_string();
    unsafe { ffi::loadgen_free_string(pointer) };
    Some(text)
}

pub fn last_error() -> Option<String> {
    take(ffi::loadgen_last_error())
}

pub fn c(text: &str) -> CString {
    CString::new(text).expect("no NUL")
}

pub fn create(config: &Value) -> u64 {
    let config = c(&config.to_string());
    let handle = unsafe { ffi::loadgen_create(config.as_ptr()) };
    assert_ne!(handle, 0, "loadgen_create failed: {:?}", last_error());
    handle
}

pub fn run(handle: u64) -> Value {
    let report = take(ffi::loadgen_run(handle))
        .unwrap_or_else(|| panic!("loadgen_run failed: {:?}", last_error()));
    serde_json::from_str(&report).expect("the report is JSON")
}

/// The directory of this test build's artifacts (`target/debug`).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("deps");
    deps.parent().expect("the profile directory").to_path_buf()
}

/// The shared library cargo built beside this test (the crate's cdylib).
pub fn cdylib() -> PathBuf {
    let dir = profile_dir();
    [
        dir.join("libloadgen_ffi.so"),
        dir.join("deps/libloadgen_ffi.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .unwrap_or_else(|| {
        build(&["-p", "loadgen-ffi", "--lib"]);
        dir.join("libloadgen_ffi.so")
    })
}

/// The `loadgen` binary of the same build, built when it is not there yet.
pub fn loadgen_binary() -> PathBuf {
    let path = profile_dir().join("loadgen");
    if !path.exists() {
        build(&["-p", "loadgen", "--bin", "loadgen"]);
    }
    path
}

/// Builds with cargo into this test's target directory and profile.
fn build(args: &[&str]) {
    let dir = profile_dir();
    let target_dir = dir.parent().expect("the target directory");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .arg("build")
        .args(args)
        .env("CARGO_TARGET_DIR", target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build {args:?} failed");
}

/// The figures two runs of the same plan must agree on.
pub fn counts(report: &Value) -> Value {
    serde_json::json!({
        "requests": report["requests"],
        "status_codes": report["status_codes"],
        "errors": report["errors"],
    })
}
