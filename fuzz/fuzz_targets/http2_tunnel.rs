//! `cargo fuzz run http2_tunnel`: the invariants are in
//! harness/http2_tunnel.rs, which the stable corpus replay tests share.
#![no_main]

#[path = "../harness/http2_tunnel.rs"]
mod harness;
#[path = "../harness/http2_feed.rs"]
mod http2_feed;
#[path = "../harness/pieces.rs"]
mod pieces;

libfuzzer_sys::fuzz_target!(|input: &[u8]| harness::check(input));
