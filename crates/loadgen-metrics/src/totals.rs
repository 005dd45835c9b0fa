//! The run's totals, added up from the merged one-second intervals (the
//! same ones the live line and the report's `intervals` show), and the
//! families made of them.

use crate::buckets::Classic;
use crate::snapshot::{Family, Labels, Points, Snapshot};
use loadgen_core::error_kind::ErrorKind;
use loadgen_core::interval::Interval;
use std::time::SystemTime;

pub const REQUESTS: &str = "loadgen_requests";
pub const ERRORS: &str = "loadgen_errors";
pub const REQUEST_DURATION: &str = "loadgen_request_duration_seconds";
pub const CONNECT_DURATION: &str = "loadgen_connect_duration_seconds";
pub const FIRST_BYTE_DURATION: &str = "loadgen_first_byte_duration_seconds";
pub const STEP_DURATION: &str = "loadgen_step_duration_seconds";

/// The names `status_class` takes, by the index a window counts them at.
const STATUS_CLASSES: [&str; 6] = ["other", "1xx", "2xx", "3xx", "4xx", "5xx"];

#[derive(Default)]
struct Step {
    name: String,
    corrected: Classic,
    raw: Classic,
}

pub struct Totals {
    started_at: Option<SystemTime>,
    tags: Labels,
    status_classes: [u64; 6],
    error_kinds: [u64; ErrorKind::ALL.len()],
    corrected: Classic,
    raw: Classic,
    connect: Classic,
    first_byte: Classic,
    steps: Vec<Step>,
}

impl Totals {
    /// Totals whose every series carries `tags`.
    pub fn new(tags: Labels) -> Totals {
        Totals {
            started_at: None,
            tags,
            status_classes: [0; 6],
            error_kinds: [0; ErrorKind::ALL.len()],
            corrected: Classic::default(),
            raw: Classic::default(),
            connect: Classic::default(),
            first_byte: Classic::default(),
            steps: Vec::new(),
        }
    }

    pub fn add(&mut self, interval: &Interval) {
        let w = &interval.window;
        self.started_at
            .get_or_insert(interval.started_at - interval.offset);
        for (mine, theirs) in self.status_classes.iter_mut().zip(w.status_classes) {
            *mine += theirs;
        }
        for (mine, theirs) in self.error_kinds.iter_mut().zip(w.error_kinds) {
            *mine += theirs;
        }
        self.corrected.add(&w.request_time);
        self.raw.add(&w.request_time_raw);
        self.connect.add(&w.connect_time);
        self.first_byte.add(&w.first_byte_time);
        for step in &w.steps {
            let index = match self.steps.iter().position(|s| s.name == step.name) {
                Some(index) => index,
                None => {
                    self.steps.push(Step {
                        name: step.name.clone(),
                        ..Step::default()
                    });
                    self.steps.len() - 1
                }
            };
            self.steps[index].corrected.add(&step.duration);
            self.steps[index].raw.add(&step.duration_raw);
        }
    }

    /// The families as they stand at `at`; `last` once the run has ended.
    pub fn snapshot(&self, at: SystemTime, last: bool) -> Snapshot {
        let tagged = |extra: &[(&str, &str)]| -> Labels {
            let mut labels = self.tags.clone();
            labels.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            labels
        };
        let requests = STATUS_CLASSES
            .iter()
            .zip(self.status_classes)
            .map(|(class, n)| (tagged(&[("status_class", class)]), n))
            .collect();
        let errors = ErrorKind::ALL
            .iter()
            .map(|kind| {
                (
                    tagged(&[("kind", kind.name())]),
                    self.error_kinds[*kind as usize],
                )
            })
            .collect();
        let latency = |corrected: &Classic, raw: &Classic, extra: &[(&str, &str)]| {
            let with = |which: &'static str| {
                let mut labels = tagged(extra);
                labels.push(("latency".to_string(), which.to_string()));
                labels
            };
            vec![
                (with("corrected"), corrected.clone()),
                (with("raw"), raw.clone()),
            ]
        };
        let mut families = vec![
            Family {
                name: REQUESTS,
                help: "Requests answered, by the class of the response's status.",
                unit: "{request}",
                points: Points::Counter(requests),
            },
            Family {
                name: ERRORS,
                help: "Requests ended without a response, by the kind of error.",
                unit: "{request}",
                points: Points::Counter(errors),
            },
            Family {
                name: REQUEST_DURATION,
                help: "Request time: corrected from the intended start, raw from the send.",
                unit: "s",
                points: Points::Histogram(latency(&self.corrected, &self.raw, &[])),
            },
            Family {
                name: CONNECT_DURATION,
                help: "Time to connect: TCP connect plus TLS handshake, or QUIC's handshake.",
                unit: "s",
                points: Points::Histogram(vec![(tagged(&[]), self.connect.clone())]),
            },
            Family {
                name: FIRST_BYTE_DURATION,
                help: "From the start of a connection to its first response byte.",
                unit: "s",
                points: Points::Histogram(vec![(tagged(&[]), self.first_byte.clone())]),
            },
        ];
        if !self.steps.is_empty() {
            families.push(Family {
                name: STEP_DURATION,
                help: "A scenario step's request time, by step.",
                unit: "s",
                points: Points::Histogram(
                    self.steps
                        .iter()
                        .flat_map(|s| latency(&s.corrected, &s.raw, &[("step", &s.name)]))
                        .collect(),
                ),
            });
        }
        Snapshot {
            started_at: self.started_at.unwrap_or(at),
            at,
            last,
            families,
        }
    }
}
