//! Accepted sockets notice a dead peer quickly. A controller that exits
//! closes its connection and the worker hears it at once; a controller
//! whose machine dies or whose network goes away says nothing, so TCP has
//! to find out: keepalive probes on an idle connection, and a user timeout
//! on one with data left unacknowledged (a run's stream writes every
//! second). Either gives up on a silent peer within about two seconds.

use std::time::Duration;
use tokio::net::TcpStream;

const KEEPALIVE_IDLE: Duration = Duration::from_secs(1);
const KEEPALIVE_INTERVAL: Duration = Duration::from_millis(400);
const KEEPALIVE_PROBES: u32 = 2;
#[cfg(any(target_os = "linux", target_os = "android"))]
// A stream writes at least every second, so a dead peer is found between
// this and one second more after it went away.
const UNACKNOWLEDGED_LIMIT: Duration = Duration::from_millis(1500);

/// Best effort: a socket option the system lacks leaves the default.
pub fn tune(stream: &TcpStream) {
    let socket = socket2::SockRef::from(stream);
    let _ = socket.set_tcp_nodelay(true);
    let keepalive = socket2::TcpKeepalive::new()
        .with_time(KEEPALIVE_IDLE)
        .with_interval(KEEPALIVE_INTERVAL)
        .with_retries(KEEPALIVE_PROBES);
    let _ = socket.set_tcp_keepalive(&keepalive);
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = socket.set_tcp_user_timeout(Some(UNACKNOWLEDGED_LIMIT));
}
