//! The fuzz corpora of the scenario file reader and of the `dom`
//! extractor's tag scanner, replayed on stable Rust through the fuzz
//! targets' invariants (fuzz/harness/).

#[path = "../../../fuzz/harness/dom_scan.rs"]
mod dom_scan;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;
#[path = "../../../fuzz/harness/scenario_file.rs"]
mod scenario_file;

#[test]
fn scenario_file_corpus() {
    replay::replay("scenario_file", scenario_file::check);
}

#[test]
fn dom_scan_corpus() {
    replay::replay("dom_scan", dom_scan::check);
}
