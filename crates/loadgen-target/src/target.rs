//! The running server and its lifecycle.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot, watch};
use tokio_rustls::TlsAcceptor;

use crate::app::App;
use crate::capacity::Capacity;
use crate::config::TargetConfig;
use crate::error::TargetError;
use crate::server::{accept_tcp, accept_unix, bind_tcp, bind_unix, Lifeline, Server};
use crate::stall::{Period, Stall};
use crate::state::State;
use crate::stats::{Counters, Stats};
use crate::{body, tls};

/// How long shutdown lets in-flight requests finish before cutting them off.
const GRACE: Duration = Duration::from_secs(1);

/// A target server running on its own runtime. Dropping it shuts it down
/// like [`Target::shutdown`].
pub struct Target {
    clear_addr: Option<SocketAddr>,
    tls_addr: Option<SocketAddr>,
    unix_path: Option<PathBuf>,
    cert_pem: String,
    state: Arc<State>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Target {
    /// Binds all configured listeners and starts serving in the background.
    /// Returns once the listeners accept connections. Safe to call from
    /// inside another tokio runtime.
    pub fn start(config: TargetConfig) -> Result<Target, TargetError> {
        // Periodic stall windows are counted from here.
        let stall = Stall::new(stall_period(&config)?);
        if let Some(rate) = config.max_rate.filter(|r| !(r.is_finite() && *r > 0.0)) {
            return Err(TargetError::Config(format!(
                "max_rate must be a number of requests per second greater than zero, got {rate}"
            )));
        }
        if config.max_requests_per_connection == Some(0) {
            return Err(TargetError::Config(
                "max_requests_per_connection must be at least 1".into(),
            ));
        }
        if config.cert.is_some() != config.key.is_some() {
            return Err(TargetError::Config(
                "a certificate and its key must be given together".into(),
            ));
        }
        let tls = match (&config.tls_addr, &config.cert, &config.key) {
            (None, _, _) => None,
            (Some(_), Some(cert), Some(key)) => Some(tls::load(cert, key)?),
            (Some(_), _, _) => Some(tls::self_signed()?),
        };
        body::warm_up();

        let threads = match config.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("loadgen-target")
            .enable_all()
            .build()
            .map_err(TargetError::Runtime)?;

        // Tokio sockets have to be created inside their runtime. Dropping a
        // runtime blocks, which panics inside a caller's async context, so
        // failures shut it down in the background instead.
        let bound = {
            let _enter = runtime.enter();
            (|| {
                let clear = config
                    .clear_addr
                    .map(|a| bind_tcp(a, "cleartext"))
                    .transpose()?;
                let secure = match (config.tls_addr, &tls) {
                    (Some(addr), Some(tls)) => Some(bind_tls_and_quic(addr, tls)?),
                    _ => None,
                };
                let unix = config.unix_path.as_deref().map(bind_unix).transpose()?;
                Ok((clear, secure, unix))
            })()
        };
        let (clear, secure, unix) = match bound {
            Ok(bound) => bound,
            Err(err) => {
                runtime.shutdown_background();
                return Err(err);
            }
        };
        let local =
            |l: &Option<tokio::net::TcpListener>| l.as_ref().and_then(|l| l.local_addr().ok());
        let (secure, quic) = match secure {
            Some((listener, endpoint)) => (Some(listener), Some(endpoint)),
            None => (None, None),
        };
        let (clear_addr, tls_addr) = (local(&clear), local(&secure));

        let state = Arc::new(State {
            counters: Counters::default(),
            stall,
            max_requests_per_connection: config.max_requests_per_connection,
            capacity: config.max_rate.map(Capacity::new),
            app: App::new(),
        });
        let (cert_pem, acceptor) = match tls {
            Some(tls) => (tls.cert_pem, Some(TlsAcceptor::from(tls.config))),
            None => (String::new(), None),
        };
        // Browsers and curl learn from this that HTTP/3 is on the same port.
        let alt_svc = tls_addr.and_then(|a| {
            http::HeaderValue::from_str(&format!("h3=\":{}\"; ma=86400", a.port())).ok()
        });
        let server = Arc::new(Server::new(acceptor, state.clone(), alt_svc));
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let (alive_tx, mut alive_rx) = mpsc::channel::<()>(1);
        let life = Lifeline::new(shutdown_rx, alive_tx);
        if let Some(listener) = clear {
            runtime.spawn(accept_tcp(listener, server.clone(), false, life.clone()));
        }
        if let Some(listener) = secure {
            runtime.spawn(accept_tcp(listener, server.clone(), true, life.clone()));
        }
        if let Some(endpoint) = quic {
            runtime.spawn(crate::h3::accept(endpoint, state.clone(), life.clone()));
        }
        if let Some(listener) = unix {
            runtime.spawn(accept_unix(listener, server, life.clone()));
        }
        drop(life);

        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("loadgen-target-main".into())
            .spawn(move || {
                runtime.block_on(async move {
                    // A dropped sender (Target leaked or unwound) also stops.
                    let _ = stopped.await;
                    let _ = shutdown_tx.send(true);
                    // Resolves once every listener and connection task has
                    // dropped its lifeline.
                    let _ = tokio::time::timeout(GRACE, alive_rx.recv()).await;
                });
                runtime.shutdown_timeout(Duration::from_millis(100));
            })
            .map_err(TargetError::Runtime)?;

        Ok(Target {
            clear_addr,
            tls_addr,
            unix_path: config.unix_path,
            cert_pem,
            state,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The bound cleartext (HTTP/1.1 + h2c) address, with the real port.
    pub fn clear_addr(&self) -> Option<SocketAddr> {
        self.clear_addr
    }

    /// The bound TLS address, with the real port. HTTP/3 listens on the
    /// same address and port over UDP.
    pub fn tls_addr(&self) -> Option<SocketAddr> {
        self.tls_addr
    }

    pub fn unix_path(&self) -> Option<&Path> {
        self.unix_path.as_deref()
    }

    /// The PEM certificate served on the TLS port, usable as a client's CA
    /// file. Empty when there is no TLS listener.
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    pub fn stats(&self) -> Stats {
        self.state.counters.snapshot()
    }

    /// Zeroes the counters and returns what they held.
    pub fn reset_stats(&self) -> Stats {
        self.state.counters.reset()
    }

    /// Stalls the server now for `length`: every response, on every
    /// protocol, is held until the stall ends, including those of requests
    /// already in progress. A stall in progress is extended, never
    /// shortened. Returns the moment the server answers again (later than
    /// `now + length` when a periodic stall window follows on directly).
    pub fn stall_for(&self, length: Duration) -> Instant {
        self.state.stall.stall_for(length)
    }

    /// Stops accepting, gives in-flight requests up to about a second, then
    /// closes every connection and the runtime. Blocks until done.
    pub fn shutdown(self) {
        drop(self);
    }

    /// A handle on the live counters, for reading them after shutdown.
    pub(crate) fn state(&self) -> Arc<State> {
        self.state.clone()
    }
}

fn stall_period(config: &TargetConfig) -> Result<Option<Period>, TargetError> {
    match (config.stall_every, config.stall_for) {
        (None, None) => Ok(None),
        (Some(every), Some(length)) => Period::new(every, length)
            .map(Some)
            .map_err(TargetError::Config),
        _ => Err(TargetError::Config(
            "a periodic stall needs both its period (stall_every) and its length (stall_for)"
                .into(),
        )),
    }
}

/// Binds the TLS listener and the HTTP/3 endpoint on the same port number.
/// With port 0 the kernel picks the TCP port, which may be taken on the UDP
/// side; then another one is tried.
fn bind_tls_and_quic(
    addr: SocketAddr,
    tls: &tls::Tls,
) -> Result<(tokio::net::TcpListener, quinn::Endpoint), TargetError> {
    let mut attempts = 0;
    loop {
        let listener = bind_tcp(addr, "TLS")?;
        let bound = listener.local_addr().map_err(|source| TargetError::Bind {
            listener: "TLS",
            addr,
            source,
        })?;
        match crate::h3::bind(bound, tls.quic.clone()) {
            Ok(endpoint) => return Ok((listener, endpoint)),
            Err(_) if addr.port() == 0 && attempts < 20 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        if let Some(path) = &self.unix_path {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("clear_addr", &self.clear_addr)
            .field("tls_addr", &self.tls_addr)
            .field("unix_path", &self.unix_path)
            .finish_non_exhaustive()
    }
}
