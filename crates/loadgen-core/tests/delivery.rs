//! Requests that ask for more than status and sizes ([`Wants`]) get their
//! response heads and bodies, over every standard protocol, through the
//! same drivers and shared layer the benchmark uses: what a scenario
//! runner builds on.

use loadgen_core::connection::{self, ConnectionEnd, Shared};
use loadgen_core::connection_info::ClientId;
use loadgen_core::connections::Connections;
use loadgen_core::driver::OpenContext;
use loadgen_core::events::{ClientTally, End, Exchange, Head, ResponseSink};
use loadgen_core::plan::{Cleartext, Plan, PlanInput, TlsOptions};
use loadgen_core::protocols::Protocols;
use loadgen_core::recorder::Recorder;
use loadgen_core::request::{requests_of, Next, Request, RequestRef, RequestSource, Wants};
use loadgen_core::ticket::{Phase, Ticket};
use loadgen_target::{Target, TargetConfig};
use std::cell::{Cell, RefCell};
use std::task::{Context, Poll};
use std::time::Instant;

/// Sends its requests one after the other, each once the previous one
/// ended (the sink clears `waiting`).
struct OneByOne<'a> {
    requests: Vec<(Request, Wants)>,
    next: usize,
    waiting: &'a Cell<bool>,
}

impl RequestSource for OneByOne<'_> {
    fn poll_next(&mut self, _cx: &mut Context<'_>, now: Instant) -> Poll<Option<Next<'_>>> {
        if self.waiting.get() {
            return Poll::Pending;
        }
        let Some((request, wants)) = self.requests.get(self.next) else {
            return Poll::Ready(None);
        };
        self.waiting.set(true);
        let ticket = Ticket {
            request: self.next,
            recorded: true,
            intended: now,
            scheduled: false,
        };
        self.next += 1;
        Poll::Ready(Some(Next {
            ticket,
            request: RequestRef::Made(request),
            wants: *wants,
        }))
    }

    fn has_more(&self) -> bool {
        self.next < self.requests.len() || self.waiting.get()
    }
}

/// What came back for each request, by its ticket's number.
#[derive(Default, Debug, Clone)]
struct Delivered {
    status: Option<u16>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    ended_with: Option<u16>,
}

struct Collect<'a> {
    delivered: Vec<Delivered>,
    source_waiting: &'a Cell<bool>,
}

impl ResponseSink for Collect<'_> {
    fn head(&mut self, exchange: &Exchange, head: &Head<'_>) {
        let slot = &mut self.delivered[exchange.ticket.request];
        slot.status = Some(head.status);
        slot.headers = head
            .headers
            .iter()
            .map(|h| {
                (
                    String::from_utf8_lossy(h.name).into_owned(),
                    String::from_utf8_lossy(h.value).into_owned(),
                )
            })
            .collect();
    }

    fn body(&mut self, exchange: &Exchange, chunk: &[u8]) {
        self.delivered[exchange.ticket.request]
            .body
            .extend_from_slice(chunk);
    }

    fn end(&mut self, exchange: &Exchange, end: End<'_>) {
        if let End::Response(response) = end {
            self.delivered[exchange.ticket.request].ended_with = Some(response.status);
        }
        self.source_waiting.set(false);
    }
}

/// Runs `requests` over one connection of `plan`'s protocol.
fn exchange_all(plan: &Plan, requests: Vec<(Request, Wants)>) -> Vec<Delivered> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let connections = Connections::prepare(plan, &Protocols::standard()).expect("connections");
        let negotiated = connections
            .connect(
                ClientId {
                    thread: 0,
                    index: 0,
                },
                None,
            )
            .await
            .expect("connected");
        let started = negotiated.started;
        let read_buffer = RefCell::new(Vec::new());
        let timeouts = Cell::new(plan.timeouts);
        let driver = negotiated.prepared.open(
            negotiated.connected.link,
            OpenContext {
                read_buffer: &read_buffer,
                headers_wanted: true,
                watch_idle: false,
                client: 0,
                issued_before: 0,
            },
        );
        let waiting = Cell::new(false);
        let mut collect = Collect {
            delivered: vec![Delivered::default(); requests.len()],
            source_waiting: &waiting,
        };
        let mut source = OneByOne {
            requests,
            next: 0,
            waiting: &waiting,
        };
        let recorder = RefCell::new(Recorder::new());
        let phase = Cell::new(Phase::Measuring);
        let shared = Shared {
            recorder: &recorder,
            phase: &phase,
            timeouts: &timeouts,
            depth: 1,
        };
        let mut tally = ClientTally::default();
        let end = connection::run(
            driver,
            &mut source,
            Some(&mut collect),
            shared,
            &mut tally,
            started,
        )
        .await;
        assert_eq!(end, ConnectionEnd::Finished);
        collect.delivered
    })
}

