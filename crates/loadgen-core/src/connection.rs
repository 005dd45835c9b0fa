//! One connection at work: the layer between a client and its protocol's
//! driver, the same for every protocol. It takes requests from the source
//! while the `-m` window and the driver allow, times them from their send,
//! applies `-T`, `-N` and `--request-timeout`, and when the connection is
//! lost fails whatever was in flight, once. Bytes, the first byte and each
//! request's end reach the recorder through [`Events`].

use crate::driver::{Driver, Lost};
use crate::error_kind::ErrorKind;
use crate::events::{ClientTally, Events, Exchange, LinkState, ResponseSink};
use crate::plan::Timeouts;
use crate::recorder::Recorder;
use crate::request::RequestSource;
use crate::ticket::Phase;
use crate::timer::{any_passed, connection_deadlines, DeadlineTimer};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

/// Why a connection's run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectionEnd {
    /// The source has nothing more and nothing is in flight.
    Finished,
    /// The connection cannot carry more requests; what was in flight was counted.
    Lost,
}

/// What a connection shares with the rest of its worker thread.
#[derive(Clone, Copy)]
pub struct Shared<'w> {
    pub recorder: &'w RefCell<Recorder>,
    pub phase: &'w Cell<Phase>,
    /// Read at every poll: a front end that sends one request at a time
    /// may set each request's own (a scenario step's timeout).
    pub timeouts: &'w Cell<Timeouts>,
    /// `-m`: requests in flight at most.
    pub depth: usize,
}

/// Runs `driver` on one connection until `source` is done or the
/// connection is lost. `connect_started` is when the connection attempt
/// began: the first byte is timed from there.
///
/// A named future, not an `async fn`: an `async fn` keeps room for its
/// arguments beside the state it moves them into, and this future lives
/// inside each client's for the whole run (ten thousand of them at
/// `-c 10000`).
pub fn run<'c, S: RequestSource>(
    driver: Box<dyn Driver + 'c>,
    source: &'c mut S,
    sink: Option<&'c mut dyn ResponseSink>,
    shared: Shared<'c>,
    tally: &'c mut ClientTally,
    connect_started: Instant,
) -> ConnectionRun<'c, S> {
    ConnectionRun {
        _open: OpenConnection::new(shared.recorder),
        running: Running {
            driver,
            source,
            sink,
            shared,
            tally,
            link: LinkState::new(connect_started),
            timer: DeadlineTimer::default(),
        },
    }
}

/// One connection's run: see [`run`].
pub struct ConnectionRun<'c, S> {
    _open: OpenConnection<'c>,
    running: Running<'c, S>,
}

impl<S: RequestSource> Future for ConnectionRun<'_, S> {
    type Output = ConnectionEnd;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        // Nothing in it is pinned: the driver is boxed, the rest are
        // references and plain values.
        self.get_mut().running.poll(cx)
    }
}

/// Counts the connection as open for as long as it runs: also when a
/// timed run's end drops it mid-flight.
struct OpenConnection<'w>(&'w RefCell<Recorder>);

impl<'w> OpenConnection<'w> {
    fn new(recorder: &'w RefCell<Recorder>) -> Self {
        recorder.borrow_mut().open_connections += 1;
        OpenConnection(recorder)
    }
}

impl Drop for OpenConnection<'_> {
    fn drop(&mut self) {
        self.0.borrow_mut().open_connections -= 1;
    }
}

struct Running<'c, S> {
    driver: Box<dyn Driver + 'c>,
    source: &'c mut S,
    sink: Option<&'c mut dyn ResponseSink>,
    shared: Shared<'c>,
    tally: &'c mut ClientTally,
    link: LinkState,
    timer: DeadlineTimer,
}

