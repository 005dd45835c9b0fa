//! What every client on one worker thread shares: the plan, the prepared
//! requests, the connector, the thread's recorder and the run phase. It
//! lives on the thread's stack; nothing in it is touched by another thread.

use crate::driver::PreparedRequests;
use crate::plan::Plan;
use crate::recorder::Recorder;
use crate::scheduler::{Phase, ScheduleContext};
use crate::transport::Connector;
use std::cell::RefCell;

pub struct Worker<'a> {
    pub plan: &'a Plan,
    pub requests: &'a PreparedRequests,
    pub connector: &'a Connector,
    pub recorder: RefCell<Recorder>,
    pub schedule: ScheduleContext<'a>,
    /// Where the thread's connections read into, one at a time (nothing
    /// awaits while it is borrowed), instead of a buffer of their own each.
    pub read_buffer: RefCell<Vec<u8>>,
}

impl Worker<'_> {
    /// Whether bytes and connection events are counted now (not in warm-up).
    pub fn measuring(&self) -> bool {
        self.schedule.phase.get() == Phase::Measuring
    }
}
