//! One client: connects, runs the connection with the protocol it
//! negotiated, and reconnects when the server drops it, until its schedule
//! ends.

use crate::connection::{self, ConnectionEnd};
use crate::connections::Negotiated;
use crate::driver::{Driver, OpenContext};
use crate::error_kind::ErrorKind;
use crate::events::ClientTally;
use crate::recorder::ClientRate;
use crate::recorder::Recorder;
use crate::scheduler::Schedule;
use crate::transport::Connected;
use crate::worker::Worker;
use std::cell::RefCell;
use std::time::Instant;

/// Runs client `client_id`; its first connection waits `first_connect`
/// (h2load's connection rate, `-r`).
///
/// Every client's future lives as long as the run, and a future holds room
/// for the largest state it can be in: so the connection attempt is a
/// separate, boxed future, and each connection's driver is boxed (one
/// allocation per connection, none per request). An HTTP/1.1 client then
/// costs well under a kilobyte here, which is what ten thousand
/// connections need.
pub async fn run_client(worker: &Worker<'_>, client_id: usize, first_connect: Instant) {
    let plan = worker.plan;
    let mut schedule = Schedule::new(
        &worker.schedule,
        client_id,
        plan.requests_of_client(client_id),
        plan.paths.len(),
    )
    .with_rank(plan.rank_of_client(client_id));
    if first_connect > Instant::now() {
        // Boxed: a timer is 112 bytes the client would keep room for all run.
        Box::pin(tokio::time::sleep_until(first_connect.into())).await;
    }
    // Records the client's rate even when a timed run cancels this future.
    let mut tally = TallyOnDrop {
        worker,
        tally: ClientTally::default(),
    };
    while schedule.has_more() {
        let attempt = worker
            .connections
            .connect(worker.client_id(client_id), plan.timeouts.connect);
        let negotiated = match Box::pin(attempt).await {
            Ok(negotiated) => negotiated,
            Err(error) => {
                give_up(worker, &mut schedule, error.kind, error.message);
                break;
            }
        };
        let connect_started = negotiated.started;
        let issued_before = schedule.issued();
        let driver = start_driver(worker, negotiated, client_id, issued_before);
        let end = connection::run(
            driver,
            &mut schedule,
            None,
            worker.shared(),
            &mut tally.tally,
            connect_started,
        )
        .await;
        match end {
            ConnectionEnd::Finished => break,
            // A connection that could not carry a single request will not do better next time.
            ConnectionEnd::Lost if schedule.issued() == issued_before && schedule.has_more() => {
                give_up(
                    worker,
                    &mut schedule,
                    ErrorKind::Protocol,
                    "the connection closed before any request".into(),
                );
                break;
            }
            ConnectionEnd::Lost => continue,
        }
    }
}

/// Records the new connection and opens its protocol's driver on it. Not
/// inline in [`run_client`]: what it takes apart (the connection's TLS
/// details, its phases) would stay in the client's future, which lives as
/// long as the run.
fn start_driver<'w>(
    worker: &'w Worker<'_>,
    negotiated: Negotiated<'w>,
    client_id: usize,
    issued_before: u64,
) -> Box<dyn Driver + 'w> {
    record_connection(
        &worker.recorder,
        &negotiated.connected,
        negotiated.protocol,
        negotiated.started,
    );
    negotiated.prepared.open(
        negotiated.connected.link,
        OpenContext {
            read_buffer: &worker.read_buffer,
            headers_wanted: false,
            watch_idle: false,
            client: client_id,
            issued_before,
        },
    )
}

/// Connections are recorded in warm-up too: in a timed run they are all
/// made then, and h2load reports them the same way.
pub fn record_connection(
    recorder: &RefCell<Recorder>,
    connected: &Connected,
    protocol: &'static str,
    connect_started: Instant,
) {
    let mut recorder = recorder.borrow_mut();
    recorder.connected(connect_started.elapsed(), protocol, || {
        connected.tls.clone()
    });
    recorder.connect_phases(&connected.phases);
}

/// The client cannot connect: its unstarted requests count as errored.
fn give_up(worker: &Worker<'_>, schedule: &mut Schedule<'_>, kind: ErrorKind, message: String) {
    let mut recorder = worker.recorder.borrow_mut();
    recorder.note_error(kind, || message);
    // In a timed run there is no quota; count the one request the client was about to send.
    let unstarted = schedule.abandon().max(1);
    recorder.requests_not_started(unstarted, kind);
}

struct TallyOnDrop<'a, 'w> {
    worker: &'a Worker<'w>,
    tally: ClientTally,
}

impl Drop for TallyOnDrop<'_, '_> {
    fn drop(&mut self) {
        let seconds = match (self.tally.first_request, self.tally.last_response) {
            (Some(first), Some(last)) => (last - first).as_secs_f64(),
            _ => 0.0,
        };
        self.worker
            .recorder
            .borrow_mut()
            .client_finished(ClientRate {
                requests: self.tally.responses,
                seconds,
            });
    }
}
