//! `--metrics-listen`: `/metrics` in the OpenMetrics text format, for a
//! scraper. It serves the latest snapshot; once the run has ended, its
//! final totals, until a scrape has fetched them (or the linger ends).

use crate::openmetrics;
use crate::snapshot::Snapshot;
use bytes::Bytes;
use http::{header, Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::net::TcpListener;
use tokio::sync::Notify;

#[derive(Default)]
pub struct Latest {
    snapshot: Mutex<Option<Arc<Snapshot>>>,
    last_scraped: AtomicBool,
    scraped: Notify,
}

impl Latest {
    pub fn set(&self, snapshot: Arc<Snapshot>) {
        *self.snapshot.lock().expect("no panic holds the lock") = Some(snapshot);
    }

    /// Completes once a scrape has fetched the last snapshot.
    pub async fn last_scraped(&self) {
        loop {
            let scraped = self.scraped.notified();
            if self.last_scraped.load(Ordering::Acquire) {
                return;
            }
            scraped.await;
        }
    }

    pub fn was_last_scraped(&self) -> bool {
        self.last_scraped.load(Ordering::Acquire)
    }

    fn scrape(&self) -> String {
        let snapshot = self
            .snapshot
            .lock()
            .expect("no panic holds the lock")
            .clone();
        match snapshot {
            Some(snapshot) => {
                let text = openmetrics::render(&snapshot);
                if snapshot.last {
                    self.last_scraped.store(true, Ordering::Release);
                    self.scraped.notify_waiters();
                }
                text
            }
            // Before the first second: the families are not known yet.
            None => "# EOF\n".to_string(),
        }
    }
}

/// Binds `address` on the calling thread, so that a port in use is an
/// error before the run starts.
pub fn bind(address: SocketAddr) -> Result<std::net::TcpListener, String> {
    let listener = std::net::TcpListener::bind(address)
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    Ok(listener)
}

/// Serves `/metrics` until the runtime ends.
pub async fn serve(listener: std::net::TcpListener, latest: Arc<Latest>) {
    let Ok(listener) = TcpListener::from_std(listener) else {
        return;
    };
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let latest = latest.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let latest = latest.clone();
                async move { Ok::<_, Infallible>(answer(&request, &latest)) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn answer(request: &Request<Incoming>, latest: &Latest) -> Response<Full<Bytes>> {
    let (status, content_type, body) = match (request.method(), request.uri().path()) {
        (&Method::GET | &Method::HEAD, "/metrics") => {
            (StatusCode::OK, openmetrics::CONTENT_TYPE, latest.scrape())
        }
        (_, "/metrics") => (
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain",
            "GET /metrics\n".to_string(),
        ),
        _ => (
            StatusCode::NOT_FOUND,
            "text/plain",
            "metrics are at /metrics\n".to_string(),
        ),
    };
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .body(Full::new(Bytes::from(body)))
        .expect("a static response")
}
