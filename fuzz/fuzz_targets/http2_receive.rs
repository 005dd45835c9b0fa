//! `cargo fuzz run http2_receive`: the invariants are in
//! harness/http2_receive.rs, which the stable corpus replay tests share.
#![no_main]

#[path = "../harness/http2_receive.rs"]
mod harness;
#[path = "../harness/http2_feed.rs"]
mod http2_feed;
#[path = "../harness/pieces.rs"]
mod pieces;

libfuzzer_sys::fuzz_target!(|input: &[u8]| harness::check(input));
