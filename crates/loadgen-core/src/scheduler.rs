//! When requests start. Drivers pull tickets from their client's
//! [`Schedule`] whenever they have a free slot; the schedule decides whether
//! one is due. Four pacings:
//!
//! - closed model: a ticket whenever a slot is free (h2load's default);
//! - `--rps`: each client at most R per second (h2load's `--rps`);
//! - open model (`--rate`, ramps, stages): tickets due at times fixed in
//!   advance by the rate curve, shared by the clients of a thread, queued
//!   while every slot is busy (see [`arrivals`]);
//! - `--timing-script-file`: each client's requests at fixed offsets.
//!
//! A ticket carries its intended start, so latency can be measured from it
//! (coordinated-omission correction) as well as from the actual send.

pub mod alarms;
pub mod arrivals;

use crate::plan::Pacing;
use crate::profile::Profile;
use crate::request::{Next, RequestRef, RequestSource, Wants};
use crate::ticket::{Phase, Ticket};
use crate::timer::DeadlineTimer;
use alarms::Alarms;
use arrivals::{Arrivals, Take};
use std::cell::Cell;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// What every schedule on a worker thread shares.
pub struct ScheduleContext<'a> {
    /// Set by the runner's clock, read by every client.
    pub phase: Cell<Phase>,
    pub pacing: &'a Pacing,
    /// The thread's open-model arrivals, when the pacing is open.
    pub arrivals: Option<Arrivals<'a>>,
    /// Precise wake-ups for `--timing-script-file`.
    pub alarms: Option<Alarms>,
    /// Closed model: how many clients are active over time (`--ramp-up-time`, `--stages`).
    pub active_clients: Option<&'a Profile>,
    /// Time zero of every curve and script offset.
    pub start: Instant,
}

/// One client's schedule.
pub struct Schedule<'a> {
    context: &'a ScheduleContext<'a>,
    /// The client's number across this machine's threads.
    client: usize,
    /// Its place in the whole run (all machines): clients join in this order.
    rank: usize,
    /// Requests left in count mode for client-paced runs; `None` otherwise.
    remaining: Option<u64>,
    /// The run's requests are sent in turn, cycling.
    next_request: usize,
    request_count: usize,
    issued: u64,
    /// `--rps`: the earliest start of the next request.
    next_allowed: Option<Instant>,
    timer: DeadlineTimer,
}

impl<'a> Schedule<'a> {
    pub fn new(
        context: &'a ScheduleContext<'a>,
        client: usize,
        requests: Option<u64>,
        request_count: usize,
    ) -> Self {
        // Open arrivals keep the count for the whole thread.
        let remaining = if context.arrivals.is_some() {
            None
        } else {
            requests
        };
        Schedule {
            context,
            client,
            rank: client,
            remaining,
            next_request: 0,
            request_count: request_count.max(1),
            issued: 0,
            next_allowed: None,
            timer: DeadlineTimer::default(),
        }
    }