impl<S: RequestSource> Running<'_, S> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<ConnectionEnd> {
        loop {
            self.start_requests(cx);
            if self.driver.in_flight() == 0 {
                if self.driver.is_closing() {
                    return Poll::Ready(ConnectionEnd::Lost);
                }
                if !self.source.has_more() {
                    return Poll::Ready(ConnectionEnd::Finished);
                }
            }
            let (driver, mut events) = self.parts();
            match driver.poll(cx, &mut events) {
                Poll::Ready(Ok(())) => continue,
                Poll::Ready(Err(lost)) => return Poll::Ready(self.lose(lost)),
                Poll::Pending => {}
            }
            match self.poll_timeouts(cx) {
                Poll::Ready(Some(end)) => return Poll::Ready(end),
                // Requests timed out: their resets are waiting to be written.
                Poll::Ready(None) => continue,
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// Starts requests while the source has one due, the `-m` window has
    /// room and the driver takes one.
    fn start_requests(&mut self, cx: &mut Context<'_>) {
        while self.driver.in_flight() < self.shared.depth && self.driver.can_start() {
            // The send time: raw latency counts from here. One read of the
            // clock serves the schedule too (a closed-model request is due
            // when it is sent).
            let sent = Instant::now();
            let Poll::Ready(Some(next)) = self.source.poll_next(cx, sent) else {
                break;
            };
            if next.ticket.recorded {
                self.shared
                    .recorder
                    .borrow_mut()
                    .request_started(&next.ticket, sent);
                self.tally.first_request.get_or_insert(sent);
            }
            let exchange = Exchange {
                ticket: next.ticket,
                sent,
                wants: next.wants,
            };
            self.driver.start(next.request, exchange);
        }
    }

    /// `Ready(Some(end))`: the connection timed out. `Ready(None)`:
    /// requests timed out and the connection goes on.
    fn poll_timeouts(&mut self, cx: &mut Context<'_>) -> Poll<Option<ConnectionEnd>> {
        let timeouts = self.shared.timeouts.get();
        if !timeouts.any_on_connections() {
            // A benchmark without timeouts pays nothing for them per request.
            return Poll::Pending;
        }
        let in_flight = self.driver.in_flight();
        let connection = connection_deadlines(
            &timeouts,
            in_flight > 0,
            self.link.last_activity,
            self.link.connect_started,
        );
        let request = timeouts
            .request
            .and_then(|limit| Some(self.driver.oldest_sent()? + limit));
        if self
            .timer
            .poll(cx, connection.into_iter().chain([request]))
            .is_pending()
        {
            return Poll::Pending;
        }
        let now = Instant::now();
        if any_passed(connection, now) {
            let lost = Lost::new(
                ErrorKind::Timeout,
                format!("connection timed out with {in_flight} request(s) in flight"),
            );
            return Poll::Ready(Some(self.lose(lost)));
        }
        let (Some(limit), Some(_)) = (timeouts.request, request) else {
            // Only the request deadline is left to have passed.
            cx.waker().wake_by_ref();
            return Poll::Pending;
        };
        // Everything sent at least `limit` ago, the oldest request among them.
        let (driver, mut events) = self.parts();
        match driver.time_out(now - limit, &mut events) {
            Ok(()) => Poll::Ready(None),
            Err(lost) => Poll::Ready(Some(self.lose(lost))),
        }
    }

    /// The connection is over: everything in flight ends with `lost.kind`.
    /// A protocol error with nothing in flight fails no request, and is
    /// counted apart so that it is not lost in a silent reconnect.
    fn lose(&mut self, lost: Lost) -> ConnectionEnd {
        let (driver, mut events) = self.parts();
        if driver.in_flight() > 0 {
            events.note_error(lost.kind, || lost.message);
        } else if lost.kind == ErrorKind::Protocol {
            events.error_between_requests(|| lost.message);
        }
        driver.take_in_flight(&mut |exchange| events.failed(&exchange, lost.kind, String::new));
        ConnectionEnd::Lost
    }
}

impl<'c, S> Running<'c, S> {
    /// The driver, and the shared layer as the driver reports to it.
    fn parts(&mut self) -> (&mut (dyn Driver + 'c), Events<'_>) {
        let inactivity_watched = self.shared.timeouts.get().connection_inactivity.is_some();
        let events = Events {
            recorder: self.shared.recorder,
            phase: self.shared.phase,
            link: &mut self.link,
            tally: &mut *self.tally,
            sink: self
                .sink
                .as_mut()
                .map(|sink| &mut **sink as &mut dyn ResponseSink),
            inactivity_watched,
        };
        (self.driver.as_mut(), events)
    }
}

impl<S> Drop for Running<'_, S> {
    fn drop(&mut self) {
        // Runs on every end, a timed run's cancellation included.
        let (driver, mut events) = self.parts();
        driver.close(&mut events);
    }
}
