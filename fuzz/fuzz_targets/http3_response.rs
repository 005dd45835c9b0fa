//! `cargo fuzz run http3_response`: the invariants are in
//! harness/http3_response.rs, which the stable corpus replay tests share.
#![no_main]

#[path = "../harness/http3_response.rs"]
mod harness;
#[path = "../harness/pieces.rs"]
mod pieces;

libfuzzer_sys::fuzz_target!(|input: &[u8]| harness::check(input));
