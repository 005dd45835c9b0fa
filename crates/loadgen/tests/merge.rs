//! `loadgen merge` against the truth: one run (`-n 8000 -c 8`) split with
//! `--shard I/4` into four processes against one built-in target, at once,
//! each with `--log-file`, `-o` and `--hdr-log`; their merged report has
//! every request of the whole run, and the percentiles of the union of the
//! four request logs, to the histogram's precision.

mod common;

use common::*;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::Histogram;
use loadgen_core::histogram_codec::decode;
use serde_json::Value;
use std::path::{Path, PathBuf};

const SHARDS: usize = 4;
const REQUESTS: u64 = 8000;
const REQUESTS_PER_SHARD: u64 = REQUESTS / SHARDS as u64;
const CLIENTS: u64 = 8;

/// The files one shard wrote.
struct Shard {
    report: PathBuf,
    log: PathBuf,
    hdr_log: PathBuf,
}

/// Runs the four shards of `-n 8000 -c 8` at once against `url`.
fn run_shards(dir: &Path, url: &str) -> Vec<Shard> {
    let shards: Vec<Shard> = (0..SHARDS)
        .map(|i| Shard {
            report: dir.join(format!("shard_{i}.json")),
            log: dir.join(format!("shard_{i}.log")),
            hdr_log: dir.join(format!("shard_{i}.hlog")),
        })
        .collect();
    std::thread::scope(|scope| {
        let runs: Vec<_> = shards
            .iter()
            .enumerate()
            .map(|(index, shard)| {
                scope.spawn(move || {
                    let requests = REQUESTS.to_string();
                    let clients = CLIENTS.to_string();
                    let segment = format!("{index}/{SHARDS}");
                    run(&[
                        "-q",
                        "-n",
                        &requests,
                        "-c",
                        &clients,
                        "--shard",
                        &segment,
                        "--log-file",
                        path_str(&shard.log),
                        "-o",
                        path_str(&shard.report),
                        "--hdr-log",
                        path_str(&shard.hdr_log),
                        url,
                    ])
                })
            })
            .collect();
        for run in runs {
            let output = run.join().expect("the shard's thread");
            assert_no_panic(&output);
            assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
        }
    });
    shards
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The duration (third column, µs) of every line of the request logs that
/// got a response.
fn logged_durations(shards: &[Shard]) -> Vec<u64> {
    let mut durations = Vec::new();
    for shard in shards {
        let text = std::fs::read_to_string(&shard.log).expect("the request log");
        for line in text.lines() {
            let columns: Vec<&str> = line.split('\t').collect();
            assert_eq!(columns.len(), 3, "{line:?}");
            assert_ne!(columns[1], "-1", "a request without a response: {line:?}");
            durations.push(columns[2].parse::<u64>().expect("a duration in µs"));
        }
    }
    durations.sort_unstable();
    durations
}

/// The percentile as HdrHistogram defines it: the sample of rank ⌈q·n⌉.
fn exact_percentile(sorted: &[u64], q: f64) -> u64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).max(1);
    sorted[rank - 1]
}

/// The histogram at `pointer` of every shard report, added up.
fn shard_sum(shards: &[Shard], pointer: &str) -> Histogram<u64> {
    let mut sum = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    for shard in shards {
        let report = read_json(&shard.report);
        sum.add(decode(text(&report, pointer)).unwrap()).unwrap();
    }
    sum
}

