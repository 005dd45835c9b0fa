//! `-o FILE`: the report written to a file, as one JSON document, as a
//! row appended to a JSON Lines or CSV file, or as a JUnit XML document.

use crate::junit;
use crate::structured::{self, flatten, Histograms};
use loadgen_core::whole_file;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// The format of an `-o` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum FileFormat {
    Json,
    Jsonl,
    Csv,
    /// JUnit XML: the thresholds and checks as test cases (`junit.rs`).
    Junit,
}

impl FileFormat {
    /// The format a file name implies: `.csv`, `.jsonl` or `.ndjson`,
    /// `.xml` (JUnit), else JSON.
    pub fn of_path(path: &Path) -> FileFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("csv") => FileFormat::Csv,
            Some("jsonl") | Some("ndjson") => FileFormat::Jsonl,
            Some("xml") => FileFormat::Junit,
            _ => FileFormat::Json,
        }
    }
}

/// Writes the report (as made by [`structured::document`]) to `path`. A JSON
/// or JUnit file is replaced atomically, JSON with the histograms; JSONL and
/// CSV get one row appended in a single write, with the CSV header only
/// when the file is new. `histograms` decides for JSON Lines; CSV never has them. A failed
/// write leaves no partial report behind.
pub fn write_file(
    path: &Path,
    format: FileFormat,
    report: &Value,
    histograms: Histograms,
) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("-o: cannot write '{}': {e}", path.display());
    match format {
        FileFormat::Json => {
            let tmp = whole_file::tmp_path(path);
            std::fs::write(&tmp, structured::json_pretty(report)).map_err(fail)?;
            whole_file::put_in_place(&tmp, path).map_err(fail)
        }
        FileFormat::Jsonl => {
            let line = structured::json_line(&structured::with_histograms(report, histograms));
            append(path, line).map_err(fail)
        }
        FileFormat::Csv => {
            let columns = flatten(report);
            let is_new = std::fs::metadata(path)
                .map(|m| m.len() == 0)
                .unwrap_or(true);
            let mut text = if is_new {
                structured::csv_header(&columns)
            } else {
                String::new()
            };
            text.push_str(&structured::csv_row(&columns));
            append(path, text).map_err(fail)
        }
        FileFormat::Junit => {
            let xml = junit::render(report, &hostname()).map_err(|e| format!("-o: {e}"))?;
            write_whole(path, "-o", &xml)
        }
    }
}

/// The machine's name for JUnit's `hostname`; `localhost` where it cannot
/// be read, as the JUnit schema asks.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

fn append(path: &Path, text: String) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}

/// Writes `text` to `path` whole or not at all (as `PATH.tmp`, then
/// renamed); an error names `flag` and the path.
pub fn write_whole(path: &Path, flag: &str, text: &str) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{flag}: cannot write '{}': {e}", path.display());
    let tmp = whole_file::tmp_path(path);
    std::fs::write(&tmp, text).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })?;
    whole_file::put_in_place(&tmp, path).map_err(fail)
}
