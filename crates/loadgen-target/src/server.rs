//! Listeners, accept loops and per-connection tasks.

use std::io;
use std::net::SocketAddr;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use http::header::CONNECTION;
use http::{HeaderValue, Request, Version};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpSocket, UnixListener};
use tokio::sync::{mpsc, watch, Notify};
use tokio_rustls::TlsAcceptor;

use crate::error::TargetError;
use crate::service;
use crate::state::State;

/// Deep enough that a benchmark opening hundreds of connections at once
/// doesn't see SYNs dropped (the kernel caps it at somaxconn anyway).
const BACKLOG: u32 = 4096;

/// Binds a TCP listener. Must be called inside the server runtime.
pub(crate) fn bind_tcp(
    addr: SocketAddr,
    listener: &'static str,
) -> Result<TcpListener, TargetError> {
    let bind = || -> io::Result<TcpListener> {
        let socket = if addr.is_ipv4() {
            TcpSocket::new_v4()?
        } else {
            TcpSocket::new_v6()?
        };
        // Lets a restarted server reuse a port with connections in TIME_WAIT;
        // on Linux it still refuses a port that another socket listens on.
        socket.set_reuseaddr(true)?;
        socket.bind(addr)?;
        socket.listen(BACKLOG)
    };
    bind().map_err(|source| TargetError::Bind {
        listener,
        addr,
        source,
    })
}

/// Binds a UNIX listener, replacing a stale socket file but never another
/// kind of file. Must be called inside the server runtime.
pub(crate) fn bind_unix(path: &Path) -> Result<UnixListener, TargetError> {
    let err = |source| TargetError::Unix {
        path: path.to_owned(),
        source,
    };
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "file exists and is not a socket",
            )));
        }
        std::fs::remove_file(path).map_err(err)?;
    }
    UnixListener::bind(path).map_err(err)
}

/// Everything a connection task needs, shared by all of them.
pub(crate) struct Server {
    /// Detects HTTP/1 or h2c prior knowledge from the first bytes.
    auto: Builder<TokioExecutor>,
    /// For TLS connections whose protocol ALPN already settled.
    http1: Builder<TokioExecutor>,
    http2: Builder<TokioExecutor>,
    tls: Option<TlsAcceptor>,
    state: Arc<State>,
    /// `alt-svc` advertising HTTP/3, sent on TLS connections.
    alt_svc: Option<HeaderValue>,
}

impl Server {
    pub(crate) fn new(
        tls: Option<TlsAcceptor>,
        state: Arc<State>,
        alt_svc: Option<HeaderValue>,
    ) -> Server {
        let mut auto = Builder::new(TokioExecutor::new());
        // pipeline_flush batches responses to pipelined h1 requests into one write.
        auto.http1().keep_alive(true).pipeline_flush(true);
        auto.http2()
            .max_concurrent_streams(1000)
            .initial_stream_window_size(1 << 20)
            .initial_connection_window_size(4 << 20)
            // WebSockets over HTTP/2 (RFC 8441) open with extended CONNECT.
            .enable_connect_protocol();
        Server {
            http1: auto.clone().http1_only(),
            http2: auto.clone().http2_only(),
            auto,
            tls,
            state,
            alt_svc,
        }
    }

