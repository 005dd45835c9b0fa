//! `cargo fuzz run hpack_decoder`: the invariants are in
//! harness/hpack_decoder.rs, which the stable corpus replay tests share.
#![no_main]

#[path = "../harness/hpack_decoder.rs"]
mod harness;
#[path = "../harness/pieces.rs"]
mod pieces;

libfuzzer_sys::fuzz_target!(|input: &[u8]| harness::check(input));
