//! A run by count against a server that stopped answering, with nothing to
//! bound a request, says once on stderr that its requests are waiting and
//! which flag bounds them, instead of sitting silent; Ctrl-C then still
//! ends it with its report.
//!
//! The server is the built-in target holding every response for a minute
//! (`?delay=60s`): the `stall` fault server gives a connection up after
//! 10 s of silence, the very moment the line is due.

mod common;

use common::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// The line's words; it comes after 10 s without a request ending.
const WAITING: &str = "no request has ended for 10s";
/// Every response held for a minute: no request ends within the test.
const HELD: &str = "/?delay=60s";
/// Generous: the line is due 10 s after the start.
const LINE_LIMIT: Duration = Duration::from_secs(40);

#[test]
fn a_stalled_run_by_count_says_its_requests_are_waiting() {
    let target = TestTarget::start();
    let mut child = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(["-q", "--h1", "-n", "4", "-c", "2"])
        .arg(target.http(HELD))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("loadgen starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let printed = thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let (lines, heard) = mpsc::channel();
    let stderr = child.stderr.take().expect("piped stderr");
    let said = thread::spawn(move || {
        let mut all = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.send(line.clone());
            all.push(line);
        }
        all
    });
    let started = Instant::now();
    let line = loop {
        let left = LINE_LIMIT.saturating_sub(started.elapsed());
        match heard.recv_timeout(left) {
            Ok(line) if line.contains(WAITING) => break line,
            Ok(_) => continue,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("no waiting line within {LINE_LIMIT:?}");
            }
        }
    };
    eprintln!("after {:?}: {line}", started.elapsed());
    assert!(line.contains("--request-timeout"), "{line}");
    // SAFETY: kill takes plain integers; the pid is our own child's.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("loadgen did not end after SIGINT");
        }
        thread::sleep(Duration::from_millis(20));
    };
    let text = printed.join().expect("stdout read");
    let stderr = said.join().expect("stderr read");
    assert_eq!(status.code(), Some(130), "{text}\n{stderr:?}");
    assert!(text.contains("\ninterrupted: "), "{text}");
    assert!(
        text.contains("requests: 4 total, 2 started, 0 done"),
        "{text}"
    );
    let times = stderr.iter().filter(|l| l.contains(WAITING)).count();
    assert_eq!(times, 1, "{stderr:?}");
}

#[test]
fn a_request_timeout_bounds_the_wait_and_nothing_is_said() {
    let target = TestTarget::start();
    let mut cmd = loadgen();
    // Past the 10 s after which an unbounded run would speak.
    cmd.args([
        "-q",
        "--h1",
        "-n",
        "2",
        "-c",
        "2",
        "--request-timeout",
        "11s",
    ])
    .arg(target.http(HELD));
    let output = run_bounded(cmd, Duration::from_secs(60));
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert!(!stderr(&output).contains(WAITING), "{}", describe(&output));
    assert!(
        stderr(&output).contains("2 request(s) with timeout errors"),
        "{}",
        describe(&output)
    );
}
