//! A virtual user: its variables, its cookie jar, its connections (one
//! lane per origin), and one iteration of its scenario's steps at a time.
//! This is where a step's request is made, sent, followed through its
//! redirects, checked, mined for variables and recorded.

use crate::iteration_values::IterationValues;
use crate::lane::{self, LaneState, Outcome, Outgoing};
use crate::origin::OriginKey;
use crate::redirect;
use crate::render::{self, Rendered};
use crate::response::Response;
use crate::suite::{ScenarioSpec, StepSpec};
use crate::thread::ThreadContext;
use cookie_store::CookieStore;
use futures_util::future::LocalBoxFuture;
use futures_util::stream::{FuturesUnordered, StreamExt};
use loadgen_core::error_kind::ErrorKind;
use loadgen_core::histogram;
use loadgen_core::plan::Timeouts;
use loadgen_core::ticket::Ticket;
use std::borrow::Cow;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::rc::Rc;
use std::task::Poll;
use std::time::{Duration, Instant};

/// How an iteration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IterationEnd {
    Completed,
    /// A step could not go on (a request error, a failed check marked
    /// `abort_on_failure`, a variable without a value).
    Aborted,
}

pub struct Vu<'t> {
    /// From 1, unique in the run (k6's `__VU`).
    pub id: u64,
    /// The next iteration's number, from 0 (k6's `__ITER`).
    pub iteration: u64,
    pub scenario_index: usize,
    pub(crate) thread: &'t ThreadContext<'t>,
    pub(crate) scenario: &'t ScenarioSpec,
    pub(crate) variables: Vec<Option<String>>,
    jar: CookieStore,
    lanes: Vec<Rc<LaneState>>,
    /// The lanes' connections: polled whenever the user waits.
    connections: FuturesUnordered<LocalBoxFuture<'t, ()>>,
    /// The row of each feeder this iteration reads.
    pub(crate) rows: Vec<usize>,
    /// Keep each step's response for the caller ([`crate::step_session`]);
    /// a scenario run reads none, and copies none.
    pub(crate) keep_responses: bool,
    pub(crate) last: Option<StepOutcome>,
}

/// How a kept step ended ([`Vu::keep_responses`]).
#[derive(Clone, Debug)]
pub enum StepOutcome {
    Response {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        /// Where the last request of its redirect chain went.
        url: String,
        redirects: u32,
        /// From the chain's first send to its last response's end.
        took: Duration,
    },
    Failed(ErrorKind),
}