    /// The next request to start: `Ready(None)` when there will be no more,
    /// `Pending` (with a wake-up arranged) when the next one is not due yet.
    /// `now` is the caller's clock reading, the time a request handed out
    /// is sent: what is due by then goes, and a closed-model request is
    /// intended for it.
    pub fn poll_ticket(&mut self, cx: &mut Context<'_>, now: Instant) -> Poll<Option<Ticket>> {
        let phase = self.context.phase.get();
        if phase == Phase::Stopped || self.remaining == Some(0) {
            return Poll::Ready(None);
        }
        if let Some(curve) = self.context.active_clients {
            let t = (now - self.context.start).as_secs_f64();
            if curve.level_at(t) <= self.rank as f64 {
                return match curve.time_above(self.rank as f64, t) {
                    Some(at) => {
                        self.sleep_until(cx, self.context.start + Duration::from_secs_f64(at))
                    }
                    None => Poll::Ready(None),
                };
            }
        }
        let (intended, scheduled) = match self.context.pacing {
            Pacing::Closed => (now, false),
            Pacing::PerClientRate { rps } => {
                let next = *self.next_allowed.get_or_insert(now);
                if next > now {
                    return self.sleep_until(cx, next);
                }
                // No catching up after a slow response: at most one interval of credit.
                let interval = Duration::from_secs_f64(1.0 / rps);
                self.next_allowed = Some(next.max(now - interval) + interval);
                (now, false)
            }
            Pacing::Open { .. } => {
                let arrivals = self
                    .context
                    .arrivals
                    .as_ref()
                    .expect("open pacing has arrivals");
                match arrivals.take(now) {
                    Take::Due(intended) => (intended, true),
                    Take::NotYet => {
                        arrivals.wait(self.client, cx.waker());
                        return Poll::Pending;
                    }
                    Take::Exhausted => return Poll::Ready(None),
                }
            }
            Pacing::Script { offsets } => {
                let Some(offset) = offsets.get(self.issued as usize) else {
                    return Poll::Ready(None);
                };
                let due = self.context.start + *offset;
                if due > now {
                    return match &self.context.alarms {
                        Some(alarms) => {
                            alarms.wake_at(self.client, due, cx.waker());
                            Poll::Pending
                        }
                        None => self.sleep_until(cx, due),
                    };
                }
                (due, true)
            }
        };
        if let Some(remaining) = &mut self.remaining {
            *remaining -= 1;
        }
        self.issued += 1;
        let request = self.next_request;
        self.next_request = (self.next_request + 1) % self.request_count;
        Poll::Ready(Some(Ticket {
            request,
            recorded: phase == Phase::Measuring,
            intended,
            scheduled,
        }))
    }

    fn sleep_until(&mut self, cx: &mut Context<'_>, at: Instant) -> Poll<Option<Ticket>> {
        match self.timer.poll(cx, [Some(at)]) {
            // Due now after all: the caller polls again at once.
            Poll::Ready(()) => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// Whether another ticket may still come.
    pub fn has_more(&self) -> bool {
        if self.context.phase.get() == Phase::Stopped || self.remaining == Some(0) {
            return false;
        }
        if let Some(curve) = self.context.active_clients {
            let t = self.context.start.elapsed().as_secs_f64();
            if curve.level_at(t) <= self.rank as f64
                && curve.time_above(self.rank as f64, t).is_none()
            {
                return false;
            }
        }
        match (self.context.pacing, &self.context.arrivals) {
            (Pacing::Script { offsets }, _) => (self.issued as usize) < offsets.len(),
            (_, Some(arrivals)) => !arrivals.exhausted(),
            _ => true,
        }
    }

    /// The client's number across this machine's threads.
    pub fn client(&self) -> usize {
        self.client
    }

    /// The client's place in the whole run when this machine runs a
    /// segment of it (it is the client's number otherwise).
    pub fn with_rank(mut self, rank: usize) -> Self {
        self.rank = rank;
        self
    }

    /// Tickets handed out so far.
    pub fn issued(&self) -> u64 {
        self.issued
    }

    /// Gives up on the requests not yet started (count mode); returns how many.
    pub fn abandon(&mut self) -> u64 {
        match self.remaining.replace(0) {
            Some(left) => left,
            None => match self.context.pacing {
                Pacing::Script { offsets } => (offsets.len() as u64).saturating_sub(self.issued),
                _ => 0,
            },
        }
    }
}

impl RequestSource for Schedule<'_> {
    fn poll_next(&mut self, cx: &mut Context<'_>, now: Instant) -> Poll<Option<Next<'_>>> {
        self.poll_ticket(cx, now).map(|ticket| {
            ticket.map(|ticket| Next {
                ticket,
                request: RequestRef::Listed(ticket.request),
                wants: Wants::NOTHING,
            })
        })
    }

    fn has_more(&self) -> bool {
        Schedule::has_more(self)
    }
}

/// Keeps `waker` in `slot` for the next wake-up; clones only a different one.
fn keep_waker(slot: &mut Option<Waker>, waker: &Waker) {
    match slot {
        Some(kept) => kept.clone_from(waker),
        None => *slot = Some(waker.clone()),
    }
}

#[cfg(test)]
mod tests;
