//! The fuzz corpora of the HTTP/1.1 response parser and the HTTP/3
//! response reader, replayed on stable Rust through the fuzz targets'
//! invariants (fuzz/harness/).

#[path = "../../../fuzz/harness/http1_response_parser.rs"]
mod http1_response_parser;
#[path = "../../../fuzz/harness/http3_response.rs"]
mod http3_response;
#[path = "../../../fuzz/harness/pieces.rs"]
mod pieces;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn http1_response_parser_corpus() {
    replay::replay("http1_response_parser", http1_response_parser::check);
}

#[test]
fn http3_response_corpus() {
    replay::replay("http3_response", http3_response::check);
}
