//! HTTP/3 against Caddy (HTTP/3 through quic-go), a server loadgen was not
//! written with: its access log says how many requests really arrived. This
//! Caddy refuses QUIC handshakes without SNI (TLS alert 80), so the URL's IP
//! address goes with `--sni localhost`; it also does not close QUIC
//! connections promptly, which loadgen's shutdown must not wait for.

mod common;

use common::*;
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const N: u64 = 1000;
const START_LIMIT: Duration = Duration::from_secs(15);

/// A Caddy of its own on one loopback port (TCP for h1/h2, UDP for h3),
/// answering `/` with `hello, world\n` and logging every request as one
/// JSON line of `access.log`.
struct Caddy {
    child: Option<Child>,
    dir: TempDir,
    port: u16,
}

fn caddy_binary() -> PathBuf {
    for candidate in ["/usr/bin/caddy", "/usr/local/bin/caddy"] {
        if std::path::Path::new(candidate).exists() {
            return candidate.into();
        }
    }
    let found = Command::new("sh")
        .args(["-c", "command -v caddy"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match found {
        Some(path) if !path.is_empty() => path.into(),
        _ => panic!("caddy is not installed; scripts/test installs it (apt-get install caddy)"),
    }
}

impl Caddy {
    fn start() -> Caddy {
        let binary = caddy_binary();
        let dir = TempDir::new("caddy");
        let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()])
            .expect("generate a self-signed certificate");
        let cert = dir.write("cert.pem", certified.cert.pem());
        let key = dir.write("key.pem", certified.signing_key.serialize_pem());
        let mut last_error = String::new();
        for _ in 0..5 {
            let port = free_ports(1)[0];
            let log = dir.path().join("access.log");
            let _ = std::fs::remove_file(&log);
            let config = format!(
                "{{\n\tadmin off\n\tauto_https off\n\tservers {{\n\t\tprotocols h1 h2 h3\n\t}}\n}}\n\
                 https://localhost:{port}, https://127.0.0.1:{port} {{\n\
                 \tbind 127.0.0.1\n\
                 \ttls {} {}\n\
                 \tlog {{\n\t\toutput file {}\n\t\tformat json\n\t}}\n\
                 \trespond \"hello, world\n\" 200\n}}\n",
                path_str(&cert),
                path_str(&key),
                path_str(&log),
            );
            let caddyfile = dir.write("Caddyfile", config);
            let output = std::fs::File::create(dir.path().join("caddy.out")).expect("caddy.out");
            let mut child = Command::new(&binary)
                .args(["run", "--adapter", "caddyfile", "--config"])
                .arg(&caddyfile)
                // Caddy keeps its state under these; keep it in the test's directory.
                .env("HOME", dir.path())
                .env("XDG_DATA_HOME", dir.path())
                .env("XDG_CONFIG_HOME", dir.path())
                .stdin(Stdio::null())
                .stdout(output.try_clone().expect("clone caddy.out"))
                .stderr(output)
                .spawn()
                .unwrap_or_else(|e| panic!("cannot run {}: {e}", binary.display()));
            match wait_ready(&mut child, port) {
                Ok(()) => {
                    return Caddy {
                        child: Some(child),
                        dir,
                        port,
                    }
                }
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    last_error = format!(
                        "{e}; caddy said:\n{}",
                        std::fs::read_to_string(dir.path().join("caddy.out")).unwrap_or_default()
                    );
                    if !last_error.contains("address already in use") {
                        break;
                    }
                }
            }
        }
        panic!("caddy did not start: {last_error}");
    }

    fn https(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    fn output(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("caddy.out")).unwrap_or_default()
    }

    fn count_log_lines(&self) -> usize {
        std::fs::read(self.dir.path().join("access.log"))
            .map(|bytes| bytes.iter().filter(|b| **b == b'\n').count())
            .unwrap_or(0)
    }

    /// Requests Caddy has logged, once the count has stopped changing.
    fn access_log_lines(&self) -> usize {
        settled_count(|| self.count_log_lines())
    }

    /// How many logged requests came over HTTP/3.
    fn http3_lines(&self) -> usize {
        std::fs::read_to_string(self.dir.path().join("access.log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("\"proto\":\"HTTP/3.0\""))
            .count()
    }
}

impl Drop for Caddy {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn wait_ready(child: &mut Child, port: u16) -> Result<(), String> {
    let deadline = Instant::now() + START_LIMIT;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Err(format!("caddy exited with {status}"));
        }
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "caddy did not listen on {port} within {START_LIMIT:?}"
            ));
        }
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn caddy_h3_sees_exactly_the_requests_sent() {
    let caddy = Caddy::start();
    let before = caddy.access_log_lines();
    let started = Instant::now();
    let report = run_json_ok(&[
        "-n",
        "1000",
        "-c",
        "10",
        "-m",
        "10",
        "--h3",
        "-k",
        "--sni",
        "localhost",
        &caddy.https("/"),
    ]);
    let took = started.elapsed();
    assert_all_ok(&report, N, BODY_LEN);
    assert_protocol(&report, "h3");
    assert_num(&report, "/bytes/data", 13_000);
    let logged = caddy.access_log_lines() - before;
    assert_eq!(
        logged as u64,
        N,
        "caddy logged {logged} requests; report:\n{report:#}\ncaddy:\n{}",
        caddy.output()
    );
    assert_eq!(caddy.http3_lines() as u64, N, "all of them over HTTP/3");
    // Caddy's idle timeout is far longer: loadgen must not wait for it.
    assert!(took < Duration::from_secs(10), "the run took {took:?}");
    let elapsed = field(&report, "/elapsed_s").as_f64().unwrap();
    assert!(elapsed < 5.0, "elapsed {elapsed}\n{report:#}");
}

#[test]
fn caddy_without_sni_names_the_alert_and_suggests_sni() {
    let caddy = Caddy::start();
    let (report, output) = run_json(&["-n", "10", "-c", "2", "--h3", "-k", &caddy.https("/")]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert_num(&report, "/requests/errored", 10);
    assert!(num(&report, "/errors/tls") > 0, "{report:#}");
    let err = stderr(&output);
    assert!(
        err.contains("TLS alert 80") && err.contains("--sni"),
        "the error should name the alert and suggest --sni\n{}",
        describe(&output)
    );
    assert_eq!(caddy.access_log_lines(), 0);
}
