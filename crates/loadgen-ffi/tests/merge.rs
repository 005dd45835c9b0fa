//! A report merged through the library is the report `loadgen merge`
//! makes of the same files, to the byte.

mod common;

use common::{base_url, c, create, last_error, loadgen_binary, run, take, target};
use loadgen_ffi as ffi;
use serde_json::{json, Value};

#[test]
fn merging_through_the_library_equals_loadgen_merge() {
    let target = target();
    let dir = std::env::temp_dir().join(format!("loadgen-ffi-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut reports = Vec::new();
    let mut files = Vec::new();
    for index in 0..2 {
        let handle = create(&json!({
            "uris": [format!("{}/", base_url(&target))],
            "clients": 2,
            "mode": {"requests": 300},
        }));
        let report = run(handle);
        ffi::loadgen_destroy(handle);
        let file = dir.join(format!("part{index}.json"));
        std::fs::write(&file, serde_json::to_string_pretty(&report).unwrap()).unwrap();
        files.push(file);
        reports.push(report);
    }
    let input = c(&Value::Array(reports).to_string());
    let merged = take(unsafe { ffi::loadgen_merge_reports(input.as_ptr()) })
        .unwrap_or_else(|| panic!("merge failed: {:?}", last_error()));

    let out = dir.join("merged.json");
    let status = std::process::Command::new(loadgen_binary())
        .arg("merge")
        .args(&files)
        .arg("-o")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "loadgen merge failed");
    let by_cli = std::fs::read_to_string(&out).unwrap();
    // The same bytes: the same merge, rendered by the same writer.
    assert_eq!(merged, by_cli);
    let merged: Value = serde_json::from_str(&merged).unwrap();
    assert_eq!(merged["requests"]["succeeded"], 600);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn what_cannot_be_merged_is_an_error() {
    for input in ["[]", "{}", "[{\"not\": \"a report\"}]"] {
        let input = c(input);
        assert!(take(unsafe { ffi::loadgen_merge_reports(input.as_ptr()) }).is_none());
        assert!(last_error().is_some());
    }
}
