//! Strings across the boundary: read from the caller as NUL-terminated
//! UTF-8, given back as newly allocated C strings the caller frees with
//! `loadgen_free_string` (and with nothing else: they come from Rust's
//! allocator).

use std::ffi::{CStr, CString};
use std::os::raw::c_char;

/// `text` as a C string owned by the caller. A NUL inside (never in JSON
/// that serde writes) is replaced, so no string is ever cut short.
pub fn to_c_string(text: String) -> *mut c_char {
    let text = if text.contains('\0') {
        text.replace('\0', "\u{FFFD}")
    } else {
        text
    };
    CString::new(text).expect("NULs replaced").into_raw()
}

/// The caller's string `pointer`, named `what` in errors.
///
/// # Safety
/// `pointer` is NULL or points to a NUL-terminated string that stays valid for the call.
pub unsafe fn from_c_str<'a>(pointer: *const c_char, what: &str) -> Result<&'a str, String> {
    if pointer.is_null() {
        return Err(format!("{what}: NULL where a string was expected"));
    }
    CStr::from_ptr(pointer)
        .to_str()
        .map_err(|_| format!("{what}: not UTF-8 text"))
}

/// Frees a string this library returned. NULL is ignored.
///
/// # Safety
/// `string` is NULL or a string this library returned, not freed yet.
#[no_mangle]
pub unsafe extern "C" fn loadgen_free_string(string: *mut c_char) {
    if !string.is_null() {
        drop(CString::from_raw(string));
    }
}
