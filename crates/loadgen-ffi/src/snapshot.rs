//! The progress of a run so far, as the engine's `Observer` tells it on
//! the running thread (each second's interval, h2load's progress steps),
//! kept for `loadgen_metrics_snapshot` to read from any thread.

use loadgen_core::error_kind::ErrorKind;
use loadgen_core::interval::Interval;
use loadgen_core::Observer;
use serde_json::{json, Map, Value};
use std::sync::Mutex;
use std::time::Instant;

/// The figures of the seconds closed so far.
#[derive(Default)]
pub struct Snapshot {
    state: Mutex<Progress>,
}

#[derive(Default)]
struct Progress {
    running: bool,
    started: Option<Instant>,
    percent: u32,
    intervals: u32,
    responses: u64,
    errors: u64,
    /// Responses by status class (index 1 = 1xx, ... 5 = 5xx, 0 = other).
    status_classes: [u64; 6],
    error_kinds: [u64; ErrorKind::ALL.len()],
    last_req_per_s: f64,
    error: Option<String>,
}

impl Snapshot {
    fn with<R>(&self, f: impl FnOnce(&mut Progress) -> R) -> R {
        f(&mut self.state.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// A run starts: the figures start again from nothing.
    pub fn started(&self) {
        self.with(|p| {
            *p = Progress {
                running: true,
                started: Some(Instant::now()),
                ..Progress::default()
            }
        });
    }

    /// The run ended, with `error` when it failed: kept for callers whose
    /// `loadgen_run` returned on another thread than theirs (the last
    /// error slot is per thread).
    pub fn ended(&self, error: Option<String>) {
        self.with(|p| {
            p.running = false;
            p.error = error;
        });
    }

    /// The snapshot as JSON: `running`, `elapsed_s` (since the run
    /// started), `progress_percent` (h2load's steps of 10%), `intervals`
    /// (seconds closed), `responses`, `errors`, `status_codes` by class,
    /// `error_kinds`, `req_per_s` of the last second closed, and `error`
    /// (why the last run failed, or null). Counts
    /// cover the seconds closed so far, so they trail the run by up to one.
    pub fn to_json(&self) -> Value {
        self.with(|p| {
            let classes: Map<String, Value> = p
                .status_classes
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(class, n)| {
                    let name = if class == 0 {
                        "other".to_string()
                    } else {
                        format!("{class}xx")
                    };
                    (name, json!(n))
                })
                .collect();
            let kinds: Map<String, Value> = ErrorKind::ALL
                .iter()
                .zip(p.error_kinds)
                .filter(|(_, n)| *n > 0)
                .map(|(kind, n)| (kind.name().to_string(), json!(n)))
                .collect();
            json!({
                "running": p.running,
                "elapsed_s": p.started.map_or(0.0, |s| s.elapsed().as_secs_f64()),
                "progress_percent": p.percent,
                "intervals": p.intervals,
                "responses": p.responses,
                "errors": p.errors,
                "status_codes": classes,
                "error_kinds": kinds,
                "req_per_s": p.last_req_per_s,
                "error": p.error,
            })
        })
    }
}

/// The engine's observer for one run, writing into a [`Snapshot`].
pub struct Recording<'s>(pub &'s Snapshot);

impl Observer for Recording<'_> {
    fn interval(&mut self, interval: &Interval) {
        let window = &interval.window;
        self.0.with(|p| {
            p.intervals += 1;
            p.responses += window.responses;
            p.errors += window.errors;
            for (sum, n) in p.status_classes.iter_mut().zip(window.status_classes) {
                *sum += n;
            }
            for (sum, n) in p.error_kinds.iter_mut().zip(window.error_kinds) {
                *sum += n;
            }
            let seconds = interval.length.as_secs_f64();
            p.last_req_per_s = if seconds > 0.0 {
                window.responses as f64 / seconds
            } else {
                0.0
            };
        });
    }

    fn progress(&mut self, percent: u32) {
        self.0.with(|p| p.percent = percent);
    }
}
