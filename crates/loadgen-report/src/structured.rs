//! JSON, JSON Lines and CSV. CSV columns are the JSON fields flattened with
//! `_`, so both formats carry exactly the same fields by construction,
//! except the encoded histograms, which CSV never carries.

use crate::histogram_fields::{carries_histograms, omit_histograms};
use crate::threshold::ThresholdResult;
use loadgen_core::connection_info::TlsInfo;
use loadgen_core::report::QuicStats;
use loadgen_core::Report;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Whether JSON on stdout and JSON Lines carry the encoded histograms. They
/// are left out by default: kilobytes per run that few readers want. A JSON
/// file always has them, CSV never.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Histograms {
    Omit,
    Include,
}

/// What the structured formats print: the report's fields, histograms
/// included, then `thresholds` (empty without `--threshold`), evaluated by
/// the caller.
pub fn document(report: &Report, thresholds: &[ThresholdResult]) -> Value {
    let mut value = serde_json::to_value(report).expect("a report serializes");
    if let Value::Object(map) = &mut value {
        let results = serde_json::to_value(thresholds).expect("threshold results serialize");
        map.insert("thresholds".into(), results);
    }
    value
}

/// `document` with or without its histograms.
pub fn with_histograms(document: &Value, histograms: Histograms) -> Cow<'_, Value> {
    match histograms {
        Histograms::Include => Cow::Borrowed(document),
        Histograms::Omit => {
            let mut document = document.clone();
            omit_histograms(&mut document);
            Cow::Owned(document)
        }
    }
}

pub fn json_pretty(report: &Value) -> String {
    let mut text = serde_json::to_string_pretty(report).expect("a report serializes");
    text.push('\n');
    text
}

pub fn json_line(report: &Value) -> String {
    let mut text = serde_json::to_string(report).expect("a report serializes");
    text.push('\n');
    text
}

/// Maps whose keys vary between runs become one column each, so a CSV file
/// keeps one header across runs: `200=998 503=2`.
const KEYED_MAPS: &[&str] = &[
    "status_codes_by_code",
    "errors_first_message",
    "websocket_close_codes",
    "grpc_statuses",
    "grpc_first_messages",
];

/// Column names and values, in the order of the report's fields; the
/// histograms are left out, so the columns are the same with or without them.
pub fn flatten(report: &Value) -> Vec<(String, String)> {
    let mut report = Cow::Borrowed(report);
    if carries_histograms(&report) {
        omit_histograms(report.to_mut());
    }
    let mut columns = Vec::new();
    flatten_into(&mut columns, String::new(), &report);
    columns
}

fn flatten_into(columns: &mut Vec<(String, String)>, name: String, value: &Value) {
    match value {
        Value::Object(map) if !KEYED_MAPS.contains(&name.as_str()) => {
            for (key, child) in map {
                let child_name = if name.is_empty() {
                    key.clone()
                } else {
                    format!("{name}_{key}")
                };
                flatten_into(columns, child_name, child);
            }
        }
        Value::Object(map) => columns.push((name, keyed(map))),
        Value::Null => match null_object_columns(&name) {
            Some(template) => {
                for key in template.keys() {
                    columns.push((format!("{name}_{key}"), String::new()));
                }
            }
            None => columns.push((name, String::new())),
        },
        // One column however many: `p99<250ms=pass errors<1%=fail`.
        Value::Array(items) if name == "thresholds" => {
            let cells: Vec<String> = items.iter().map(threshold_cell).collect();
            columns.push((name, cells.join(" ")));
        }
        // Rows such as `intervals` stay JSON inside their one cell.
        Value::Array(items) if items.iter().any(Value::is_object) => {
            columns.push((name, Value::Array(items.clone()).to_string()));
        }
        Value::Array(items) => {
            let cells: Vec<String> = items.iter().map(scalar).collect();
            columns.push((name, cells.join(" ")));
        }
        other => columns.push((name, scalar(other))),
    }
}

/// Objects that are null in some runs (`tls` on cleartext, `quic` off HTTP/3) keep their
/// columns, empty, so every run appends rows under the same header.
fn null_object_columns(name: &str) -> Option<Map<String, Value>> {
    let template = match name {
        "tls" => serde_json::to_value(TlsInfo::default()),
        "quic" => serde_json::to_value(QuicStats::default()),
        _ => return None,
    };
    match template.expect("a default value serializes") {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

fn threshold_cell(result: &Value) -> String {
    let expression = result["expression"].as_str().unwrap_or_default();
    let verdict = if result["passed"].as_bool() == Some(true) {
        "pass"
    } else {
        "fail"
    };
    format!("{expression}={verdict}")
}

fn keyed(map: &Map<String, Value>) -> String {
    map.iter()
        .map(|(k, v)| format!("{k}={}", scalar(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn scalar(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub fn csv_header(columns: &[(String, String)]) -> String {
    let cells: Vec<String> = columns.iter().map(|(name, _)| csv_cell(name)).collect();
    cells.join(",") + "\n"
}

pub fn csv_row(columns: &[(String, String)]) -> String {
    let cells: Vec<String> = columns.iter().map(|(_, value)| csv_cell(value)).collect();
    cells.join(",") + "\n"
}

/// RFC 4180 quoting.
fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_tls_keeps_its_columns() {
        let mut columns = Vec::new();
        flatten_into(&mut columns, "tls".into(), &Value::Null);
        let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["tls_protocol", "tls_cipher", "tls_server_temp_key"]);
        let mut columns = Vec::new();
        flatten_into(&mut columns, "quic".into(), &Value::Null);
        assert_eq!(columns.len(), 5);
        assert_eq!(columns[0].0, "quic_datagrams_sent");
    }

    #[test]
    fn thresholds_are_one_column() {
        let report = serde_json::json!({
            "req_per_s": 10.0,
            "thresholds": [
                {"expression": "p99<250ms", "passed": true, "actual": "1.23ms", "value": 1230.0, "unit": "us"},
                {"expression": "errors<1%", "passed": false, "actual": "3.10%", "value": 3.1, "unit": "%"},
            ],
        });
        let columns = flatten(&report);
        assert_eq!(
            columns[1],
            (
                "thresholds".to_string(),
                "p99<250ms=pass errors<1%=fail".to_string()
            )
        );
        let none = flatten(&serde_json::json!({"thresholds": []}));
        assert_eq!(none, [("thresholds".to_string(), String::new())]);
    }

    #[test]
    fn histograms_are_never_columns() {
        let with = serde_json::json!({
            "req_per_s": 10.0,
            "intervals": [{"requests": 5, "histograms": {"request_time": "HISTFAAAAB..."}}],
            "histograms": {"request_time": "HISTFAAAAC..."},
            "thresholds": [],
        });
        let mut without = with.clone();
        omit_histograms(&mut without);
        assert_eq!(
            without,
            serde_json::json!({"req_per_s": 10.0, "intervals": [{"requests": 5}], "thresholds": []})
        );
        let columns = flatten(&with);
        assert_eq!(columns, flatten(&without));
        let names: Vec<&str> = columns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["req_per_s", "intervals", "thresholds"]);
        assert_eq!(columns[1].1, r#"[{"requests":5}]"#);
    }

    #[test]
    fn json_shows_histograms_only_when_asked() {
        let document = serde_json::json!({"req_per_s": 1.0, "histograms": {}, "thresholds": []});
        let shown = with_histograms(&document, Histograms::Include);
        assert_eq!(*shown, document);
        let shown = with_histograms(&document, Histograms::Omit);
        let keys: Vec<&String> = shown.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["req_per_s", "thresholds"]);
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(csv_cell("plain"), "plain");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
