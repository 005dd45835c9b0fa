//! The export of one run: the totals kept on the thread that observes the
//! run, a snapshot of them handed over once a second, and a thread of its
//! own (a current-thread runtime) that pushes and serves them. Nothing
//! here waits on the network but [`Exporter::finish`], after the run.

use crate::config::Config;
use crate::destination::Sender;
use crate::listen::{self, Latest};
use crate::push::{PushStats, Pusher};
use crate::totals::Totals;
use loadgen_core::interval::Interval;
use std::net::SocketAddr;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::sync::Notify;
use tokio::time::Instant;

pub struct Exporter {
    totals: Totals,
    pushers: Vec<Arc<Pusher>>,
    latest: Option<Arc<Latest>>,
    listening: Option<SocketAddr>,
    deadline: Arc<Mutex<Option<Instant>>>,
    closing: Arc<Notify>,
    done: mpsc::Receiver<()>,
    linger: Duration,
}

/// How the export of a run went, for a line each on stderr.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Each destination's URL and its pushes.
    pub pushes: Vec<(String, PushStats)>,
    /// Whether a scrape fetched the final values (`None`: not listening).
    pub last_scraped: Option<bool>,
}

impl Exporter {
    /// Binds `--metrics-listen` and starts the export's thread.
    pub fn start(config: Config) -> Result<Exporter, String> {
        let listener = config.listen.map(listen::bind).transpose()?;
        let listening = listener
            .as_ref()
            .and_then(|listener| listener.local_addr().ok());
        let latest = listener.as_ref().map(|_| Arc::new(Latest::default()));
        let pushers: Vec<Arc<Pusher>> = config
            .pushes
            .into_iter()
            .map(|destination| Arc::new(Pusher::new(destination)))
            .collect();
        let deadline = Arc::new(Mutex::new(None));
        let closing = Arc::new(Notify::new());
        let (finished, done) = mpsc::channel();
        let tags = Arc::new(config.tags.clone());
        let sender = Arc::new(Sender::new(config.headers));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the metrics export: {e}"))?;
        let thread = {
            let (pushers, latest) = (pushers.clone(), latest.clone());
            let (deadline, closing) = (deadline.clone(), closing.clone());
            move || {
                runtime.block_on(async move {
                    if let (Some(listener), Some(latest)) = (listener, latest.clone()) {
                        tokio::spawn(listen::serve(listener, latest));
                    }
                    let mut pushes = tokio::task::JoinSet::new();
                    for pusher in pushers {
                        let (sender, tags, deadline) =
                            (sender.clone(), tags.clone(), deadline.clone());
                        pushes.spawn(async move { pusher.run(&sender, &tags, &deadline).await });
                    }
                    let delivered = async {
                        while pushes.join_next().await.is_some() {}
                        if let Some(latest) = &latest {
                            latest.last_scraped().await;
                        }
                    };
                    let lingered = async {
                        closing.notified().await;
                        let until = *deadline.lock().expect("no panic holds the lock");
                        if let Some(until) = until {
                            tokio::time::sleep_until(until).await;
                        }
                    };
                    tokio::select! {
                        () = delivered => {}
                        () = lingered => {}
                    }
                });
                let _ = finished.send(());
            }
        };
        std::thread::Builder::new()
            .name("loadgen-metrics".to_string())
            .spawn(thread)
            .map_err(|e| format!("cannot start the metrics export: {e}"))?;
        Ok(Exporter {
            totals: Totals::new(config.tags, config.workload),
            pushers,
            latest,
            listening,
            deadline,
            closing,
            done,
            linger: config.linger,
        })
    }

    /// Where `/metrics` is served, its port resolved.
    pub fn listening(&self) -> Option<SocketAddr> {
        self.listening
    }

    /// One merged second of the run: added to the totals, which are
    /// handed to the export's thread.
    pub fn interval(&mut self, interval: &Interval) {
        self.totals.add(interval);
        self.publish(false);
    }

    fn publish(&self, last: bool) {
        let snapshot = Arc::new(self.totals.snapshot(SystemTime::now(), last));
        for pusher in &self.pushers {
            pusher.queue.put(snapshot.clone());
        }
        if let Some(latest) = &self.latest {
            latest.set(snapshot);
        }
    }

    /// The run has ended: its final totals pushed and served, waiting at
    /// most the linger for them to get through.
    pub fn finish(self) -> Outcome {
        *self.deadline.lock().expect("no panic holds the lock") =
            Some(Instant::now() + self.linger);
        self.publish(true);
        self.closing.notify_one();
        let _ = self.done.recv();
        Outcome {
            pushes: self
                .pushers
                .iter()
                .map(|p| (p.destination.url.clone(), p.stats()))
                .collect(),
            last_scraped: self.latest.as_ref().map(|l| l.was_last_scraped()),
        }
    }
}
