//! Requests whose body is made for each call, around whichever protocol a
//! connection speaks (`Protocols::with_bodies`): `loadgen grpc` renders a
//! message template per call this way. The run's requests are prepared as
//! usual; each one started goes to the protocol's driver as a made request
//! with its own body (and `content-length`), numbered by its client.
//!
//! Made requests cost more than listed ones (HTTP/2 encodes their header
//! block per send), so only runs with per-call bodies take this path.

use crate::driver::{Driver, Lost, OpenContext, Prepared, Protocol};
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange};
use crate::plan::Plan;
use crate::plan_error::PlanError;
use crate::request::{Request, RequestRef};
use crate::transport::{Carrier, Link};
use crate::uri::Scheme;
use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

/// Which call a body is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    /// The client, from 0.
    pub client: usize,
    /// The call's number on its client, from 0.
    pub iteration: u64,
}

/// Makes each call's request body.
pub trait BodyMaker: Send + Sync {
    /// Writes the body of `call` into `out`, which is empty; `Err` fails
    /// that call (an `other` error) with the message.
    fn make(&self, call: Call, out: &mut Vec<u8>) -> Result<(), String>;
}

/// A protocol whose requests carry bodies made per call.
pub struct WithBodies {
    pub inner: Arc<dyn Protocol>,
    pub maker: Arc<dyn BodyMaker>,
}

impl Protocol for WithBodies {
    fn alpn(&self) -> &'static str {
        self.inner.alpn()
    }

    fn cleartext_name(&self) -> Option<&'static str> {
        self.inner.cleartext_name()
    }

    fn carrier(&self) -> Carrier {
        self.inner.carrier()
    }

    fn schemes(&self) -> &'static [Scheme] {
        self.inner.schemes()
    }

    fn prepare(&self, plan: &Plan, requests: &[Request]) -> Result<Box<dyn Prepared>, PlanError> {
        Ok(Box::new(PreparedBodies {
            inner: self.inner.prepare(plan, requests)?,
            requests: requests.to_vec(),
            maker: self.maker.clone(),
        }))
    }
}

struct PreparedBodies {
    inner: Box<dyn Prepared>,
    requests: Vec<Request>,
    maker: Arc<dyn BodyMaker>,
}

impl Prepared for PreparedBodies {
    fn open<'a>(&'a self, link: Link, context: OpenContext<'a>) -> Box<dyn Driver + 'a> {
        let (client, next_iteration) = (context.client, context.issued_before);
        Box::new(BodiesDriver {
            inner: self.inner.open(link, context),
            prepared: self,
            client,
            next_iteration,
            made: None,
            unmade: VecDeque::new(),
        })
    }
}

struct BodiesDriver<'a> {
    inner: Box<dyn Driver + 'a>,
    prepared: &'a PreparedBodies,
    client: usize,
    next_iteration: u64,
    /// The last request made, by its index among the run's requests: the
    /// next call to the same one only changes its body.
    made: Option<(usize, Request)>,
    /// Calls whose body could not be made, to fail at the next poll
    /// (`start` has no [`Events`]).
    unmade: VecDeque<(Exchange, String)>,
}

impl BodiesDriver<'_> {
    fn request(&mut self, index: usize) -> &mut Request {
        let fresh = !matches!(&self.made, Some((made, _)) if *made == index);
        if fresh {
            self.made = Some((index, self.prepared.requests[index].clone()));
        }
        &mut self.made.as_mut().expect("made above").1
    }
}

impl Driver for BodiesDriver<'_> {
    fn can_start(&self) -> bool {
        self.inner.can_start()
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        let RequestRef::Listed(index) = request else {
            return self.inner.start(request, exchange);
        };
        let call = Call {
            client: self.client,
            iteration: self.next_iteration,
        };
        self.next_iteration += 1;
        let mut body = Vec::new();
        if let Err(why) = self.prepared.maker.make(call, &mut body) {
            self.unmade.push_back((exchange, why));
            return;
        }
        let request = self.request(index);
        let length = body.len().to_string();
        match request
            .headers
            .iter_mut()
            .find(|(n, _)| n == "content-length")
        {
            Some(field) => field.1 = length,
            None => request.headers.push(("content-length".into(), length)),
        }
        request.body = Some(Bytes::from(body));
        let made = &self.made.as_ref().expect("made above").1;
        self.inner.start(RequestRef::Made(made), exchange);
    }

    fn in_flight(&self) -> usize {
        self.inner.in_flight() + self.unmade.len()
    }

    fn is_closing(&self) -> bool {
        self.inner.is_closing()
    }

    fn poll(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>> {
        if let Some((exchange, why)) = self.unmade.pop_front() {
            events.failed(&exchange, ErrorKind::Other, || why);
            return Poll::Ready(Ok(()));
        }
        self.inner.poll(cx, events)
    }

    fn oldest_sent(&self) -> Option<Instant> {
        // Unmade calls fail at the next poll, before any timeout.
        self.inner.oldest_sent()
    }

    fn time_out(&mut self, cutoff: Instant, events: &mut Events<'_>) -> Result<(), Lost> {
        self.inner.time_out(cutoff, events)
    }

    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        self.inner.take_in_flight(each);
        for (exchange, _) in self.unmade.drain(..) {
            each(exchange);
        }
    }

    fn close(&mut self, events: &mut Events<'_>) {
        self.inner.close(events);
    }
}