fn request(plan: &Plan, path: &str, body: Option<&'static [u8]>) -> Request {
    let mut request = requests_of(plan).remove(0);
    request.path = path.into();
    request.headers.push(("x-step".into(), "1".into()));
    if let Some(body) = body {
        request.method = "POST".into();
        request
            .headers
            .push(("content-length".into(), body.len().to_string()));
        request.body = Some(bytes::Bytes::from_static(body));
    }
    request
}

fn check(plan: &Plan) {
    let delivered = exchange_all(
        plan,
        vec![
            (request(plan, "/?s=20000", None), Wants::EVERYTHING),
            (request(plan, "/?status=404", None), Wants::EVERYTHING),
            (
                request(plan, "/", Some(b"a body to post")),
                Wants::EVERYTHING,
            ),
            (request(plan, "/?s=100", None), Wants::NOTHING),
        ],
    );
    let large = &delivered[0];
    assert_eq!(large.status, Some(200), "{large:?}");
    assert_eq!(large.body.len(), 20_000);
    assert!(
        large
            .headers
            .iter()
            .any(|(n, v)| n.eq_ignore_ascii_case("content-type") && v == "text/plain"),
        "{:?}",
        large.headers
    );
    assert!(large.headers.iter().all(|(n, _)| !n.starts_with(':')));
    assert_eq!(delivered[1].status, Some(404));
    assert_eq!(delivered[1].ended_with, Some(404));
    assert_eq!(delivered[2].body, b"hello, world\n");
    // Nothing is delivered to a request that wants nothing, but its end is.
    assert_eq!(delivered[3].status, None);
    assert!(delivered[3].body.is_empty());
    assert_eq!(delivered[3].ended_with, Some(200));
}

fn plan(uri: String, cleartext: Cleartext, alpn: &[&str]) -> Plan {
    PlanInput {
        uris: vec![uri],
        cleartext,
        alpn: alpn.iter().map(|p| p.to_string()).collect(),
        tls: TlsOptions {
            insecure: true,
            ..TlsOptions::default()
        },
        ..PlanInput::default()
    }
    .build()
    .expect("a valid plan")
}

fn target() -> Target {
    Target::start(TargetConfig {
        clear_addr: Some(([127, 0, 0, 1], 0).into()),
        tls_addr: Some(([127, 0, 0, 1], 0).into()),
        ..TargetConfig::default()
    })
    .expect("target")
}

#[test]
fn http1_delivers_heads_and_bodies() {
    let target = target();
    let uri = format!("http://{}/", target.clear_addr().unwrap());
    check(&plan(uri, Cleartext::Http1, &["http/1.1"]));
}

#[test]
fn h2c_delivers_heads_and_bodies() {
    let target = target();
    let uri = format!("http://{}/", target.clear_addr().unwrap());
    check(&plan(uri, Cleartext::H2c, &["h2"]));
}

#[test]
fn http2_over_tls_delivers_heads_and_bodies() {
    let target = target();
    let uri = format!("https://{}/", target.tls_addr().unwrap());
    check(&plan(uri, Cleartext::H2c, &["h2"]));
}

#[test]
fn http3_delivers_heads_and_bodies() {
    let target = target();
    let uri = format!("https://{}/", target.tls_addr().unwrap());
    check(&plan(uri, Cleartext::H2c, &["h3"]));
}
