//! One client: connects, hands the connection to the driver its protocol
//! needs, and reconnects when the server drops it, until its schedule ends.

use crate::driver::{h1, h2, h3, ClientTally, ConnectionEnd, Session};
use crate::recorder::{ClientRate, ErrorKind};
use crate::scheduler::Schedule;
use crate::transport::{ConnectError, Link, Protocol};
use crate::worker::Worker;
use std::time::Instant;

/// Runs client `client_id`; its first connection waits `first_connect`
/// (h2load's connection rate, `-r`).
pub async fn run_client(worker: &Worker<'_>, client_id: usize, first_connect: Instant) {
    let plan = worker.plan;
    let mut schedule = Schedule::new(
        &worker.schedule,
        client_id,
        plan.requests_of_client(client_id),
        plan.paths.len(),
    );
    if first_connect > Instant::now() {
        tokio::time::sleep_until(first_connect.into()).await;
    }
    // Records the client's rate even when a timed run cancels this future.
    let mut tally = TallyOnDrop {
        worker,
        tally: ClientTally::default(),
    };
    while schedule.has_more() {
        let connect_started = Instant::now();
        let attempt = worker.connector.connect();
        let connected = match plan.timeouts.connect {
            Some(limit) => tokio::time::timeout(limit, attempt)
                .await
                .unwrap_or_else(|_| {
                    Err(ConnectError {
                        kind: ErrorKind::Connect,
                        message: format!(
                            "connection not established within {limit:?} (--connect-timeout)"
                        ),
                    })
                }),
            None => attempt.await,
        };
        let connected = match connected {
            Ok(connected) => connected,
            Err(error) => {
                give_up(worker, &mut schedule, error.kind, error.message);
                break;
            }
        };
        // Connections are recorded in warm-up too: in a timed run they are
        // all made then, and h2load reports them the same way.
        // h2load resolves the host once, before it starts: its connect and
        // first-byte times leave DNS out, and so do these.
        let connect_started = connect_started + connected.phases.dns.unwrap_or_default();
        let tls = connected.tls.clone();
        {
            let mut recorder = worker.recorder.borrow_mut();
            recorder.connected(connect_started.elapsed(), connected.protocol_name, || tls);
            recorder.connect_phases(&connected.phases);
        }
        let issued_before = schedule.issued();
        let session = Session {
            worker,
            schedule: &mut schedule,
            tally: &mut tally.tally,
            connect_started,
        };
        let end = match (connected.protocol, connected.link) {
            (Protocol::Http1, Link::Stream(transport)) => h1::run(transport, session).await,
            (Protocol::Http2, Link::Stream(transport)) => h2::run(transport, session).await,
            (Protocol::Http3, Link::Quic(quic)) => h3::run(quic, session).await,
            _ => unreachable!("the connector pairs each protocol with its link"),
        };
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
