//! What every virtual user of one worker thread shares: the suite, the
//! thread's recorders, its origins and its read buffer. It lives on the
//! thread's stack; no other thread touches it.

use crate::metrics::Metrics;
use crate::origin::{OriginGuard, Origins};
use crate::suite::Suite;
use loadgen_core::connection_info::ClientId;
use loadgen_core::recorder::Recorder;
use loadgen_core::ticket::Phase;
use std::cell::{Cell, RefCell};

pub struct ThreadContext<'s> {
    pub thread: usize,
    pub threads: usize,
    pub suite: &'s Suite,
    /// Every request and connection of the thread, as a benchmark records them.
    pub recorder: RefCell<Recorder>,
    /// Steps, checks and iterations.
    pub metrics: RefCell<Metrics>,
    pub phase: Cell<Phase>,
    pub read_buffer: RefCell<Vec<u8>>,
    pub origins: Origins<'s>,
    connections_made: Cell<usize>,
}

impl<'s> ThreadContext<'s> {
    pub fn new(
        thread: usize,
        threads: usize,
        suite: &'s Suite,
        guard: Option<OriginGuard>,
    ) -> ThreadContext<'s> {
        ThreadContext {
            thread,
            threads,
            suite,
            recorder: RefCell::new(Recorder::new()),
            metrics: RefCell::new(Metrics::new(suite)),
            phase: Cell::new(Phase::Measuring),
            read_buffer: RefCell::new(Vec::new()),
            origins: Origins::new(&suite.connection, guard),
            connections_made: Cell::new(0),
        }
    }

    /// A number for a new connection (QUIC spreads connections over
    /// endpoints by it).
    pub fn next_client(&self) -> ClientId {
        let index = self.connections_made.get();
        self.connections_made.set(index + 1);
        ClientId {
            thread: self.thread,
            index,
        }
    }

    /// No iteration starts any more.
    pub fn stopped(&self) -> bool {
        self.phase.get() == Phase::Stopped
    }
}
