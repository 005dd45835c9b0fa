//! Shared harness of the integration tests: running the `loadgen` binary with
//! a bounded wait, the built-in target, an nginx instance, and small helpers
//! to read the JSON report.
//!
//! Every server listens on loopback only and every test starts its own, so
//! tests can run in parallel threads.

#![allow(dead_code)]

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use loadgen_target::{Stats, Target, TargetConfig};
use serde_json::Value;

/// The longest one `loadgen` run of a test may take before it counts as hung.
pub const RUN_LIMIT: Duration = Duration::from_secs(120);

/// The body every server of these tests answers `/` with.
pub const BODY: &str = "hello, world\n";
pub const BODY_LEN: u64 = 13;

// ---------------------------------------------------------------------------
// Running loadgen
// ---------------------------------------------------------------------------

// Not every test binary uses both.
#[allow(unused_imports)]
pub use loadgen_test_peers::{python, PythonServer};

/// The `loadgen` binary built for these tests, with no standard input.
pub fn loadgen() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_loadgen"));
    cmd.stdin(Stdio::null());
    cmd
}

/// Runs `cmd` to completion, collecting its output; kills it and fails the
/// test when it takes longer than `limit`.
pub fn run_bounded(mut cmd: Command, limit: Duration) -> Output {
    let shown = format!("{cmd:?}");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    let stdout = drain(child.stdout.take().expect("piped stdout"));
    let stderr = drain(child.stderr.take().expect("piped stderr"));
    let status = wait_bounded(&mut child, limit);
    let output = Output {
        status: status.unwrap_or_else(|| child.wait().expect("wait for killed child")),
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    };
    if status.is_none() {
        panic!(
            "{shown} did not finish within {limit:?} and was killed\n{}",
            describe(&output)
        );
    }
    output
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.read_to_end(&mut buf);
        buf
    })
}

/// Polls `child` until it exits or `limit` passes; on timeout it is killed
/// and `None` returned.
fn wait_bounded(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            return None;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `loadgen <args>` with the default bound.
/// `LOADGEN_DOCS_SCREENSHOTS`, where tests that picture a page for the docs
/// save it: a relative path is from the workspace's root, as the docs'
/// commands run from there (a test's own directory is its crate's).
pub fn docs_screenshots_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("LOADGEN_DOCS_SCREENSHOTS")?);
    Some(if dir.is_absolute() {
        dir
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(dir)
    })
}

pub fn run(args: &[&str]) -> Output {
    let mut cmd = loadgen();
    cmd.args(args);
    run_bounded(cmd, RUN_LIMIT)
}

/// Runs `loadgen --json -q <args>` and parses its standard output as JSON.
/// The exit status is left to the caller.
pub fn run_json(args: &[&str]) -> (Value, Output) {
    run_json_of(&[], args)
}

/// [`run_json`] of a subcommand: `loadgen <command> --json -q <args>`.
pub fn run_json_of(command: &[&str], args: &[&str]) -> (Value, Output) {
    let mut full = command.to_vec();
    full.extend(["--json", "-q"]);
    full.extend_from_slice(args);
    let output = run(&full);
    assert_no_panic(&output);
    let text = String::from_utf8_lossy(&output.stdout);
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(value) => (value, output),
        Err(e) => panic!(
            "loadgen {} did not print one JSON object: {e}\n{}",
            full.join(" "),
            describe(&output)
        ),
    }
}

/// [`run_json`] for a run that must exit 0.
pub fn run_json_ok(args: &[&str]) -> Value {
    let (report, output) = run_json(args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "loadgen --json -q {} should exit 0\n{}",
        args.join(" "),
        describe(&output)
    );
    report
}

