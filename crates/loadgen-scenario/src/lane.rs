//! A virtual user's connection to one origin: one request at a time, over
//! the engine's shared connection layer and the origin's protocol driver,
//! as a benchmark's connection is. The virtual user queues a request and
//! waits; the connection's [`RequestSource`] hands it to the driver, its
//! [`ResponseSink`] collects the head and body and wakes the user at the
//! end. A lost connection is made again for the next request.

use crate::origin::Origin;
use crate::thread::ThreadContext;
use loadgen_core::client::record_connection;
use loadgen_core::connection::{self, Shared};
use loadgen_core::connection_info::ClientId;
use loadgen_core::driver::OpenContext;
use loadgen_core::error_kind::ErrorKind;
use loadgen_core::events::{ClientTally, End, Exchange, Head, ResponseSink};
use loadgen_core::plan::Timeouts;
use loadgen_core::request::{Next, Request, RequestRef, RequestSource, Wants};
use loadgen_core::ticket::{Phase, Ticket};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

/// Response bodies are kept up to this size for checks and extractors;
/// the rest is counted, not kept.
pub const MAX_KEPT_BODY: usize = 8 << 20;

/// A request a virtual user wants sent.
pub struct Outgoing {
    pub request: Arc<Request>,
    pub wants: Wants,
    /// Keep every response header, not only `set-cookie` and `location`.
    pub all_headers: bool,
    /// When the request should have started (the step's intended start for
    /// its first request), and whether that was fixed by a schedule.
    pub intended: Instant,
    pub scheduled: bool,
}

/// How one request ended.
pub enum Outcome {
    Response {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        sent: Instant,
        done: Instant,
    },
    Failed {
        kind: ErrorKind,
        /// `None`: it never went out (the connection could not be made).
        sent: Option<Instant>,
        done: Instant,
    },
}

/// What a lane's virtual user and its connection share.
pub struct LaneState {
    pub origin: Rc<Origin>,
    queued: RefCell<Option<(u64, Outgoing)>>,
    /// The number of the request in flight, and what came back of it so far.
    collecting: RefCell<Collected>,
    finished: RefCell<Option<(u64, Outcome)>>,
    next_number: Cell<u64>,
    source_waker: RefCell<Option<Waker>>,
    user_waker: RefCell<Option<Waker>>,
    /// Read by the connection at every request: each step has its own timeout.
    pub timeouts: Cell<Timeouts>,
    /// A connection is running (or being made).
    connected: Cell<bool>,
    /// The virtual user is done with the lane: its connection closes.
    closing: Cell<bool>,
}

#[derive(Default)]
struct Collected {
    number: u64,
    all_headers: bool,
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl LaneState {
    pub fn new(origin: Rc<Origin>) -> Rc<LaneState> {
        Rc::new(LaneState {
            origin,
            queued: RefCell::new(None),
            collecting: RefCell::new(Collected::default()),
            finished: RefCell::new(None),
            next_number: Cell::new(1),
            source_waker: RefCell::new(None),
            user_waker: RefCell::new(None),
            timeouts: Cell::new(Timeouts::default()),
            connected: Cell::new(false),
            closing: Cell::new(false),
        })
    }

    /// Whether a connection must be made before the next request.
    pub fn needs_connection(&self) -> bool {
        !self.connected.get()
    }

    /// Queues `outgoing`; returns its number, to wait for with [`LaneState::poll_outcome`].
    pub fn queue(&self, outgoing: Outgoing) -> u64 {
        let number = self.next_number.get();
        self.next_number.set(number + 1);
        *self.queued.borrow_mut() = Some((number, outgoing));
        if let Some(waker) = self.source_waker.borrow_mut().take() {
            waker.wake();
        }
        number
    }

    /// The outcome of request `number`, once it has one.
    pub fn poll_outcome(&self, number: u64, cx: &mut Context<'_>) -> Poll<Outcome> {
        let mut finished = self.finished.borrow_mut();
        if let Some((done, _)) = &*finished {
            if *done == number {
                let (_, outcome) = finished.take().expect("just seen");
                return Poll::Ready(outcome);
            }
        }
        *self.user_waker.borrow_mut() = Some(cx.waker().clone());
        Poll::Pending
    }

    /// Whether the request `number` is still waiting for a connection to take it.
    pub fn still_queued(&self, number: u64) -> bool {
        matches!(&*self.queued.borrow(), Some((n, _)) if *n == number)
    }

    /// Takes back the queued request, which will not be sent.
    pub fn take_queued(&self) {
        self.queued.borrow_mut().take();
    }

    /// The virtual user is done: the connection finishes what it has and closes.
    pub fn close(&self) {
        self.closing.set(true);
        if let Some(waker) = self.source_waker.borrow_mut().take() {
            waker.wake();
        }
    }

    fn finish(&self, number: u64, outcome: Outcome) {
        *self.finished.borrow_mut() = Some((number, outcome));
        if let Some(waker) = self.user_waker.borrow_mut().take() {
            waker.wake();
        }
    }

    /// The queued request cannot be sent: it ends with `kind`, never sent.
    fn fail_queued(&self, kind: ErrorKind) {
        if let Some((number, _)) = self.queued.borrow_mut().take() {
            self.finish(
                number,
                Outcome::Failed {
                    kind,
                    sent: None,
                    done: Instant::now(),
                },
            );
        }
    }
}

/// Runs one connection of the lane until it is lost or the lane closes.
/// Connection errors count as the queued request's, which was never sent.
pub async fn run_connection(state: Rc<LaneState>, thread: &ThreadContext<'_>, client: ClientId) {
    state.connected.set(true);
    let origin = state.origin.clone();
    let made = origin
        .connections
        .connect(client, origin.plan.timeouts.connect)
        .await;
    let negotiated = match made {
        Ok(negotiated) => negotiated,
        Err(error) => {
            let mut recorder = thread.recorder.borrow_mut();
            recorder.note_error(error.kind, || error.message);
            if state.queued.borrow().is_some() {
                recorder.requests_not_started(1, error.kind);
            }
            drop(recorder);
            state.connected.set(false);
            state.fail_queued(error.kind);
            return;
        }
    };
    let connect_started = negotiated.started;
    record_connection(
        &thread.recorder,
        &negotiated.connected,
        negotiated.protocol,
        connect_started,
    );
    let driver = negotiated.prepared.open(
        negotiated.connected.link,
        OpenContext {
            read_buffer: &thread.read_buffer,
            headers_wanted: true,
            watch_idle: true,
            // Scenario requests are made by their steps, never numbered here.
            client: 0,
            issued_before: 0,
        },
    );
    let mut source = LaneSource {
        state: &state,
        current: None,
        phase: &thread.phase,
    };
    let mut sink = LaneSink { state: &state };
    let mut tally = ClientTally::default();
    let shared = Shared {
        recorder: &thread.recorder,
        phase: &thread.phase,
        timeouts: &state.timeouts,
        depth: 1,
    };
    connection::run(
        driver,
        &mut source,
        Some(&mut sink),
        shared,
        &mut tally,
        connect_started,
    )
    .await;
    state.connected.set(false);
    // Woken so that a request queued while the connection went down is
    // sent on a new one.
    if let Some(waker) = state.user_waker.borrow_mut().take() {
        waker.wake();
    }
}

struct LaneSource<'l> {
    state: &'l LaneState,
    /// The request being handed to the driver: the driver borrows it.
    current: Option<Arc<Request>>,
    phase: &'l Cell<Phase>,
}

