//! The arrival-rate executors, `constant-arrival-rate` and
//! `ramping-arrival-rate`: iterations start on a schedule, whatever the
//! server does. Each due iteration takes a free virtual user (making one,
//! up to `maxVUs`); when none is free it is dropped and counted, never
//! queued. Its steps' times count from its intended start, so a server
//! that stalls shows in the corrected latency.
//!
//! Unlike k6, a new user is made at once, within the arrival, rather than
//! in the background while the arrival is dropped: making one costs no
//! script runtime here, only its first connection, which the corrected
//! latency of its first step then includes.

use crate::executor::ExecutorSpec;
use crate::scenario_clock::{Ending, ScenarioClock};
use crate::share::Share;
use crate::thread::ThreadContext;
use crate::vu::{IterationEnd, Vu};
use futures_util::stream::{FuturesUnordered, StreamExt};
use loadgen_core::precise_timer::PreciseTimer;
use loadgen_core::profile::Profile;
use std::time::{Duration, Instant};

pub async fn run(
    thread: &ThreadContext<'_>,
    index: usize,
    share: Share<'_>,
    clock: &ScenarioClock<'_>,
) {
    let spec = &thread.suite.scenarios[index].executor;
    let (pre_allocated, max_vus) = match spec {
        ExecutorSpec::ConstantArrivalRate {
            pre_allocated_vus,
            max_vus,
            ..
        }
        | ExecutorSpec::RampingArrivalRate {
            pre_allocated_vus,
            max_vus,
            ..
        } => (*pre_allocated_vus, *max_vus),
        _ => unreachable!("looping executors run in run::closed"),
    };
    let profile = spec.arrival_profile().expect("an arrival-rate executor");
    let max_here = share.part(max_vus);
    let mut made = 0;
    let mut free: Vec<Vu<'_>> = Vec::new();
    for _ in 0..share.part(pre_allocated) {
        free.push(Vu::new(share.arrival_vu_id(made), index, thread));
        made += 1;
    }
    let mut running = FuturesUnordered::new();
    // This thread's arrivals, counted from 0; each has its run-wide index.
    let mut local: u64 = 0;
    let mut finished_early = false;
    let schedule = async {
        let mut timer = PreciseTimer::new();
        while let Some(due) = due_time(&profile, share.arrival(local), clock) {
            // Iterations that end are counted and their users freed while
            // the next arrival is waited for.
            loop {
                tokio::select! {
                    () = clock.sleep_precisely_until(&mut timer, due) => break,
                    Some((vu, ended)) = running.next(), if !running.is_empty() => {
                        count(thread, index, ended);
                        free.push(vu);
                    }
                }
            }
            // An arrival due before the end starts even when the wake-up
            // was late: it is measured late, never lost.
            if clock.cancelled() {
                break;
            }
            local += 1;
            let vu = match free.pop() {
                Some(vu) => vu,
                None if made < max_here => {
                    made += 1;
                    Vu::new(share.arrival_vu_id(made - 1), index, thread)
                }
                None => {
                    thread.metrics.borrow_mut().scenarios[index]
                        .iterations
                        .dropped += 1;
                    thread
                        .recorder
                        .borrow_mut()
                        .window
                        .counters
                        .dropped_iterations += 1;
                    continue;
                }
            };
            running.push(iteration(vu, due));
        }
        // The schedule is over: what runs gets its graceful stop.
        while let Some((vu, ended)) = running.next().await {
            count(thread, index, ended);
            free.push(vu);
        }
        finished_early = true;
    };
    let ending = clock.until_hard_stop(schedule).await;
    if ending == Ending::Cut && !finished_early {
        thread.metrics.borrow_mut().scenarios[index]
            .iterations
            .interrupted += running.len() as u64;
    }
    drop(running);
    for vu in free {
        vu.finish().await;
    }
}

/// Arrival `index`'s intended start, or `None` past the executor's end.
fn due_time(profile: &Profile, index: u64, clock: &ScenarioClock<'_>) -> Option<Instant> {
    let at = profile.time_of_area(index as f64)?;
    let due = clock.begin + Duration::from_secs_f64(at);
    (due < clock.end).then_some(due)
}

async fn iteration(mut vu: Vu<'_>, due: Instant) -> (Vu<'_>, IterationEnd) {
    let ended = vu.iterate(due, true).await;
    (vu, ended)
}

fn count(thread: &ThreadContext<'_>, index: usize, ended: IterationEnd) {
    let mut metrics = thread.metrics.borrow_mut();
    let counts = &mut metrics.scenarios[index].iterations;
    match ended {
        IterationEnd::Completed => counts.completed += 1,
        IterationEnd::Aborted => counts.aborted += 1,
    }
}