/// Exit status, standard output and standard error, for failure messages.
pub fn describe(output: &Output) -> String {
    format!(
        "status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// No Rust panic and no abort: errors have to be reported, not crashed on.
pub fn assert_no_panic(output: &Output) {
    let err = stderr(output);
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "loadgen panicked\n{}",
        describe(output)
    );
    assert_ne!(
        output.status.code(),
        Some(101),
        "exit code 101 is a panic\n{}",
        describe(output)
    );
    assert!(
        output.status.code().is_some(),
        "loadgen was killed by a signal\n{}",
        describe(output)
    );
}

/// The error contract: the given exit code, and exactly one non-empty line
/// on standard error that starts with `loadgen: ` and mentions at least one
/// of `mentions` (the flag or value that was wrong).
pub fn assert_error(output: &Output, code: i32, mentions: &[&str]) {
    assert_no_panic(output);
    assert_eq!(
        output.status.code(),
        Some(code),
        "expected exit code {code}\n{}",
        describe(output)
    );
    let err = stderr(output);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "expected exactly one line on stderr\n{}",
        describe(output)
    );
    let line = lines[0];
    assert!(
        line.starts_with("loadgen: ") && line.len() > "loadgen: ".len(),
        "the error line should start with 'loadgen: ' and say something\n{}",
        describe(output)
    );
    assert!(
        mentions.iter().any(|m| line.contains(m)),
        "the error line should mention one of {mentions:?}\n{}",
        describe(output)
    );
}

/// A `loadgen worker` on loopback, any target allowed, killed when dropped.
pub struct Worker {
    child: Child,
    pub url: String,
}

impl Worker {
    pub fn start(token: &Path) -> Worker {
        use std::io::BufRead;
        let mut child = loadgen()
            .args(["worker", "--listen", "127.0.0.1:0", "--token-file"])
            .arg(token)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("loadgen worker starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let (said, heard) = std::sync::mpsc::channel();
        // Read to the end, so the worker never blocks on a full pipe.
        thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if let Some(url) = line.strip_prefix("loadgen worker: listening on ") {
                    let _ = said.send(url.to_string());
                }
            }
        });
        let url = heard
            .recv_timeout(Duration::from_secs(20))
            .expect("the worker says where it listens");
        Worker { child, url }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------
// Reading the JSON report
// ---------------------------------------------------------------------------

/// The value at a JSON pointer such as `/requests/succeeded`; fails the test
/// with the whole report when it is missing.
pub fn field<'a>(report: &'a Value, pointer: &str) -> &'a Value {
    report
        .pointer(pointer)
        .unwrap_or_else(|| panic!("report has no {pointer}:\n{report:#}"))
}

pub fn num(report: &Value, pointer: &str) -> u64 {
    let value = field(report, pointer);
    value
        .as_u64()
        .unwrap_or_else(|| panic!("{pointer} is {value}, not a count:\n{report:#}"))
}

pub fn text<'a>(report: &'a Value, pointer: &str) -> &'a str {
    let value = field(report, pointer);
    value
        .as_str()
        .unwrap_or_else(|| panic!("{pointer} is {value}, not a string:\n{report:#}"))
}

/// Asserts `pointer` holds `expected`, showing the report when not.
pub fn assert_num(report: &Value, pointer: &str, expected: u64) {
    let actual = num(report, pointer);
    assert_eq!(actual, expected, "{pointer}:\n{report:#}");
}

/// Exact accounting of a run of `n` requests that all got a 200 with a body
/// of `body_len` bytes.
pub fn assert_all_ok(report: &Value, n: u64, body_len: u64) {
    for (pointer, expected) in [
        ("/requests/total", n),
        ("/requests/started", n),
        ("/requests/done", n),
        ("/requests/succeeded", n),
        ("/requests/failed", 0),
        ("/requests/errored", 0),
        ("/requests/timeout", 0),
        ("/status_codes/2xx", n),
        ("/status_codes/4xx", 0),
        ("/status_codes/5xx", 0),
        ("/status_codes/by_code/200", n),
        ("/bytes/data", n * body_len),
    ] {
        assert_num(report, pointer, expected);
    }
}

pub fn assert_protocol(report: &Value, expected: &str) {
    assert_eq!(
        field(report, "/application_protocol").as_str(),
        Some(expected),
        "application_protocol:\n{report:#}"
    );
}

// ---------------------------------------------------------------------------
// Temporary files and ports
// ---------------------------------------------------------------------------

/// A directory of its own for one test, removed when dropped.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = std::env::temp_dir().join(format!(
            "loadgen-test-{tag}-{}-{n}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `contents` to `name` in this directory and returns its path.
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path.join(name);
        std::fs::write(&path, contents)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// `count` distinct loopback ports that were free a moment ago. All are held
