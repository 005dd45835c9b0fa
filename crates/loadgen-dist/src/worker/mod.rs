//! `loadgen worker`: runs plan and scenario segments for a controller. An
//! HTTP/1.1 server (HTTPS with a certificate) whose every call needs the
//! bearer token; it runs one plan or scenario at a time, at the start time
//! it is given, and streams each second and then the report back on the
//! same connection. The API is described in docs/distributed.md.

mod api;
mod plan_run;
mod reply;
mod run;
mod scenario_run;
mod socket;
mod state;
mod stream;
mod tls;

pub use tls::acceptor as tls_acceptor;
pub use tokio_rustls::TlsAcceptor;

use crate::allow::AllowList;
use crate::bounds::Bounds;
use crate::token::Token;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use loadgen_core::CancelHandle;
use state::State;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};

/// How many connections the API serves at once; more are closed at once.
/// A controller needs one per worker, and a second to cancel.
const MAX_CONNECTIONS: usize = 64;
/// How long a caller has to finish a TLS handshake or a request's headers.
const HANDSHAKE_LIMIT: Duration = Duration::from_secs(10);
/// The longest a stopping worker waits for its connections to end: a run's
/// longest stop grace, and time for its report.
const STOP_LIMIT: Duration = Duration::from_secs(70);

pub struct WorkerConfig {
    pub listen: SocketAddr,
    pub token: Token,
    /// Serve HTTPS ([`tls_acceptor`] reads a certificate and its key).
    pub tls: Option<TlsAcceptor>,
    pub allow: AllowList,
    pub bounds: Bounds,
}

/// A worker bound to its address, not yet serving.
pub struct Worker {
    runtime: tokio::runtime::Runtime,
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    state: Arc<State>,
}

impl Worker {
    /// Binds the address; errors are one line.
    pub fn bind(config: WorkerConfig) -> Result<Worker, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the worker's runtime: {e}"))?;
        let listener = runtime
            .block_on(TcpListener::bind(config.listen))
            .map_err(|e| format!("--listen: cannot listen on {}: {e}", config.listen))?;
        Ok(Worker {
            runtime,
            listener,
            tls: config.tls,
            state: Arc::new(State {
                token: config.token,
                allow: config.allow,
                bounds: config.bounds,
                current: Mutex::new(None),
            }),
        })
    }

    /// `http://ADDR` or `https://ADDR`: what a controller's `--workers` names.
    pub fn url(&self) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        match self.listener.local_addr() {
            Ok(addr) => format!("{scheme}://{addr}"),
            Err(_) => format!("{scheme}://?"),
        }
    }

    /// Serves until `stop` is cancelled (the command's stop signal). Then
    /// no call is taken any more, a run under way is stopped as a cancel
    /// stops it (its requests in flight get its stop grace) and its report
    /// goes to its controller, idle connections close, and this returns
    /// once every connection has ended, or after [`STOP_LIMIT`].
    pub fn serve_until(self, stop: CancelHandle) -> Result<(), String> {
        let Worker {
            runtime,
            listener,
            tls,
            state,
        } = self;
        runtime.block_on(async move {
            let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
            let (closing, shutdown) = watch::channel(());
            tokio::select! {
                () = accept_loop(listener, tls, state.clone(), permits.clone(), shutdown) => {}
                () = stop.cancelled() => {}
            }
            let running = state.current.lock().expect("run slot lock").clone();
            if let Some(stopper) = running {
                eprintln!("loadgen worker: stopping: the run under way ends and its report goes to its controller");
                stopper.stop("stopped: the worker was asked to stop");
            }
            // Every connection finishes what it is sending, the run's
            // stream to its report, and closes.
            let _ = closing.send(());
            let every = MAX_CONNECTIONS as u32;
            let _ = tokio::time::timeout(STOP_LIMIT, permits.acquire_many(every)).await;
            Ok(())
        })
    }
}

async fn accept_loop(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    state: Arc<State>,
    permits: Arc<Semaphore>,
    shutdown: watch::Receiver<()>,
) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(_) => {
                // Out of file descriptors and the like: wait, do not spin.
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            continue;
        };
        socket::tune(&stream);
        let (tls, state, shutdown) = (tls.clone(), state.clone(), shutdown.clone());
        tokio::spawn(async move {
            let _permit = permit;
            serve_connection(stream, peer, tls, state, shutdown).await;
        });
    }
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    tls: Option<TlsAcceptor>,
    state: Arc<State>,
    shutdown: watch::Receiver<()>,
) {
    // A connection that fails is the caller's business; the worker goes on.
    match tls {
        Some(acceptor) => {
            let Ok(Ok(stream)) =
                tokio::time::timeout(HANDSHAKE_LIMIT, acceptor.accept(stream)).await
            else {
                return;
            };
            serve_http(TokioIo::new(stream), peer, state, shutdown).await;
        }
        None => serve_http(TokioIo::new(stream), peer, state, shutdown).await,
    }
}

/// Serves the API on one connection; when the worker stops, the response
/// under way is finished (a run's stream up to its report) and the
/// connection closed.
async fn serve_http<I>(
    io: I,
    peer: SocketAddr,
    state: Arc<State>,
    mut shutdown: watch::Receiver<()>,
) where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let service = service_fn(move |request| api::handle(request, peer, state.clone()));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HANDSHAKE_LIMIT);
    let connection = http.serve_connection(io, service);
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => return,
        // A change, or the worker's end dropping the sender.
        _ = shutdown.changed() => {}
    }
    connection.as_mut().graceful_shutdown();
    let _ = connection.await;
}