#[test]
fn merged_shards_have_the_percentiles_of_all_their_requests() {
    let target = TestTarget::start();
    let url = target.http("/");
    let shards = run_shards(target.dir.path(), &url);

    let mut args = vec!["merge", "--json"];
    args.extend(shards.iter().map(|s| path_str(&s.report)));
    let output = run(&args);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let merged: Value = serde_json::from_str(&stdout(&output)).expect("one JSON report");

    // Each shard made its quarter of the run, and the quarters add up to it.
    let total = REQUESTS;
    for shard in &shards {
        let report = read_json(&shard.report);
        assert_num(&report, "/requests/succeeded", REQUESTS_PER_SHARD);
        assert_num(&report, "/config/clients", CLIENTS / SHARDS as u64);
    }
    let succeeded: u64 = shards
        .iter()
        .map(|s| num(&read_json(&s.report), "/requests/succeeded"))
        .sum();
    assert_eq!(succeeded, total);
    assert_num(&merged, "/requests/succeeded", succeeded);
    assert_all_ok(&merged, total, BODY_LEN);
    assert_num(&merged, "/config/clients", CLIENTS);
    assert_num(&merged, "/config/requests", total);
    assert_eq!(target.stats().total, total);

    // The raw request time is what each request log line holds: the merged
    // percentiles are those of the union of the logs, to the histogram's
    // precision (the highest value the histogram cannot tell from the exact one).
    let durations = logged_durations(&shards);
    assert_eq!(durations.len() as u64, total);
    assert_num(&merged, "/request_time_raw/count", total);
    let precision = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    for (q, field) in [
        (0.5, "p50_us"),
        (0.9, "p90_us"),
        (0.99, "p99_us"),
        (0.999, "p99_9_us"),
    ] {
        let exact = exact_percentile(&durations, q).max(1);
        let reported = num(&merged, &format!("/request_time_raw/{field}"));
        assert_eq!(
            reported,
            precision.highest_equivalent(exact),
            "{field}: merged {reported} µs, exact {exact} µs from the request logs"
        );
    }

    // The corrected request time is in no log line: it is the sum of the
    // shards' own histograms.
    let corrected = shard_sum(&shards, "/histograms/request_time");
    assert_num(&merged, "/request_time/count", corrected.len());
    for (q, field) in [
        (0.5, "p50_us"),
        (0.9, "p90_us"),
        (0.99, "p99_us"),
        (0.999, "p99_9_us"),
    ] {
        assert_num(
            &merged,
            &format!("/request_time/{field}"),
            corrected.value_at_quantile(q),
        );
    }

    // The seconds hold every response once.
    let rows = field(&merged, "/intervals").as_array().expect("intervals");
    let in_rows: u64 = rows.iter().map(|row| num(row, "/requests")).sum();
    assert_eq!(in_rows, total, "{rows:#?}");
}

#[test]
fn merged_interval_logs_hold_every_request_once() {
    let target = TestTarget::start();
    let shards = run_shards(target.dir.path(), &target.http("/"));
    let out = target.dir.path().join("merged.hlog");
    let mut args = vec!["merge", "--hdr-log", path_str(&out)];
    args.extend(shards.iter().map(|s| path_str(&s.hdr_log)));
    let output = run(&args);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));

    let text = std::fs::read(&out).expect("the merged log");
    assert!(text.starts_with(b"#[Histogram log format version 1.3]"));
    let mut request = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    let mut connections = 0;
    let mut base_time = None;
    let mut starts = Vec::new();
    for entry in IntervalLogIterator::new(&text) {
        match entry.expect("a valid interval log entry") {
            LogEntry::BaseTime(at) => base_time = Some(at),
            LogEntry::Interval(interval) => {
                let histogram = decode(interval.encoded_histogram()).expect("a loadgen histogram");
                match interval.tag().map(|t| t.as_str()) {
                    Some("request") => {
                        let base = base_time.expect("a BaseTime before the intervals");
                        starts.push(base + interval.start_timestamp());
                        request.add(histogram).unwrap();
                    }
                    Some("connect") => connections += histogram.len(),
                    _ => {}
                }
            }
            LogEntry::StartTime(_) => {}
        }
    }
    assert_eq!(request.len(), REQUESTS);
    assert_eq!(connections, CLIENTS);
    assert_eq!(request, shard_sum(&shards, "/histograms/request_time"));
    // One interval per tag and wall-clock second (the nearest to its start).
    let mut seconds: Vec<u128> = starts
        .iter()
        .map(|s| (s.as_millis() + 500) / 1000)
        .collect();
    seconds.dedup();
    assert_eq!(seconds.len(), starts.len(), "{starts:?}");
}

