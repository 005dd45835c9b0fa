//! Adding a protocol takes one module and one registration: this file is
//! that module, a protocol that answers every request from memory, and the
//! `with` call in the test is the registration. Everything else (the `-m`
//! window, the recorder, byte counts, the client's rate) comes from the
//! layer every protocol shares.

use loadgen_core::driver::{Driver, Lost, OpenContext, Prepared, Protocol};
use loadgen_core::events::{Events, Exchange, Response};
use loadgen_core::plan::{Cleartext, Mode, Plan, PlanInput};
use loadgen_core::plan_error::PlanError;
use loadgen_core::protocols::Protocols;
use loadgen_core::request::{Request, RequestRef};
use loadgen_core::transport::{Carrier, Link};
use loadgen_core::{Run, RunOptions};
use std::collections::VecDeque;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

const BODY: &[u8] = b"from memory\n";

/// The protocol: runs in-process, named `memory` where h2load's `-p` names
/// a cleartext protocol.
struct Memory;

impl Protocol for Memory {
    fn alpn(&self) -> &'static str {
        "x-memory"
    }

    fn cleartext_name(&self) -> Option<&'static str> {
        Some("memory")
    }

    fn carrier(&self) -> Carrier {
        Carrier::InProcess
    }

    fn prepare(&self, _plan: &Plan, requests: &[Request]) -> Result<Box<dyn Prepared>, PlanError> {
        // Its wire form of the run's requests: their paths.
        Ok(Box::new(Paths(
            requests.iter().map(|r| r.path.clone()).collect(),
        )))
    }
}

struct Paths(Vec<String>);

impl Prepared for Paths {
    fn open<'a>(&'a self, link: Link, _context: OpenContext<'a>) -> Box<dyn Driver + 'a> {
        assert!(matches!(link, Link::InProcess));
        Box::new(Answers {
            paths: self,
            in_flight: VecDeque::new(),
        })
    }
}

/// One "connection": each request started is answered at the next poll.
struct Answers<'a> {
    paths: &'a Paths,
    in_flight: VecDeque<(Exchange, u16)>,
}

impl Driver for Answers<'_> {
    fn can_start(&self) -> bool {
        true
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        let path = match request {
            RequestRef::Listed(index) => self.paths.0[index].as_str(),
            RequestRef::Made(request) => request.path.as_str(),
        };
        let status = if path == "/missing" { 404 } else { 200 };
        self.in_flight.push_back((exchange, status));
    }

    fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    fn is_closing(&self) -> bool {
        false
    }

    fn poll(&mut self, _cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>> {
        if self.in_flight.is_empty() {
            return Poll::Pending;
        }
        let now = Instant::now();
        for (exchange, status) in self.in_flight.drain(..) {
            events.read(BODY.len(), now);
            let response = Response {
                status,
                data_bytes: BODY.len() as u64,
                ..Response::default()
            };
            events.complete(&exchange, &response, now);
        }
        Poll::Ready(Ok(()))
    }

    fn oldest_sent(&self) -> Option<Instant> {
        self.in_flight.front().map(|(e, _)| e.sent)
    }

    fn time_out(&mut self, _cutoff: Instant, _events: &mut Events<'_>) -> Result<(), Lost> {
        Ok(())
    }

    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        for (exchange, _) in self.in_flight.drain(..) {
            each(exchange);
        }
    }
}

#[test]
fn a_registered_protocol_runs_through_the_shared_layer() {
    let plan = PlanInput {
        // Nothing listens here: an in-process protocol connects to nothing.
        uris: vec!["http://127.0.0.1:9/".into(), "/missing".into()],
        cleartext: Cleartext::Named("memory".into()),
        clients: 4,
        threads: 2,
        max_concurrent_streams: 8,
        mode: Mode::Requests(1_000),
        ..PlanInput::default()
    }
    .build()
    .expect("a valid plan");
    let protocols = Protocols::standard().with(Arc::new(Memory));
    let result = Run::prepare(&plan, &protocols)
        .expect("the run is ready")
        .execute(RunOptions::default())
        .expect("the run ends");
    let recorder = &result.recorder;
    assert_eq!(recorder.outcomes.started, 1_000);
    assert_eq!(recorder.outcomes.done(), 1_000);
    // Each client alternates the two paths.
    assert_eq!(recorder.status_codes[200], 500);
    assert_eq!(recorder.status_codes[404], 500);
    assert_eq!(recorder.bytes.data, 1_000 * BODY.len() as u64);
    assert_eq!(recorder.bytes.total, 1_000 * BODY.len() as u64);
    assert_eq!(recorder.connections, 4);
    assert_eq!(recorder.application_protocol, Some("memory"));
    assert_eq!(recorder.request_time().len(), 1_000);
    assert_eq!(recorder.first_byte_time.len(), 4);
    assert_eq!(recorder.clients.len(), 4);
}

#[test]
fn an_unregistered_protocol_is_refused_before_the_run() {
    let plan = PlanInput {
        uris: vec!["http://127.0.0.1:9/".into()],
        cleartext: Cleartext::Named("memory".into()),
        ..PlanInput::default()
    }
    .build()
    .expect("a valid plan");
    let error = Run::prepare(&plan, &Protocols::standard())
        .err()
        .expect("no protocol named memory");
    assert!(error.to_string().contains("memory"), "{error}");
}

/// A protocol whose driver panics: the run ends with an error and the
/// caller goes on, as an FFI boundary needs (test builds unwind, like the
/// library builds; see docs/architecture.md).
struct Panicking;

impl Protocol for Panicking {
    fn alpn(&self) -> &'static str {
        "x-panicking"
    }

    fn cleartext_name(&self) -> Option<&'static str> {
        Some("panicking")
    }

    fn carrier(&self) -> Carrier {
        Carrier::InProcess
    }

    fn prepare(&self, _plan: &Plan, _requests: &[Request]) -> Result<Box<dyn Prepared>, PlanError> {
        Ok(Box::new(PanicOnOpen))
    }
}

struct PanicOnOpen;

impl Prepared for PanicOnOpen {
    fn open<'a>(&'a self, _link: Link, _context: OpenContext<'a>) -> Box<dyn Driver + 'a> {
        panic!("a driver that cannot be opened")
    }
}

#[test]
fn a_panicking_driver_ends_the_run_with_an_error() {
    let plan = PlanInput {
        uris: vec!["http://127.0.0.1:9/".into()],
        cleartext: Cleartext::Named("panicking".into()),
        ..PlanInput::default()
    }
    .build()
    .expect("a valid plan");
    let protocols = Protocols::standard().with(Arc::new(Panicking));
    let outcome = Run::prepare(&plan, &protocols)
        .expect("the run is ready")
        .execute(RunOptions::default());
    let error = outcome.err().expect("the run fails");
    assert!(error.contains("a driver that cannot be opened"), "{error}");
}
