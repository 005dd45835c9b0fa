//! `loadgen_run_scenario`: a scenario file's run (`loadgen run FILE`)
//! through the library.

use crate::boundary::boundary;
use crate::strings::{from_c_str, to_c_string};
use loadgen_report::{document, json_pretty};
use loadgen_scenario::compile::{compile, Options};
use loadgen_scenario::file::parse;
use loadgen_scenario::run::{run, ScenarioOptions};
use loadgen_scenario::suite::Suite;
use std::os::raw::c_char;

/// Checks the scenario in `scenario_text` as `loadgen_run_scenario` would,
/// without running it: 0, or -1 with the located error as the last error.
/// (A caller whose runs come back on another thread checks here first.)
///
/// # Safety
/// `scenario_text` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn loadgen_check_scenario(scenario_text: *const c_char) -> i32 {
    boundary(-1, || {
        suite_of(scenario_text, "loadgen_check_scenario").map(|_| 0)
    })
}

/// The scenario compiled, its errors located in the text.
///
/// # Safety
/// As the exports'.
unsafe fn suite_of(scenario_text: *const c_char, what: &str) -> Result<Suite, String> {
    let text = from_c_str(scenario_text, what)?;
    let dir = std::env::current_dir().unwrap_or_default();
    let loaded = parse("scenario", text, dir).map_err(|e| e.to_string())?;
    compile(&loaded, &Options::default()).map_err(|e| e.to_string())
}

/// Runs the scenario in `scenario_text` (a scenario file's text, YAML or
/// JSON: docs/scenarios.md; relative file names in it are under the
/// current directory) on `threads` worker threads (0 means 1), blocking
/// until it ends, and returns its report as JSON (what `loadgen run FILE
/// -o OUT.json` writes, with its histograms). NULL on an error: the
/// last error is located in the text as `loadgen run` locates it.
///
/// # Safety
/// `scenario_text` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn loadgen_run_scenario(
    scenario_text: *const c_char,
    threads: u32,
) -> *mut c_char {
    boundary(std::ptr::null_mut(), || {
        let suite = suite_of(scenario_text, "loadgen_run_scenario")?;
        let report = run(
            &suite,
            ScenarioOptions {
                threads: threads.max(1) as usize,
                histograms: true,
                interval_histograms: true,
                ..ScenarioOptions::default()
            },
        )?;
        Ok(to_c_string(json_pretty(&document(&report, &[]))))
    })
}
