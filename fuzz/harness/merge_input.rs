//! What `loadgen merge` reads: the `-o` JSON report with its encoded
//! histograms, the `--hdr-log` interval log, and the histogram encoding
//! both carry. Those files may come from another machine, another version
//! or an editor, so nothing in them is trusted.
//!
//! Input: a byte that picks what the rest is (modulo 3):
//! 0. a JSON report, as `-o FILE.json` writes one;
//! 1. an HdrHistogram interval log, as `--hdr-log` writes one;
//! 2. one histogram in the V2 encoding (compressed or not), without the
//!    base64 around it.
//!
//! Invariants: no panic, and no allocation beyond what the input can fill
//! (run with `-malloc_limit_mb`); a report that merges alone merges with
//! itself, into twice its counts and samples, and the merged report, as
//! `-o` writes it, reads back and merges again; a log merged with itself
//! holds twice its samples, and written as `--hdr-log` writes it, reads
//! back with the same intervals; a histogram that decodes encodes and
//! decodes again to itself.

use loadgen_core::histogram_codec;
use loadgen_report::merge::{self, hdr_log, MergeOptions, Source};
use loadgen_report::{document, json_pretty, text, with_histograms, Histograms};

pub fn check(input: &[u8]) {
    let Some((&pick, rest)) = input.split_first() else {
        return;
    };
    match pick % 3 {
        0 => report(rest),
        1 => interval_log(rest),
        _ => histogram(rest),
    }
}

fn report(bytes: &[u8]) {
    let Ok(json) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(source) = merge::parse_report("a.json".into(), json) else {
        return;
    };
    // A report that reads is shown, whatever it says.
    text::render(&source.report);
    let Ok(alone) = merge::merge(std::slice::from_ref(&source), MergeOptions::default()) else {
        return;
    };
    let written = json_pretty(&with_histograms(
        &document(&alone, &[]),
        Histograms::Include,
    ));
    text::render(&alone);
    let again = merge::parse_report("merged.json".into(), &written)
        .unwrap_or_else(|e| panic!("the merged report does not read back: {e}\n{written}"));
    if let Err(e) = merge::merge(&[again], MergeOptions::default()) {
        panic!("the merged report does not merge again: {e}\n{written}");
    }
    let twice = Source {
        name: "b.json".into(),
        report: source.report.clone(),
    };
    let Ok(both) = merge::merge(&[source, twice], MergeOptions::default()) else {
        // Counts too large to add up are refused.
        return;
    };
    assert_eq!(both.requests.total, 2 * alone.requests.total);
    assert_eq!(both.errors.timeout, 2 * alone.errors.timeout);
    assert_eq!(
        both.status_codes.class_2xx,
        2 * alone.status_codes.class_2xx
    );
    assert_eq!(both.request_time.count, 2 * alone.request_time.count);
    assert_eq!(both.connect_time.count, 2 * alone.connect_time.count);
    text::render(&both);
}

fn interval_log(bytes: &[u8]) {
    let Ok(log) = hdr_log::parse_log("a.hlog", bytes) else {
        return;
    };
    let samples = |log: &hdr_log::IntervalLog| -> u64 {
        log.intervals.iter().map(|i| i.histogram.len()).sum()
    };
    let merged = hdr_log::merge_logs(&[log.clone(), log.clone()]);
    // Histogram counts saturate rather than wrap.
    if samples(&log).checked_mul(2).is_some() {
        assert_eq!(samples(&merged), 2 * samples(&log));
    }
    let alone = hdr_log::merge_logs(std::slice::from_ref(&log));
    let path = scratch_path();
    hdr_log::write_log(&alone, &path, 1).expect("a merged log is written");
    let written = std::fs::read(&path).expect("the written log reads");
    let _ = std::fs::remove_file(&path);
    let back = hdr_log::parse_log("merged.hlog", &written)
        .unwrap_or_else(|e| panic!("the written log does not read back: {e}"));
    assert_eq!(back.intervals.len(), alone.intervals.len());
    for (read, wrote) in back.intervals.iter().zip(&alone.intervals) {
        assert_eq!(read.tag, wrote.tag);
        assert_eq!(read.histogram, wrote.histogram);
    }
}

fn histogram(bytes: &[u8]) {
    let Ok(decoded) = histogram_codec::decode_bytes(bytes) else {
        return;
    };
    let again = histogram_codec::decode(&histogram_codec::encode(&decoded))
        .expect("an encoded histogram decodes");
    assert_eq!(again, decoded);
}

/// A file of this process's own, for the written log.
fn scratch_path() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("loadgen-fuzz-merge-{}.hlog", std::process::id()))
}
