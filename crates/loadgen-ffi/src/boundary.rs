//! What every export does around its work: a panic inside is caught and
//! becomes an error, an error goes to the thread's last-error slot, and
//! the export returns its failure value (NULL, 0 or -1); success clears
//! the slot.

use crate::last_error;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `work`; on an error or a panic, records why and returns `failure`.
pub fn boundary<T>(failure: T, work: impl FnOnce() -> Result<T, String>) -> T {
    // What `work` holds is dropped or left behind by the unwinding, and
    // every shared structure it touches sits behind a lock that tolerates
    // poisoning: the caller may go on.
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(Ok(value)) => {
            last_error::clear();
            value
        }
        Ok(Err(message)) => {
            last_error::set(message);
            failure
        }
        Err(payload) => {
            last_error::set(format!(
                "internal error (a panic): {}",
                panic_message(&*payload)
            ));
            failure
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text
    } else {
        "no message"
    }
}
