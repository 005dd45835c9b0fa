//! One gRPC call through the engine's own connection layer and drivers,
//! so that reflection reaches the server exactly as the run will: same
//! origin, TLS options, `-H` headers and protocol choice. loadgen-core has
//! no "send one request, give me the response" helper; this is the loop
//! its `tests/delivery.rs` runs, for a single request.

use bytes::Bytes;
use loadgen_core::connection::{self, ConnectionEnd, Shared};
use loadgen_core::connection_info::ClientId;
use loadgen_core::connections::Connections;
use loadgen_core::driver::OpenContext;
use loadgen_core::error_kind::ErrorKind;
use loadgen_core::events::{ClientTally, End, Exchange, Head, ResponseSink};
use loadgen_core::plan::{Load, Mode, Plan, PlanInput, Timeouts};
use loadgen_core::protocols::Protocols;
use loadgen_core::recorder::Recorder;
use loadgen_core::request::{requests_of, Next, Request, RequestRef, RequestSource, Wants};
use loadgen_core::ticket::{Phase, Ticket};
use std::cell::{Cell, RefCell};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The most a reflection response may hold: descriptors are small, and a
/// server sending more is not answering what was asked.
pub(crate) const MAX_RESPONSE: usize = 16 << 20;
/// How long one call may take, connecting included: reflection happens
/// before the run, where a hung server must not hang the CLI.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// What one call returned.
#[derive(Debug, Default)]
pub(crate) struct Reply {
    /// The call's status ([`loadgen_core::grpc::call_status`]).
    pub grpc_status: u16,
    /// The call's `grpc-message`, decoded, from its trailers or a
    /// Trailers-Only head (the engine keeps it for a status other than OK).
    pub grpc_message: Option<String>,
    pub body: Vec<u8>,
}

/// Makes calls; the reflection logic is tested with a fake one.
pub(crate) trait Caller {
    /// One call of the method at `path` with `body` (framed messages).
    fn call(&mut self, path: &str, body: Vec<u8>) -> Result<Reply, String>;
}

/// Calls over a fresh connection of the plan, one connection per call.
pub(crate) struct EngineCaller {
    plan: Plan,
}

impl EngineCaller {
    /// The plan's server and connection settings, for one call at a time.
    pub(crate) fn new(input: &PlanInput) -> Result<EngineCaller, String> {
        let mut input = input.clone();
        input.uris.truncate(1);
        input.grpc = true;
        input.method = Some("POST".into());
        input.body = None;
        input.clients = 1;
        input.threads = 1;
        input.max_concurrent_streams = 1;
        input.mode = Mode::Requests(1);
        input.load = Load::default();
        input.log_file = None;
        input.segment = None;
        input.timeouts = Timeouts {
            connect: Some(input.timeouts.connect.unwrap_or(TIMEOUT).min(TIMEOUT)),
            request: Some(TIMEOUT),
            connection_active: None,
            connection_inactivity: None,
        };
        let plan = input
            .build()
            .map_err(|e| format!("--reflect: {}", crate::one_line(&e.to_string())))?;
        Ok(EngineCaller { plan })
    }

    fn request(&self, path: &str, body: Vec<u8>) -> Request {
        let mut request = requests_of(&self.plan).remove(0);
        request.path = path.into();
        request.method = "POST".into();
        // Ours win over -H: the call is not a call without them.
        request.headers.retain(|(name, _)| {
            !matches!(
                name.as_str(),
                "content-type" | "te" | "content-length" | "grpc-encoding"
            )
        });
        request
            .headers
            .push(("content-type".into(), "application/grpc".into()));
        request.headers.push(("te".into(), "trailers".into()));
        request.body = Some(Bytes::from(body));
        request
    }
}

impl Caller for EngineCaller {
    fn call(&mut self, path: &str, body: Vec<u8>) -> Result<Reply, String> {
        let request = self.request(path, body);
        let plan = &self.plan;
        // A runtime of our own on a thread of our own: the caller may be
        // inside a runtime already, where blocking on another panics.
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| format!("--reflect: cannot start a runtime: {e}"))?;
                    runtime.block_on(async {
                        // The request timeout bounds the call once it is sent;
                        // this bounds connecting and a driver that never ends.
                        let limit = TIMEOUT + plan.timeouts.connect.unwrap_or(TIMEOUT);
                        tokio::time::timeout(limit, call_once(plan, &request))
                            .await
                            .unwrap_or_else(|_| {
                                Err(format!(
                                    "--reflect: no answer from the server within {}s",
                                    limit.as_secs()
                                ))
                            })
                    })
                })
                .join()
                .unwrap_or_else(|_| Err("--reflect: the call panicked".into()))
        })
    }
}