/// at once while picking so that they differ from each other.
pub fn free_ports(count: usize) -> Vec<u16> {
    let listeners: Vec<TcpListener> = (0..count)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0"))
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().expect("local_addr").port())
        .collect()
}

/// Waits until something accepts connections on `addr` (a server the test
/// started), for at most 30 s.
pub fn wait_for_port(addr: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(
            Instant::now() < deadline,
            "nothing listened on {addr} within 30 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A child process the test started, killed and reaped when the test ends,
/// also when it fails.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `loadgen serve` process of its own, one thread, plain and TLS on
/// ports the kernel picks, listening when this returns and killed on drop;
/// with the address of its plain listener.
///
/// The ports come from the server's own bind (port 0), read from what it
/// prints once every listener is bound: a port found free and released
/// first can be taken in between, on TCP or on UDP (QUIC clients hold a
/// socket per connection). The TLS port is bound again on UDP for HTTP/3;
/// if that number is taken there, the server exits and another is tried.
pub fn serve_on_free_ports() -> (KillOnDrop, String) {
    serve_on_free_ports_with(&[])
}

/// [`serve_on_free_ports`] with more of `serve`'s options.
pub fn serve_on_free_ports_with(options: &[&str]) -> (KillOnDrop, String) {
    use std::io::BufRead;
    for _ in 0..5 {
        let mut child = loadgen()
            .args(["serve", "-t", "1", "--listen", "127.0.0.1:0"])
            .args(["--tls-listen", "127.0.0.1:0"])
            .args(options)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start loadgen serve");
        let stderr = child.stderr.take().expect("piped stderr");
        let server = KillOnDrop(child);
        let mut lines = std::io::BufReader::new(stderr).lines();
        let mut plain = None;
        let mut all_bound = false;
        for line in lines.by_ref().map_while(Result::ok) {
            if let Some(addr) = line.strip_prefix("serving http/1.1+h2c on http://") {
                plain = Some(addr.to_string());
            }
            if line.ends_with("(UDP)") {
                all_bound = true;
                break;
            }
        }
        // Read to the end, so the server never blocks on a full pipe.
        thread::spawn(move || lines.for_each(drop));
        if let (true, Some(addr)) = (all_bound, plain) {
            return (server, addr);
        }
    }
    panic!("loadgen serve did not start in 5 tries");
}

/// A loopback port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    free_ports(1)[0]
}

pub fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

// ---------------------------------------------------------------------------
// The built-in target
// ---------------------------------------------------------------------------

/// A built-in target with cleartext, TLS and UNIX socket listeners.
pub struct TestTarget {
    pub target: Target,
    // Dropped after `target`, which removes its socket file first.
    pub dir: TempDir,
}

impl TestTarget {
    pub fn start() -> TestTarget {
        TestTarget::start_with(TargetConfig::default())
    }

    /// [`TestTarget::start`] with other settings of `config`; the addresses
    /// are always loopback ports of its own and a UNIX socket in its directory.
    pub fn start_with(config: TargetConfig) -> TestTarget {
        let dir = TempDir::new("target");
        let loopback: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let target = Target::start(TargetConfig {
            clear_addr: Some(loopback),
            tls_addr: Some(loopback),
            unix_path: Some(dir.path().join("target.sock")),
            ..config
        })
        .expect("start the built-in target");
        TestTarget { target, dir }
    }

    /// `http://127.0.0.1:PORT<path>` on the cleartext listener.
    pub fn http(&self, path: &str) -> String {
        let addr = self.target.clear_addr().expect("cleartext listener");
        format!("http://{addr}{path}")
    }

    /// `https://127.0.0.1:PORT<path>` on the TLS listener.
    pub fn https(&self, path: &str) -> String {
        let addr = self.target.tls_addr().expect("TLS listener");
        format!("https://{addr}{path}")
    }

    /// `unix:PATH`, for `-B`.
    pub fn unix_base(&self) -> String {
        let path = self.target.unix_path().expect("UNIX listener");
        format!("unix:{}", path_str(path))
    }

    pub fn stats(&self) -> Stats {
        self.target.stats()
    }

    /// The target's certificate in a file, for `--tls-ca`.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.write("target-ca.pem", self.target.cert_pem())
    }
}

