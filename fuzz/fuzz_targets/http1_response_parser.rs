//! `cargo fuzz run http1_response_parser`: the invariants are in
//! harness/http1_response_parser.rs, which the stable corpus replay tests share.
#![no_main]

#[path = "../harness/http1_response_parser.rs"]
mod harness;
#[path = "../harness/pieces.rs"]
mod pieces;

libfuzzer_sys::fuzz_target!(|input: &[u8]| harness::check(input));
