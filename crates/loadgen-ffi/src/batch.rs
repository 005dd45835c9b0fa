//! The batch API: a plan made into a handle, run to its report, watched
//! and cancelled from other threads, destroyed.

use crate::boundary::boundary;
use crate::registry::{LoadgenHandle, Registry};
use crate::snapshot::{Recording, Snapshot};
use crate::strings::{from_c_str, to_c_string};
use crate::test_hook;
use loadgen_core::protocols::Protocols;
use loadgen_core::{CancelHandle, Plan, PlanInput, Report, Run, RunOptions};
use loadgen_report::{document, json_pretty};
use std::os::raw::c_char;
use std::sync::atomic::{AtomicBool, Ordering};

/// A plan ready to run, and what other threads see of its run.
struct Batch {
    plan: Plan,
    /// Cancelled once, it stays cancelled: a later run stops at once.
    cancel: CancelHandle,
    running: AtomicBool,
    snapshot: Snapshot,
}

static BATCHES: Registry<Batch> = Registry::new("batch handle");

/// Makes a handle for the plan in `config_json`: a `PlanInput` as JSON
/// (the fields of docs/ffi.md; every field may be left out). Returns 0
/// when the plan is invalid: the last error names the field at fault.
///
/// # Safety
/// `config_json` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn loadgen_create(config_json: *const c_char) -> LoadgenHandle {
    boundary(0, || {
        let text = from_c_str(config_json, "loadgen_create")?;
        let input: PlanInput = serde_json::from_str(text)
            .map_err(|e| format!("loadgen_create: the configuration is not a plan: {e}"))?;
        let plan = input.build().map_err(|e| e.to_string())?;
        Ok(BATCHES.insert(Batch {
            plan,
            cancel: CancelHandle::new(),
            running: AtomicBool::new(false),
            snapshot: Snapshot::default(),
        }))
    })
}

/// Runs the handle's plan to its end, blocking the calling thread, and
/// returns its report as JSON (what `loadgen -o FILE.json` writes, with
/// its histograms). NULL on an error (the plan cannot run, the target
/// cannot be reached, the handle is unknown or already running).
#[no_mangle]
pub extern "C" fn loadgen_run(handle: LoadgenHandle) -> *mut c_char {
    boundary(std::ptr::null_mut(), || {
        let batch = BATCHES.get(handle)?;
        if batch.running.swap(true, Ordering::SeqCst) {
            return Err("loadgen_run: this handle is already running".into());
        }
        batch.snapshot.started();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&batch)));
        let error = match &result {
            Ok(Ok(_)) => None,
            Ok(Err(message)) => Some(message.clone()),
            Err(_) => Some("internal error (a panic) in loadgen_run".to_string()),
        };
        batch.snapshot.ended(error);
        batch.running.store(false, Ordering::SeqCst);
        match result {
            Ok(report) => report.map(to_c_string),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

fn run(batch: &Batch) -> Result<String, String> {
    let run = Run::prepare(&batch.plan, &Protocols::standard()).map_err(|e| e.to_string())?;
    test_hook::panic_if_asked("run");
    let mut observer = Recording(&batch.snapshot);
    let result = run.execute(RunOptions {
        observer: Some(&mut observer),
        cancel: Some(batch.cancel.clone()),
        // The report keeps every histogram, each second's too, as `-o` does: it can be merged.
        interval_histograms: true,
        ..RunOptions::default()
    })?;
    let report = Report::new(&batch.plan, &result).with_histograms(&result);
    Ok(json_pretty(&document(&report, &[])))
}

/// The progress of the handle's run so far, as JSON (docs/ffi.md):
/// callable from any thread while `loadgen_run` blocks another.
#[no_mangle]
pub extern "C" fn loadgen_metrics_snapshot(handle: LoadgenHandle) -> *mut c_char {
    boundary(std::ptr::null_mut(), || {
        let batch = BATCHES.get(handle)?;
        Ok(to_c_string(batch.snapshot.to_json().to_string()))
    })
}

/// Stops the handle's run from any thread, as the end of `-D` does: no
/// request starts after it, and `loadgen_run` returns the report of what
/// was done. Returns 0, or -1 for an unknown handle.
#[no_mangle]
pub extern "C" fn loadgen_cancel(handle: LoadgenHandle) -> i32 {
    boundary(-1, || {
        BATCHES.get(handle)?.cancel.cancel();
        Ok(0)
    })
}

/// Forgets the handle (cancelling its run, if one goes on: that
/// `loadgen_run` still returns). Returns 0, or -1 for an unknown handle.
#[no_mangle]
pub extern "C" fn loadgen_destroy(handle: LoadgenHandle) -> i32 {
    boundary(-1, || {
        BATCHES.remove(handle)?.cancel.cancel();
        Ok(0)
    })
}
