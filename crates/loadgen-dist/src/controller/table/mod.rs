//! The per-worker table under a distributed run's report, in text and
//! JSON: a plan's (requests, rates, latencies) or a scenario's
//! (iterations, checks by worker), with each worker's clock.

mod cells;
mod plan;
mod scenario;

use super::outcome::Outcome;
use serde_json::{Map, Value};

impl Outcome {
    /// What the table adds to the JSON report: its `workers` array (and,
    /// for a scenario, the checks by worker).
    pub fn table_json(&self) -> Map<String, Value> {
        if self.is_scenario() {
            scenario::json(self)
        } else {
            plan::json(self)
        }
    }

    /// The per-worker table under the text report.
    pub fn table_text(&self) -> String {
        if self.is_scenario() {
            scenario::text(self)
        } else {
            plan::text(self)
        }
    }
}
