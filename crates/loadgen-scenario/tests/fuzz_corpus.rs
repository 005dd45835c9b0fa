//! The fuzz corpus of the scenario file reader, replayed on stable Rust
//! through the fuzz target's invariants (fuzz/harness/).

#[path = "../../../fuzz/harness/replay.rs"]
mod replay;
#[path = "../../../fuzz/harness/scenario_file.rs"]
mod scenario_file;

#[test]
fn scenario_file_corpus() {
    replay::replay("scenario_file", scenario_file::check);
}