    async fn serve<I>(
        &self,
        io: I,
        builder: &Builder<TokioExecutor>,
        alt_svc: Option<HeaderValue>,
        mut life: Lifeline,
    ) where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let state = self.state.clone();
        let budget = self.state.max_requests_per_connection.map(Budget::new);
        let service = {
            let budget = budget.clone();
            service_fn(move |req: Request<Incoming>| {
                let last = budget.as_ref().is_some_and(|b| b.take());
                let http1 = req.version() < Version::HTTP_2;
                let response = service::handle(req, state.clone(), alt_svc.clone());
                async move {
                    let mut response = response.await?;
                    if last && http1 {
                        response
                            .headers_mut()
                            .insert(CONNECTION, HeaderValue::from_static("close"));
                    }
                    Ok::<_, hyper::Error>(response)
                }
            })
        };
        // With upgrades: `/ws` takes its connection over after the 101.
        let conn = builder.serve_connection_with_upgrades(TokioIo::new(io), service);
        let mut conn = std::pin::pin!(conn);
        let spent = async {
            match &budget {
                Some(budget) => budget.spent.notified().await,
                None => std::future::pending().await,
            }
        };
        // Connection errors are the clients' business (benchmarks reset
        // connections all the time), so results are dropped silently.
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = life.stopped() => {}
            // HTTP/1.1 closes after the response in progress, HTTP/2 sends
            // GOAWAY and finishes the streams it accepted.
            _ = spent => {}
        }
        conn.as_mut().graceful_shutdown();
        let _ = conn.await;
    }

    async fn serve_tls(&self, stream: tokio::net::TcpStream, mut life: Lifeline) {
        let Some(acceptor) = &self.tls else { return };
        let stream = tokio::select! {
            accepted = acceptor.accept(stream) => match accepted {
                Ok(stream) => stream,
                Err(_) => return,
            },
            _ = life.stopped() => return,
        };
        let builder = match stream.get_ref().1.alpn_protocol() {
            Some(b"h2") => &self.http2,
            Some(b"http/1.1") => &self.http1,
            _ => &self.auto,
        };
        self.serve(stream, builder, self.alt_svc.clone(), life)
            .await;
    }
}

/// What is left of a connection's `max_requests_per_connection`.
struct Budget {
    left: AtomicU64,
    /// Notified when the last request arrives.
    spent: Notify,
}

impl Budget {
    fn new(requests: u64) -> Arc<Budget> {
        Arc::new(Budget {
            left: AtomicU64::new(requests),
            spent: Notify::new(),
        })
    }

    /// Counts one request; true for the last one. HTTP/2 streams that
    /// arrive after it, before the client sees the GOAWAY, are served too.
    fn take(&self) -> bool {
        let before = self
            .left
            .fetch_update(Relaxed, Relaxed, |left| left.checked_sub(1));
        let last = before == Ok(1);
        if last {
            // Stores a permit when the connection task is not waiting yet.
            self.spent.notify_one();
        }
        last
    }
}

/// Held by every listener and connection task: tells it when to stop, and
/// lets shutdown wait until all of them are gone (the channel closes when
/// the last `_alive` sender is dropped).
#[derive(Clone)]
pub(crate) struct Lifeline {
    shutdown: watch::Receiver<bool>,
    _alive: mpsc::Sender<()>,
}

impl Lifeline {
    pub(crate) fn new(shutdown: watch::Receiver<bool>, alive: mpsc::Sender<()>) -> Lifeline {
        Lifeline {
            shutdown,
            _alive: alive,
        }
    }

    pub(crate) async fn stopped(&mut self) {
        // An error means the sender is gone, which is a stop as well.
        let _ = self.shutdown.wait_for(|stop| *stop).await;
    }
}

pub(crate) async fn accept_tcp(
    listener: TcpListener,
    server: Arc<Server>,
    tls: bool,
    mut life: Lifeline,
) {
    loop {
        let stream = tokio::select! {
            biased;
            _ = life.stopped() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    back_off(err).await;
                    continue;
                }
            },
        };
        // Small responses must not wait for Nagle's algorithm.
        let _ = stream.set_nodelay(true);
        let (server, life) = (server.clone(), life.clone());
        tokio::spawn(async move {
            if tls {
                server.serve_tls(stream, life).await;
            } else {
                server.serve(stream, &server.auto, None, life).await;
            }
        });
    }
}

pub(crate) async fn accept_unix(listener: UnixListener, server: Arc<Server>, mut life: Lifeline) {
    loop {
        let stream = tokio::select! {
            biased;
            _ = life.stopped() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    back_off(err).await;
                    continue;
                }
            },
        };
        let (server, life) = (server.clone(), life.clone());
        tokio::spawn(async move { server.serve(stream, &server.auto, None, life).await });
    }
}

/// Accept errors are mostly about one connection (aborted before we got
/// to it); others, like running out of file descriptors, would make an
/// immediate retry spin.
async fn back_off(err: io::Error) {
    use io::ErrorKind::*;
    if !matches!(
        err.kind(),
        ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    ) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
