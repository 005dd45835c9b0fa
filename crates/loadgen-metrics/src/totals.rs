//! The run's totals, added up from the merged one-second intervals (the
//! same ones the live line and the report's `intervals` show), and the
//! families made of them.

use crate::buckets::Classic;
use crate::snapshot::{Family, Labels, Points, Snapshot};
use loadgen_core::error_kind::ErrorKind;
use loadgen_core::interval::{Interval, RunCounters};
use std::time::SystemTime;

pub const REQUESTS: &str = "loadgen_requests";
pub const ERRORS: &str = "loadgen_errors";
pub const BYTES: &str = "loadgen_bytes";
pub const CONNECTIONS: &str = "loadgen_connections";
pub const STARTED_LATE: &str = "loadgen_requests_started_late";
pub const UNSENT: &str = "loadgen_requests_unsent";
pub const REQUEST_DURATION: &str = "loadgen_request_duration_seconds";
pub const CONNECT_DURATION: &str = "loadgen_connect_duration_seconds";
pub const FIRST_BYTE_DURATION: &str = "loadgen_first_byte_duration_seconds";
pub const VUS: &str = "loadgen_vus";
pub const DROPPED_ITERATIONS: &str = "loadgen_dropped_iterations";
pub const STEP_REQUESTS: &str = "loadgen_step_requests";
pub const STEP_ERRORS: &str = "loadgen_step_errors";
pub const STEP_DURATION: &str = "loadgen_step_duration_seconds";
pub const CHECKS: &str = "loadgen_checks";

/// The names `status_class` takes, by the index a window counts them at.
const STATUS_CLASSES: [&str; 6] = ["other", "1xx", "2xx", "3xx", "4xx", "5xx"];

/// The `protocol` of a run that has not connected yet.
const NO_PROTOCOL: &str = "none";

/// What the run is made of: a scenario run (`loadgen run`) has virtual
/// users, iterations, steps and checks besides requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Workload {
    #[default]
    Requests,
    Scenario,
}

#[derive(Default)]
struct Step {
    name: String,
    scenario: String,
    corrected: Classic,
    raw: Classic,
    status_classes: [u64; 6],
    error_kinds: [u64; ErrorKind::ALL.len()],
}

impl Step {
    /// The labels that name the step on its series.
    fn labels(&self) -> [(&'static str, &str); 2] {
        [("scenario", &self.scenario), ("step", &self.name)]
    }
}

struct Check {
    step: String,
    scenario: String,
    name: String,
    passes: u64,
    fails: u64,
}

pub struct Totals {
    started_at: Option<SystemTime>,
    tags: Labels,
    workload: Workload,
    protocol: Option<&'static str>,
    status_classes: [u64; 6],
    error_kinds: [u64; ErrorKind::ALL.len()],
    counters: RunCounters,
    corrected: Classic,
    raw: Classic,
    connect: Classic,
    first_byte: Classic,
    steps: Vec<Step>,
    checks: Vec<Check>,
}

impl Totals {
    /// Totals whose every series carries `tags`.
    pub fn new(tags: Labels, workload: Workload) -> Totals {
        Totals {
            started_at: None,
            tags,
            workload,
            protocol: None,
            status_classes: [0; 6],
            error_kinds: [0; ErrorKind::ALL.len()],
            counters: RunCounters::default(),
            corrected: Classic::default(),
            raw: Classic::default(),
            connect: Classic::default(),
            first_byte: Classic::default(),
            steps: Vec::new(),
            checks: Vec::new(),
        }
    }

    pub fn add(&mut self, interval: &Interval) {
        let w = &interval.window;
        self.started_at
            .get_or_insert(interval.started_at - interval.offset);
        // The first protocol seen names the run's, as the report's
        // `application_protocol` is its first connection's.
        self.protocol = self.protocol.or(w.protocol);
        add_up(&mut self.status_classes, &w.status_classes);
        add_up(&mut self.error_kinds, &w.error_kinds);
        self.counters.follow(&w.counters);
        self.corrected.add(&w.request_time);
        self.raw.add(&w.request_time_raw);
        self.connect.add(&w.connect_time);
        self.first_byte.add(&w.first_byte_time);
        for step in &w.steps {
            let index = match self
                .steps
                .iter()
                .position(|s| s.name == step.name && s.scenario == step.scenario)
            {
                Some(index) => index,
                None => {
                    self.steps.push(Step {
                        name: step.name.clone(),
                        scenario: step.scenario.clone(),
                        ..Step::default()
                    });
                    self.steps.len() - 1
                }
            };
            let mine = &mut self.steps[index];
            mine.corrected.add(&step.duration);
            mine.raw.add(&step.duration_raw);
            add_up(&mut mine.status_classes, &step.status_classes);
            add_up(&mut mine.error_kinds, &step.error_kinds);
        }
        for check in &w.checks {
            let found = self.checks.iter_mut().find(|c| {
                c.name == check.name && c.step == check.step && c.scenario == check.scenario
            });
            match found {
                Some(mine) => {
                    mine.passes += check.passes;
                    mine.fails += check.fails;
                }
                None => self.checks.push(Check {
                    step: check.step.clone(),
                    scenario: check.scenario.clone(),
                    name: check.name.clone(),
                    passes: check.passes,
                    fails: check.fails,
                }),
            }
        }
    }

