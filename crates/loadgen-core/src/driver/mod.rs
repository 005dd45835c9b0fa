//! How requests go on the wire: one driver per protocol, each running one
//! connection until its client's schedule is used up or the connection is
//! lost. The client picks the driver from what the connection negotiated.

pub mod h1;
pub mod h2;
pub mod h3;
pub mod templates;

use crate::request::RequestSpec;
use crate::scheduler::{Schedule, Ticket};
use crate::worker::Worker;
use std::time::Instant;

/// The run's requests in each protocol's wire form, built once per run.
pub struct PreparedRequests {
    pub http1: h1::RequestBytes,
    pub http2: h2::HeaderBlocks,
    pub http3: templates::RequestTemplates,
}

impl PreparedRequests {
    pub fn new(specs: &[RequestSpec], scheme: &str) -> Result<Self, String> {
        Ok(PreparedRequests {
            http1: h1::RequestBytes::new(specs),
            // Built first: it checks the method and headers for every protocol.
            http3: templates::RequestTemplates::new(specs, scheme)?,
            http2: h2::HeaderBlocks::new(specs, scheme),
        })
    }
}

/// Everything a driver needs to run one connection.
pub struct Session<'a, 'w> {
    pub worker: &'a Worker<'w>,
    pub schedule: &'a mut Schedule<'w>,
    pub tally: &'a mut ClientTally,
    /// When the connection attempt began: time to first byte counts from here.
    pub connect_started: Instant,
}

impl Session<'_, '_> {
    /// A request goes on the wire now: counted as started (unless in
    /// warm-up) and timed from here. Returns the send time.
    pub fn request_started(&mut self, ticket: &Ticket) -> Instant {
        let now = Instant::now();
        if ticket.recorded {
            self.worker
                .recorder
                .borrow_mut()
                .request_started(ticket, now);
            self.tally.request_started(now);
        }
        now
    }
}

/// Why a driver returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionEnd {
    /// The schedule has nothing more and nothing is in flight.
    Finished,
    /// The connection cannot carry more requests; in-flight ones were counted.
    Lost,
}

/// One client's own counts, for h2load's per-client req/s.
#[derive(Debug, Default)]
pub struct ClientTally {
    /// Recorded requests that got a response, whatever its status.
    pub responses: u64,
    pub first_request: Option<Instant>,
    pub last_response: Option<Instant>,
}

impl ClientTally {
    pub fn request_started(&mut self, now: Instant) {
        self.first_request.get_or_insert(now);
    }

    pub fn response(&mut self, now: Instant) {
        self.responses += 1;
        self.last_response = Some(now);
    }
}
