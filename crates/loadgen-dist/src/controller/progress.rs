//! h2load's `progress: N% done` steps for a run spread over workers, from
//! the seconds added up across them: by time in duration mode, by
//! requests ended in count mode.

use loadgen_core::interval::Interval;
use loadgen_core::plan::Mode;
use loadgen_core::Plan;
use std::time::Duration;

enum Measure {
    Time(Duration),
    Count {
        total: u64,
        ended: u64,
    },
    /// No steps to report.
    None,
}

pub struct Steps {
    measure: Measure,
    reported: u32,
}

impl Steps {
    /// For the segments `plans` of one run.
    pub fn new(plans: &[Plan]) -> Steps {
        let measure = match plans.first().map(|p| p.mode) {
            Some(Mode::Duration { duration, .. }) => Measure::Time(duration),
            _ => Measure::Count {
                total: plans.iter().filter_map(Plan::requests_here).sum(),
                ended: 0,
            },
        };
        Steps {
            measure,
            reported: 0,
        }
    }

    /// No steps at all (a scenario run: its executors' times are not one duration).
    pub fn none() -> Steps {
        Steps {
            measure: Measure::None,
            reported: 0,
        }
    }

    /// The 10% steps reached with `interval`, not reported before.
    pub fn after(&mut self, interval: &Interval) -> Vec<u32> {
        let percent = match &mut self.measure {
            Measure::Time(duration) => {
                let measured = interval.offset + interval.length;
                (measured.as_secs_f64() * 100.0 / duration.as_secs_f64().max(1e-9)) as u32
            }
            Measure::Count { total, ended } => {
                *ended += interval.window.responses + interval.window.errors;
                (*ended * 100 / (*total).max(1)) as u32
            }
            Measure::None => 0,
        };
        self.up_to(percent)
    }

    /// The steps left at the end of a run by count, as a local run reports them.
    pub fn end(&mut self) -> Vec<u32> {
        match self.measure {
            Measure::Count { .. } => self.up_to(100),
            Measure::Time(_) | Measure::None => Vec::new(),
        }
    }

    fn up_to(&mut self, percent: u32) -> Vec<u32> {
        let mut steps = Vec::new();
        while self.reported + 10 <= percent.min(100) {
            self.reported += 10;
            steps.push(self.reported);
        }
        steps
    }
}
