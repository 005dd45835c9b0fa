//! floor's loop (bench/floor/floor.c) on tokio, the way loadgen runs its
//! connections: one current-thread runtime, the connections as futures in
//! one `FuturesUnordered`, each sending a fixed GET and reading until the
//! fixed-size response has arrived, then sending the next. No parsing, no
//! timing, no statistics: its CPU per request over floor's is what the
//! runtime (its reactor, wakers and edge-triggered epoll) costs, and
//! loadgen's over its is what loadgen's own code costs.
//!
//!   floor-tokio HOST PORT CONNECTIONS REQUESTS RESPONSE_BYTES
//!
//! It prints h2load's `finished in` and `requests:` lines, as floor does.

use futures_util::stream::{FuturesUnordered, StreamExt};
use std::cell::Cell;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Requests sent and done, shared by the connections of the one thread.
#[derive(Default)]
struct Counts {
    sent: Cell<u64>,
    done: Cell<u64>,
}

async fn connection(
    addr: SocketAddr,
    request: &[u8],
    response_bytes: u64,
    total: u64,
    counts: &Counts,
) -> Result<(), String> {
    let mut stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    stream
        .set_nodelay(true)
        .map_err(|e| format!("TCP_NODELAY: {e}"))?;
    // floor's buffer size: a read takes whatever has arrived.
    let mut buffer = vec![0u8; 65536];
    while counts.sent.get() < total {
        counts.sent.set(counts.sent.get() + 1);
        stream
            .write_all(request)
            .await
            .map_err(|e| format!("send: {e}"))?;
        let mut left = response_bytes;
        while left > 0 {
            let got = stream
                .read(&mut buffer)
                .await
                .map_err(|e| format!("recv: {e}"))?;
            if got == 0 {
                return Err("connection closed".into());
            }
            left = left.saturating_sub(got as u64);
        }
        counts.done.set(counts.done.get() + 1);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: floor-tokio HOST PORT CONNECTIONS REQUESTS RESPONSE_BYTES";
    let [_, host, port, connections, total, response_bytes] = &args[..] else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let (Ok(addr), Ok(connections), Ok(total), Ok(response_bytes)) = (
        format!("{host}:{port}").parse::<SocketAddr>(),
        connections.parse::<usize>(),
        total.parse::<u64>(),
        response_bytes.parse::<u64>(),
    ) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let request = format!("GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: floor\r\n\r\n");
    let counts = Counts::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("a current-thread runtime");
    let start = Instant::now();
    let result = runtime.block_on(async {
        let mut running: FuturesUnordered<_> = (0..connections)
            .map(|_| connection(addr, request.as_bytes(), response_bytes, total, &counts))
            .collect();
        while let Some(ended) = running.next().await {
            ended?;
        }
        Ok::<(), String>(())
    });
    if let Err(message) = result {
        eprintln!("floor-tokio: {message}");
        return ExitCode::FAILURE;
    }
    let seconds = start.elapsed().as_secs_f64();
    let (sent, done) = (counts.sent.get(), counts.done.get());
    println!(
        "finished in {seconds:.2}s, {:.2} req/s, {:.2}MB/s",
        done as f64 / seconds,
        (done * response_bytes) as f64 / seconds / 1e6
    );
    println!(
        "requests: {done} total, {sent} started, {done} done, {done} succeeded, 0 failed, \
         0 errored, 0 timeout"
    );
    ExitCode::SUCCESS
}
