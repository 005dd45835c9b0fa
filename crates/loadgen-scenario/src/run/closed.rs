//! The executors that loop a set of virtual users: `shared-iterations`,
//! `per-vu-iterations`, `constant-vus` and `ramping-vus`. Each user runs
//! iterations back to back while its executor lets it; iterations still
//! running when the executor's time is up get `gracefulStop`, then are
//! interrupted.

use crate::executor::ExecutorSpec;
use crate::scenario_clock::{Ending, ScenarioClock};
use crate::share::Share;
use crate::thread::ThreadContext;
use crate::vu::{IterationEnd, Vu};
use futures_util::stream::{FuturesUnordered, StreamExt};
use loadgen_core::profile::Profile;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// Runs scenario `index`'s users of this thread until they are done or cut off.
pub async fn run(
    thread: &ThreadContext<'_>,
    index: usize,
    share: Share<'_>,
    clock: &ScenarioClock<'_>,
) {
    let spec = &thread.suite.scenarios[index].executor;
    let (vus, mut quota) = match spec {
        ExecutorSpec::SharedIterations {
            vus, iterations, ..
        } => (*vus, Some(share.iterations(*iterations, *vus))),
        ExecutorSpec::PerVuIterations { vus, .. } | ExecutorSpec::ConstantVus { vus, .. } => {
            (*vus, None)
        }
        ExecutorSpec::RampingVus { .. } => (spec.max_vus(), None),
        _ => unreachable!("arrival-rate executors run in run::arrival"),
    };
    let shared_quota = Cell::new(quota.take().unwrap_or(u64::MAX));
    let ramp = match spec {
        ExecutorSpec::RampingVus {
            start_vus,
            stages,
            graceful_ramp_down,
        } => Some((
            Profile::stages(*start_vus as f64, stages),
            *graceful_ramp_down,
        )),
        _ => None,
    };
    let in_iteration = Cell::new(0u64);
    let users: FuturesUnordered<_> = share
        .ranks(vus)
        .map(|rank| {
            user(
                thread,
                index,
                rank,
                clock,
                &shared_quota,
                ramp.as_ref(),
                &in_iteration,
            )
        })
        .collect();
    let all_done = async {
        let mut users = users;
        while users.next().await.is_some() {}
    };
    if clock.until_hard_stop(all_done).await == Ending::Cut {
        thread.metrics.borrow_mut().scenarios[index]
            .iterations
            .interrupted += in_iteration.get();
    }
}

/// One user's loop.
async fn user(
    thread: &ThreadContext<'_>,
    index: usize,
    rank: u64,
    clock: &ScenarioClock<'_>,
    shared_quota: &Cell<u64>,
    ramp: Option<&(Profile, Duration)>,
    in_iteration: &Cell<u64>,
) {
    let spec = &thread.suite.scenarios[index].executor;
    let mut own_quota = match spec {
        ExecutorSpec::PerVuIterations { iterations, .. } => *iterations,
        _ => u64::MAX,
    };
    // A user ramped down past its grace mid-iteration starts a new life
    // (new connections) if the stages bring it back.
    'life: loop {
        let mut vu = Vu::new(rank + 1, index, thread);
        loop {
            // One clock read serves the checks below and the iteration's start.
            let now = Instant::now();
            if clock.starts_no_more(now) || own_quota == 0 || shared_quota.get() == 0 {
                vu.finish().await;
                return;
            }
            // A ramping user waits while the stages leave it out.
            let mut ramp_down_at = None;
            if let Some((profile, grace)) = ramp {
                let now = clock.since_begin(now);
                if profile.level_at(now) <= rank as f64 {
                    match profile.time_above(rank as f64, now) {
                        Some(t) if clock.begin + Duration::from_secs_f64(t) < clock.end => {
                            let at = clock.begin + Duration::from_secs_f64(t);
                            vu.wait(clock.sleep_until(at)).await;
                            continue;
                        }
                        _ => {
                            vu.finish().await;
                            return;
                        }
                    }
                }
                ramp_down_at = profile
                    .time_at_or_below(rank as f64, now)
                    .map(|t| clock.begin + Duration::from_secs_f64(t) + *grace);
            }
            own_quota -= 1;
            if shared_quota.get() != u64::MAX {
                shared_quota.set(shared_quota.get() - 1);
            }
            in_iteration.set(in_iteration.get() + 1);
            let iteration = vu.iterate(now, false);
            let ended = match ramp_down_at {
                Some(at) => tokio::time::timeout_at(at.into(), iteration).await.ok(),
                None => Some(iteration.await),
            };
            in_iteration.set(in_iteration.get() - 1);
            let mut metrics = thread.metrics.borrow_mut();
            let counts = &mut metrics.scenarios[index].iterations;
            match ended {
                Some(IterationEnd::Completed) => counts.completed += 1,
                Some(IterationEnd::Aborted) => counts.aborted += 1,
                None => {
                    counts.interrupted += 1;
                    continue 'life;
                }
            }
        }
    }
}
