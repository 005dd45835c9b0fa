//! The thread that reads the server's figures: once when started (before
//! the run's first request), at the start of the measured part when a
//! warm-up comes first, at every second of the measured part (the
//! boundaries the worker threads close their windows at), and once when
//! stopped.

use super::source::{Reading, Source};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One reading and when it was taken.
#[derive(Clone, Debug)]
pub struct Sample {
    /// From the start of the measured part; the reading taken before it
    /// (a run without warm-up) counts as taken at its start.
    pub offset: Duration,
    pub at: Instant,
    pub reading: Reading,
}

/// What a sampler read, in time order: the first at the start of the
/// measured part, the last when it was stopped.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    pub samples: Vec<Sample>,
    /// Each process given that went away (0 for a cgroup), with the offset
    /// of the first reading that missed it.
    pub exited: Vec<(u32, Duration)>,
}

enum Control {
    /// The measured part starts (or started) at this instant.
    Measuring(Instant),
    Stop,
}

/// A running sampler; [`Sampler::stop`] takes its last reading and returns them all.
pub struct Sampler {
    control: mpsc::Sender<Control>,
    thread: JoinHandle<Samples>,
}

impl Sampler {
    /// Starts reading `source` on a thread of its own.
    pub fn start(mut source: Source) -> Result<Sampler, String> {
        let (control, orders) = mpsc::channel();
        let first = (Instant::now(), source.read());
        let thread = std::thread::Builder::new()
            .name("loadgen-server-sampler".into())
            .spawn(move || sample(source, first, &orders))
            .map_err(|e| format!("cannot start the server sampler: {e}"))?;
        Ok(Sampler { control, thread })
    }

    /// The measured part starts at `at`: readings are taken from there,
    /// once a second.
    pub fn measuring(&self, at: Instant) {
        let _ = self.control.send(Control::Measuring(at));
    }

    /// Takes the last reading and returns every reading since the start
    /// of the measured part (none when it never started).
    pub fn stop(self) -> Samples {
        let _ = self.control.send(Control::Stop);
        self.thread.join().unwrap_or_default()
    }
}

fn sample(
    mut source: Source,
    first: (Instant, Reading),
    orders: &mpsc::Receiver<Control>,
) -> Samples {
    let mut samples = Samples::default();
    let Ok(Control::Measuring(start)) = orders.recv() else {
        return samples;
    };
    let (first_at, first_reading) = first;
    let take = |samples: &mut Samples, offset: Duration, at: Instant, reading: Reading| {
        for pid in &reading.exited {
            samples.exited.push((*pid, offset));
        }
        samples.samples.push(Sample {
            offset,
            at,
            reading,
        });
    };
    // Without a warm-up the first reading, taken before any request, is the
    // start's, and timed as the start: the wait before it (`--start-at`)
    // is no part of the run's CPU %.
    if start <= Instant::now() {
        take(
            &mut samples,
            Duration::ZERO,
            start.max(first_at),
            first_reading,
        );
    } else {
        match orders.recv_timeout(start - Instant::now()) {
            Err(RecvTimeoutError::Timeout) => {
                let at = Instant::now();
                take(&mut samples, Duration::ZERO, at, source.read());
            }
            // Stopped during the warm-up: nothing was measured.
            _ => return samples,
        }
    }
    for second in 1u32.. {
        let due = start + Duration::from_secs(u64::from(second));
        let wait = due.saturating_duration_since(Instant::now());
        let stopped = match orders.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => false,
            Ok(Control::Measuring(_)) => continue,
            Ok(Control::Stop) | Err(RecvTimeoutError::Disconnected) => true,
        };
        let at = Instant::now();
        let offset = if stopped {
            at.saturating_duration_since(start)
        } else {
            due - start
        };
        take(&mut samples, offset, at, source.read());
        if stopped {
            break;
        }
    }
    samples
}
