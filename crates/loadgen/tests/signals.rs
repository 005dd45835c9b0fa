//! Stopping a run by hand: the first SIGINT stops it, the report is printed
//! marked interrupted and every output is written whole; exit 130. Signals
//! that come together (to the process group and the process, as `timeout`,
//! CI runners and Kubernetes send them) are one stop; a signal a second or
//! more after the first exits at once.

mod common;

use common::*;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How long after the start the signal is sent: the run is well under way.
const SIGNAL_AFTER: Duration = Duration::from_millis(1500);

/// How the stop reaches loadgen.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// One SIGINT to the process.
    Signal,
    /// SIGINT to the process, then at once to its process group, as
    /// `timeout -s INT` sends it.
    Burst,
}

/// Runs `loadgen -D 10s` with every output, interrupts it, and checks the
/// report and the files.
fn interrupt(flags: &[&str], uri: &str) {
    interrupt_with(flags, uri, Stop::Signal);
}

fn interrupt_with(flags: &[&str], uri: &str, stop: Stop) {
    let dir = TempDir::new("signals");
    let report = dir.path().join("run.json");
    let hdr_log = dir.path().join("run.hlog");
    let log_file = dir.path().join("requests.log");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_loadgen"));
    cmd.args(["-q", "-D", "10s", "-c", "4"])
        .args(flags)
        .args(["-o", path_str(&report)])
        .args(["--hdr-log", path_str(&hdr_log)])
        .args(["--log-file", path_str(&log_file)])
        .arg(uri)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // A group of its own, which the burst signals as a whole.
        .process_group(0);
    let child = cmd.spawn().expect("loadgen starts");
    let pid = child.id() as libc::pid_t;
    thread::sleep(SIGNAL_AFTER);
    let signalled = Instant::now();
    // SAFETY: kill takes plain integers; the pid is our own child's, and
    // its group id is its pid.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    if let Stop::Burst = stop {
        assert_eq!(unsafe { libc::kill(-pid, libc::SIGINT) }, 0);
    }
    let output = wait_output(child, Duration::from_secs(20));
    eprintln!(
        "{flags:?}, {stop:?}: ended {:?} after SIGINT",
        signalled.elapsed()
    );
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(130), "{}", describe(&output));
    let text = stdout(&output);
    assert!(text.contains("\ninterrupted: "), "{}", describe(&output));
    assert!(text.contains("finished in "), "{}", describe(&output));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("-o was written"))
            .expect("-o is whole JSON");
    assert_eq!(json["interrupted"], true);
    assert!(num(&json, "/requests/done") > 0, "{json:#}");
    // Stopped early: the measured time is far from the 10 s asked for.
    assert!(json["elapsed_s"].as_f64().unwrap() < 9.0, "{json:#}");
    let hlog = std::fs::read_to_string(&hdr_log).expect("--hdr-log was written");
    assert!(hlog.contains("Tag=request,"), "{hlog}");
    let lines = std::fs::read_to_string(&log_file).expect("--log-file was written");
    assert!(lines.lines().count() > 0);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

/// Waits for `child` with a bound, collecting its output.
fn wait_output(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let deadline = Instant::now() + limit;
    while child.try_wait().expect("try_wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("loadgen did not end within {limit:?} of SIGINT");
        }
        thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn http1() {
    let target = TestTarget::start();
    interrupt(&["--h1"], &target.http("/"));
}

#[test]
fn h2c() {
    let target = TestTarget::start();
    interrupt(&["-m", "4"], &target.http("/"));
}

#[test]
fn http2_over_tls() {
    let target = TestTarget::start();
    interrupt(&["-m", "4", "-k"], &target.https("/"));
}

#[test]
fn http3() {
    let target = TestTarget::start();
    interrupt(&["--h3", "-m", "4", "-k"], &target.https("/"));
}

#[test]
fn open_model() {
    let target = TestTarget::start();
    interrupt(&["--h1", "--rate", "500"], &target.http("/"));
}

#[test]
fn signals_sent_together_are_one_stop() {
    let target = TestTarget::start();
    for flags in [&["--h1"][..], &["-m", "4"]] {
        for _ in 0..3 {
            interrupt_with(flags, &target.http("/"), Stop::Burst);
        }
    }
}

#[test]
fn requests_in_flight_get_the_grace_and_end_counted() {
    // Every response takes 300 ms: at the signal each client has one in
    // flight, and the 1 s grace lets it end as a response, not a loss.
    let target = TestTarget::start();
    let dir = TempDir::new("grace");
    let report = dir.path().join("run.json");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_loadgen"));
    cmd.args([
        "-q",
        "--h1",
        "-D",
        "10s",
        "-c",
        "2",
        "-o",
        path_str(&report),
    ])
    .arg(target.http("/?delay=300ms"))
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let child = cmd.spawn().expect("loadgen starts");
    thread::sleep(Duration::from_millis(1100));
    // SAFETY: kill takes plain integers; the pid is our own child's.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let output = wait_output(child, Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(143), "{}", describe(&output));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        num(&json, "/requests/started"),
        num(&json, "/requests/done"),
        "every request in flight ended within the grace: {json:#}"
    );
}

#[test]
fn a_second_signal_exits_at_once() {
    // Responses take 5 s and the grace is longer: only the second signal,
    // 2 s after the first, can end this run early.
    let target = TestTarget::start();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_loadgen"));
    cmd.args(["-q", "--h1", "-D", "30s", "--stop-grace", "30s"])
        .arg(target.http("/?delay=5s"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().expect("loadgen starts");
    let pid = child.id() as libc::pid_t;
    thread::sleep(Duration::from_millis(500));
    for _ in 0..2 {
        // SAFETY: kill takes plain integers; the pid is our own child's.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
        // Past the burst that counts as one stop.
        thread::sleep(Duration::from_secs(2));
    }
    let output = wait_output(child, Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(130), "{}", describe(&output));
    assert!(
        !stdout(&output).contains("finished in "),
        "{}",
        describe(&output)
    );
}
