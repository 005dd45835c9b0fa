//! Runs split with `--shard` and `--execution-segment` add up to the whole
//! run, and `loadgen merge` makes the whole run's report of their parts.

mod common;

use common::*;

fn shard_reports(dir: &TempDir, count: usize, flags: &[&str], uri: &str) -> Vec<String> {
    (0..count)
        .map(|i| {
            let path = dir.path().join(format!("shard{i}.json"));
            let shard = format!("{i}/{count}");
            let mut args = vec!["-q", "--shard", &shard, "-o", path_str(&path)];
            args.extend_from_slice(flags);
            args.push(uri);
            let output = run(&args);
            assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
            path.display().to_string()
        })
        .collect()
}

#[test]
fn shards_add_up_to_the_run_and_merge_into_it() {
    let target = TestTarget::start();
    let dir = TempDir::new("shards");
    let reports = shard_reports(
        &dir,
        4,
        &["--h1", "-n", "1000", "-c", "10"],
        &target.http("/"),
    );
    let mut succeeded = 0;
    let mut clients = 0;
    for path in &reports {
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        succeeded += num(&report, "/requests/succeeded");
        clients += num(&report, "/config/clients");
        assert!(text(&report, "/config/segment").contains('/'), "{report:#}");
    }
    assert_eq!((succeeded, clients), (1000, 10));
    let mut args = vec!["merge", "--json"];
    args.extend(reports.iter().map(String::as_str));
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let merged: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_num(&merged, "/requests/total", 1000);
    assert_num(&merged, "/requests/succeeded", 1000);
    assert_num(&merged, "/config/clients", 10);
}

#[test]
fn open_model_shards_split_the_arrivals() {
    let target = TestTarget::start();
    let dir = TempDir::new("open-shards");
    let reports = shard_reports(
        &dir,
        3,
        &["--h1", "--rate", "2000", "-n", "600", "-c", "6"],
        &target.http("/"),
    );
    let mut started = 0;
    let mut rate = 0.0;
    for path in &reports {
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        started += num(&report, "/requests/started");
        rate += field(&report, "/config/rate_per_s").as_f64().unwrap();
    }
    assert_eq!(started, 600);
    assert!((rate - 2000.0).abs() < 1e-6, "{rate}");
}

#[test]
fn bad_segments_are_usage_errors() {
    let uri = "http://127.0.0.1:1/";
    for (args, mention) in [
        (&["--shard", "4/4", uri][..], "--shard"),
        (&["--shard", "x", uri], "--shard"),
        (
            &["--execution-segment", "1/2:1/4", uri],
            "--execution-segment",
        ),
        (
            &[
                "--execution-segment",
                "0:1/4",
                "--execution-segment-sequence",
                "0,1/3,1",
                uri,
            ],
            "--execution-segment-sequence",
        ),
        (&["-c", "2", "-n", "2", "--shard", "3/4", uri], "--shard"),
    ] {
        let output = run(args);
        assert_error(&output, 2, &[mention]);
    }
}

#[test]
fn shards_given_one_start_time_start_together() {
    let target = TestTarget::start();
    let dir = TempDir::new("start-at");
    let at = std::time::SystemTime::now() + std::time::Duration::from_millis(1500);
    let at_s = at
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let start_at = format!("{at_s:.6}");
    let uri = target.http("/");
    let shards: Vec<_> = (0..2)
        .map(|i| {
            let path = dir.path().join(format!("shard{i}.json"));
            let (start_at, uri) = (start_at.clone(), uri.clone());
            std::thread::spawn(move || {
                let shard = format!("{i}/2");
                let output = run(&[
                    "-q",
                    "--h1",
                    "-c",
                    "4",
                    "-D",
                    "1s",
                    "--shard",
                    &shard,
                    "--start-at",
                    &start_at,
                    "-o",
                    path_str(&path),
                    &uri,
                ]);
                assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
                path.display().to_string()
            })
        })
        .collect();
    let reports: Vec<String> = shards.into_iter().map(|s| s.join().unwrap()).collect();
    for path in &reports {
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let started = loadgen_report::merge::parse_rfc3339(text(&report, "/started_at")).unwrap();
        // started_at is cut to the millisecond.
        let late = started
            .duration_since(at - std::time::Duration::from_millis(1))
            .unwrap_or_else(|_| panic!("{path} started before its start time: {report:#}"));
        assert!(late.as_millis() < 200, "{path} started {late:?} late");
    }
    let mut args = vec!["merge", "--json"];
    args.extend(reports.iter().map(String::as_str));
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let merged: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // Run side by side, the two seconds are one second of the merged run.
    let elapsed = field(&merged, "/elapsed_s").as_f64().unwrap();
    assert!(
        elapsed < 1.25,
        "merged elapsed {elapsed}s: the shards did not run together"
    );
    assert_eq!(text(&merged, "/config/segment"), "0:1/2,1/2:1");
}

#[test]
fn a_start_time_past_or_with_workers_is_a_usage_error() {
    let uri = "http://127.0.0.1:1/";
    let output = run(&["--start-at", "1700000000", uri]);
    assert_error(&output, 2, &["--start-at", "past"]);
    let output = run(&["--start-at", "tomorrow", uri]);
    assert_error(&output, 2, &["--start-at"]);
    let output = run(&[
        "--workers",
        "http://127.0.0.1:1",
        "--token-file",
        "token",
        "--start-at",
        "1700000000",
        uri,
    ]);
    assert_error(&output, 2, &["--start-at"]);
}