async fn call_once(plan: &Plan, request: &Request) -> Result<Reply, String> {
    let connections = Connections::prepare(plan, &Protocols::standard())
        .map_err(|e| format!("--reflect: {e}"))?;
    let client = ClientId {
        thread: 0,
        index: 0,
    };
    let negotiated = connections
        .connect(client, None)
        .await
        .map_err(|e| format!("--reflect: {}", crate::one_line(&e.message)))?;
    let started = negotiated.started;
    let read_buffer = RefCell::new(Vec::new());
    let timeouts = Cell::new(plan.timeouts);
    let driver = negotiated.prepared.open(
        negotiated.connected.link,
        OpenContext {
            read_buffer: &read_buffer,
            headers_wanted: false,
            watch_idle: false,
            client: 0,
            issued_before: 0,
        },
    );
    let mut source = Once {
        request: Some(request),
    };
    let mut collect = Collect::default();
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
    let failure = |kind: Option<ErrorKind>| {
        let recorder = recorder.borrow();
        let noted = match kind {
            Some(kind) => recorder.first_error[kind as usize].clone(),
            None => recorder.first_error.iter().flatten().next().cloned(),
        };
        let message = noted
            .or_else(|| recorder.first_between_requests.clone())
            .or_else(|| kind.map(|kind| kind.name().to_owned()))
            .unwrap_or_else(|| "the connection was lost".to_owned());
        format!("--reflect: the call failed: {}", crate::one_line(&message))
    };
    match collect.ended {
        Some(Ok(grpc_status)) if !collect.overflow => Ok(Reply {
            grpc_status,
            grpc_message: recorder
                .borrow()
                .grpc
                .as_ref()
                .and_then(|grpc| grpc.first_messages.get(&grpc_status).cloned()),
            body: collect.body,
        }),
        Some(Ok(_)) => Err(format!(
            "--reflect: the server sent more than {} MiB of descriptors",
            MAX_RESPONSE >> 20
        )),
        Some(Err(kind)) => Err(failure(Some(kind))),
        None if end == ConnectionEnd::Lost => Err(failure(None)),
        None => Err("--reflect: the call ended without a response".into()),
    }
}

/// The one request, once.
struct Once<'r> {
    request: Option<&'r Request>,
}

impl RequestSource for Once<'_> {
    fn poll_next(&mut self, _cx: &mut Context<'_>, now: Instant) -> Poll<Option<Next<'_>>> {
        Poll::Ready(self.request.take().map(|request| Next {
            ticket: Ticket {
                request: 0,
                recorded: true,
                intended: now,
                scheduled: false,
            },
            request: RequestRef::Made(request),
            wants: Wants {
                headers: false,
                body: true,
            },
        }))
    }

    fn has_more(&self) -> bool {
        self.request.is_some()
    }
}

#[derive(Default)]
struct Collect {
    body: Vec<u8>,
    /// The body passed [`MAX_RESPONSE`]; the rest was dropped.
    overflow: bool,
    /// The grpc status, or how the call failed.
    ended: Option<Result<u16, ErrorKind>>,
}

impl ResponseSink for Collect {
    fn head(&mut self, _exchange: &Exchange, _head: &Head<'_>) {}

    fn body(&mut self, _exchange: &Exchange, chunk: &[u8]) {
        if self.body.len() + chunk.len() > MAX_RESPONSE {
            self.overflow = true;
        } else {
            self.body.extend_from_slice(chunk);
        }
    }

    fn end(&mut self, _exchange: &Exchange, end: End<'_>) {
        self.ended = Some(match end {
            End::Response(response) => Ok(response
                .grpc_status
                .unwrap_or_else(|| loadgen_core::grpc::call_status(response.status, None))),
            End::Failed(kind) => Err(kind),
        });
    }
}
