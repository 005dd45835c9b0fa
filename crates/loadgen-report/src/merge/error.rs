//! Why reports (or interval logs) could not be merged: each error is one
//! line that names the file at fault.

use std::fmt;

#[derive(Debug)]
pub enum MergeError {
    /// Nothing to merge.
    NoInput,
    /// The file could not be read.
    Read { name: String, error: std::io::Error },
    /// The file is not a loadgen report, or not an interval log.
    NotAReport { name: String, why: String },
    /// The report was written without its histograms (text, CSV, `--json`
    /// or JSON Lines without `--histograms`): its percentiles cannot be added.
    NoHistograms { name: String },
    /// A field of the report holds what it cannot (a histogram that does not
    /// decode, counts that disagree with its histograms, a bad timestamp).
    Invalid { name: String, why: String },
    /// Counts that add up beyond `u64::MAX`: no run counts that far, so a
    /// report was altered.
    TooLarge { field: &'static str },
    /// Two reports were not parts of one test; `--force` merges them anyway.
    Mismatch {
        field: &'static str,
        first: String,
        first_value: String,
        other: String,
        other_value: String,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::NoInput => write!(f, "merge: no report to merge"),
            MergeError::Read { name, error } => write!(f, "merge: cannot read '{name}': {error}"),
            MergeError::NotAReport { name, why } => write!(f, "merge: '{name}' {why}"),
            MergeError::NoHistograms { name } => write!(
                f,
                "merge: '{name}' has no histograms, so its percentiles cannot be merged \
                 exactly; write each report with -o FILE.json (or --json --histograms)"
            ),
            MergeError::Invalid { name, why } => write!(f, "merge: '{name}': {why}"),
            MergeError::TooLarge { field } => write!(
                f,
                "merge: the reports' {field} add up to more than {}, which no run counts: \
                 a report was altered",
                u64::MAX
            ),
            MergeError::Mismatch {
                field,
                first,
                first_value,
                other,
                other_value,
            } => write!(
                f,
                "merge: '{other}' has {field} {other_value} where '{first}' has {first_value}: \
                 reports of different tests do not add up (--force merges them anyway)"
            ),
        }
    }
}

impl std::error::Error for MergeError {}
