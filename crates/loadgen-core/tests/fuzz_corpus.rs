//! The fuzz corpus of the HTTP/1.1 response parser, replayed on stable
//! Rust through the fuzz target's invariants (fuzz/harness/).

#[path = "../../../fuzz/harness/http1_response_parser.rs"]
mod http1_response_parser;
#[path = "../../../fuzz/harness/pieces.rs"]
mod pieces;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn http1_response_parser_corpus() {
    replay::replay("http1_response_parser", http1_response_parser::check);
}
