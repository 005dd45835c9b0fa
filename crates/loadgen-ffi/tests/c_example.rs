//! The C example, compiled with `cc` against the shared library, runs a
//! 1,000-request benchmark against the built-in target and gets the
//! counts `loadgen` itself reports for the same plan.

mod common;

use common::{base_url, cdylib, counts, loadgen_binary, target};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles `examples/c/NAME.c` against the crate's shared library.
pub fn compile_example(name: &str) -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let library = cdylib();
    let library_dir = library.parent().unwrap();
    let out = std::env::temp_dir().join(format!("loadgen-ffi-{name}-{}", std::process::id()));
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .arg(crate_dir.join(format!("examples/c/{name}.c")))
        .arg("-Wall")
        .arg("-Werror")
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg("-L")
        .arg(library_dir)
        .arg(format!("-Wl,-rpath,{}", library_dir.display()))
        .arg("-lloadgen_ffi")
        .arg("-o")
        .arg(&out)
        .status()
        .expect("cc runs");
    assert!(status.success(), "cc could not compile {name}.c");
    out
}

#[test]
fn the_c_example_counts_what_the_cli_counts() {
    let target = target();
    let url = format!("{}/", base_url(&target));
    let simple = compile_example("simple");
    let output = Command::new(&simple)
        .args([&url, "1000", "4"])
        .output()
        .expect("the example runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let by_library: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");

    let file = std::env::temp_dir().join(format!("loadgen-ffi-cli-{}.json", std::process::id()));
    let status = Command::new(loadgen_binary())
        .args(["-q", "-n", "1000", "-c", "4", &url, "-o"])
        .arg(&file)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("loadgen runs");
    assert!(status.success());
    let by_cli: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    std::fs::remove_file(&file).ok();
    std::fs::remove_file(&simple).ok();

    assert_eq!(by_library["requests"]["succeeded"], 1000, "{by_library:#}");
    assert_eq!(counts(&by_library), counts(&by_cli));
    assert_eq!(by_library["config"], by_cli["config"]);
}
