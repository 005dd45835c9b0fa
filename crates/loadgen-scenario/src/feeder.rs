//! Feeders: rows of test data from a CSV file (with a header row) or a JSON
//! file (an array of objects), read once before the run. A step reads the
//! current row's columns as `{{FEEDER.COLUMN}}`.
//!
//! In a run split into execution segments every machine reads the same
//! rows: `per_vu` follows the virtual users' run-wide numbers, and
//! round-robin hands out the positions of one run-wide sequence, each
//! machine those its segment owns (as it owns arrivals), so no two
//! machines take the same position before the rows wrap around. The
//! machines do not wait for each other: which row is taken first, across
//! machines, is not ordered in time.

use loadgen_core::segment::Stripe;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which row an iteration gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Rows in turn across all virtual users, wrapping around.
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
    /// How many round-robin rows this machine has taken: shared by its
    /// threads, touched once per iteration.
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

    /// The row for an iteration of virtual user `vu` (from 1, run-wide) on
    /// a machine that runs the segment `stripe` of the run.
    pub fn row_for(&self, vu: u64, stripe: &Stripe) -> usize {
        let rows = self.rows.len() as u64;
        let index = match self.order {
            Order::RoundRobin => stripe.nth(self.next.fetch_add(1, Ordering::Relaxed)),
            Order::Random => crate::random::below(rows),
            Order::PerVu => vu.saturating_sub(1),
        };
        (index % rows) as usize
    }

    /// Reads a feeder file's `bytes`: CSV or JSON by the extension of
    /// `written` (its path as the scenario writes it); errors name it `shown`.
    pub fn parse(
        name: String,
        written: &str,
        shown: &str,
        bytes: &[u8],
        order: Order,
    ) -> Result<Feeder, String> {
        let (columns, rows) = match Path::new(written).extension().and_then(|e| e.to_str()) {
            Some("csv") => read_csv(bytes).map_err(|e| format!("{shown}: {e}"))?,
            Some("json") => read_json(bytes).map_err(|e| format!("{shown}: {e}"))?,
            _ => return Err(format!("{shown}: a feeder is a .csv or a .json file")),
        };
        if rows.is_empty() {
            return Err(format!("{shown}: no rows"));
        }
        Ok(Feeder::new(name, columns, rows, order))
    }
}

fn read_csv(bytes: &[u8]) -> Result<(Vec<String>, Vec<Vec<String>>), String> {
    let at = |e: csv::Error| e.to_string();
    let mut reader = csv::Reader::from_reader(bytes);
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

fn read_json(bytes: &[u8]) -> Result<(Vec<String>, Vec<Vec<String>>), String> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let not_objects = || "expected an array of objects".to_string();
    let items = value.as_array().ok_or_else(not_objects)?;
    let mut columns: Vec<String> = Vec::new();
    for item in items {
        let object = item.as_object().ok_or_else(not_objects)?;
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
