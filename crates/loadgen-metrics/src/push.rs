//! One destination's pushes: each snapshot encoded in its format and
//! sent, a failure retried with backoff, what happened counted.

use crate::destination::{Destination, Format, Sender};
use crate::queue::Queue;
use crate::snapshot::{Labels, Snapshot};
use crate::{otlp, remote_write};
use bytes::Bytes;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// Tries of one snapshot before it counts as failed.
const ATTEMPTS: u32 = 4;
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const LONGEST_BACKOFF: Duration = Duration::from_secs(2);

/// What one destination's pushes came to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PushStats {
    pub sent: u64,
    /// Snapshots given up on, after their tries or for an answer that
    /// trying again cannot change.
    pub failed: u64,
    pub retries: u64,
    /// Snapshots dropped unsent from a full queue.
    pub dropped: u64,
    /// The last snapshot, the run's final totals, got through.
    pub last_sent: bool,
    pub last_error: Option<String>,
}

pub struct Pusher {
    pub destination: Destination,
    pub queue: Queue,
    pub stats: Mutex<PushStats>,
}

impl Pusher {
    pub fn new(destination: Destination) -> Pusher {
        Pusher {
            destination,
            queue: Queue::default(),
            stats: Mutex::new(PushStats::default()),
        }
    }

    /// Sends what the queue holds until it has sent (or given up on) the
    /// last snapshot; gives up retrying once `deadline` has passed, when
    /// one is set.
    pub async fn run(&self, sender: &Sender, tags: &Labels, deadline: &Mutex<Option<Instant>>) {
        while let Some(snapshot) = self.queue.take().await {
            let outcome = self.send(sender, tags, &snapshot, deadline).await;
            let mut stats = self.stats.lock().expect("no panic holds the lock");
            match outcome {
                Ok(()) => {
                    stats.sent += 1;
                    stats.last_sent |= snapshot.last;
                }
                Err(message) => {
                    stats.failed += 1;
                    stats.last_error = Some(message);
                }
            }
        }
    }

    async fn send(
        &self,
        sender: &Sender,
        tags: &Labels,
        snapshot: &Snapshot,
        deadline: &Mutex<Option<Instant>>,
    ) -> Result<(), String> {
        let to = &self.destination;
        let (content_type, extra, body): (_, &[(&str, &str)], _) = match to.format {
            Format::PrometheusRemoteWrite => (
                remote_write::CONTENT_TYPE,
                &remote_write::HEADERS,
                remote_write::body(snapshot),
            ),
            Format::Otlp => (otlp::CONTENT_TYPE, &[], otlp::body(snapshot, tags)),
        };
        let body = Bytes::from(body);
        let mut backoff = FIRST_BACKOFF;
        let mut attempt = 1;
        loop {
            let error = match sender.push(to, content_type, extra, body.clone()).await {
                Ok(()) => return Ok(()),
                Err(error) => error,
            };
            let past = deadline
                .lock()
                .expect("no panic holds the lock")
                .is_some_and(|deadline| Instant::now() + backoff > deadline);
            if !error.retryable || attempt == ATTEMPTS || past {
                return Err(error.message);
            }
            self.stats.lock().expect("no panic holds the lock").retries += 1;
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(LONGEST_BACKOFF);
            attempt += 1;
        }
    }

    pub fn stats(&self) -> PushStats {
        let mut stats = self.stats.lock().expect("no panic holds the lock").clone();
        stats.dropped = self.queue.dropped();
        stats
    }
}

/// A destination's pushes, shared with the thread that sends them.
pub type Pushers = Vec<Arc<Pusher>>;
