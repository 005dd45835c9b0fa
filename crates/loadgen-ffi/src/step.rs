//! Step sessions: one request at a time (with its redirects), each a
//! scenario file's step, sharing a cookie jar (`loadgen_scenario::step_session`).

use crate::boundary::boundary;
use crate::registry::{LoadgenHandle, Registry};
use crate::strings::{from_c_str, to_c_string};
use crate::test_hook;
use loadgen_scenario::step_session::StepSession;
use serde_json::Value;
use std::os::raw::c_char;
use std::sync::Mutex;

/// A session, and why its last step failed: kept for callers whose
/// `loadgen_step_execute` returned on another thread than theirs (the
/// last-error slot is per thread).
struct Session {
    /// One step runs at a time in a session: the lock queues the others.
    steps: Mutex<StepSession>,
    last_error: Mutex<Option<String>>,
}

static SESSIONS: Registry<Session> = Registry::new("step session handle");

/// Makes a step session whose steps start from `config_json`, a scenario
/// file's `defaults` as JSON (`base_url`, `protocol`, `insecure`,
/// `headers`, `follow_redirects`, ...; `{}` or NULL for none). Returns 0
/// on an error.
///
/// # Safety
/// `config_json` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn loadgen_step_session_create(config_json: *const c_char) -> LoadgenHandle {
    boundary(0, || {
        let defaults = if config_json.is_null() {
            Value::Null
        } else {
            let text = from_c_str(config_json, "loadgen_step_session_create")?;
            serde_json::from_str(text).map_err(|e| {
                format!("loadgen_step_session_create: the configuration is not JSON: {e}")
            })?
        };
        Ok(SESSIONS.insert(Session {
            steps: Mutex::new(StepSession::new(defaults)?),
            last_error: Mutex::new(None),
        }))
    })
}

/// Sends `step_json` (a scenario file's step: `url`, `method`,
/// `headers`, `body`/`form`/`json`, `follow_redirects`, `checks`,
/// `extract`, ...) and returns its response as JSON: `status`, `headers`,
/// `body`, `url`, `redirects`, `duration_us`, `checks`, `extracted`; or
/// `error` and `message` when no response came. Blocks until then. NULL
/// when the step is invalid or the handle unknown.
///
/// # Safety
/// `step_json` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn loadgen_step_execute(
    session: LoadgenHandle,
    step_json: *const c_char,
) -> *mut c_char {
    boundary(std::ptr::null_mut(), || {
        let session = SESSIONS.get(session)?;
        let reply = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            execute(&session, step_json)
        }))
        .unwrap_or_else(|_| Err("internal error (a panic) in loadgen_step_execute".into()));
        *session.last_error.lock().unwrap_or_else(|e| e.into_inner()) =
            reply.as_ref().err().cloned();
        reply.map(to_c_string)
    })
}

/// # Safety
/// As `loadgen_step_execute`'s.
unsafe fn execute(session: &Session, step_json: *const c_char) -> Result<String, String> {
    let text = from_c_str(step_json, "loadgen_step_execute")?;
    let step: Value = serde_json::from_str(text)
        .map_err(|e| format!("loadgen_step_execute: the step is not JSON: {e}"))?;
    test_hook::panic_if_asked("step");
    let mut steps = session.steps.lock().unwrap_or_else(|e| e.into_inner());
    Ok(steps.execute(&step)?.to_json().to_string())
}

/// Why the session's last `loadgen_step_execute` returned NULL, whatever
/// thread it ran on; NULL when it succeeded (or none ran). Free it with
/// `loadgen_free_string`.
#[no_mangle]
pub extern "C" fn loadgen_step_session_last_error(session: LoadgenHandle) -> *mut c_char {
    boundary(std::ptr::null_mut(), || {
        let session = SESSIONS.get(session)?;
        let error = session
            .last_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        Ok(error.map_or(std::ptr::null_mut(), to_c_string))
    })
}

/// Forgets the session's cookies. Returns 0, or -1 for an unknown handle.
#[no_mangle]
pub extern "C" fn loadgen_step_session_reset(session: LoadgenHandle) -> i32 {
    boundary(-1, || {
        let session = SESSIONS.get(session)?;
        session
            .steps
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .reset();
        Ok(0)
    })
}

/// Forgets the session. Returns 0, or -1 for an unknown handle.
#[no_mangle]
pub extern "C" fn loadgen_step_session_destroy(session: LoadgenHandle) -> i32 {
    boundary(-1, || SESSIONS.remove(session).map(|_| 0))
}
