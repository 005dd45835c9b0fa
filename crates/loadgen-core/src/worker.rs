//! What every client on one worker thread shares: the plan, the run's
//! protocols, the connector, the thread's recorder and the run phase. It
//! lives on the thread's stack; nothing in it is touched by another thread.

use crate::connection::Shared;
use crate::connection_info::ClientId;
use crate::connections::Connections;
use crate::plan::{Plan, Timeouts};
use crate::recorder::Recorder;
use crate::scheduler::ScheduleContext;
use std::cell::{Cell, RefCell};

pub struct Worker<'a> {
    /// The thread's number, and the run-wide number of its first client.
    pub thread: usize,
    pub first_client: usize,
    pub plan: &'a Plan,
    /// The run's protocols and connector.
    pub connections: &'a Connections,
    pub recorder: RefCell<Recorder>,
    pub schedule: ScheduleContext<'a>,
    /// Where the thread's connections read into, one at a time (nothing
    /// awaits while it is borrowed), instead of a buffer of their own each.
    pub read_buffer: RefCell<Vec<u8>>,
    /// The plan's timeouts, as every connection of the thread reads them.
    pub timeouts: Cell<Timeouts>,
}

impl Worker<'_> {
    /// Client `client` (run-wide number) as h2load numbers it: by thread,
    /// then within the thread.
    pub fn client_id(&self, client: usize) -> ClientId {
        ClientId {
            thread: self.thread,
            index: client - self.first_client,
        }
    }

    /// What the thread's connections share.
    pub fn shared(&self) -> Shared<'_> {
        Shared {
            recorder: &self.recorder,
            phase: &self.schedule.phase,
            timeouts: &self.timeouts,
            depth: self.plan.max_concurrent_streams,
        }
    }
}
