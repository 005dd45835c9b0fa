//! Serving until told to stop: the built-in target (or a fault server)
//! runs until Ctrl-C or SIGTERM, then reports what it served.

use std::net::SocketAddr;

use crate::config::TargetConfig;
use crate::error::TargetError;
use crate::faults::{Fault, FaultServer};
use crate::target::Target;

/// Starts the target, reports where it listens on stderr, waits for Ctrl-C
/// or SIGTERM, shuts down and reports the requests served.
pub fn serve(config: TargetConfig) -> Result<(), TargetError> {
    let (stall, max_requests) = (
        config.stall_every.zip(config.stall_for),
        config.max_requests_per_connection,
    );
    let target = Target::start(config)?;
    if let Some((every, length)) = stall {
        eprintln!("stalling for {length:?} every {every:?}, from now on");
    }
    if let Some(n) = max_requests {
        eprintln!("closing each connection after {n} requests");
    }
    if let Some(addr) = target.clear_addr() {
        eprintln!("serving http/1.1+h2c on http://{addr}");
    }
    if let Some(addr) = target.tls_addr() {
        eprintln!("serving http/1.1+h2 (TLS) on https://{addr}");
        eprintln!("serving h3 (QUIC) on https://{addr} (UDP)");
    }
    if let Some(path) = target.unix_path() {
        eprintln!("serving http/1.1+h2c on unix:{}", path.display());
    }

    let waited = wait_for_signal();
    // Read after shutdown so requests finishing during the grace period count.
    let state = target.state();
    target.shutdown();
    waited?;
    let stats = state.counters.snapshot();
    eprintln!(
        "served {} requests: {} http/1.1, {} http/2, {} http/3",
        stats.total, stats.http1, stats.http2, stats.http3
    );
    Ok(())
}

/// Serves `fault` on `addr` until Ctrl-C or SIGTERM.
pub fn serve_fault(fault: Fault, addr: SocketAddr) -> Result<(), TargetError> {
    let server = FaultServer::bind(fault, addr).map_err(|source| TargetError::Bind {
        listener: "cleartext",
        addr,
        source,
    })?;
    eprintln!(
        "serving the fault {} ({}) on {}",
        fault.name(),
        fault.protocol(),
        server.url("/")
    );
    wait_for_signal()
}

fn wait_for_signal() -> Result<(), TargetError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(TargetError::Runtime)?;
    runtime.block_on(async {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).map_err(TargetError::Signal)?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result.map_err(TargetError::Signal),
            _ = term.recv() => Ok(()),
        }
    })
}
