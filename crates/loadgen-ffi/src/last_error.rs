//! The per-thread last error: set by any export that fails, read with
//! `loadgen_last_error` on the same thread.

use crate::strings::to_c_string;
use std::cell::RefCell;
use std::os::raw::c_char;

thread_local! {
    static LAST_ERROR: RefCell<Option<String>> = const { RefCell::new(None) };
}

pub fn set(message: String) {
    LAST_ERROR.with(|slot| *slot.borrow_mut() = Some(message));
}

pub fn clear() {
    LAST_ERROR.with(|slot| *slot.borrow_mut() = None);
}

/// The message of the last call on this thread that failed, or NULL when
/// the last call succeeded. Every export clears it when it succeeds. The
/// string is the caller's: free it with `loadgen_free_string`.
#[no_mangle]
pub extern "C" fn loadgen_last_error() -> *mut c_char {
    // Nothing in here can panic but an allocation failure, which aborts.
    LAST_ERROR.with(|slot| match &*slot.borrow() {
        Some(message) => to_c_string(message.clone()),
        None => std::ptr::null_mut(),
    })
}