impl RequestSource for LaneSource<'_> {
    fn poll_next(&mut self, cx: &mut Context<'_>, _now: Instant) -> Poll<Option<Next<'_>>> {
        if self.state.closing.get() {
            return Poll::Ready(None);
        }
        let Some((number, outgoing)) = self.state.queued.borrow_mut().take() else {
            *self.state.source_waker.borrow_mut() = Some(cx.waker().clone());
            return Poll::Pending;
        };
        *self.state.collecting.borrow_mut() = Collected {
            number,
            all_headers: outgoing.all_headers,
            ..Collected::default()
        };
        let ticket = Ticket {
            // The exchange carries its number back to the sink.
            request: number as usize,
            recorded: self.phase.get() == Phase::Measuring,
            intended: outgoing.intended,
            scheduled: outgoing.scheduled,
        };
        let request = self.current.insert(outgoing.request);
        Poll::Ready(Some(Next {
            ticket,
            request: RequestRef::Made(request),
            wants: outgoing.wants,
        }))
    }

    fn has_more(&self) -> bool {
        !self.state.closing.get()
    }
}

struct LaneSink<'l> {
    state: &'l LaneState,
}

impl ResponseSink for LaneSink<'_> {
    fn head(&mut self, exchange: &Exchange, head: &Head<'_>) {
        let mut collected = self.state.collecting.borrow_mut();
        if collected.number != exchange.ticket.request as u64 {
            return;
        }
        collected.status = head.status;
        let all = collected.all_headers;
        // What the jar and redirects read; the rest only when a check or
        // an extractor reads them: each kept header is two new strings.
        let kept = |name: &[u8]| {
            all || name.eq_ignore_ascii_case(b"set-cookie")
                || name.eq_ignore_ascii_case(b"location")
        };
        collected.headers = head
            .headers
            .iter()
            .filter(|h| kept(h.name))
            .map(|h| {
                (
                    String::from_utf8_lossy(h.name).to_ascii_lowercase(),
                    String::from_utf8_lossy(h.value).into_owned(),
                )
            })
            .collect();
    }

    fn body(&mut self, exchange: &Exchange, chunk: &[u8]) {
        let mut collected = self.state.collecting.borrow_mut();
        if collected.number != exchange.ticket.request as u64 {
            return;
        }
        let room = MAX_KEPT_BODY.saturating_sub(collected.body.len());
        collected
            .body
            .extend_from_slice(&chunk[..chunk.len().min(room)]);
    }

    fn end(&mut self, exchange: &Exchange, end: End<'_>) {
        let number = exchange.ticket.request as u64;
        let done = Instant::now();
        let outcome = match end {
            End::Response(response) => {
                let collected = std::mem::take(&mut *self.state.collecting.borrow_mut());
                let (headers, body) = if collected.number == number {
                    (collected.headers, collected.body)
                } else {
                    Default::default()
                };
                Outcome::Response {
                    status: response.status,
                    headers,
                    body,
                    sent: exchange.sent,
                    done,
                }
            }
            End::Failed(kind) => Outcome::Failed {
                kind,
                sent: Some(exchange.sent),
                done,
            },
        };
        self.state.finish(number, outcome);
    }
}
