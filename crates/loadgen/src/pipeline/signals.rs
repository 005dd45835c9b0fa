//! Stopping a run by hand. The first SIGINT, SIGTERM or SIGHUP stops the
//! run: no request starts any more, those in flight get the stop grace,
//! and the report is printed and every output written, whole, as after a
//! normal end. `loadgen worker` is stopped the same way, its run under
//! way with it.
//!
//! `timeout`, a CI runner cancelling a job, `docker stop` and Kubernetes
//! signal the process group and the process at once, and a terminal's
//! Ctrl-C reaches every process of the foreground group: two signals in
//! the same instant are one request to stop. So signals within
//! [`BURST`] of the first are one stop; a signal that comes later is the
//! user insisting, and ends the process at once.

use loadgen_core::CancelHandle;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Signals this close to the first are the same stop.
pub const BURST: Duration = Duration::from_secs(1);

/// The signal that stopped the run, if one did.
#[derive(Clone, Default)]
pub struct Stopped(Arc<AtomicI32>);

impl Stopped {
    /// The shell's exit code for the signal (128 + its number), if one came.
    pub fn exit_code(&self) -> Option<u8> {
        match self.0.load(Ordering::SeqCst) {
            0 => None,
            signal => Some(128 + signal as u8),
        }
    }
}

/// Watches for the signals on a thread of its own; the first cancels the run.
pub fn watch(cancel: CancelHandle) -> Result<Stopped, String> {
    let stopped = Stopped::default();
    let seen = stopped.0.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .map_err(|e| format!("cannot watch for signals: {e}"))?;
    // Registered here, before the run starts, so that no signal in between
    // falls to the default action and kills the process without a report.
    let mut streams = runtime
        .block_on(async { signal_streams() })
        .map_err(|e| format!("cannot watch for signals: {e}"))?;
    std::thread::Builder::new()
        .name("loadgen-signals".into())
        .spawn(move || {
            runtime.block_on(async move {
                let mut first: Option<Instant> = None;
                loop {
                    let signal = streams.next().await;
                    match first {
                        None => {
                            first = Some(Instant::now());
                            seen.store(signal, Ordering::SeqCst);
                            cancel.cancel();
                        }
                        // The same stop, sent to the group and the process.
                        Some(at) if at.elapsed() < BURST => {}
                        // A later signal: the user wants out, now.
                        Some(_) => std::process::exit(128 + signal),
                    }
                }
            })
        })
        .map_err(|e| format!("cannot watch for signals: {e}"))?;
    Ok(stopped)
}

struct SignalStreams {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    hang_up: tokio::signal::unix::Signal,
}

fn signal_streams() -> std::io::Result<SignalStreams> {
    use tokio::signal::unix::{signal, SignalKind};
    Ok(SignalStreams {
        interrupt: signal(SignalKind::interrupt())?,
        terminate: signal(SignalKind::terminate())?,
        hang_up: signal(SignalKind::hangup())?,
    })
}

impl SignalStreams {
    /// The next signal's number.
    async fn next(&mut self) -> i32 {
        tokio::select! {
            _ = self.interrupt.recv() => libc::SIGINT,
            _ = self.terminate.recv() => libc::SIGTERM,
            _ = self.hang_up.recv() => libc::SIGHUP,
        }
    }
}
