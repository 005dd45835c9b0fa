//! What every connection of every protocol shares: the counters, the
//! stall, the connection and rate limits, and the scenario app.

use crate::app::App;
use crate::capacity::Capacity;
use crate::stall::Stall;
use crate::stats::Counters;

/// What every connection of every protocol shares.
pub(crate) struct State {
    pub(crate) counters: Counters,
    pub(crate) stall: Stall,
    /// Each connection is closed after serving this many requests.
    pub(crate) max_requests_per_connection: Option<u64>,
    /// `max_rate`: requests wait their turn.
    pub(crate) capacity: Option<Capacity>,
    pub(crate) app: App,
}
