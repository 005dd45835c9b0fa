//! The live line a run draws on a terminal (`tests/live_line/
//! on_a_terminal.py` gives it one): besides errors, it counts the responses
//! that were not 2xx, which a server shedding load answers fast.

mod common;

use common::*;
use std::path::Path;

/// The counts the live line showed before `label`, as drawn.
fn counts_before(drawn: &str, label: &str) -> Vec<u64> {
    drawn
        .match_indices(label)
        .filter_map(|(at, _)| drawn[..at].split_whitespace().last()?.parse().ok())
        .collect()
}

#[test]
fn the_live_line_counts_responses_that_were_not_2xx() {
    let t = TestTarget::start();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/live_line/on_a_terminal.py");
    let mut cmd = std::process::Command::new(python());
    cmd.arg(&script)
        .arg(env!("CARGO_BIN_EXE_loadgen"))
        .args(["-D", "2.5s", "--rate", "200", "-c", "2"])
        .arg(t.http("/"))
        .arg(t.http("/?status=503"));
    let output = run_bounded(cmd, RUN_LIMIT);
    assert!(output.status.success(), "{}", describe(&output));
    let drawn = String::from_utf8_lossy(&output.stdout);
    let not_2xx = counts_before(&drawn, " non-2xx");
    assert!(!not_2xx.is_empty(), "no live line drawn:\n{drawn}");
    // Half the URIs answer 503: after the first second, about 100 of them.
    let last = *not_2xx.last().unwrap();
    assert!(last > 0, "{drawn}");
    let errors = counts_before(&drawn, " errors |");
    assert_eq!(errors.last(), Some(&0), "{drawn}");
}