impl<'t> Vu<'t> {
    pub fn new(id: u64, scenario_index: usize, thread: &'t ThreadContext<'t>) -> Vu<'t> {
        let suite = thread.suite;
        thread.metrics.borrow_mut().vu_started(scenario_index);
        Vu {
            id,
            iteration: 0,
            scenario_index,
            thread,
            scenario: &suite.scenarios[scenario_index],
            variables: vec![None; suite.variables.len()],
            jar: CookieStore::new(),
            lanes: Vec::new(),
            connections: FuturesUnordered::new(),
            rows: suite
                .feeders
                .iter()
                .map(|f| f.row_for(id, &suite.stripe))
                .collect(),
            keep_responses: false,
            last: None,
        }
    }

    /// Runs one iteration that should have started at `intended`
    /// (`scheduled`: by an arrival-rate executor's schedule; otherwise
    /// `intended` is now, as the caller just read it).
    pub async fn iterate(&mut self, intended: Instant, scheduled: bool) -> IterationEnd {
        let suite = self.thread.suite;
        let started = if scheduled { Instant::now() } else { intended };
        // How late the iteration is: every step's corrected time carries it.
        let lag = started.saturating_duration_since(intended);
        for (feeder, row) in suite.feeders.iter().zip(self.rows.iter_mut()) {
            if feeder.order != crate::feeder::Order::PerVu {
                *row = feeder.row_for(self.id, &suite.stripe);
            }
        }
        if suite.clear_cookies_each_iteration {
            self.jar.clear();
        }
        let mut end = IterationEnd::Completed;
        for (index, step) in self.scenario.steps.iter().enumerate() {
            // Under a schedule a step should have started as much earlier
            // as the iteration started late; otherwise it starts when sent.
            let step_intended =
                scheduled.then(|| Instant::now().checked_sub(lag).unwrap_or(intended));
            if !self
                .step(step, step_intended, scheduled && index == 0)
                .await
            {
                end = IterationEnd::Aborted;
                break;
            }
            let pause = step.think_time.pick();
            if !pause.is_zero() {
                self.wait(tokio::time::sleep(pause)).await;
            }
        }
        let took = Instant::now().saturating_duration_since(intended);
        histogram::record(
            &mut self.thread.metrics.borrow_mut().iteration_duration,
            took.as_micros() as u64,
        );
        self.iteration += 1;
        end
    }

    /// The values its templates read now.
    fn values(&self) -> IterationValues<'_> {
        IterationValues {
            vu: self.id,
            iteration: self.iteration,
            scenario: &self.scenario.name,
            variables: &self.variables,
            rows: &self.rows,
            feeders: &self.thread.suite.feeders,
        }
    }

    /// The user's cookies, to carry them to another user
    /// ([`crate::step_session`]: one user per step, one jar per session).
    pub(crate) fn swap_jar(&mut self, jar: &mut CookieStore) {
        std::mem::swap(&mut self.jar, jar);
    }

    /// Runs `future` while the user's connections go on working.
    pub async fn wait<F: Future>(&mut self, future: F) -> F::Output {
        let mut future = pin!(future);
        let connections = &mut self.connections;
        poll_fn(|cx| {
            while let Poll::Ready(Some(())) = connections.poll_next_unpin(cx) {}
            future.as_mut().poll(cx)
        })
        .await
    }

    /// One step; `false` when the iteration cannot go on.
    /// `intended`: when the step should have started, under a schedule;
    /// `first_scheduled`: it is the first step of a scheduled iteration.
    async fn step(
        &mut self,
        step: &'t StepSpec,
        intended: Option<Instant>,
        first_scheduled: bool,
    ) -> bool {
        let rendered = match render::request(step, &mut self.values()) {
            Ok(rendered) => rendered,
            Err(why) => {
                // Nothing was sent: the step errored before it started.
                let mut metrics = self.thread.metrics.borrow_mut();
                let recorder = &mut metrics.steps[step.slot].recorder;
                recorder.note_error(ErrorKind::Other, || format!("step '{}': {why}", step.name));
                recorder.requests_not_started(1, ErrorKind::Other);
                return false;
            }
        };
        let Rendered {
            mut url,
            mut request,
        } = rendered;
        let mut in_flight = InFlight {
            thread: self.thread,
            slot: step.slot,
            intended,
            first_sent: None,
            handed: None,
        };
        let mut redirects: u32 = 0;
        let (status, headers, body, done) = loop {
            if step.cookies {
                render::cookie_header(&mut request, &self.jar, &url);
            }
            let now = Instant::now();
            let outgoing = Outgoing {
                request: request.clone(),
                wants: step.wants,
                all_headers: step.all_headers,
                intended: match (in_flight.first_sent, intended) {
                    (None, Some(intended)) => intended,
                    _ => now,
                },
                scheduled: first_scheduled && in_flight.first_sent.is_none(),
            };
            let outcome = self
                .exchange(&url, outgoing, step.timeout, &mut in_flight.handed, now)
                .await;
            in_flight.handed = None;
            match outcome {
                Outcome::Failed {
                    kind,
                    sent,
                    done: _,
                } => {
                    let first_sent = in_flight.settle();
                    let mut metrics = self.thread.metrics.borrow_mut();
                    let recorder = &mut metrics.steps[step.slot].recorder;
                    match first_sent.or(sent) {
                        Some(sent) => {
                            recorder.request_started(&ticket(intended, sent), sent);
                            recorder.request_error(kind, sent);
                        }
                        None => recorder.requests_not_started(1, kind),
                    }
                    metrics.steps[step.slot].redirects += u64::from(redirects);
                    if self.keep_responses {
                        self.last = Some(StepOutcome::Failed(kind));
                    }
                    return false;
                }
                Outcome::Response {
                    status,
                    headers,
                    body,
                    sent,
                    done,
                } => {
                    in_flight.first_sent.get_or_insert(sent);
                    if step.cookies {
                        for value in headers.iter().filter(|(n, _)| n == "set-cookie") {
                            let _ = self.jar.parse(&value.1, &url);
                        }
                    }
                    if redirects < step.follow_redirects {
                        if let Some(next) = redirect::follow(status, &headers, &url, &mut request) {
                            redirects += 1;
                            url = Cow::Owned(next);
                            continue;
                        }
                    }
                    break (status, headers, body, done);
                }
            }
        };
        let sent = in_flight.settle().expect("a response was sent for");
        let response = Response::new(status, headers, body);
        if self.keep_responses {
            self.last = Some(StepOutcome::Response {
                status,
                headers: response.headers.clone(),
                body: response.body.clone(),
                url: url.to_string(),
                redirects,
                took: done.saturating_duration_since(sent),
            });
        }
        let mut metrics = self.thread.metrics.borrow_mut();
        let step_metrics = &mut metrics.steps[step.slot];
        step_metrics.redirects += u64::from(redirects);
        let ticket = ticket(intended, sent);
        step_metrics.recorder.request_started(&ticket, sent);
        step_metrics.recorder.response(status, &ticket, sent, done);
        drop(metrics);

        let mut failed = false;
        let mut values = self.values();
        let mut outcomes = Vec::with_capacity(step.checks.len());
        for (slot, check) in &step.checks {
            let holds = check.holds(&response, &mut values);
            failed |= !holds;
            outcomes.push((*slot, holds));
        }
        let mut extracted = Vec::with_capacity(step.extract.len());
        for (slot, extractor) in &step.extract {
            extracted.push((*slot, extractor.from(&response)));
        }
        let mut metrics = self.thread.metrics.borrow_mut();
        for (slot, holds) in outcomes {
            metrics.check(slot, holds);
        }
        for (slot, value) in extracted {
            if value.is_none() {
                metrics.steps[step.slot].extraction_failures += 1;
            }
            // A failed extraction leaves no stale value from an earlier iteration.
            self.variables[slot] = value;
        }
        !(failed && step.abort_on_failure)
    }

    /// Sends one request to `url`'s origin and waits for how it ends;
    /// `handed` tells, while it waits, which lane has the request (handed
    /// to it at `now`).
    async fn exchange(
        &mut self,
        url: &url::Url,
        outgoing: Outgoing,
        timeout: Duration,
        handed: &mut Option<Handed>,
        now: Instant,
    ) -> Outcome {
        let lane = match self.lane(url) {
            Ok(lane) => lane,
            Err((kind, why)) => {
                let mut recorder = self.thread.recorder.borrow_mut();
                recorder.note_error(kind, || why);
                recorder.requests_not_started(1, kind);
                return Outcome::Failed {
                    kind,
                    sent: None,
                    done: Instant::now(),
                };
            }
        };
        lane.timeouts.set(Timeouts {
            request: Some(timeout),
            ..Timeouts::default()
        });
        let number = lane.queue(outgoing);
        *handed = Some(Handed {
            lane: lane.clone(),
            number,
            at: now,
        });
        let mut connected_for_it = false;
        let thread = self.thread;
        let connections = &mut self.connections;
        poll_fn(|cx| {
            while let Poll::Ready(Some(())) = connections.poll_next_unpin(cx) {}
            if let Poll::Ready(outcome) = lane.poll_outcome(number, cx) {
                return Poll::Ready(outcome);
            }
            if lane.needs_connection() && lane.still_queued(number) {
                if connected_for_it {
                    // A connection made for this request ended before taking it.
                    let mut recorder = thread.recorder.borrow_mut();
                    recorder.note_error(ErrorKind::Protocol, || {
                        "the connection closed before any request".into()
                    });
                    recorder.requests_not_started(1, ErrorKind::Protocol);
                    lane.take_queued();
                    return Poll::Ready(Outcome::Failed {
                        kind: ErrorKind::Protocol,
                        sent: None,
                        done: Instant::now(),
                    });
                }
                connected_for_it = true;
                let client = thread.next_client();
                connections.push(Box::pin(lane::run_connection(lane.clone(), thread, client)));
                cx.waker().wake_by_ref();
            }
            Poll::Pending
        })
        .await
    }

    fn lane(&mut self, url: &url::Url) -> Result<Rc<LaneState>, (ErrorKind, String)> {
        if let Some(lane) = self.lanes.iter().find(|l| l.origin.key.matches(url)) {
            return Ok(lane.clone());
        }
        let origin = self.thread.origins.get(&OriginKey::of(url))?;
        let lane = LaneState::new(origin);
        self.lanes.push(lane.clone());
        Ok(lane)
    }

    /// Closes the user's connections politely and waits for them to end.
    /// (Dropped instead, a user's connections end at once.)
    pub async fn finish(mut self) {
        for lane in &self.lanes {
            lane.close();
        }
        while self.connections.next().await.is_some() {}
    }
}

