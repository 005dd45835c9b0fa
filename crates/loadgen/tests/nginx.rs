//! Runs against nginx, a server loadgen was not written with: its access log
//! says how many requests really arrived. h2load, the reference client, is
//! run against the same nginx to cross-check the numbers.

mod common;

use common::*;

const N: u64 = 1000;

/// Runs `-n 1000 -c 10 <args>` and checks the report and nginx's access log.
fn check_run(nginx: &Nginx, args: &[&str], protocol: &str, body_len: u64) {
    let before = nginx.access_log_lines();
    let mut full = vec!["-n", "1000", "-c", "10"];
    full.extend_from_slice(args);
    let report = run_json_ok(&full);
    assert_all_ok(&report, N, body_len);
    assert_protocol(&report, protocol);
    let logged = nginx.access_log_lines() - before;
    assert_eq!(
        logged as u64,
        N,
        "nginx logged {logged} requests for {args:?}; report:\n{report:#}\nerror.log:\n{}",
        nginx.error_log()
    );
}

#[test]
fn nginx_http1() {
    let nginx = Nginx::start();
    check_run(&nginx, &["--h1", &nginx.http1("/")], "http/1.1", BODY_LEN);
}

#[test]
fn nginx_http1_pipelined() {
    let nginx = Nginx::start();
    check_run(
        &nginx,
        &["--h1", "-m", "8", &nginx.http1("/")],
        "http/1.1",
        BODY_LEN,
    );
}

#[test]
fn nginx_h2_over_tls() {
    let nginx = Nginx::start();
    check_run(
        &nginx,
        &["-k", "-m", "10", &nginx.https("/")],
        "h2",
        BODY_LEN,
    );
}

#[test]
fn nginx_http1_over_tls() {
    let nginx = Nginx::start();
    check_run(
        &nginx,
        &["-k", "--h1", &nginx.https("/")],
        "http/1.1",
        BODY_LEN,
    );
}

#[test]
fn nginx_h2c() {
    let nginx = Nginx::start();
    check_run(&nginx, &["-m", "10", &nginx.h2c("/")], "h2c", BODY_LEN);
}

#[test]
fn nginx_bigger_body() {
    let nginx = Nginx::start();
    let len = NGINX_BIG_BODY.len() as u64;
    assert_eq!(len, 100);
    check_run(&nginx, &["--h1", &nginx.http1("/big")], "http/1.1", len);
    check_run(&nginx, &["-m", "10", &nginx.h2c("/big")], "h2c", len);
}

#[test]
fn nginx_503_counts_as_failed() {
    let nginx = Nginx::start();
    let url = nginx.h2c("/s503");
    let report = run_json_ok(&["-n", "100", "-c", "10", "-m", "10", &url]);
    for (pointer, expected) in [
        ("/requests/done", 100),
        ("/requests/succeeded", 0),
        ("/requests/failed", 100),
        ("/requests/errored", 0),
        ("/status_codes/5xx", 100),
        ("/status_codes/by_code/503", 100),
    ] {
        assert_num(&report, pointer, expected);
    }
    assert_eq!(nginx.access_log_lines(), 100);
}

/// Runs h2load and returns its text output; fails when it is not installed.
fn h2load(args: &[&str]) -> String {
    let mut cmd = std::process::Command::new("h2load");
    cmd.args(args);
    if std::process::Command::new("h2load")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_err()
    {
        panic!(
            "h2load is not installed, and this test needs it: run scripts/test, which \
             installs it, or `apt-get install nghttp2-client`"
        );
    }
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_eq!(
        output.status.code(),
        Some(0),
        "h2load {args:?}\n{}",
        describe(&output)
    );
    stdout(&output)
}

/// The number before `suffix` in h2load's `traffic:` line, e.g. `(13000) data`.
fn h2load_traffic(out: &str, suffix: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with("traffic: "))
        .unwrap_or_else(|| panic!("no traffic line in h2load's output:\n{out}"));
    let end = line
        .find(&format!(") {suffix}"))
        .unwrap_or_else(|| panic!("no '{suffix}' in {line:?}"));
    let start = line[..end].rfind('(').expect("opening parenthesis") + 1;
    line[start..end].parse().expect("a byte count")
}

#[test]
fn agrees_with_h2load() {
    let nginx = Nginx::start();
    for (url, h1) in [
        (nginx.h2c("/big"), false),
        (nginx.http1("/big"), true),
        (nginx.https("/big"), false),
    ] {
        let mut args = vec!["-n", "1000", "-c", "10", "-m", "4"];
        if h1 {
            args.push("--h1");
        }
        args.push(&url);
        let reference = h2load(&args);
        let mut ours = vec!["-k"];
        ours.extend_from_slice(&args);
        let report = run_json_ok(&ours);
        assert!(
            reference.lines().any(|l| l
                == "requests: 1000 total, 1000 started, 1000 done, 1000 succeeded, \
                    0 failed, 0 errored, 0 timeout"),
            "h2load itself should succeed:\n{reference}"
        );
        assert_all_ok(&report, N, NGINX_BIG_BODY.len() as u64);
        assert_num(&report, "/bytes/data", h2load_traffic(&reference, "data"));
    }
    assert_eq!(nginx.access_log_lines(), 3 * 2 * N as usize);
}

/// The harness itself, checked with h2load alone: all three listeners answer
/// and every request lands in the access log.
#[test]
fn harness_nginx_serves_every_listener() {
    let nginx = Nginx::start();
    for args in [
        vec!["--h1".to_string(), nginx.http1("/")],
        vec![nginx.h2c("/")],
        vec![nginx.https("/")],
        vec!["--h1".to_string(), nginx.https("/")],
    ] {
        let mut full = vec!["-n", "10", "-c", "2"];
        full.extend(args.iter().map(String::as_str));
        let out = h2load(&full);
        assert!(
            out.lines().any(|l| l
                == "requests: 10 total, 10 started, 10 done, 10 succeeded, 0 failed, \
                    0 errored, 0 timeout"),
            "h2load {full:?}:\n{out}"
        );
        assert_eq!(h2load_traffic(&out, "data"), 10 * BODY_LEN, "{out}");
    }
    assert_eq!(nginx.access_log_lines(), 40);
}