#[test]
fn merged_reports_take_thresholds_and_files_as_a_run() {
    let target = TestTarget::start();
    let dir = target.dir.path();
    let url = target.http("/");
    let shards: Vec<PathBuf> = (0..2).map(|i| dir.join(format!("s{i}.json"))).collect();
    for shard in &shards {
        let output = run(&["-q", "-n", "100", "-o", path_str(shard), &url]);
        assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    }
    let csv = dir.join("merged.csv");
    let output = run(&[
        "merge",
        "-o",
        path_str(&csv),
        "--threshold",
        "p50<1us",
        "--threshold",
        "errors<1%",
        path_str(&shards[0]),
        path_str(&shards[1]),
    ]);
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
    let text = stdout(&output);
    assert!(
        text.contains("requests: 200 total, 200 started, 200 done, 200 succeeded"),
        "{text}"
    );
    assert!(
        text.contains("thresholds:") && text.contains("FAIL"),
        "{text}"
    );
    let written = std::fs::read_to_string(&csv).expect("the -o file");
    assert_eq!(written.lines().count(), 2, "{written}");
    assert!(written.contains("p50<1us=fail errors<1%=pass"), "{written}");
}

#[test]
fn a_report_without_histograms_is_refused() {
    let target = TestTarget::start();
    let dir = target.dir.path();
    let url = target.http("/");
    let whole = dir.join("whole.json");
    let output = run(&["-q", "-n", "20", "-o", path_str(&whole), &url]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    // `--json` on stdout leaves the histograms out unless asked.
    let (bare_report, output) = run_json(&["-n", "20", &url]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let bare = dir.join("bare.json");
    std::fs::write(&bare, bare_report.to_string()).unwrap();

    let output = run(&["merge", path_str(&whole), path_str(&bare)]);
    assert_error(&output, 2, &["bare.json"]);
    let line = stderr(&output);
    assert!(
        line.contains("no histograms") && line.contains("-o FILE.json"),
        "{line}"
    );
    assert!(stdout(&output).is_empty(), "{}", describe(&output));
}

#[test]
fn bad_inputs_are_refused_with_the_file_named() {
    let target = TestTarget::start();
    let dir = target.dir.path();
    let url = target.http("/");
    let root = dir.join("root.json");
    let other = dir.join("other.json");
    let csv = dir.join("run.csv");
    for (file, uri) in [
        (&root, url.clone()),
        (&other, target.http("/other")),
        (&csv, url.clone()),
    ] {
        let output = run(&["-q", "-n", "20", "-o", path_str(file), &uri]);
        assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    }
    let missing = dir.join("missing.json");

    let output = run(&["merge", path_str(&root), path_str(&other)]);
    assert_error(&output, 2, &["other.json"]);
    assert!(stderr(&output).contains("--force"), "{}", describe(&output));
    let output = run(&[
        "merge",
        "--force",
        "--json",
        path_str(&root),
        path_str(&other),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let forced: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(field(&forced, "/config/uris").as_array().unwrap().len(), 2);
    assert_num(&forced, "/requests/succeeded", 40);

    let output = run(&["merge", path_str(&root), path_str(&csv)]);
    assert_error(&output, 2, &["run.csv"]);
    let output = run(&["merge", path_str(&root), path_str(&missing)]);
    assert_error(&output, 2, &["missing.json"]);
    let output = run(&[
        "merge",
        "--hdr-log",
        path_str(&dir.join("m.hlog")),
        path_str(&root),
    ]);
    assert_error(&output, 2, &["root.json"]);
    let output = run(&["merge", "--json", "--hdr-log", "m.hlog", path_str(&root)]);
    assert_error(&output, 2, &["--hdr-log", "--json"]);
    let output = run(&["merge"]);
    assert_error(&output, 2, &["FILE"]);
}
