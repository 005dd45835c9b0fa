//! A Prometheus of its own for one test (Debian's `prometheus`, which
//! `scripts/test` installs): loopback only, a temporary data directory,
//! the remote-write receiver on, and a scrape job when given one. Queried
//! through its HTTP API; killed when dropped.

use crate::common::{free_ports, TempDir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long Prometheus may take to be ready.
const START_LIMIT: Duration = Duration::from_secs(60);

pub struct Prometheus {
    child: Child,
    dir: TempDir,
    pub port: u16,
}

impl Prometheus {
    /// Started with `scrape` (an address serving `/metrics`) scraped every second.
    pub fn start(scrape: Option<&str>) -> Prometheus {
        let dir = TempDir::new("prometheus");
        let mut config =
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n".to_string();
        match scrape {
            Some(address) => config.push_str(&format!(
                "  - job_name: loadgen\n    static_configs:\n      - targets: ['{address}']\n"
            )),
            None => config = config.replace("scrape_configs:\n", "scrape_configs: []\n"),
        }
        let config = dir.write("prometheus.yml", config);
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_ports(1)[0];
            let mut child = Command::new("prometheus")
                .arg(format!("--config.file={}", config.display()))
                .arg(format!(
                    "--storage.tsdb.path={}",
                    dir.path().join("data").display()
                ))
                .arg(format!("--web.listen-address=127.0.0.1:{port}"))
                .arg("--web.enable-remote-write-receiver")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(dir.path().join("log")).expect("a log file"))
                .spawn()
                .expect("prometheus on PATH: scripts/test installs Debian's package");
            let started = Instant::now();
            while started.elapsed() < START_LIMIT {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                if get(port, "/-/ready").is_ok_and(|(status, _)| status == 200) {
                    return Prometheus { child, dir, port };
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            let _ = child.wait();
            last = std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
            if !last.contains("address already in use") {
                break;
            }
        }
        panic!("prometheus did not start:\n{last}");
    }

    pub fn remote_write_url(&self) -> String {
        format!("http://127.0.0.1:{}/api/v1/write", self.port)
    }

    /// An instant query's result: each series' labels and value.
    pub fn query(&self, promql: &str) -> Vec<(BTreeMap<String, String>, f64)> {
        let path = format!("/api/v1/query?query={}", percent_encode(promql));
        let (status, body) = get(self.port, &path).expect("prometheus answers");
        let answer: Value = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("{promql}: not JSON ({e}): {body}"));
        assert_eq!(status, 200, "{promql}: {answer}");
        answer["data"]["result"]
            .as_array()
            .expect("a vector result")
            .iter()
            .map(|series| {
                let labels = series["metric"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                    .collect();
                let value = series["value"][1].as_str().unwrap().parse().unwrap();
                (labels, value)
            })
            .collect()
    }

    /// The one value of a query that has one series.
    pub fn value(&self, promql: &str) -> f64 {
        let result = self.query(promql);
        assert_eq!(result.len(), 1, "{promql}: {result:?}\n{}", self.log());
        result[0].1
    }

    /// `promql`'s series by the value of `label`.
    pub fn by(&self, promql: &str, label: &str) -> BTreeMap<String, f64> {
        self.query(promql)
            .into_iter()
            .map(|(labels, value)| (labels.get(label).cloned().unwrap_or_default(), value))
            .collect()
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.0 GET on loopback: the status and the body.
fn get(port: u16, path: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok((status, body.to_string()))
}

fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
