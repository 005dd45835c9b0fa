//! A scenario run split between machines by execution segments, as k6
//! splits one: each machine runs its segment's stripe of every scenario's
//! virtual users (by rank), of the iterations those users share, and of
//! the arrival-rate executors' arrivals (by their run-wide index, so the
//! machines' arrivals interleave into the single machine's schedule).
//! [`Suite::parts`] says what a machine's part is; the worker threads
//! deal it among themselves ([`crate::share`]).

use crate::executor::ExecutorSpec;
use crate::suite::Suite;
use loadgen_core::profile::Profile;
use loadgen_core::segment::{ExecutionSegment, Stripe};
use loadgen_core::{PlanError, PlanField};
use std::time::Duration;

/// What one machine runs of one scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub scenario: String,
    /// The most virtual users it may have (`maxVUs` for arrival-rate executors).
    pub vus: u64,
    /// The iterations it runs, for the executors that count them.
    pub iterations: Option<u64>,
    /// The iterations due on its schedule, for the arrival-rate executors.
    pub arrivals: Option<u64>,
}

impl Suite {
    /// Makes this suite the segment `segment` of the run; refuses a segment
    /// that would run nothing, or arrivals with no virtual user to run them.
    pub fn split(&mut self, segment: ExecutionSegment) -> Result<(), PlanError> {
        let stripe = segment.stripe()?;
        let parts = parts_of(self, &stripe);
        if parts.iter().all(|p| p.vus == 0) {
            return Err(PlanError::new(
                PlanField::ExecutionSegment,
                format!(
                    "the segment {segment} gets none of the virtual users of any scenario; \
                     use fewer segments or more virtual users"
                ),
            ));
        }
        for (part, scenario) in parts.iter().zip(&self.scenarios) {
            if part.vus == 0 && part.arrivals.unwrap_or(0) > 0 {
                return Err(PlanError::new(
                    PlanField::ExecutionSegment,
                    format!(
                        "the segment {segment} gets arrivals of scenario '{}' but none of its {} maxVUs; \
                         give it at least one virtual user per segment",
                        part.scenario,
                        scenario.executor.max_vus()
                    ),
                ));
            }
        }
        self.stripe = stripe;
        self.segment = Some(segment);
        Ok(())
    }

    /// What this machine runs of each scenario, in the file's order.
    pub fn parts(&self) -> Vec<Part> {
        parts_of(self, &self.stripe)
    }
}

fn parts_of(suite: &Suite, stripe: &Stripe) -> Vec<Part> {
    suite
        .scenarios
        .iter()
        .map(|scenario| {
            let spec = &scenario.executor;
            let vus = stripe.count_below(spec.max_vus());
            let iterations = match spec {
                ExecutorSpec::SharedIterations {
                    vus: all,
                    iterations,
                    ..
                } => {
                    // Rank r runs `each`, the first `extra` ranks one more.
                    let (each, extra) = (iterations / all, iterations % all);
                    Some(vus * each + stripe.count_below(extra))
                }
                ExecutorSpec::PerVuIterations { iterations, .. } => Some(vus * iterations),
                _ => None,
            };
            let arrivals = spec
                .arrival_profile()
                .map(|profile| stripe.count_below(arrivals_within(&profile, spec.length())));
            Part {
                scenario: scenario.name.clone(),
                vus,
                iterations,
                arrivals,
            }
        })
        .collect()
}

/// How many arrivals of `profile` are due before `length`: those whose
/// index k has its time (the integral reaching k) before the end, as the
/// arrival-rate executors schedule them.
pub fn arrivals_within(profile: &Profile, length: Duration) -> u64 {
    let due = |k: u64| {
        profile
            .time_of_area(k as f64)
            .is_some_and(|at| Duration::from_secs_f64(at) < length)
    };
    // The integral at the end is within one of the count; step from there.
    let mut count = profile.area_until(length.as_secs_f64()).ceil().max(0.0) as u64;
    while count > 0 && !due(count - 1) {
        count -= 1;
    }
    while due(count) {
        count += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_as_the_schedule_has_them() {
        let ten = Profile::constant(10.0);
        // At 0, 0.1, ..., 0.9 s.
        assert_eq!(arrivals_within(&ten, Duration::from_secs(1)), 10);
        assert_eq!(arrivals_within(&ten, Duration::from_millis(1050)), 11);
        assert_eq!(
            arrivals_within(&Profile::constant(0.5), Duration::from_secs(3)),
            2
        );
    }
}
