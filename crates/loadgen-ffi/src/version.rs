//! The library's version, as an export.

use crate::boundary::boundary;
use crate::strings::to_c_string;
use std::os::raw::c_char;

/// The library's version (as `loadgen --version` prints it). Free it with
/// `loadgen_free_string`.
#[no_mangle]
pub extern "C" fn loadgen_version() -> *mut c_char {
    boundary(std::ptr::null_mut(), || {
        Ok(to_c_string(env!("CARGO_PKG_VERSION").to_string()))
    })
}
