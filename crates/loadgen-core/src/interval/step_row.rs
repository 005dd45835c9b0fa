//! A scenario step's second as a row carries it: a worker streams its
//! steps with each second, so that its controller's merged seconds have
//! every step, as a local run's have.

use super::{class_counts, class_map, kind_counts, kind_map, StepWindow};
use crate::histogram_codec::{self, DecodeError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One step of a row: a [`StepWindow`] with its counts named as the row's
/// own are and its histograms encoded as the row's
/// ([`IntervalHistograms`](super::IntervalHistograms)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRow {
    pub name: String,
    /// The scenarios whose steps go by this name, joined by `,`.
    pub scenario: String,
    /// The step's ends with a response, by status class; only the classes seen.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub status_codes: BTreeMap<String, u64>,
    /// Its ends without a response, by kind; only the kinds seen.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub error_kinds: BTreeMap<String, u64>,
    /// The step's corrected duration, in microseconds.
    pub duration: String,
    /// Its raw duration, from the send.
    pub duration_raw: String,
}

impl StepRow {
    pub fn of(step: &StepWindow) -> StepRow {
        StepRow {
            name: step.name.clone(),
            scenario: step.scenario.clone(),
            status_codes: class_map(&step.status_classes),
            error_kinds: kind_map(&step.error_kinds),
            duration: histogram_codec::encode(&step.duration),
            duration_raw: histogram_codec::encode(&step.duration_raw),
        }
    }

    /// The step as a window holds it, to add up with others.
    pub fn window(&self) -> Result<StepWindow, DecodeError> {
        Ok(StepWindow {
            name: self.name.clone(),
            scenario: self.scenario.clone(),
            duration: histogram_codec::decode(&self.duration)?,
            duration_raw: histogram_codec::decode(&self.duration_raw)?,
            status_classes: class_counts(&self.status_codes),
            error_kinds: kind_counts(&self.error_kinds),
        })
    }
}
