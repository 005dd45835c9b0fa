//! The fuzz corpora of the connection's receive path, its extended
//! CONNECT tunnels and the HPACK decoder, replayed on stable Rust through
//! the fuzz targets' invariants (fuzz/harness/).

#[path = "../../../fuzz/harness/hpack_decoder.rs"]
mod hpack_decoder;
#[path = "../../../fuzz/harness/http2_feed.rs"]
mod http2_feed;
#[path = "../../../fuzz/harness/http2_receive.rs"]
mod http2_receive;
#[path = "../../../fuzz/harness/http2_tunnel.rs"]
mod http2_tunnel;
#[path = "../../../fuzz/harness/pieces.rs"]
mod pieces;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn http2_receive_corpus() {
    replay::replay("http2_receive", http2_receive::check);
}

#[test]
fn http2_tunnel_corpus() {
    replay::replay("http2_tunnel", http2_tunnel::check);
}

#[test]
fn hpack_decoder_corpus() {
    replay::replay("hpack_decoder", hpack_decoder::check);
}
