//! The fields of a report's JSON that hold its encoded histograms: the
//! report's `histograms`, and each `intervals` row's. What reads or prints
//! the report without them (thresholds, CSV, JSON without
//! `--histograms`) drops them here.

use serde_json::Value;

/// The field of the report, and of each `intervals` row, that holds the
/// encoded histograms.
const HISTOGRAMS: &str = "histograms";

/// Removes the histograms of the report and of each of its `intervals`
/// rows, keeping every other field in its place.
pub fn omit_histograms(document: &mut Value) {
    let Value::Object(map) = document else {
        return;
    };
    map.shift_remove(HISTOGRAMS);
    if let Some(Value::Array(rows)) = map.get_mut("intervals") {
        for row in rows {
            if let Value::Object(row) = row {
                row.shift_remove(HISTOGRAMS);
            }
        }
    }
}

/// Whether the report, or one of its `intervals` rows, has histograms.
pub fn carries_histograms(report: &Value) -> bool {
    let in_rows = report["intervals"]
        .as_array()
        .is_some_and(|rows| rows.iter().any(|row| row.get(HISTOGRAMS).is_some()));
    report.get(HISTOGRAMS).is_some() || in_rows
}
