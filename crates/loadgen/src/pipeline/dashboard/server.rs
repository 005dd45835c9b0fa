//! The dashboard's HTTP/1.1 server, on a current-thread runtime of its
//! own: `/` the page, `/dashboard.js` its script, `/events` the
//! server-sent events, and once the run is over `/report.html` and
//! `/report.json`.

use super::Shared;
use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody as BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use loadgen_report::html::dashboard;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::{mpsc, watch};

type Reply = Response<BoxBody<Bytes, Infallible>>;

/// Serves until `closing` turns true; then every connection is dropped
/// with the runtime.
pub(super) fn serve(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    mut closing: watch::Receiver<bool>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("loadgen: --dashboard: cannot start its runtime: {e}");
            return;
        }
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::from_std(listener) {
            Ok(listener) => listener,
            Err(e) => {
                eprintln!("loadgen: --dashboard: {e}");
                return;
            }
        };
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        let service = service_fn(move |request| {
                            let shared = shared.clone();
                            async move { Ok::<_, Infallible>(route(&shared, &request)) }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
                _ = closing.changed() => break,
            }
        }
    });
}

fn route(shared: &Arc<Shared>, request: &Request<Incoming>) -> Reply {
    if request.method() != Method::GET {
        return text(StatusCode::METHOD_NOT_ALLOWED, "GET only\n");
    }
    match request.uri().path() {
        "/" => {
            let mut reply = full(dashboard::page(&shared.title()), "text/html; charset=utf-8");
            reply.headers_mut().insert(
                CONTENT_SECURITY_POLICY,
                hyper::header::HeaderValue::from_static(dashboard::POLICY),
            );
            reply
        }
        "/dashboard.js" => full(dashboard::SCRIPT, "text/javascript; charset=utf-8"),
        "/events" => events(shared.clone()),
        "/report.html" => finished(shared.report(true), "text/html; charset=utf-8"),
        "/report.json" => finished(shared.report(false), "application/json"),
        // Browsers ask for it unbidden; the page has none.
        "/favicon.ico" => empty(StatusCode::NO_CONTENT),
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
    }
}

fn full(body: impl Into<Bytes>, content_type: &'static str) -> Reply {
    let mut reply = Response::new(Full::new(body.into()).boxed_unsync());
    let headers = reply.headers_mut();
    headers.insert(CONTENT_TYPE, content_type.parse().expect("a header value"));
    headers.insert(CACHE_CONTROL, "no-store".parse().expect("a header value"));
    reply
}

fn text(status: StatusCode, message: &'static str) -> Reply {
    let mut reply = full(message, "text/plain; charset=utf-8");
    *reply.status_mut() = status;
    reply
}

fn empty(status: StatusCode) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::new()).boxed_unsync());
    *reply.status_mut() = status;
    reply
}

fn finished(report: Option<String>, content_type: &'static str) -> Reply {
    match report {
        Some(body) => full(body, content_type),
        None => text(StatusCode::NOT_FOUND, "the run is not over yet\n"),
    }
}

/// `text/event-stream`: every second's row as an `interval` event (those
/// before the stream opened first), then the page's parts as a `view`;
/// at the end an `end` with the last parts, and the stream closes.
fn events(shared: Arc<Shared>) -> Reply {
    let (sender, receiver) = mpsc::channel(16);
    let changes = shared.changes.subscribe();
    tokio::spawn(stream(shared, changes, sender));
    let mut reply = Response::new(EventBody(receiver).boxed_unsync());
    let headers = reply.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        "text/event-stream".parse().expect("a header value"),
    );
    headers.insert(CACHE_CONTROL, "no-store".parse().expect("a header value"));
    reply
}

async fn stream(
    shared: Arc<Shared>,
    mut changes: watch::Receiver<u64>,
    sender: mpsc::Sender<Bytes>,
) {
    let mut sent = 0;
    loop {
        changes.borrow_and_update();
        let update = shared.update(sent);
        sent += update.rows.len();
        for row in &update.rows {
            if sender.send(event("interval", row)).await.is_err() {
                return;
            }
        }
        let name = if update.ended { "end" } else { "view" };
        if sender.send(event(name, &update.view)).await.is_err() || update.ended {
            return;
        }
        if changes.changed().await.is_err() {
            return;
        }
    }
}

/// One event; `data` is JSON, on one line.
fn event(name: &str, data: &str) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

/// A body of the events a stream's task sends; it ends when the task does.
struct EventBody(mpsc::Receiver<Bytes>);

impl Body for EventBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|event| event.map(|e| Ok(Frame::data(e))))
    }
}
