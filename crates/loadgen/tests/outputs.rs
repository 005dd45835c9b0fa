//! Where results go: every output path is checked before the first request,
//! and a failure to write one output at the end suppresses neither the
//! others nor the report on stdout.

mod common;

use common::*;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn an_output_path_that_is_a_directory_is_a_usage_error() {
    let target = TestTarget::start();
    let dir = TempDir::new("outputs");
    let uri = target.http("/");
    let before = target.stats().total;
    for flag in [
        "-o",
        "--hdr-log",
        "--log-file",
        "--html",
        "--percentiles-file",
    ] {
        let output = run(&["-n", "10", flag, path_str(dir.path()), &uri]);
        assert_error(&output, 2, &[flag]);
    }
    // A scenario run checks its outputs the same way.
    let scenario = dir.write(
        "one.yaml",
        format!(
            "scenarios:\n  one:\n    executor: shared-iterations\n    vus: 1\n    \
             iterations: 1\n    steps:\n      - name: home\n        url: {uri}\n"
        ),
    );
    for flag in ["-o", "--hdr-log", "--html", "--percentiles-file"] {
        let output = run(&["run", path_str(&scenario), flag, path_str(dir.path())]);
        assert_error(&output, 2, &[flag]);
    }
    assert_eq!(target.stats().total, before, "no request went out");
}

#[test]
fn an_output_in_a_missing_directory_is_a_usage_error() {
    let dir = TempDir::new("outputs");
    let missing = dir.path().join("missing/report.json");
    let output = run(&["-n", "1", "-o", path_str(&missing), "http://127.0.0.1:1/"]);
    assert_error(&output, 2, &["-o"]);
}

#[test]
fn an_output_lost_at_the_end_keeps_the_others_and_the_report() {
    let target = TestTarget::start();
    let kept = TempDir::new("kept");
    let doomed = TempDir::new("doomed");
    let report = doomed.path().join("run.json");
    let hdr_log = kept.path().join("run.hlog");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_loadgen"));
    cmd.args(["-q", "--h1", "-D", "2s", "-c", "2"])
        .args(["-o", path_str(&report), "--hdr-log", path_str(&hdr_log)])
        .arg(target.http("/"))
        .stdin(Stdio::null());
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("loadgen starts");
    // The directory of -o goes away while the run goes on.
    std::thread::sleep(Duration::from_millis(500));
    std::fs::remove_dir_all(doomed.path()).unwrap();
    let output = child.wait_with_output().expect("loadgen ends");
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert!(
        stdout(&output).contains("finished in "),
        "{}",
        describe(&output)
    );
    assert!(
        stderr(&output).contains("-o: cannot write"),
        "{}",
        describe(&output)
    );
    let hlog = std::fs::read_to_string(&hdr_log).expect("--hdr-log was still written");
    assert!(hlog.contains("Tag=request,"));
}

#[test]
fn a_server_that_never_answers_exits_one() {
    // A listener nobody accepts on: connections complete in the kernel's
    // backlog, requests go out, and no response ever comes.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let uri = format!("http://{}/", listener.local_addr().unwrap());
    let mut cmd = loadgen();
    cmd.args(["--h1", "-D", "1s", "-c", "2", &uri]);
    let output = run_bounded(cmd, Duration::from_secs(30));
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert!(
        stderr(&output).contains("no request got a response"),
        "{}",
        describe(&output)
    );
    drop(listener);
}

#[test]
fn a_stalled_target_exits_one() {
    let target = TestTarget::start();
    target.target.stall_for(Duration::from_secs(10));
    let mut cmd = loadgen();
    cmd.args(["-q", "-D", "1s", "-c", "2", &target.http("/")]);
    let output = run_bounded(cmd, Duration::from_secs(30));
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
}
