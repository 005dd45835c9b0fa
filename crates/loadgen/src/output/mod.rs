//! Renderers of a [`Report`](loadgen_core::Report) and the `-o` file writer.

mod structured;
pub mod text;
pub(crate) mod units;

pub use structured::{document, flatten, json_pretty};

use crate::cli::FileFormat;
use loadgen_core::whole_file;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// Writes the report (as made by [`document`]) to `path`. A JSON file is
/// replaced atomically; JSONL and CSV get one row appended in a single
/// write, with the CSV header only when the file is new. A failed write
/// leaves no partial report behind.
pub fn write_file(path: &Path, format: FileFormat, report: &Value) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("-o: cannot write '{}': {e}", path.display());
    match format {
        FileFormat::Json => {
            let tmp = whole_file::tmp_path(path);
            std::fs::write(&tmp, structured::json_pretty(report)).map_err(fail)?;
            whole_file::put_in_place(&tmp, path).map_err(fail)
        }
        FileFormat::Jsonl => append(path, structured::json_line(report)).map_err(fail),
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
    }
}

fn append(path: &Path, text: String) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}
