//! Wake-ups at fixed times for the clients of one worker thread, for
//! `--timing-script-file`, whose requests are due at offsets fixed in advance
//! and measured from them. One [`PreciseTimer`] serves all of the thread's
//! clients: a client waiting for its next offset registers here, and the
//! `drive` future, polled beside the clients, wakes each one when its time
//! comes (tokio's timer would wake it up to 1 ms late, and that delay would
//! count as queueing delay).

use super::keep_waker;
use crate::precise_timer::PreciseTimer;
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::poll_fn;
use std::ops::Range;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

pub struct Alarms {
    first_client: usize,
    /// Each client's pending wake-up; the heap may still hold times a
    /// client has since replaced, which are skipped.
    pending: RefCell<Vec<Option<(Instant, Waker)>>>,
    heap: RefCell<BinaryHeap<Reverse<(Instant, usize)>>>,
    driver: RefCell<Option<Waker>>,
}

impl Alarms {
    pub fn new(clients: Range<usize>) -> Self {
        Alarms {
            first_client: clients.start,
            pending: RefCell::new(vec![None; clients.len()]),
            heap: RefCell::new(BinaryHeap::with_capacity(clients.len())),
            driver: RefCell::new(None),
        }
    }

    /// Wakes `waker` at `at` (never before); replaces the client's earlier request.
    pub fn wake_at(&self, client: usize, at: Instant, waker: &Waker) {
        let local = client - self.first_client;
        let mut pending = self.pending.borrow_mut();
        match &mut pending[local] {
            Some((time, existing)) if *time == at => existing.clone_from(waker),
            slot => {
                *slot = Some((at, waker.clone()));
                let mut heap = self.heap.borrow_mut();
                heap.push(Reverse((at, local)));
                let earliest = heap.peek().is_some_and(|Reverse(first)| first.0 == at);
                if earliest {
                    if let Some(driver) = self.driver.borrow().as_ref() {
                        driver.wake_by_ref();
                    }
                }
            }
        }
    }

    /// Wakes each client when its time comes. Runs until dropped.
    pub async fn drive(&self) {
        let mut timer = PreciseTimer::new();
        poll_fn(|cx| self.poll_drive(cx, &mut timer)).await
    }

    fn poll_drive(&self, cx: &mut Context<'_>, timer: &mut PreciseTimer) -> Poll<()> {
        keep_waker(&mut self.driver.borrow_mut(), cx.waker());
        loop {
            let Some(next) = self.wake_due(Instant::now()) else {
                return Poll::Pending;
            };
            if timer.poll_until(cx, next).is_pending() {
                return Poll::Pending;
            }
        }
    }

    /// Wakes every client due by `now`; returns the next time, if any.
    fn wake_due(&self, now: Instant) -> Option<Instant> {
        loop {
            let Reverse((at, local)) = *self.heap.borrow().peek()?;
            let current = matches!(&self.pending.borrow()[local], Some((time, _)) if *time == at);
            if current && at > now {
                return Some(at);
            }
            self.heap.borrow_mut().pop();
            if current {
                let due = self.pending.borrow_mut()[local].take();
                if let Some((_, waker)) = due {
                    waker.wake();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;
    use std::time::Duration;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn counter() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (count.clone(), Waker::from(count))
    }

    #[test]
    fn wakes_each_client_once_at_its_latest_time() {
        let alarms = Alarms::new(10..13);
        let now = Instant::now();
        let (a, waker_a) = counter();
        let (b, waker_b) = counter();
        let (c, waker_c) = counter();
        alarms.wake_at(10, now + Duration::from_millis(5), &waker_a);
        // Replaced: the earlier time must not wake client 10.
        alarms.wake_at(10, now + Duration::from_millis(50), &waker_a);
        alarms.wake_at(11, now + Duration::from_millis(20), &waker_b);
        alarms.wake_at(12, now, &waker_c);

        assert_eq!(alarms.wake_due(now), Some(now + Duration::from_millis(20)));
        assert_eq!(c.0.load(Ordering::SeqCst), 1);
        assert_eq!(a.0.load(Ordering::SeqCst), 0);

        let later = now + Duration::from_millis(30);
        assert_eq!(
            alarms.wake_due(later),
            Some(now + Duration::from_millis(50))
        );
        assert_eq!(b.0.load(Ordering::SeqCst), 1);
        assert_eq!(a.0.load(Ordering::SeqCst), 0);

        assert_eq!(alarms.wake_due(now + Duration::from_secs(1)), None);
        assert_eq!(
            [&a, &b, &c].map(|n| n.0.load(Ordering::SeqCst)),
            [1, 1, 1],
            "each client woken exactly once"
        );
    }

    #[test]
    fn drive_wakes_a_waiting_client() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let alarms = Alarms::new(0..1);
            let deadline = Instant::now() + Duration::from_micros(1500);
            let waiter = poll_fn(|cx| {
                if Instant::now() >= deadline {
                    Poll::Ready(())
                } else {
                    alarms.wake_at(0, deadline, cx.waker());
                    Poll::Pending
                }
            });
            tokio::select! {
                _ = waiter => {}
                _ = alarms.drive() => unreachable!("drive never ends"),
            }
            assert!(Instant::now() >= deadline);
        });
    }
}