    /// The families as they stand at `at`; `last` once the run has ended.
    pub fn snapshot(&self, at: SystemTime, last: bool) -> Snapshot {
        let tagged = |extra: &[(&str, &str)]| -> Labels {
            let mut labels = self.tags.clone();
            labels.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            labels
        };
        let protocol = self.protocol.unwrap_or(NO_PROTOCOL);
        let by_class = |counts: &[u64; 6], extra: &[(&str, &str)]| -> Vec<(Labels, u64)> {
            STATUS_CLASSES
                .iter()
                .zip(counts)
                .map(|(class, n)| {
                    let mut labels = tagged(extra);
                    labels.push(("status_class".to_string(), class.to_string()));
                    (labels, *n)
                })
                .collect()
        };
        let by_kind = |counts: &[u64; ErrorKind::ALL.len()], extra: &[(&str, &str)]| {
            ErrorKind::ALL
                .iter()
                .map(|kind| {
                    let mut labels = tagged(extra);
                    labels.push(("kind".to_string(), kind.name().to_string()));
                    (labels, counts[*kind as usize])
                })
                .collect::<Vec<_>>()
        };
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
        let one = |value: u64| vec![(tagged(&[]), value)];
        let mut families = vec![
            Family {
                name: REQUESTS,
                help: "Requests answered, by protocol and the class of the response's status.",
                unit: "{request}",
                points: Points::Counter(by_class(&self.status_classes, &[("protocol", protocol)])),
            },
            Family {
                name: ERRORS,
                help: "Requests ended without a response, by protocol and the kind of error.",
                unit: "{request}",
                points: Points::Counter(by_kind(&self.error_kinds, &[("protocol", protocol)])),
            },
            Family {
                name: BYTES,
                help: "Bytes read from (after TLS) and written to (before TLS) the connections.",
                unit: "By",
                points: Points::Counter(vec![
                    (
                        tagged(&[("direction", "received")]),
                        self.counters.bytes_received,
                    ),
                    (tagged(&[("direction", "sent")]), self.counters.bytes_sent),
                ]),
            },
            Family {
                name: CONNECTIONS,
                help: "Connections open.",
                unit: "{connection}",
                points: Points::Gauge(one(self.counters.connections)),
            },
            Family {
                name: STARTED_LATE,
                help: "Scheduled requests sent more than 2 ms after their intended start.",
                unit: "{request}",
                points: Points::Counter(one(self.counters.started_late)),
            },
            Family {
                name: UNSENT,
                help: "Requests due but never sent when the run stopped (open model).",
                unit: "{request}",
                points: Points::Counter(one(self.counters.unsent_at_end)),
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
        if self.workload == Workload::Scenario {
            families.push(Family {
                name: VUS,
                help: "Virtual users of all scenarios.",
                unit: "{vu}",
                points: Points::Gauge(one(self.counters.vus)),
            });
            families.push(Family {
                name: DROPPED_ITERATIONS,
                help: "Iterations an arrival-rate executor found no free virtual user for.",
                unit: "{iteration}",
                points: Points::Counter(one(self.counters.dropped_iterations)),
            });
        }
        if !self.steps.is_empty() {
            families.push(Family {
                name: STEP_REQUESTS,
                help: "A scenario step's ends with a response, by the class of its status.",
                unit: "{request}",
                points: Points::Counter(
                    self.steps
                        .iter()
                        .flat_map(|s| by_class(&s.status_classes, &s.labels()))
                        .collect(),
                ),
            });
            families.push(Family {
                name: STEP_ERRORS,
                help: "A scenario step's ends without a response, by the kind of error.",
                unit: "{request}",
                points: Points::Counter(
                    self.steps
                        .iter()
                        .flat_map(|s| by_kind(&s.error_kinds, &s.labels()))
                        .collect(),
                ),
            });
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
        if !self.checks.is_empty() {
            families.push(Family {
                name: CHECKS,
                help: "A scenario check's evaluations, by whether it held.",
                unit: "{check}",
                points: Points::Counter(
                    self.checks
                        .iter()
                        .flat_map(|c| {
                            [("pass", c.passes), ("fail", c.fails)].map(|(result, n)| {
                                let labels = tagged(&[
                                    ("scenario", &c.scenario),
                                    ("step", &c.step),
                                    ("check", &c.name),
                                    ("result", result),
                                ]);
                                (labels, n)
                            })
                        })
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

fn add_up<const N: usize>(mine: &mut [u64; N], theirs: &[u64; N]) {
    for (mine, theirs) in mine.iter_mut().zip(theirs) {
        *mine += theirs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::interval::{CheckWindow, StepWindow, Window};
    use std::time::Duration;

    fn interval(index: u32, window: Window) -> Interval {
        Interval {
            index,
            offset: Duration::from_secs(index.into()),
            started_at: SystemTime::UNIX_EPOCH + Duration::from_secs(index.into()),
            length: Duration::from_secs(1),
            window,
        }
    }

    fn counter(snapshot: &Snapshot, name: &str) -> Vec<(Labels, u64)> {
        let family = snapshot.families.iter().find(|f| f.name == name);
        match family.map(|f| &f.points) {
            Some(Points::Counter(points) | Points::Gauge(points)) => points.clone(),
            _ => panic!("no {name} of counts"),
        }
    }

    fn labelled(points: &[(Labels, u64)], label: &str, value: &str) -> u64 {
        points
            .iter()
            .filter(|(labels, _)| labels.iter().any(|(k, v)| k == label && v == value))
            .map(|(_, n)| n)
            .sum()
    }

    #[test]
    fn counters_add_up_and_gauges_keep_the_last_second() {
        let mut totals = Totals::new(Vec::new(), Workload::Scenario);
        let before = totals.snapshot(SystemTime::UNIX_EPOCH, false);
        assert_eq!(labelled(&counter(&before, REQUESTS), "protocol", "none"), 0);
        let second = |vus, connections, passes| {
            let mut w = Window::default();
            w.record_response(200, Duration::from_millis(1), Duration::from_millis(1));
            w.counters = RunCounters {
                bytes_received: 100,
                bytes_sent: 40,
                connections,
                vus,
                dropped_iterations: 2,
                ..RunCounters::default()
            };
            w.protocol = Some("h2c");
            w.steps = vec![StepWindow {
                name: "home".to_string(),
                scenario: "browse".to_string(),
                duration: loadgen_core::histogram::new(),
                duration_raw: loadgen_core::histogram::new(),
                status_classes: [0, 0, 1, 0, 0, 0],
                error_kinds: [0; ErrorKind::ALL.len()],
            }];
            w.checks = vec![CheckWindow {
                step: "home".to_string(),
                scenario: "browse".to_string(),
                name: "status_in [200]".to_string(),
                passes,
                fails: 1,
            }];
            w
        };
        totals.add(&interval(0, second(3, 2, 4)));
        totals.add(&interval(1, second(1, 0, 5)));
        let snapshot = totals.snapshot(SystemTime::UNIX_EPOCH, true);
        let requests = counter(&snapshot, REQUESTS);
        assert_eq!(labelled(&requests, "protocol", "h2c"), 2);
        assert_eq!(labelled(&requests, "status_class", "2xx"), 2);
        let bytes = counter(&snapshot, BYTES);
        assert_eq!(labelled(&bytes, "direction", "received"), 200);
        assert_eq!(labelled(&bytes, "direction", "sent"), 80);
        assert_eq!(counter(&snapshot, CONNECTIONS)[0].1, 0);
        assert_eq!(counter(&snapshot, VUS)[0].1, 1);
        assert_eq!(counter(&snapshot, DROPPED_ITERATIONS)[0].1, 4);
        let steps = counter(&snapshot, STEP_REQUESTS);
        assert_eq!(labelled(&steps, "scenario", "browse"), 2);
        let checks = counter(&snapshot, CHECKS);
        assert_eq!(labelled(&checks, "result", "pass"), 9);
        assert_eq!(labelled(&checks, "result", "fail"), 2);
        assert!(checks
            .iter()
            .all(|(labels, _)| labels.iter().any(|(k, v)| k == "step" && v == "home")));
    }

    #[test]
    fn a_run_of_requests_has_no_scenario_series() {
        let totals = Totals::new(Vec::new(), Workload::Requests);
        let snapshot = totals.snapshot(SystemTime::UNIX_EPOCH, false);
        let names: Vec<&str> = snapshot.families.iter().map(|f| f.name).collect();
        assert!(!names.contains(&VUS) && !names.contains(&DROPPED_ITERATIONS));
        assert!(!names.contains(&CHECKS) && !names.contains(&STEP_REQUESTS));
    }
}
