//! Steady state allocates nothing per request over HTTP/1.1 and HTTP/2.
//! A counting allocator counts allocations made on loadgen's worker
//! threads; two runs that differ only by 10,000 requests are compared, so
//! connection set-up, which both runs share, cancels out.

use loadgen_core::plan::{Cleartext, Mode, PlanInput};
use loadgen_target::{Target, TargetConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

struct CountingAllocator;

static WORKER_ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// 0: not known yet, 1: a loadgen worker thread, 2: another thread.
    static THREAD_KIND: Cell<u8> = const { Cell::new(0) };
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

fn on_worker_thread() -> bool {
    THREAD_KIND.with(|kind| {
        if kind.get() == 0 {
            // Looking at the thread's name may allocate: do not count that.
            INSIDE.with(|inside| inside.set(true));
            let worker = std::thread::current()
                .name()
                .is_some_and(|n| n.starts_with("loadgen-worker"));
            INSIDE.with(|inside| inside.set(false));
            kind.set(if worker { 1 } else { 2 });
        }
        kind.get() == 1
    })
}

fn count() {
    if !INSIDE.with(Cell::get) && on_worker_thread() {
        WORKER_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The runs of one test must not overlap with another test's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Allocations on worker threads during a run of `requests` requests over
/// one connection, and the one-second windows the run closed.
fn allocations(uri: &str, protocol: &Protocol, requests: u64) -> (u64, u64) {
    let mut input = PlanInput {
        uris: vec![uri.to_string()],
        clients: 1,
        threads: 1,
        mode: Mode::Requests(requests),
        ..PlanInput::default()
    };
    match protocol {
        Protocol::Cleartext(cleartext) => input.cleartext = cleartext.clone(),
        Protocol::Http3 => {
            input.alpn = vec!["h3".into()];
            input.tls.insecure = true;
        }
    }
    let plan = input.build().expect("a valid plan");
    let before = WORKER_ALLOCATIONS.load(Ordering::Relaxed);
    let run = loadgen_core::run(&plan, None).expect("the run starts");
    let after = WORKER_ALLOCATIONS.load(Ordering::Relaxed);
    assert_eq!(
        run.recorder.outcomes.status_success, requests,
        "every request succeeded"
    );
    (after - before, run.intervals.len() as u64)
}

/// A new window's four histograms (`Window::default`).
const ALLOCATIONS_PER_WINDOW: u64 = 4;

/// What a run speaks.
enum Protocol {
    Cleartext(Cleartext),
    Http3,
}

/// Extra allocations that 10,000 more requests cause, per request.
fn per_request(protocol: Protocol) -> f64 {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let http3 = matches!(protocol, Protocol::Http3);
    let mut config = TargetConfig::default();
    if !http3 {
        config.tls_addr = None;
    }
    let target = Target::start(config).expect("target");
    let uri = if http3 {
        format!(
            "https://{}/",
            target.tls_addr().expect("TLS and QUIC listener")
        )
    } else {
        format!(
            "http://{}/",
            target.clear_addr().expect("cleartext listener")
        )
    };
    // The first run also warms up what is allocated once per process.
    allocations(&uri, &protocol, 1_000);
    let short = allocations(&uri, &protocol, 1_000);
    let long = allocations(&uri, &protocol, 11_000);
    target.shutdown();
    // A run closes a window each second and starts the next with fresh
    // histograms: per second, not per request, and a slow (loaded)
    // machine's long run closes more of them.
    let windows = long.1.saturating_sub(short.1);
    let extra = long
        .0
        .saturating_sub(short.0)
        .saturating_sub(windows * ALLOCATIONS_PER_WINDOW);
    eprintln!(
        "{} and {} allocations in runs of 1,000 and 11,000 requests, {} and {} windows",
        short.0, long.0, short.1, long.1
    );
    extra as f64 / 10_000.0
}

#[test]
fn http1_requests_allocate_nothing() {
    let extra = per_request(Protocol::Cleartext(Cleartext::Http1));
    eprintln!("HTTP/1.1: {extra:.4} allocations per request");
    // What a second costs besides its new window (a histogram growing to a
    // new maximum) may add one or two.
    assert!(
        extra * 10_000.0 <= 8.0,
        "{extra} allocations per HTTP/1.1 request"
    );
}

#[test]
fn http2_requests_allocate_nothing() {
    let extra = per_request(Protocol::Cleartext(Cleartext::H2c));
    eprintln!("HTTP/2: {extra:.4} allocations per request");
    // As for HTTP/1.1; the server's HPACK table insertions (a new `date`
    // value each second) may add a few more.
    assert!(
        extra * 10_000.0 <= 16.0,
        "{extra} allocations per HTTP/2 request"
    );
}

#[test]
fn http3_allocations_per_request_are_bounded() {
    let extra = per_request(Protocol::Http3);
    eprintln!("HTTP/3: {extra:.4} allocations per request");
    // quinn-proto's, per stream (its send and receive state) and per packet
    // (queued frames). Datagrams are received into the worker thread's
    // buffer, reclaimed after each receive; the request's frames and the
    // response's head allocate nothing of loadgen's own
    // (docs/performance.md).
    assert!(extra <= 5.0, "{extra} allocations per HTTP/3 request");
}
