//! The batch API through its exports: a run's report, its progress seen
//! from another thread, a cancel from another thread, and the errors of
//! bad handles and bad plans.

mod common;

use common::{base_url, c, create, last_error, run, take, target};
use loadgen_ffi as ffi;
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn a_run_returns_the_report_with_its_histograms() {
    let target = target();
    let handle = create(&json!({
        "uris": [format!("{}/", base_url(&target))],
        "clients": 2,
        "mode": {"requests": 100},
    }));
    let report = run(handle);
    assert_eq!(report["requests"]["succeeded"], 100, "{report:#}");
    assert!(report["histograms"].is_object(), "a mergeable report");
    let snapshot: serde_json::Value =
        serde_json::from_str(&take(ffi::loadgen_metrics_snapshot(handle)).unwrap()).unwrap();
    assert_eq!(snapshot["running"], false, "{snapshot}");
    assert_eq!(snapshot["responses"], 100, "{snapshot}");
    assert_eq!(ffi::loadgen_destroy(handle), 0);
}

#[test]
fn a_cancel_from_another_thread_ends_a_timed_run_quickly() {
    let target = target();
    let handle = create(&json!({
        "uris": [format!("{}/", base_url(&target))],
        "clients": 2,
        "mode": {"duration": {"duration": {"secs": 30, "nanos": 0}, "warm_up": {"secs": 0, "nanos": 0}}},
    }));
    let watcher = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1500));
        let snapshot = take(ffi::loadgen_metrics_snapshot(handle)).expect("a snapshot");
        assert_eq!(ffi::loadgen_cancel(handle), 0);
        snapshot
    });
    let started = Instant::now();
    let report = run(handle);
    let took = started.elapsed();
    let snapshot: serde_json::Value = serde_json::from_str(&watcher.join().unwrap()).unwrap();
    assert!(
        took < Duration::from_secs(5),
        "the run went on for {took:?}"
    );
    assert_eq!(snapshot["running"], true, "{snapshot}");
    assert!(snapshot["responses"].as_u64().unwrap() > 0, "{snapshot}");
    assert!(
        report["requests"]["succeeded"].as_u64().unwrap() > 0,
        "{report:#}"
    );
    assert_eq!(ffi::loadgen_destroy(handle), 0);
}

#[test]
fn a_null_or_destroyed_handle_is_an_error() {
    assert!(take(ffi::loadgen_run(0)).is_none());
    assert!(last_error().unwrap().contains("the handle is 0"));
    assert_eq!(ffi::loadgen_cancel(0), -1);
    assert_eq!(ffi::loadgen_destroy(0), -1);
    assert!(take(ffi::loadgen_metrics_snapshot(0)).is_none());

    let handle = create(&json!({"uris": ["http://127.0.0.1:1/"]}));
    assert_eq!(ffi::loadgen_destroy(handle), 0);
    for result in [
        take(ffi::loadgen_run(handle)),
        take(ffi::loadgen_metrics_snapshot(handle)),
    ] {
        assert!(result.is_none());
        let error = last_error().unwrap();
        assert!(error.contains("destroyed"), "{error}");
    }
    assert_eq!(ffi::loadgen_cancel(handle), -1);
    assert_eq!(ffi::loadgen_destroy(handle), -1);
    assert_eq!(ffi::loadgen_step_session_reset(handle), -1);
    assert_eq!(ffi::loadgen_step_session_destroy(0), -1);
    assert!(take(unsafe { ffi::loadgen_step_execute(0, c("{}").as_ptr()) }).is_none());
}

#[test]
fn a_bad_plan_is_an_error_naming_its_field() {
    let handle = unsafe { ffi::loadgen_create(std::ptr::null()) };
    assert_eq!(handle, 0);
    assert!(last_error().unwrap().contains("NULL"));

    let handle = unsafe { ffi::loadgen_create(c("not json").as_ptr()) };
    assert_eq!(handle, 0);
    assert!(last_error().unwrap().contains("not a plan"));

    let config = c(r#"{"uris": ["http://127.0.0.1:1/"], "clients": 0}"#);
    assert_eq!(unsafe { ffi::loadgen_create(config.as_ptr()) }, 0);
    let error = last_error().unwrap();
    assert!(error.starts_with("clients:"), "{error}");
}

#[test]
fn success_clears_the_last_error_and_strings_are_freed() {
    assert!(take(ffi::loadgen_run(0)).is_none());
    assert!(last_error().is_some());
    let version = take(ffi::loadgen_version()).unwrap();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    assert!(last_error().is_none());
    unsafe { ffi::loadgen_free_string(std::ptr::null_mut()) };
}

#[test]
fn an_unreachable_target_is_an_error_not_a_report() {
    let handle = create(&json!({"uris": ["http://no-such-host.invalid/"]}));
    assert!(take(ffi::loadgen_run(handle)).is_none());
    assert!(last_error().is_some());
    assert_eq!(ffi::loadgen_destroy(handle), 0);
}
