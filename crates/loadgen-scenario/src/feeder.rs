//! Feeders: rows of test data from a CSV file (with a header row) or a JSON
//! file (an array of objects), read once before the run. A step reads the
//! current row's columns as `{{FEEDER.COLUMN}}`.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which row an iteration gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Rows in turn across all virtual users of the machine, wrapping around.
    RoundRobin,
    /// A row chosen at random for each iteration.
    Random,
    /// Virtual user N always takes row N (wrapping around).
    PerVu,
}

impl Order {
    pub fn parse(text: &str) -> Result<Order, String> {
        match text {
            "round_robin" => Ok(Order::RoundRobin),
            "random" => Ok(Order::Random),
            "per_vu" => Ok(Order::PerVu),
            other => Err(format!(
                "'{other}' is not an order: use round_robin, random or per_vu"
            )),
        }
    }
}

pub struct Feeder {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub order: Order,
    /// The next row for round-robin: shared by the machine's threads,
    /// touched once per iteration.
    next: AtomicU64,
}

impl Feeder {
    pub fn new(name: String, columns: Vec<String>, rows: Vec<Vec<String>>, order: Order) -> Feeder {
        Feeder {
            name,
            columns,
            rows,
            order,
            next: AtomicU64::new(0),
        }
    }

    /// The row for an iteration of virtual user `vu` (from 1).
    pub fn row_for(&self, vu: u64) -> usize {
        let rows = self.rows.len() as u64;
        let index = match self.order {
            Order::RoundRobin => self.next.fetch_add(1, Ordering::Relaxed),
            Order::Random => crate::random::below(rows),
            Order::PerVu => vu.saturating_sub(1),
        };
        (index % rows) as usize
    }

    /// Reads `path`: `.csv` or `.json` by its extension.
    pub fn read(name: String, path: &Path, order: Order) -> Result<Feeder, String> {
        let (columns, rows) = match path.extension().and_then(|e| e.to_str()) {
            Some("csv") => read_csv(path)?,
            Some("json") => read_json(path)?,
            _ => {
                return Err(format!(
                    "{}: a feeder is a .csv or a .json file",
                    path.display()
                ))
            }
        };
        if rows.is_empty() {
            return Err(format!("{}: no rows", path.display()));
        }
        Ok(Feeder::new(name, columns, rows, order))
    }
}

fn read_csv(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), String> {
    let at = |e: csv::Error| format!("{}: {e}", path.display());
    let mut reader = csv::Reader::from_path(path).map_err(at)?;
    let columns: Vec<String> = reader
        .headers()
        .map_err(at)?
        .iter()
        .map(str::to_string)
        .collect();
    let mut rows = Vec::new();
    for record in reader.records() {
        rows.push(record.map_err(at)?.iter().map(str::to_string).collect());
    }
    Ok((columns, rows))
}

fn read_json(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let items = value
        .as_array()
        .ok_or_else(|| format!("{}: expected an array of objects", path.display()))?;
    let mut columns: Vec<String> = Vec::new();
    for item in items {
        let object = item
            .as_object()
            .ok_or_else(|| format!("{}: expected an array of objects", path.display()))?;
        for key in object.keys() {
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    let rows = items
        .iter()
        .map(|item| {
            columns
                .iter()
                .map(|column| match item.get(column) {
                    None | Some(serde_json::Value::Null) => String::new(),
                    Some(serde_json::Value::String(text)) => text.clone(),
                    Some(other) => other.to_string(),
                })
                .collect()
        })
        .collect();
    Ok((columns, rows))
}
