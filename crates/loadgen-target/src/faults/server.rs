//! A loopback listener that serves one [`Fault`] on every connection, a
//! thread each, until it is dropped.

use super::Fault;
use std::collections::HashMap;
use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// No fault waits longer than this for a client that stopped reading or
/// writing, so no connection thread outlives a test by much, whatever the
/// client does.
const IO_LIMIT: Duration = Duration::from_secs(10);
const ACCEPT_RETRY: Duration = Duration::from_millis(10);

pub struct FaultServer {
    fault: Fault,
    addr: SocketAddr,
    stopping: Arc<AtomicBool>,
    open: Arc<Connections>,
    acceptor: Option<JoinHandle<Vec<JoinHandle<()>>>>,
}

/// The connections being served, so that dropping the server can cut them
/// off instead of waiting for their clients. The sockets are clones: a
/// connection closes once its fault is done and it is removed from here.
#[derive(Default)]
struct Connections {
    next_id: AtomicU64,
    streams: Mutex<HashMap<u64, TcpStream>>,
}

impl Connections {
    fn add(&self, stream: &TcpStream) -> io::Result<u64> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.streams().insert(id, stream.try_clone()?);
        Ok(id)
    }

    fn remove(&self, id: u64) {
        self.streams().remove(&id);
    }

    fn shut_down_all(&self) {
        for stream in self.streams().values() {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    fn streams(&self) -> MutexGuard<'_, HashMap<u64, TcpStream>> {
        // A thread that panicked holding the lock left the map whole.
        self.streams.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl FaultServer {
    /// Serves `fault` on a free port of 127.0.0.1.
    pub fn start(fault: Fault) -> io::Result<FaultServer> {
        FaultServer::bind(fault, SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    pub fn bind(fault: Fault, addr: SocketAddr) -> io::Result<FaultServer> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let open = Arc::new(Connections::default());
        let acceptor = std::thread::Builder::new()
            .name(format!("fault-{}", fault.name()))
            .spawn({
                let (stopping, open) = (stopping.clone(), open.clone());
                move || accept(listener, fault, &stopping, &open)
            })?;
        Ok(FaultServer {
            fault,
            addr,
            stopping,
            open,
            acceptor: Some(acceptor),
        })
    }

    pub fn fault(&self) -> Fault {
        self.fault
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR<path>`, or `https://` for a TLS fault.
    pub fn url(&self, path: &str) -> String {
        let scheme = if self.fault.is_tls() { "https" } else { "http" };
        format!("{scheme}://{}{path}", self.addr)
    }
}

/// Accepts until told to stop; returns the connection threads still running.
fn accept(
    listener: TcpListener,
    fault: Fault,
    stopping: &AtomicBool,
    open: &Arc<Connections>,
) -> Vec<JoinHandle<()>> {
    let mut serving: Vec<JoinHandle<()>> = Vec::new();
    for stream in listener.incoming() {
        if stopping.load(Ordering::Acquire) {
            break;
        }
        let Ok(stream) = stream else {
            // Out of descriptors, or a connection reset before it was
            // accepted: pause rather than spin, and go on.
            std::thread::sleep(ACCEPT_RETRY);
            continue;
        };
        serving.retain(|thread| !thread.is_finished());
        // Registered here, not in the connection's thread, so that every
        // connection accepted is known before the server shuts them down.
        let Ok(id) = limit_io(&stream).and_then(|()| open.add(&stream)) else {
            continue;
        };
        let open_for_thread = open.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("fault-{}-conn", fault.name()))
            .spawn(move || {
                // The client going away is how most faults end; nothing to report.
                let _ = fault.serve(stream);
                open_for_thread.remove(id);
            });
        match spawned {
            Ok(thread) => serving.push(thread),
            Err(_) => open.remove(id),
        }
    }
    serving
}

fn limit_io(stream: &TcpStream) -> io::Result<()> {
    stream.set_read_timeout(Some(IO_LIMIT))?;
    stream.set_write_timeout(Some(IO_LIMIT))
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Release);
        // The acceptor is blocked in accept(): a connection wakes it.
        let _ = TcpStream::connect(self.addr);
        let serving = self
            .acceptor
            .take()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        self.open.shut_down_all();
        for thread in serving {
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for FaultServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultServer")
            .field("fault", &self.fault)
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}
