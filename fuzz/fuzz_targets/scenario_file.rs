//! `cargo fuzz run scenario_file`: the invariants are in
//! harness/scenario_file.rs, which the stable corpus replay test shares.
#![no_main]

#[path = "../harness/scenario_file.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|input: &[u8]| harness::check(input));
