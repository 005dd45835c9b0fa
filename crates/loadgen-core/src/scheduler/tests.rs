use super::*;
use crate::profile::Profile;
use std::task::Waker;

fn context(phase: Phase, pacing: &Pacing) -> ScheduleContext<'_> {
    ScheduleContext {
        phase: Cell::new(phase),
        pacing,
        arrivals: None,
        alarms: None,
        active_clients: None,
        start: Instant::now(),
    }
}

fn poll(schedule: &mut Schedule) -> Poll<Option<Ticket>> {
    schedule.poll_ticket(&mut Context::from_waker(Waker::noop()), Instant::now())
}

fn drain(schedule: &mut Schedule) -> Vec<Ticket> {
    std::iter::from_fn(|| match poll(schedule) {
        Poll::Ready(t) => t,
        Poll::Pending => None,
    })
    .collect()
}

#[tokio::test]
async fn count_mode_cycles_paths_and_stops() {
    let pacing = Pacing::Closed;
    let ctx = context(Phase::Measuring, &pacing);
    let mut s = Schedule::new(&ctx, 0, Some(5), 2);
    let tickets = drain(&mut s);
    let paths: Vec<usize> = tickets.iter().map(|t| t.request).collect();
    assert_eq!(paths, [0, 1, 0, 1, 0]);
    assert!(tickets.iter().all(|t| !t.scheduled));
    assert!(!s.has_more());
}

#[tokio::test]
async fn warm_up_tickets_are_not_recorded_and_stop_ends_duration_mode() {
    let pacing = Pacing::Closed;
    let ctx = context(Phase::WarmUp, &pacing);
    let mut s = Schedule::new(&ctx, 0, None, 1);
    let Poll::Ready(Some(t)) = poll(&mut s) else {
        panic!("closed model is always ready")
    };
    assert!(!t.recorded);
    ctx.phase.set(Phase::Measuring);
    let Poll::Ready(Some(t)) = poll(&mut s) else {
        panic!()
    };
    assert!(t.recorded);
    ctx.phase.set(Phase::Stopped);
    assert_eq!(poll(&mut s), Poll::Ready(None));
    assert!(!s.has_more());
}

#[tokio::test]
async fn abandon_returns_unstarted() {
    let pacing = Pacing::Closed;
    let ctx = context(Phase::Measuring, &pacing);
    let mut s = Schedule::new(&ctx, 0, Some(10), 1);
    let _ = poll(&mut s);
    assert_eq!(s.abandon(), 9);
    assert_eq!(poll(&mut s), Poll::Ready(None));
}

#[tokio::test]
async fn per_client_rate_spaces_tickets() {
    let pacing = Pacing::PerClientRate { rps: 10.0 };
    let ctx = context(Phase::Measuring, &pacing);
    let mut s = Schedule::new(&ctx, 0, Some(3), 1);
    assert!(matches!(poll(&mut s), Poll::Ready(Some(_))));
    // The next one is 100 ms away.
    assert!(poll(&mut s).is_pending());
}

#[tokio::test]
async fn inactive_clients_wait_for_their_turn() {
    let pacing = Pacing::Closed;
    let curve = Profile::ramp(4.0, Duration::from_secs(100));
    let mut ctx = context(Phase::Measuring, &pacing);
    ctx.active_clients = Some(&curve);
    // At t≈0 no client is active yet; client 0 joins first.
    let mut s = Schedule::new(&ctx, 3, None, 1);
    assert!(poll(&mut s).is_pending());
    assert!(s.has_more());
}

#[tokio::test]
async fn script_offsets_fix_intended_times() {
    let pacing = Pacing::Script {
        offsets: vec![Duration::ZERO, Duration::ZERO, Duration::from_secs(100)],
    };
    let ctx = context(Phase::Measuring, &pacing);
    let mut s = Schedule::new(&ctx, 0, Some(3), 3);
    let Poll::Ready(Some(first)) = poll(&mut s) else {
        panic!()
    };
    assert!(first.scheduled);
    assert_eq!(first.intended, ctx.start);
    assert!(matches!(poll(&mut s), Poll::Ready(Some(_))));
    assert!(poll(&mut s).is_pending());
    assert_eq!(s.abandon(), 1);
}
