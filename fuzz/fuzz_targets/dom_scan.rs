//! `cargo fuzz run dom_scan`: the invariants are in harness/dom_scan.rs,
//! which the stable corpus replay tests share.
#![no_main]

#[path = "../harness/dom_scan.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|input: &[u8]| harness::check(input));
