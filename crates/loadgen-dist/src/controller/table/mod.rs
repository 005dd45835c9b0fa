//! The per-worker table under a distributed run's report, in text and
//! JSON: a plan's (requests, rates, latencies) or a scenario's
//! (iterations, checks by worker), with each worker's clock, and the lost
//! workers whose seconds up to the loss the report holds (`partial`).

mod cells;
mod plan;
mod scenario;

use super::outcome::Outcome;
use serde_json::{Map, Value};

impl Outcome {
    /// What the table adds to the JSON report: its `workers` array (and,
    /// for a scenario, the checks by worker), and `partial`, the workers
    /// lost (empty when none was).
    pub fn table_json(&self) -> Map<String, Value> {
        let mut keys = if self.is_scenario() {
            scenario::json(self)
        } else {
            plan::json(self)
        };
        keys.insert(
            "partial".into(),
            serde_json::to_value(self.partial()).expect("parts serialize"),
        );
        keys
    }

    /// The per-worker table under the text report, and a line for each
    /// worker lost.
    pub fn table_text(&self) -> String {
        let mut text = if self.is_scenario() {
            scenario::text(self)
        } else {
            plan::text(self)
        };
        for part in self.partial() {
            let counted = if part.merged {
                format!(
                    "its first {} s ({} requests) are counted",
                    part.seconds_received, part.requests
                )
            } else {
                format!(
                    "its first {} s were received, a scenario's seconds are not counted",
                    part.seconds_received
                )
            };
            text.push_str(&format!(
                "partial: worker #{} {} (segment {}) lost at {}; {counted}\n",
                part.worker, part.address, part.segment, part.lost_at
            ));
        }
        text
    }
}
