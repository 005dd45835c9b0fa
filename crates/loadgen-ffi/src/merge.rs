//! `loadgen_merge_reports`: `loadgen merge` for reports held in memory.

use crate::boundary::boundary;
use crate::strings::{from_c_str, to_c_string};
use crate::test_hook;
use loadgen_report::merge::{self, MergeOptions, Source};
use loadgen_report::{document, json_pretty};
use serde_json::Value;
use std::os::raw::c_char;

/// Adds up the reports in `reports_json`, a JSON array of reports as
/// `loadgen_run` returns them (or `-o FILE.json` writes them, with their
/// histograms), into one: the same report `loadgen merge` makes of the
/// same files. NULL when they cannot be merged (the last error says why).
///
/// # Safety
/// `reports_json` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn loadgen_merge_reports(reports_json: *const c_char) -> *mut c_char {
    boundary(std::ptr::null_mut(), || {
        let text = from_c_str(reports_json, "loadgen_merge_reports")?;
        merge_text(text).map(to_c_string)
    })
}

fn merge_text(text: &str) -> Result<String, String> {
    test_hook::panic_if_asked("merge");
    let reports: Vec<Value> = serde_json::from_str(text)
        .map_err(|e| format!("loadgen_merge_reports: expected a JSON array of reports: {e}"))?;
    let sources = reports
        .iter()
        .enumerate()
        .map(|(index, report)| merge::parse_report(format!("report {index}"), &report.to_string()))
        .collect::<Result<Vec<Source>, _>>()
        .map_err(|e| e.to_string())?;
    let merged = merge::merge(&sources, MergeOptions::default()).map_err(|e| e.to_string())?;
    Ok(json_pretty(&document(&merged, &[])))
}
