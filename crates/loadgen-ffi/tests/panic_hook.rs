//! A panic inside the engine comes back as an error and the process goes
//! on. Its own test binary: the hook is an environment variable, which
//! would reach every test of a shared process.

mod common;

use common::{base_url, create, last_error, run, take, target};
use loadgen_ffi as ffi;
use serde_json::json;

#[test]
#[cfg(debug_assertions)]
fn a_panic_in_a_run_becomes_the_last_error_and_the_host_goes_on() {
    let target = target();
    let handle = create(&json!({
        "uris": [format!("{}/", base_url(&target))],
        "mode": {"requests": 10},
    }));
    std::env::set_var("LOADGEN_FFI_TEST_PANIC", "run");
    assert!(take(ffi::loadgen_run(handle)).is_none());
    let error = last_error().expect("an error");
    assert!(error.contains("panic"), "{error}");
    assert!(error.contains("LOADGEN_FFI_TEST_PANIC=run"), "{error}");

    std::env::set_var("LOADGEN_FFI_TEST_PANIC", "merge");
    assert!(take(unsafe { ffi::loadgen_merge_reports(common::c("[]").as_ptr()) }).is_none());
    assert!(last_error().unwrap().contains("panic"));

    // The handle is still usable: the panic left nothing half done.
    std::env::remove_var("LOADGEN_FFI_TEST_PANIC");
    let report = run(handle);
    assert_eq!(report["requests"]["succeeded"], 10);
    assert_eq!(ffi::loadgen_destroy(handle), 0);
}
