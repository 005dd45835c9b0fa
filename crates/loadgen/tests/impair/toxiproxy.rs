//! Toxiproxy (Shopify's TCP proxy that injects faults) between loadgen and a
//! server on loopback: one toxiproxy-server per test, driven through its
//! HTTP API. Toxics apply per direction: `upstream` is client to server,
//! `downstream` server to client.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::free_ports;

/// How long toxiproxy-server may take to answer its API.
const START_LIMIT: Duration = Duration::from_secs(10);

/// `LOADGEN_TEST_TOXIPROXY`, else where `scripts/test` installs it. Fails
/// the test with what to do when it is not there.
fn binary() -> PathBuf {
    let path = std::env::var_os("LOADGEN_TEST_TOXIPROXY")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
                });
            cache.join("loadgen-test/bin/toxiproxy-server")
        });
    if !path.is_file() {
        panic!(
            "toxiproxy-server is not installed, and these tests need it: run scripts/test, \
             which installs it, or point LOADGEN_TEST_TOXIPROXY at one built by \
             `go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0`"
        );
    }
    path
}

/// A toxiproxy-server of the test's own, killed when dropped.
pub struct Toxiproxy {
    child: Child,
    api: SocketAddr,
}

impl Toxiproxy {
    pub fn start() -> Toxiproxy {
        let binary = binary();
        let api = SocketAddr::from(([127, 0, 0, 1], free_ports(1)[0]));
        let child = Command::new(&binary)
            .args(["-host", "127.0.0.1", "-port", &api.port().to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", binary.display()));
        let mut proxy = Toxiproxy { child, api };
        let deadline = Instant::now() + START_LIMIT;
        while call(api, "GET", "/version", None).is_err() {
            if let Some(status) = proxy.child.try_wait().expect("try_wait") {
                panic!("toxiproxy-server exited with {status} before answering on {api}");
            }
            assert!(
                Instant::now() < deadline,
                "toxiproxy-server did not answer on {api} within {START_LIMIT:?}"
            );
            thread::sleep(Duration::from_millis(20));
        }
        proxy
    }

    /// A proxy named `name` on a free loopback port, forwarding to `upstream`.
    pub fn proxy(&self, name: &str, upstream: SocketAddr) -> Proxy {
        // The port is free when picked; another process may bind it first,
        // and then toxiproxy refuses the proxy and we pick again.
        let mut last = String::new();
        for _ in 0..5 {
            let listen = SocketAddr::from(([127, 0, 0, 1], free_ports(1)[0]));
            let body = json!({
                "name": name,
                "listen": listen.to_string(),
                "upstream": upstream.to_string(),
            });
            match call(self.api, "POST", "/proxies", Some(&body)) {
                Ok(_) => {
                    return Proxy {
                        api: self.api,
                        name: name.to_string(),
                        listen,
                    }
                }
                Err(e) => last = e,
            }
        }
        panic!("toxiproxy did not create proxy {name}: {last}");
    }
}

impl Drop for Toxiproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Which way a toxic acts on.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    /// From the client to the server.
    Upstream,
    /// From the server to the client.
    Downstream,
}

impl Stream {
    fn name(self) -> &'static str {
        match self {
            Stream::Upstream => "upstream",
            Stream::Downstream => "downstream",
        }
    }
}

/// One proxy of a [`Toxiproxy`].
pub struct Proxy {
    api: SocketAddr,
    name: String,
    pub listen: SocketAddr,
}

impl Proxy {
    /// Adds a toxic of `kind` (`latency`, `bandwidth`, `slow_close`,
    /// `timeout`, ...) with its `attributes` on `stream`; returns its name.
    pub fn add(&self, kind: &str, stream: Stream, attributes: Value) -> String {
        let toxic = format!("{kind}_{}", stream.name());
        let body = json!({
            "name": toxic,
            "type": kind,
            "stream": stream.name(),
            "toxicity": 1.0,
            "attributes": attributes,
        });
        let path = format!("/proxies/{}/toxics", self.name);
        call(self.api, "POST", &path, Some(&body))
            .unwrap_or_else(|e| panic!("toxiproxy refused toxic {body}: {e}"));
        toxic
    }

    /// `latency` toxics on both streams: `each_way` (± `jitter`) on the way
    /// to the server and again on the way back.
    pub fn delay_both_ways(&self, each_way: Duration, jitter: Duration) {
        for stream in [Stream::Upstream, Stream::Downstream] {
            self.add(
                "latency",
                stream,
                json!({
                    "latency": each_way.as_millis() as u64,
                    "jitter": jitter.as_millis() as u64,
                }),
            );
        }
    }

    pub fn remove(&self, toxic: &str) {
        let path = format!("/proxies/{}/toxics/{toxic}", self.name);
        call(self.api, "DELETE", &path, None)
            .unwrap_or_else(|e| panic!("toxiproxy did not remove toxic {toxic}: {e}"));
    }

    /// `http://127.0.0.1:PORT<path>` through this proxy.
    pub fn http(&self, path: &str) -> String {
        format!("http://{}{path}", self.listen)
    }
}

/// One request to toxiproxy's API (HTTP/1.1, closed after the response);
/// the JSON body of a 2xx answer, or what went wrong.
fn call(api: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut stream = TcpStream::connect_timeout(&api, Duration::from_secs(1))
        .map_err(|e| format!("connect to {api}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {api}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("send to {api}: {e}"))?;
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .map_err(|e| format!("read from {api}: {e}"))?;
    let (head, content) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("no HTTP response: {response:?}"))?;
    let status = head.split(' ').nth(1).unwrap_or_default();
    if !status.starts_with('2') {
        return Err(format!("{method} {path}: {head}\n{content}"));
    }
    Ok(serde_json::from_str(content.trim()).unwrap_or(Value::Null))
}
