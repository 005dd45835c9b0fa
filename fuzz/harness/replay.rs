//! Replays a fuzz target's checked-in corpus through the target's own
//! invariants: the share of the fuzzing that the stable test suite runs
//! (docs/reliability.md). Used by the corpus tests of loadgen-core,
//! loadgen-http2, loadgen-report and loadgen-scenario, whose manifests are
//! two directories below the root.

use std::path::PathBuf;

pub fn replay(target: &str, check: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus {}: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "the corpus {} is empty", dir.display());
    for path in inputs {
        let input =
            std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        // The check's own panic message comes first; this names the input,
        // to run again with `cargo fuzz run TARGET PATH`.
        if std::panic::catch_unwind(|| check(&input)).is_err() {
            panic!("{} breaks an invariant of {target}", path.display());
        }
    }
}
