//! The fuzz corpus of what `loadgen merge` reads (reports, interval logs,
//! encoded histograms), replayed on stable Rust through the fuzz target's
//! invariants (fuzz/harness/).

#[path = "../../../fuzz/harness/merge_input.rs"]
mod merge_input;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;

#[test]
fn merge_input_corpus() {
    replay::replay("merge_input", merge_input::check);
}
