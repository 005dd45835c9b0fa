//! One client: connects, hands the connection to the driver its protocol
//! needs, and reconnects when the server drops it, until its schedule ends.

use crate::driver::{h1, h2, h3, ClientTally, ConnectionEnd, Session};
use crate::recorder::{ClientRate, ErrorKind};
use crate::scheduler::Schedule;
use crate::transport::{ConnectError, Connected, Link, Protocol};
use crate::worker::Worker;
use futures_util::future::Either;
use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

/// Runs client `client_id`; its first connection waits `first_connect`
/// (h2load's connection rate, `-r`).
///
/// Every client's future lives as long as the run, and a future holds room
/// for the largest state it can be in: so the connection attempt and each
/// driver are separate futures awaited one after the other, and the HTTP/2
/// and HTTP/3 drivers, the large ones, are boxed (one allocation per
/// connection, none per request). An HTTP/1.1 client then costs well under
/// a kilobyte here, which is what ten thousand connections need.
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
        let Some((protocol, link, connect_started)) = Box::pin(open(worker, &mut schedule)).await
        else {
            break;
        };
        let issued_before = schedule.issued();
        let session = Session {
            worker,
            schedule: &mut schedule,
            tally: &mut tally.tally,
            connect_started,
        };
        match drive(protocol, link, session).await {
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

/// Connects and records the connection; `None` when the client gives up.
/// Returns when the attempt began, DNS excluded.
async fn open(
    worker: &Worker<'_>,
    schedule: &mut Schedule<'_>,
) -> Option<(Protocol, Link, Instant)> {
    let connect_started = Instant::now();
    let client = worker.client_id(schedule.client());
    let connected = match worker.plan.timeouts.connect {
        Some(limit) => tokio::time::timeout(limit, worker.connector.connect(client))
            .await
            .unwrap_or_else(|_| {
                Err(ConnectError {
                    kind: ErrorKind::Connect,
                    message: format!(
                        "connection not established within {limit:?} (--connect-timeout)"
                    ),
                })
            }),
        None => worker.connector.connect(client).await,
    };
    let connected = match connected {
        Ok(connected) => connected,
        Err(error) => {
            give_up(worker, schedule, error.kind, error.message);
            return None;
        }
    };
    // Connections are recorded in warm-up too: in a timed run they are
    // all made then, and h2load reports them the same way.
    // h2load resolves the host once, before it starts: its connect and
    // first-byte times leave DNS out, and so do these.
    let connect_started = connect_started + connected.phases.dns.unwrap_or_default();
    let Connected {
        link,
        protocol,
        protocol_name,
        tls,
        phases,
    } = connected;
    let mut recorder = worker.recorder.borrow_mut();
    recorder.connected(connect_started.elapsed(), protocol_name, || tls);
    recorder.connect_phases(&phases);
    Some((protocol, link, connect_started))
}

type Driver<'a, 'w> =
    Either<h1::Running<'a, 'w>, Pin<Box<dyn Future<Output = ConnectionEnd> + 'a>>>;

/// The driver of the connection's protocol, as one future.
fn drive<'a, 'w>(protocol: Protocol, link: Link, session: Session<'a, 'w>) -> Driver<'a, 'w> {
    match (protocol, link) {
        (Protocol::Http1, Link::Stream(transport)) => Either::Left(h1::run(transport, session)),
        (Protocol::Http2, Link::Stream(transport)) => {
            Either::Right(Box::pin(h2::run(transport, session)))
        }
        (Protocol::Http3, Link::Quic(quic)) => Either::Right(Box::pin(h3::run(quic, session))),
        _ => unreachable!("the connector pairs each protocol with its link"),
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
