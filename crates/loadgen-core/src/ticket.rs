//! The scheduler's vocabulary, shared with the layers that act on it: a
//! [`Ticket`] is permission to start one request, and [`Phase`] is where
//! the run is (warm-up, measuring, stopped).

use std::time::Instant;

/// Where a worker thread is in the run; set by the runner, read by clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Requests go out but are not recorded.
    WarmUp,
    Measuring,
    /// No new request starts.
    Stopped,
}

/// Permission to start one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    /// Which of the run's requests (its URIs, in order) to send.
    pub request: usize,
    /// False for requests started during warm-up.
    pub recorded: bool,
    /// When the request should start: its due time under a fixed schedule,
    /// else the moment the ticket was handed out.
    pub intended: Instant,
    /// True when `intended` was fixed in advance, so waiting for a free slot
    /// counts as queueing delay.
    pub scheduled: bool,
}
