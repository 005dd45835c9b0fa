//! `cargo fuzz run merge_input`: the invariants are in
//! harness/merge_input.rs, which the stable corpus replay test shares.
#![no_main]

#[path = "../harness/merge_input.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|input: &[u8]| harness::check(input));
