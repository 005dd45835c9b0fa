//! A UDP relay on loopback that holds every datagram for a fixed time in
//! each direction, for QUIC: Toxiproxy speaks TCP only, and this kernel has
//! no netem. Each client address gets a socket of its own towards the
//! server, as a NAT would give it, so the server tells clients apart.

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How often a blocked thread looks whether the relay is being dropped.
const POLL: Duration = Duration::from_millis(20);

/// A datagram waiting in a delay line until `due`, then sent on `socket`
/// (to `to` when the socket is not connected).
struct Held {
    due: Instant,
    bytes: Vec<u8>,
    socket: Arc<UdpSocket>,
    to: Option<SocketAddr>,
}

pub struct UdpRelay {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl UdpRelay {
    /// Relays datagrams between clients on a loopback port and `server`,
    /// each held `each_way` before it goes on.
    pub fn start(server: SocketAddr, each_way: Duration) -> UdpRelay {
        let front = Arc::new(UdpSocket::bind("127.0.0.1:0").expect("bind the relay"));
        front.set_read_timeout(Some(POLL)).expect("read timeout");
        let addr = front.local_addr().expect("local_addr");
        let stop = Arc::new(AtomicBool::new(false));
        let (to_server, upstream) = mpsc::channel::<Held>();
        let (to_clients, downstream) = mpsc::channel::<Held>();
        let threads = vec![
            thread::spawn(move || delay_line(upstream)),
            thread::spawn(move || delay_line(downstream)),
            {
                let stop = stop.clone();
                thread::spawn(move || {
                    from_clients(front, server, each_way, to_server, to_clients, stop)
                })
            },
        ];
        UdpRelay {
            addr,
            stop,
            threads,
        }
    }
}

impl Drop for UdpRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Reads what clients send; a new client gets its own socket towards the
/// server and a thread that relays the server's answers back.
fn from_clients(
    front: Arc<UdpSocket>,
    server: SocketAddr,
    each_way: Duration,
    to_server: Sender<Held>,
    to_clients: Sender<Held>,
    stop: Arc<AtomicBool>,
) {
    let mut backs: HashMap<SocketAddr, Arc<UdpSocket>> = HashMap::new();
    let mut answers = Vec::new();
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        let (len, client) = match front.recv_from(&mut buf) {
            Ok(got) => got,
            Err(_) => continue,
        };
        let back = backs.entry(client).or_insert_with(|| {
            let back = UdpSocket::bind("127.0.0.1:0").expect("bind towards the server");
            back.connect(server).expect("connect towards the server");
            back.set_read_timeout(Some(POLL)).expect("read timeout");
            let back = Arc::new(back);
            let (back_in, front_out) = (back.clone(), front.clone());
            let (to_clients, stop) = (to_clients.clone(), stop.clone());
            answers.push(thread::spawn(move || {
                from_server(back_in, front_out, client, each_way, to_clients, stop)
            }));
            back
        });
        let held = Held {
            due: Instant::now() + each_way,
            bytes: buf[..len].to_vec(),
            socket: back.clone(),
            to: None,
        };
        if to_server.send(held).is_err() {
            break;
        }
    }
    for thread in answers {
        let _ = thread.join();
    }
}

fn from_server(
    back: Arc<UdpSocket>,
    front: Arc<UdpSocket>,
    client: SocketAddr,
    each_way: Duration,
    to_clients: Sender<Held>,
    stop: Arc<AtomicBool>,
) {
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::Relaxed) {
        let len = match back.recv(&mut buf) {
            Ok(len) => len,
            Err(_) => continue,
        };
        let held = Held {
            due: Instant::now() + each_way,
            bytes: buf[..len].to_vec(),
            socket: front.clone(),
            to: Some(client),
        };
        if to_clients.send(held).is_err() {
            break;
        }
    }
}

/// Sends each datagram when it is due. Every datagram of a line is held
/// the same time, so first in is first due. Ends when every sender has gone.
fn delay_line(line: Receiver<Held>) {
    loop {
        let held = match line.recv_timeout(POLL) {
            Ok(held) => held,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let now = Instant::now();
        if held.due > now {
            thread::sleep(held.due - now);
        }
        // A datagram the kernel refuses is lost, as on any network.
        let _ = match held.to {
            Some(to) => held.socket.send_to(&held.bytes, to),
            None => held.socket.send(&held.bytes),
        };
    }
}
