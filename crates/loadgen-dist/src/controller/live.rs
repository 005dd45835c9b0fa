//! Live progress across workers: each second's rows of every worker still
//! running added up into one [`Interval`], as a local run's threads' are,
//! so the live line, the progress lines and anything else that watches a
//! run see one run. The workers started together, so their rows with the
//! same index cover the same second.

use loadgen_core::histogram_codec;
use loadgen_core::interval::{Interval, IntervalRow, Window, INTERVAL};
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

/// The four histograms, the counts and a scenario's steps and checks of a
/// row, as a thread's window.
pub fn window_of(row: &IntervalRow) -> Result<Window, String> {
    let encoded = row
        .histograms
        .as_ref()
        .ok_or("sent a one-second row without its histograms")?;
    let decode = |text: &str| {
        histogram_codec::decode(text).map_err(|e| format!("sent a row whose histogram {e}"))
    };
    let steps = row
        .steps
        .iter()
        .map(|step| {
            step.window()
                .map_err(|e| format!("sent a row whose histogram of step '{}' is {e}", step.name))
        })
        .collect::<Result<_, _>>()?;
    Ok(Window {
        request_time: decode(&encoded.request_time)?,
        request_time_raw: decode(&encoded.request_time_raw)?,
        connect_time: decode(&encoded.connect_time)?,
        first_byte_time: decode(&encoded.first_byte_time)?,
        steps,
        checks: row.checks.clone(),
        ..row.counts_window()
    })
}

struct Pending {
    from: Vec<bool>,
    window: Window,
    length: Duration,
}

/// Adds up the workers' rows second by second.
pub struct LiveMerger {
    running: Vec<bool>,
    pending: BTreeMap<u32, Pending>,
    next: u32,
    /// The intended start of the measured part, on the controller's clock.
    measure_start: SystemTime,
}

impl LiveMerger {
    pub fn new(workers: usize, measure_start: SystemTime) -> LiveMerger {
        LiveMerger {
            running: vec![true; workers],
            pending: BTreeMap::new(),
            next: 0,
            measure_start,
        }
    }

    /// Worker `worker`'s row of second `index`; returns the seconds every
    /// running worker has now sent.
    pub fn add(
        &mut self,
        worker: usize,
        index: u32,
        row: &IntervalRow,
        window: Window,
    ) -> Vec<Interval> {
        let workers = self.running.len();
        let pending = self.pending.entry(index).or_insert_with(|| Pending {
            from: vec![false; workers],
            window: Window::default(),
            length: Duration::ZERO,
        });
        pending.from[worker] = true;
        pending.window.merge(&window);
        let length = Duration::try_from_secs_f64(row.duration_s).unwrap_or_default();
        pending.length = pending.length.max(length.min(INTERVAL));
        self.complete()
    }

    /// Worker `worker` sends no more rows: its row is no longer waited for.
    pub fn stop(&mut self, worker: usize) -> Vec<Interval> {
        self.running[worker] = false;
        self.complete()
    }

    /// What is left once every worker has ended.
    pub fn finish(&mut self) -> Vec<Interval> {
        let indexes: Vec<u32> = self.pending.keys().copied().collect();
        indexes.into_iter().map(|i| self.take(i)).collect()
    }

    fn complete(&mut self) -> Vec<Interval> {
        let mut done = Vec::new();
        while let Some(pending) = self.pending.get(&self.next) {
            let all = self
                .running
                .iter()
                .zip(&pending.from)
                .all(|(running, sent)| *sent || !running);
            if !all {
                break;
            }
            done.push(self.take(self.next));
        }
        done
    }

    fn take(&mut self, index: u32) -> Interval {
        let pending = self.pending.remove(&index).expect("a pending second");
        self.next = self.next.max(index + 1);
        let offset = INTERVAL * index;
        Interval {
            index,
            offset,
            started_at: self.measure_start + offset,
            length: pending.length,
            window: pending.window,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::interval::{CheckWindow, IntervalRow, StepWindow};

    fn row(responses: u64, duration_s: f64) -> (IntervalRow, Window) {
        let mut window = Window::default();
        for _ in 0..responses {
            window.record_response(200, Duration::from_millis(3), Duration::from_millis(1));
        }
        let interval = Interval {
            index: 0,
            offset: Duration::ZERO,
            started_at: SystemTime::UNIX_EPOCH,
            length: Duration::from_secs_f64(duration_s),
            window: window.clone(),
        };
        (IntervalRow::of(&interval), window)
    }

    #[test]
    fn seconds_complete_when_every_running_worker_sent_them() {
        let mut merger = LiveMerger::new(2, SystemTime::UNIX_EPOCH);
        let (a, wa) = row(10, 1.0);
        assert!(merger.add(0, 0, &a, wa).is_empty());
        let (b, wb) = row(5, 1.0);
        let done = merger.add(1, 0, &b, wb);
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].window.responses, 15);
        assert_eq!(done[0].window.request_time.len(), 15);
        // Worker 1 is lost: second 1 no longer waits for it.
        let (c, wc) = row(7, 0.5);
        assert!(merger.add(0, 1, &c, wc).is_empty());
        let done = merger.stop(1);
        assert_eq!(done.len(), 1);
        assert_eq!((done[0].index, done[0].window.responses), (1, 7));
        assert_eq!(done[0].length, Duration::from_millis(500));
        assert!(merger.finish().is_empty());
    }

    #[test]
    fn rows_decode_into_windows() {
        let (r, w) = row(3, 1.0);
        let decoded = window_of(&r).unwrap();
        assert_eq!(decoded.request_time, w.request_time);
        assert_eq!(decoded.responses, 3);
        let bare = IntervalRow {
            histograms: None,
            ..r
        };
        assert!(window_of(&bare).is_err());
    }

    #[test]
    fn a_scenario_rows_steps_and_checks_decode_into_the_window() {
        let (_, mut window) = row(2, 1.0);
        let mut step = Window::default();
        step.record_response(302, Duration::from_millis(7), Duration::from_millis(5));
        window.steps = vec![StepWindow {
            name: "log in".into(),
            scenario: "login".into(),
            duration: step.request_time,
            duration_raw: step.request_time_raw,
            status_classes: step.status_classes,
            error_kinds: step.error_kinds,
        }];
        window.checks = vec![CheckWindow {
            step: "log in".into(),
            scenario: "login".into(),
            name: "status_in [302]".into(),
            passes: 1,
            fails: 0,
        }];
        let interval = Interval {
            index: 0,
            offset: Duration::ZERO,
            started_at: SystemTime::UNIX_EPOCH,
            length: INTERVAL,
            window: window.clone(),
        };
        let decoded = window_of(&IntervalRow::with_steps(&interval)).unwrap();
        assert_eq!(decoded.steps.len(), 1);
        assert_eq!(decoded.steps[0].duration, window.steps[0].duration);
        assert_eq!(
            decoded.steps[0].status_classes,
            window.steps[0].status_classes
        );
        assert_eq!(decoded.checks, window.checks);

        let mut broken = IntervalRow::with_steps(&interval);
        broken.steps[0].duration_raw = "not a histogram".into();
        let why = window_of(&broken).unwrap_err();
        assert!(why.contains("step 'log in'"), "{why}");
    }
}