impl Drop for Vu<'_> {
    fn drop(&mut self) {
        self.thread
            .metrics
            .borrow_mut()
            .vu_ended(self.scenario_index);
    }
}

/// A step's ticket: timed from its intended start under a schedule, else from its send.
fn ticket(intended: Option<Instant>, sent: Instant) -> Ticket {
    Ticket {
        request: 0,
        recorded: true,
        intended: intended.unwrap_or(sent),
        scheduled: intended.is_some(),
    }
}

/// A lane's request, as the step waiting for it knows it.
struct Handed {
    lane: Rc<LaneState>,
    number: u64,
    at: Instant,
}

/// A step's request until the step records how it ended. When the step is
/// dropped first (its iteration interrupted at the end of its executor's
/// time), a request that went out counts as started and not done, as
/// h2load counts a request in flight when a run ends: every started
/// request stays counted.
struct InFlight<'t> {
    thread: &'t ThreadContext<'t>,
    slot: usize,
    intended: Option<Instant>,
    /// When the chain's first request went out, once one has.
    first_sent: Option<Instant>,
    handed: Option<Handed>,
}

impl InFlight<'_> {
    /// The step records its own ending: nothing left for the drop.
    fn settle(&mut self) -> Option<Instant> {
        self.handed = None;
        self.first_sent.take()
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let taken = self
            .handed
            .as_ref()
            .filter(|h| !h.lane.still_queued(h.number))
            .map(|h| h.at);
        if let Some(sent) = self.first_sent.or(taken) {
            let mut metrics = self.thread.metrics.borrow_mut();
            metrics.steps[self.slot]
                .recorder
                .request_started(&ticket(self.intended, sent), sent);
        }
    }
}