/// What the target counted between two snapshots.
pub fn stats_delta(before: Stats, after: Stats) -> Stats {
    Stats {
        http1: after.http1 - before.http1,
        http2: after.http2 - before.http2,
        http3: after.http3 - before.http3,
        total: after.total - before.total,
        request_body_bytes: after.request_body_bytes - before.request_body_bytes,
        response_body_bytes: after.response_body_bytes - before.response_body_bytes,
        logins: after.logins - before.logins,
        failed_logins: after.failed_logins - before.failed_logins,
        logouts: after.logouts - before.logouts,
        token_grants: after.token_grants - before.token_grants,
        token_refusals: after.token_refusals - before.token_refusals,
        api_authorized: after.api_authorized - before.api_authorized,
        api_refused: after.api_refused - before.api_refused,
        sessions_evicted: after.sessions_evicted - before.sessions_evicted,
        websocket_messages: after.websocket_messages - before.websocket_messages,
    }
}

// ---------------------------------------------------------------------------
// nginx
// ---------------------------------------------------------------------------

/// The 100-byte body of nginx's `/big`.
pub const NGINX_BIG_BODY: &str =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz.\n";

/// An nginx of its own (one worker) with three loopback listeners:
/// HTTP/1.1 cleartext, HTTP/2 over TLS and h2c. `/` answers 200
/// `hello, world\n`, `/big` 200 with [`NGINX_BIG_BODY`], `/s503` 503.
/// Every request is one line of `access.log`.
pub struct Nginx {
    child: Option<Child>,
    dir: TempDir,
    pub http1_port: u16,
    pub tls_port: u16,
    pub h2c_port: u16,
}

/// How long nginx may take to accept connections on all its ports.
const NGINX_START_LIMIT: Duration = Duration::from_secs(10);

impl Nginx {
    /// Starts nginx; fails the test when nginx is not installed
    /// (`scripts/test` installs it) or does not come up.
    pub fn start() -> Nginx {
        let binary = nginx_binary();
        let dir = TempDir::new("nginx");
        let certified = rcgen::generate_simple_self_signed(vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
        ])
        .expect("generate a self-signed certificate");
        dir.write("cert.pem", certified.cert.pem());
        dir.write("key.pem", certified.signing_key.serialize_pem());
        std::fs::create_dir_all(dir.path().join("tmp")).expect("create nginx tmp dir");

        // A port picked free may be taken by someone else before nginx binds
        // it; then nginx exits and we try other ports.
        let mut last_error = String::new();
        for _ in 0..5 {
            let ports = free_ports(3);
            let (http1_port, tls_port, h2c_port) = (ports[0], ports[1], ports[2]);
            let conf = nginx_conf(dir.path(), http1_port, tls_port, h2c_port);
            let conf_path = dir.write("nginx.conf", conf);
            let _ = std::fs::remove_file(dir.path().join("error.log"));
            let mut child = Command::new(&binary)
                .arg("-p")
                .arg(dir.path())
                .arg("-e")
                .arg(dir.path().join("error.log"))
                .arg("-c")
                .arg(&conf_path)
                .arg("-g")
                .arg("daemon off;")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run {}: {e}", binary.display()));
            match wait_nginx_ready(&mut child, dir.path(), &ports) {
                Ok(()) => {
                    return Nginx {
                        child: Some(child),
                        dir,
                        http1_port,
                        tls_port,
                        h2c_port,
                    }
                }
                Err(e) => {
                    stop_nginx(child);
                    last_error = e;
                    if !last_error.contains("Address already in use") {
                        break;
                    }
                }
            }
        }
        panic!("nginx did not start: {last_error}");
    }

    /// `http://127.0.0.1:PORT<path>`: HTTP/1.1 only.
    pub fn http1(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.http1_port)
    }

    /// `https://127.0.0.1:PORT<path>`: HTTP/2 (or HTTP/1.1) over TLS.
    pub fn https(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.tls_port)
    }

    /// `http://127.0.0.1:PORT<path>`: h2c with prior knowledge only.
    pub fn h2c(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.h2c_port)
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The master process's PID (its worker is its child).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("nginx runs").id()
    }

    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    fn count_access_log_lines(&self) -> usize {
        std::fs::read(self.dir.path().join("access.log"))
            .map(|bytes| bytes.iter().filter(|b| **b == b'\n').count())
            .unwrap_or(0)
    }

    /// Requests nginx has logged, once the count has stopped changing (it is
    /// written after the response goes out, so give it a moment; 2 s at most).
    pub fn access_log_lines(&self) -> usize {
        settled_count(|| self.count_access_log_lines())
    }
}

