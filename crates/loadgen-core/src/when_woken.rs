//! A future polled only once its own waker has fired.
//!
//! A worker thread's clients share one task with the run's clocks (the
//! phase, progress, interval windows, the wake-up coalescing window) and its
//! cancellation. tokio wakes a task, not one of the futures it selects
//! between, so every batch of responses polled each clock's timer and the
//! cancellation's lock again, for nothing. Behind [`WhenWoken`] a clock is
//! polled when its own timer or notification wakes it, and otherwise costs
//! a load.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;

/// `future`, polled at first and then only after a wake-up of its own.
///
/// Only for futures that are woken whenever they can make progress, as
/// timers and notifications are; not for one that looks at state others
/// change without waking it.
pub struct WhenWoken<F> {
    future: Pin<Box<F>>,
    flag: Arc<WokenFlag>,
    /// `flag` as the waker `future` is given.
    waker: Waker,
    /// The task's waker last registered in `flag`: registered again only
    /// when the task's waker changes.
    registered: Option<Waker>,
}

struct WokenFlag {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for WokenFlag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl<F: Future> WhenWoken<F> {
    pub fn new(future: F) -> Self {
        let flag = Arc::new(WokenFlag {
            woken: AtomicBool::new(true),
            task: AtomicWaker::new(),
        });
        WhenWoken {
            future: Box::pin(future),
            waker: Waker::from(flag.clone()),
            flag,
            registered: None,
        }
    }
}

impl<F: Future> Future for WhenWoken<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        if !this
            .registered
            .as_ref()
            .is_some_and(|registered| registered.will_wake(cx.waker()))
        {
            this.flag.task.register(cx.waker());
            this.registered = Some(cx.waker().clone());
        }
        // A plain load first: most polls find nothing to do. A wake from
        // another thread (a cancel) wakes the task after setting the flag,
        // and the task's wake-up orders the two.
        if !this.flag.woken.load(Ordering::Relaxed)
            || !this.flag.woken.swap(false, Ordering::AcqRel)
        {
            return Poll::Pending;
        }
        this.future
            .as_mut()
            .poll(&mut Context::from_waker(&this.waker))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;
    use std::sync::atomic::AtomicU32;

    /// Counts its polls and keeps the waker it was last given; ready at
    /// the poll after `ready_after`.
    struct Counted {
        polls: Rc<Cell<u32>>,
        waker: KeptWaker,
        ready_after: u32,
    }

    impl Future for Counted {
        type Output = u32;
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
            self.polls.set(self.polls.get() + 1);
            if self.polls.get() > self.ready_after {
                return Poll::Ready(self.polls.get());
            }
            self.waker.set(Some(cx.waker().clone()));
            Poll::Pending
        }
    }

    #[derive(Default)]
    struct CountingWaker(AtomicU32);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    type KeptWaker = Rc<Cell<Option<Waker>>>;

    fn counted() -> (WhenWoken<Counted>, Rc<Cell<u32>>, KeptWaker) {
        let polls = Rc::new(Cell::new(0));
        let waker = Rc::new(Cell::new(None));
        let gated = WhenWoken::new(Counted {
            polls: polls.clone(),
            waker: waker.clone(),
            ready_after: 1,
        });
        (gated, polls, waker)
    }

    #[test]
    fn the_future_is_polled_only_after_a_wake_of_its_own() {
        let (mut gated, polls, inner_waker) = counted();
        let task = Arc::new(CountingWaker::default());
        let task_waker = Waker::from(task.clone());
        let mut cx = Context::from_waker(&task_waker);
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert_eq!(polls.get(), 1, "the first poll reaches the future");
        for _ in 0..5 {
            assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        }
        assert_eq!(polls.get(), 1, "polls without a wake of its own do not");
        inner_waker
            .take()
            .expect("the future kept its waker")
            .wake();
        assert_eq!(task.0.load(Ordering::SeqCst), 1, "its wake wakes the task");
        assert_eq!(Pin::new(&mut gated).poll(&mut cx), Poll::Ready(2));
    }

    #[test]
    fn the_task_waker_last_given_is_the_one_woken() {
        let (mut gated, _, inner_waker) = counted();
        let first = Arc::new(CountingWaker::default());
        let second = Arc::new(CountingWaker::default());
        let first_waker = Waker::from(first.clone());
        let second_waker = Waker::from(second.clone());
        assert!(Pin::new(&mut gated)
            .poll(&mut Context::from_waker(&first_waker))
            .is_pending());
        assert!(Pin::new(&mut gated)
            .poll(&mut Context::from_waker(&second_waker))
            .is_pending());
        inner_waker
            .take()
            .expect("the future kept its waker")
            .wake();
        assert_eq!(first.0.load(Ordering::SeqCst), 0);
        assert_eq!(second.0.load(Ordering::SeqCst), 1);
    }

    /// The timer wakes the flag, not the task: the sleep must still end.
    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_timer_behind_it_still_fires() {
        WhenWoken::new(tokio::time::sleep(std::time::Duration::from_millis(5))).await;
    }
}
