//! A push destination's queue: bounded, the oldest snapshot dropped (and
//! counted) when a new one finds it full, so a slow or absent receiver
//! costs memory of a few snapshots and never holds the run up.

use crate::snapshot::Snapshot;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Snapshots waiting: eight seconds of a run.
pub const CAPACITY: usize = 8;

#[derive(Default)]
struct State {
    waiting: VecDeque<Arc<Snapshot>>,
    closed: bool,
    dropped: u64,
}

#[derive(Default)]
pub struct Queue {
    state: Mutex<State>,
    ready: Notify,
}

impl Queue {
    /// Adds `snapshot`; never waits. A last snapshot supersedes every one
    /// still waiting: its counters hold theirs, and at the end only it
    /// must get through in the time left.
    pub fn put(&self, snapshot: Arc<Snapshot>) {
        let mut state = self.state.lock().expect("no panic holds the lock");
        if snapshot.last {
            state.waiting.clear();
            state.closed = true;
        } else if state.waiting.len() == CAPACITY {
            state.waiting.pop_front();
            state.dropped += 1;
        }
        state.waiting.push_back(snapshot);
        drop(state);
        self.ready.notify_one();
    }

    /// The oldest snapshot waiting; `None` once the last has been taken.
    pub async fn take(&self) -> Option<Arc<Snapshot>> {
        loop {
            let notified = self.ready.notified();
            {
                let mut state = self.state.lock().expect("no panic holds the lock");
                if let Some(snapshot) = state.waiting.pop_front() {
                    return Some(snapshot);
                }
                if state.closed {
                    return None;
                }
            }
            notified.await;
        }
    }

    pub fn dropped(&self) -> u64 {
        self.state.lock().expect("no panic holds the lock").dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn snapshot(last: bool) -> Arc<Snapshot> {
        Arc::new(Snapshot {
            started_at: SystemTime::UNIX_EPOCH,
            at: SystemTime::now(),
            last,
            families: Vec::new(),
        })
    }

    #[test]
    fn a_full_queue_drops_its_oldest_and_the_last_supersedes_all() {
        let queue = Queue::default();
        let first = snapshot(false);
        queue.put(first.clone());
        for _ in 0..CAPACITY {
            queue.put(snapshot(false));
        }
        assert_eq!(queue.dropped(), 1);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let taken = runtime.block_on(queue.take()).unwrap();
        assert!(!Arc::ptr_eq(&taken, &first));
        queue.put(snapshot(true));
        let last = runtime.block_on(queue.take()).unwrap();
        assert!(last.last);
        assert!(runtime.block_on(queue.take()).is_none());
    }
}