/// A count read from a log the server writes after responding: read until it
/// has stayed the same for three reads 50 ms apart, 2 s at most.
pub fn settled_count(read: impl Fn() -> usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut count = read();
    let mut stable = 0;
    while stable < 3 && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(50));
        let now = read();
        if now == count {
            stable += 1;
        } else {
            count = now;
            stable = 0;
        }
    }
    count
}

impl Drop for Nginx {
    fn drop(&mut self) {
        if let Some(child) = self.child.take() {
            stop_nginx(child);
        }
    }
}

/// Waits until nginx accepts TCP connections on every port; fails with its
/// error log when it exits or takes too long.
fn wait_nginx_ready(child: &mut Child, dir: &Path, ports: &[u16]) -> Result<(), String> {
    let error_log = || std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
    let deadline = Instant::now() + NGINX_START_LIMIT;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Err(format!(
                "nginx exited with {status}; error.log:\n{}",
                error_log()
            ));
        }
        let all_up = ports.iter().all(|port| {
            TcpStream::connect_timeout(
                &SocketAddr::from(([127, 0, 0, 1], *port)),
                Duration::from_millis(200),
            )
            .is_ok()
        });
        if all_up {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "nginx did not accept connections on {ports:?} within {NGINX_START_LIMIT:?}; \
                 error.log:\n{}",
                error_log()
            ));
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Stops nginx: SIGTERM (fast shutdown: the master stops its worker first),
/// then SIGKILL if it is still there after 5 s.
fn stop_nginx(mut child: Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) on our own child, which has not been reaped yet.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
    if wait_bounded(&mut child, Duration::from_secs(5)).is_none() {
        let _ = child.wait();
    }
}
/// `nginx` from PATH, or Debian's /usr/sbin/nginx when /usr/sbin is not on
/// PATH. Fails the test with what to do when it is not installed.
fn nginx_binary() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .map(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("nginx"))
                .find(|p| p.is_file())
        })
        .unwrap_or(None);
    on_path
        .or_else(|| {
            [
                "/usr/sbin/nginx",
                "/usr/local/sbin/nginx",
                "/usr/local/nginx/sbin/nginx",
            ]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
        })
        .unwrap_or_else(|| {
            panic!(
                "nginx is not installed, and these tests need it: run scripts/test, \
                 which installs it, or `apt-get install nginx`"
            )
        })
}

fn nginx_conf(dir: &Path, http1_port: u16, tls_port: u16, h2c_port: u16) -> String {
    let d = dir.display();
    format!(
        r#"worker_processes 1;
master_process on;
pid {d}/nginx.pid;
error_log {d}/error.log warn;

events {{
    worker_connections 1024;
}}

http {{
    default_type text/plain;
    log_format counted '$server_port $request $status $body_bytes_sent';
    access_log {d}/access.log counted;

    client_body_temp_path {d}/tmp/client_body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;

    # Nothing closes a connection in the middle of a test run.
    keepalive_requests 100000;
    keepalive_timeout 120s;

    ssl_certificate {d}/cert.pem;
    ssl_certificate_key {d}/key.pem;

    server {{
        listen 127.0.0.1:{http1_port};
        listen 127.0.0.1:{tls_port} ssl http2;
        listen 127.0.0.1:{h2c_port} http2;
        server_name localhost;

        location / {{
            return 200 "hello, world\n";
        }}
        location /big {{
            return 200 "{big}";
        }}
        location /s503 {{
            return 503 "unavailable\n";
        }}
    }}
}}
"#,
        big = NGINX_BIG_BODY.replace('\n', "\\n"),
    )
}
