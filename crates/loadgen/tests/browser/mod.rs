//! Headless Chromium for the HTML report's tests (`scripts/test` installs
//! Debian's `chromium`): a page loaded from a file with what its console
//! said and which network requests it made, read from Chromium's NetLog;
//! screenshots; and readers for the page's charts and tables.

#![allow(dead_code)]

use crate::common::{run_bounded, TempDir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(90);

/// A loaded page.
pub struct Page {
    /// The DOM once the page loaded.
    pub dom: String,
    /// Every message of the page's console (errors, warnings, logs).
    pub console: Vec<String>,
    /// URLs the page asked the network for.
    pub requests: Vec<String>,
}

pub fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::var("PATH").unwrap_or_default().split(':') {
            let path = Path::new(dir).join(name);
            if path.is_file() {
                return path;
            }
        }
    }
    panic!("headless Chromium is needed for this test: scripts/test installs Debian's chromium");
}

fn command(profile: &TempDir) -> Command {
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        // Tests run as root in CI, where Chromium's sandbox cannot start.
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()));
    cmd
}

fn url(html: &Path) -> String {
    format!(
        "file://{}",
        html.canonicalize().expect("the page exists").display()
    )
}

/// How many times a page is loaded before its NetLog is given up on: on a
/// busy machine Chromium now and then exits before its network process has
/// written the log, which leaves the file empty.
const NET_LOG_ATTEMPTS: usize = 3;

pub fn load(html: &Path) -> Page {
    let mut unread = Vec::new();
    for _ in 0..NET_LOG_ATTEMPTS {
        let profile = TempDir::new("chromium");
        let net_log = profile.path().join("net-log.json");
        let mut cmd = command(&profile);
        cmd.args(["--enable-logging=stderr", "--v=0", "--dump-dom"])
            .arg(format!("--log-net-log={}", net_log.display()))
            .arg(url(html));
        let output = run_bounded(cmd, LIMIT);
        assert!(output.status.success(), "chromium failed: {:?}", output);
        let requests = match page_requests(&net_log) {
            Ok(requests) => requests,
            Err(why) => {
                unread.push(why);
                continue;
            }
        };
        let console = String::from_utf8_lossy(&output.stderr)
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_string)
            .collect();
        return Page {
            dom: String::from_utf8_lossy(&output.stdout).into_owned(),
            console,
            requests,
        };
    }
    panic!("chromium wrote no readable NetLog in {NET_LOG_ATTEMPTS} loads: {unread:?}");
}

/// Requests made on behalf of a page loaded from a file: NetLog keys them
/// by the page's origin, `file://`, where Chromium's own background
/// requests have none.
fn page_requests(net_log: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(net_log).map_err(|e| format!("reading the NetLog: {e}"))?;
    let log: Value = serde_json::from_str(&text)
        .map_err(|e| format!("the NetLog ({} bytes) is not JSON: {e}", text.len()))?;
    let start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].clone();
    let events = log["events"]
        .as_array()
        .ok_or_else(|| "the NetLog has no events".to_string())?;
    Ok(events
        .iter()
        .filter(|e| e["type"] == start_job)
        .filter(|e| {
            let key = e["params"]["network_isolation_key"].as_str().unwrap_or("");
            let initiator = e["params"]["initiator"].as_str().unwrap_or("");
            key.contains("file://") || initiator == "null"
        })
        .map(|e| e["params"]["url"].as_str().unwrap_or("").to_string())
        .collect())
}

pub fn screenshot(html: &Path, png: &Path, width: u32, height: u32) {
    let profile = TempDir::new("chromium");
    let mut cmd = command(&profile);
    cmd.arg(format!("--window-size={width},{height}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(url(html));
    let output = run_bounded(cmd, LIMIT);
    assert!(output.status.success(), "chromium failed: {:?}", output);
    let size = std::fs::metadata(png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 1000, "{} holds a picture", png.display());
}

/// One chart of a page.
pub struct Chart {
    pub title: String,
    /// The `d` of every drawn path (lines and bars).
    pub paths: Vec<String>,
    pub legend: Vec<String>,
    /// The figure's HTML, to show it alone.
    pub html: String,
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(start) {
        let after = &rest[at + start.len()..];
        let Some(stop) = after.find(end) else { break };
        found.push(&after[..stop]);
        rest = &after[stop + end.len()..];
    }
    found
}

pub fn charts(dom: &str) -> Vec<Chart> {
    between(dom, "<figure class=\"chart-figure\">", "</figure>")
        .into_iter()
        .map(|figure| Chart {
            title: between(figure, "<figcaption>", "</figcaption>")
                .first()
                .map(|t| t.to_string())
                .unwrap_or_default(),
            paths: between(figure, "<path ", ">")
                .into_iter()
                .filter(|p| p.contains("class=\"series\"") || p.contains("class=\"bar\""))
                .flat_map(|p| between(p, " d=\"", "\""))
                .map(str::to_string)
                .collect(),
            legend: between(figure, "</span>", "</li>")
                .into_iter()
                .map(str::to_string)
                .collect(),
            html: format!("<figure class=\"chart-figure\">{figure}</figure>"),
        })
        .collect()
}

/// The `data-field` cells of the table of class `class`, row by row:
/// (field, text).
pub fn table(dom: &str, class: &str) -> Vec<Vec<(String, String)>> {
    let open = format!("<table class=\"{class}\">");
    let Some(table) = between(dom, &open, "</table>").into_iter().next() else {
        panic!("the page has no table of class {class}");
    };
    between(table, "<tr>", "</tr>")
        .into_iter()
        .map(|row| {
            between(row, "<td data-field=\"", "</td>")
                .into_iter()
                .map(|cell| {
                    let (field, text) = cell.split_once("\">").expect("a cell");
                    (field.to_string(), text.to_string())
                })
                .collect()
        })
        .collect()
}

/// The page's `<style>`, to show a chart alone as the page shows it.
pub fn style(dom: &str) -> String {
    between(dom, "<style>", "</style>")
        .first()
        .map(|s| format!("<style>{s}</style>"))
        .unwrap_or_default()
}

/// Where a test keeps the pictures it takes: beside the build.
pub fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("test-artifacts");
    std::fs::create_dir_all(&dir).expect("create the artifacts directory");
    dir
}

/// With `LOADGEN_DOCS_SCREENSHOTS=DIR`: one picture per chart of `dom` (of
/// those titled in `only`, when it names any), each shown alone with the
/// page's style, saved as `DIR/PREFIX-TITLE.png`.
pub fn save_charts_for_docs(dom: &str, prefix: &str, only: &[&str]) {
    let Some(docs) = crate::common::docs_screenshots_dir() else {
        return;
    };
    std::fs::create_dir_all(&docs).expect("create the screenshots directory");
    let dir = TempDir::new("docs");
    let style = style(dom);
    for chart in charts(dom) {
        if !only.is_empty() && !only.contains(&chart.title.as_str()) {
            continue;
        }
        let words: Vec<String> = chart
            .title
            .to_lowercase()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let name = format!("{prefix}-{}", words.join("-"));
        let alone = dir.write(
            &format!("{name}.html"),
            format!(
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\">{style}</head><body>{}</body></html>",
                chart.html
            ),
        );
        screenshot(&alone, &docs.join(format!("{name}.png")), 860, 440);
    }
}
