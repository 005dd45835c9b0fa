//! A run split into execution segments adds up to the run: whole numbers
//! split exactly, and the open model's arrivals of all segments together
//! are the single-machine schedule, interleaved.

use loadgen_core::plan::{Mode, Pacing, Plan, PlanInput};
use loadgen_core::profile::{parse_stages, Profile};
use loadgen_core::scheduler::arrivals::{Arrivals, Take};
use loadgen_core::segment::{ExecutionSegment, Stripe};
use std::time::{Duration, Instant};

fn plan(
    segment: Option<ExecutionSegment>,
    clients: usize,
    threads: usize,
    mode: Mode,
    pacing: Pacing,
) -> Plan {
    let mut input = PlanInput {
        uris: vec!["http://127.0.0.1:1/".into()],
        clients,
        threads,
        mode,
        segment,
        ..PlanInput::default()
    };
    input.load.pacing = pacing;
    input.build().expect("a valid plan")
}

fn shards(count: u64) -> Vec<ExecutionSegment> {
    (0..count)
        .map(|i| ExecutionSegment::shard(i, count).unwrap())
        .collect()
}

#[test]
fn clients_and_requests_add_up() {
    for (clients, requests, count) in [(10, 1001, 4), (7, 7, 7), (100, 12345, 3), (5, 1000, 5)] {
        let parts: Vec<Plan> = shards(count)
            .into_iter()
            .map(|s| {
                plan(
                    Some(s),
                    clients,
                    1,
                    Mode::Requests(requests),
                    Pacing::Closed,
                )
            })
            .collect();
        let clients_sum: usize = parts.iter().map(Plan::clients_here).sum();
        let requests_sum: u64 = parts.iter().map(|p| p.requests_here().unwrap()).sum();
        assert_eq!(clients_sum, clients, "{clients} clients in {count}");
        assert_eq!(requests_sum, requests, "{requests} requests in {count}");
        // Each part's requests are its clients' own, as on one machine.
        for part in &parts {
            let own: u64 = (0..part.clients_here())
                .map(|c| part.requests_of_client(c).unwrap())
                .sum();
            assert_eq!(Some(own), part.requests_here());
        }
    }
}

#[test]
fn a_segment_with_no_client_is_refused() {
    let mut input = PlanInput {
        uris: vec!["http://127.0.0.1:1/".into()],
        clients: 3,
        segment: Some(ExecutionSegment::shard(3, 4).unwrap()),
        ..PlanInput::default()
    };
    input.mode = Mode::Requests(3);
    let error = input.build().unwrap_err();
    assert!(
        error.message.contains("gets none of the 3 clients"),
        "{error}"
    );
}

/// Every arrival `arrivals` hands out, in order.
fn due_times(arrivals: &Arrivals, start: Instant) -> Vec<Duration> {
    let far = start + Duration::from_secs(3600);
    let mut times = Vec::new();
    while let Take::Due(at) = arrivals.take(far) {
        times.push(at - start);
    }
    times
}

#[test]
fn open_model_segments_together_are_the_single_schedule() {
    let profile = Profile::stages(0.0, &parse_stages("1s:200,2s:200,1s:0").unwrap());
    let start = Instant::now();
    let requests = 499;
    // One machine, one thread: the whole run's schedule.
    let whole = Stripe::whole();
    let single = due_times(
        &Arrivals::striped(&profile, &whole, 0, 1, start, Some(requests), 0..1),
        start,
    );
    assert_eq!(single.len() as u64, requests);
    for count in [2, 3, 4] {
        let stripes: Vec<Stripe> = shards(count).iter().map(|s| s.stripe().unwrap()).collect();
        let mut union = Vec::new();
        for stripe in &stripes {
            let quota = stripe.count_below(requests);
            // Two threads on each machine.
            for thread in 0..2 {
                let arrivals =
                    Arrivals::striped(&profile, stripe, thread, 2, start, Some(quota), 0..1);
                union.extend(due_times(&arrivals, start));
            }
        }
        union.sort();
        assert_eq!(union, single, "{count} segments");
    }
}
