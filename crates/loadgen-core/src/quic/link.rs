//! The I/O around one QUIC connection: quinn-proto is the protocol, without
//! I/O; this is its loop. One UDP socket per connection, read in the
//! client's own task: datagrams go into the connection as they come,
//! stamped with when they arrived ([`arrival`](super::arrival)), and what
//! the connection has to send goes out in GSO batches.
//!
//! quinn (the crate above quinn-proto) runs the same state machine in
//! tasks of its own (an endpoint driver and a connection driver), copies
//! each received batch into a new buffer, passes it through a channel and
//! wakes each stream's reader; a benchmark's protocol driver reads its
//! streams right after each batch instead (see docs/performance.md).

use super::arrival::last_arrival;
use bytes::BytesMut;
use quinn_proto::{
    ClientConfig, ConnectionError, ConnectionHandle, EcnCodepoint, Endpoint, EndpointConfig, Event,
    Transmit, VarInt,
};
use quinn_udp::{RecvMeta, UdpSocketState};
use std::cell::RefCell;
use std::future::{poll_fn, Future};
use std::io::{self, IoSliceMut};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::io::Interest;
use tokio::net::UdpSocket;
use tokio::time::Sleep;

/// Socket buffers of each connection's UDP socket, so bursts of `-m`
/// responses are not dropped.
const SOCKET_BUFFER: usize = 4 << 20;

/// Room for one received message: a GRO batch of datagrams is at most 64 KiB.
const RECEIVE_SLOT: usize = 64 * 1024;

/// The most one GSO send may carry: a UDP datagram's length field is 16
/// bits, and the kernel refuses a batch beyond it (EMSGSIZE) as one datagram.
const SEND_BATCH_BYTES: usize = 65_000;

/// Messages taken per receive (`recvmmsg`).
const RECEIVE_BATCH: usize = quinn_udp::BATCH_SIZE;

thread_local! {
    /// Where the worker thread's connections receive, one after another
    /// (they are polled in turn): 2 MiB, touched only where datagrams land.
    static RECEIVE_BUFFER: RefCell<ReceiveBuffer> = RefCell::new(ReceiveBuffer::new());
}

/// One QUIC connection with the socket that carries it.
pub struct QuicLink {
    socket: UdpSocket,
    udp: UdpSocketState,
    endpoint: Endpoint,
    handle: ConnectionHandle,
    pub connection: quinn_proto::Connection,
    /// What the connection has to send, and a batch the socket refused.
    outgoing: Vec<u8>,
    unsent: Option<Transmit>,
    /// For the endpoint's own answers (a stateless reset, a version
    /// negotiation), which a client has no use for.
    endpoint_answer: Vec<u8>,
    max_segments: usize,
    timer: Pin<Box<Sleep>>,
    timer_deadline: Option<Instant>,
    /// The latest time handed to the connection.
    clock: Instant,
}

impl QuicLink {
    /// A new connection to `server`, its first flight not sent yet.
    pub fn connect(
        config: ClientConfig,
        server: SocketAddr,
        server_name: &str,
    ) -> io::Result<QuicLink> {
        let socket = udp_socket(server)?;
        let udp = UdpSocketState::new((&socket).into())?;
        let mut endpoint = Endpoint::new(
            Arc::new(EndpointConfig::default()),
            None,
            !udp.may_fragment(),
            None,
        );
        let (handle, connection) = endpoint
            .connect(Instant::now(), config, server, server_name)
            .map_err(io::Error::other)?;
        let max_segments = udp.max_gso_segments();
        Ok(QuicLink {
            socket: UdpSocket::from_std(socket)?,
            udp,
            endpoint,
            handle,
            connection,
            outgoing: Vec::new(),
            unsent: None,
            endpoint_answer: Vec::new(),
            max_segments,
            timer: Box::pin(tokio::time::sleep_until(Instant::now().into())),
            timer_deadline: None,
            clock: Instant::now(),
        })
    }

    /// Drives the handshake to its end: the connection's first events up to
    /// `Connected` are taken here, the rest stay for its protocol.
    pub async fn handshake(&mut self) -> Result<(), HandshakeError> {
        poll_fn(|cx| {
            let now = Instant::now();
            self.expire_timer(now);
            loop {
                while let Some(event) = self.connection.poll() {
                    match event {
                        Event::Connected => return Poll::Ready(Ok(())),
                        Event::ConnectionLost { reason } => {
                            return Poll::Ready(Err(HandshakeError::Lost(reason)))
                        }
                        _ => {}
                    }
                }
                if !self.receive(cx).map_err(HandshakeError::Io)? {
                    break;
                }
            }
            self.send(cx).map_err(HandshakeError::Io)?;
            Poll::Pending
        })
        .await
    }

    /// Feeds the connection one receive's worth of datagrams (up to
    /// `RECEIVE_BATCH` messages); false once the socket has none, with its
    /// waker registered. The caller reads the streams between receives, so
    /// the memory received into is free again for the next.
    pub fn receive(&mut self, cx: &mut Context<'_>) -> io::Result<bool> {
        loop {
            match self.socket.poll_recv_ready(cx) {
                Poll::Ready(ready) => ready?,
                Poll::Pending => return Ok(false),
            }
            let mut metas = [RecvMeta::default(); RECEIVE_BATCH];
            let result = RECEIVE_BUFFER.with_borrow_mut(|buffer| {
                let slots = buffer.ready();
                let mut slots = slots.chunks_mut(RECEIVE_SLOT);
                let mut iovs: [IoSliceMut<'_>; RECEIVE_BATCH] =
                    std::array::from_fn(|_| IoSliceMut::new(slots.next().expect("BATCH slots")));
                // A receive that would block clears the socket's readiness,
                // and so does one that emptied the socket's queue (fewer
                // messages than asked for): the next datagram raises it
                // again, so no receive is spent learning the queue is empty.
                let mut drained = None;
                let received = self.socket.try_io(Interest::READABLE, || {
                    let count = self
                        .udp
                        .recv((&self.socket).into(), &mut iovs, &mut metas)?;
                    if count < RECEIVE_BATCH {
                        drained = Some(count);
                        return Err(io::ErrorKind::WouldBlock.into());
                    }
                    Ok(count)
                });
                let count = match (received, drained) {
                    (_, Some(count)) => count,
                    (received, None) => received?,
                };
                Ok::<_, io::Error>((buffer.take(count), count))
            });
            match result {
                Ok((mut received, count)) => {
                    let now = self.arrival();
                    for meta in &metas[..count] {
                        let mut message = received.split_to(RECEIVE_SLOT.min(received.len()));
                        message.truncate(meta.len);
                        self.take_datagrams(message, meta, now);
                    }
                    if count > 0 {
                        return Ok(true);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                // Undefined in QUIC, and anyone may cause it: ignored, as quinn does.
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// When the datagrams just received arrived: the last one's kernel
    /// stamp (see [`arrival`](super::arrival)), for all of them, so the ACK
    /// delay of the newest is exact. Never earlier than a time the
    /// connection was already handed, so its clock runs forward.
    fn arrival(&mut self) -> Instant {
        let now = Instant::now();
        let arrived = last_arrival(&self.socket, now).unwrap_or(now);
        self.clock = self.clock.max(arrived);
        self.clock
    }

    /// One receive's datagrams (several with GRO, `stride` bytes apart).
    fn take_datagrams(&mut self, mut batch: BytesMut, meta: &RecvMeta, now: Instant) {
        let ecn = meta.ecn.and_then(|ecn| EcnCodepoint::from_bits(ecn as u8));
        while !batch.is_empty() {
            let datagram = batch.split_to(meta.stride.min(batch.len()));
            self.endpoint_answer.clear();
            // A client's endpoint only ever has this connection; anything
            // else it answers (a stateless reset to an unknown connection)
            // is not sent.
            if let Some(quinn_proto::DatagramEvent::ConnectionEvent(_, event)) =
                self.endpoint.handle(
                    now,
                    meta.addr,
                    meta.dst_ip,
                    ecn,
                    datagram,
                    &mut self.endpoint_answer,
                )
            {
                self.connection.handle_event(event);
            }
        }
    }

    /// Handles the connection's timer if it has expired.
    pub fn expire_timer(&mut self, now: Instant) -> bool {
        match self.connection.poll_timeout() {
            Some(deadline) if deadline <= now => {
                self.clock = now;
                self.connection.handle_timeout(now);
                true
            }
            _ => false,
        }
    }

    /// Sends what the connection has to send and arms its timer: after this
    /// the task is woken by the socket or the timer. `Err` when the socket
    /// failed.
    pub fn send(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        loop {
            self.forward_endpoint_events();
            self.transmit(cx)?;
            // Sending may have set a timer that has already expired.
            let now = Instant::now();
            if !self.expire_timer(now) {
                break;
            }
        }
        self.arm_timer(cx);
        Ok(())
    }

    fn forward_endpoint_events(&mut self) {
        while let Some(event) = self.connection.poll_endpoint_events() {
            if let Some(event) = self.endpoint.handle_event(self.handle, event) {
                self.connection.handle_event(event);
            }
        }
    }

    fn transmit(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        let now = Instant::now();
        self.clock = now;
        loop {
            let transmit = match self.unsent.take() {
                Some(transmit) => transmit,
                None => {
                    self.outgoing.clear();
                    let mtu = usize::from(self.connection.current_mtu());
                    let segments = self.max_segments.min(SEND_BATCH_BYTES / mtu).max(1);
                    match self
                        .connection
                        .poll_transmit(now, segments, &mut self.outgoing)
                    {
                        Some(transmit) => transmit,
                        None => return Ok(()),
                    }
                }
            };
            match self.socket.poll_send_ready(cx) {
                Poll::Ready(ready) => ready?,
                Poll::Pending => {
                    self.unsent = Some(transmit);
                    return Ok(());
                }
            }
            let datagrams = datagrams(&transmit, &self.outgoing);
            // A send that would block clears the socket's readiness.
            let result = self.socket.try_io(Interest::WRITABLE, || {
                self.udp.send((&self.socket).into(), &datagrams)
            });
            match result {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.unsent = Some(transmit),
                Err(e) => return Err(e),
            }
        }
    }

    fn arm_timer(&mut self, cx: &mut Context<'_>) {
        let Some(deadline) = self.connection.poll_timeout() else {
            self.timer_deadline = None;
            return;
        };
        if self.timer_deadline != Some(deadline) {
            self.timer.as_mut().reset(deadline.into());
            self.timer_deadline = Some(deadline);
        }
        if self.timer.as_mut().poll(cx).is_ready() {
            // Expired between the check and the poll.
            self.timer_deadline = None;
            cx.waker().wake_by_ref();
        }
    }

    /// The protocol the handshake negotiated by ALPN.
    pub fn alpn(&self) -> Option<Vec<u8>> {
        self.connection
            .crypto_session()
            .handshake_data()?
            .downcast::<quinn_proto::crypto::rustls::HandshakeData>()
            .ok()?
            .protocol
    }

    /// Closes the connection and sends the CONNECTION_CLOSE once, without
    /// waiting: nothing waits for the server's answer.
    pub fn close(&mut self, code: VarInt) {
        if self.connection.is_closed() {
            return;
        }
        let now = Instant::now();
        self.connection.close(now, code, bytes::Bytes::new());
        self.outgoing.clear();
        if let Some(transmit) = self.connection.poll_transmit(now, 1, &mut self.outgoing) {
            let _ = self
                .udp
                .send((&self.socket).into(), &datagrams(&transmit, &self.outgoing));
        }
    }
}

/// The thread's receive memory: quinn-proto takes each datagram as a
/// `BytesMut` and keeps slices of its stream data until they are read, so
/// received messages are split off this buffer rather than copied; once
/// nothing refers to them (a benchmark reads each stream as its data
/// arrives) the whole buffer is reclaimed for the next receive.
struct ReceiveBuffer {
    /// `RECEIVE_BATCH` slots, every byte initialized.
    memory: BytesMut,
}

impl ReceiveBuffer {
    fn new() -> ReceiveBuffer {
        ReceiveBuffer {
            memory: BytesMut::zeroed(RECEIVE_SLOT * RECEIVE_BATCH),
        }
    }

    /// Every slot, ready to be received into.
    fn ready(&mut self) -> &mut [u8] {
        let whole = RECEIVE_SLOT * RECEIVE_BATCH;
        if self.memory.len() != whole {
            self.memory.clear();
            if self.memory.try_reclaim(whole) {
                // SAFETY: the same allocation, every byte of which was
                // initialized (zeroed, then written by the kernel).
                unsafe { self.memory.set_len(whole) };
            } else {
                // Stream data still refers to the old one; it is freed
                // when that data is read.
                *self = ReceiveBuffer::new();
            }
        }
        &mut self.memory
    }

    /// The first `count` slots, as received into.
    fn take(&mut self, count: usize) -> BytesMut {
        self.memory.split_to(count * RECEIVE_SLOT)
    }
}

/// What quinn-proto asked to send, as quinn-udp sends it.
fn datagrams<'a>(transmit: &Transmit, outgoing: &'a [u8]) -> quinn_udp::Transmit<'a> {
    quinn_udp::Transmit {
        destination: transmit.destination,
        ecn: transmit
            .ecn
            .and_then(|ecn| quinn_udp::EcnCodepoint::from_bits(ecn as u8)),
        contents: &outgoing[..transmit.size],
        segment_size: transmit.segment_size,
        src_ip: transmit.src_ip,
    }
}

/// Why a handshake did not end in a connection.
pub enum HandshakeError {
    Lost(ConnectionError),
    Io(io::Error),
}

/// A UDP socket on an ephemeral port, with large buffers, not blocking.
fn udp_socket(server: SocketAddr) -> io::Result<std::net::UdpSocket> {
    let (domain, local) = match server {
        SocketAddr::V4(_) => (
            socket2::Domain::IPV4,
            SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0),
        ),
        SocketAddr::V6(_) => (
            socket2::Domain::IPV6,
            SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), 0),
        ),
    };
    let socket = socket2::Socket::new(domain, socket2::Type::DGRAM, Some(socket2::Protocol::UDP))?;
    // Best effort: the kernel caps them at net.core.[rw]mem_max.
    let _ = socket.set_recv_buffer_size(SOCKET_BUFFER);
    let _ = socket.set_send_buffer_size(SOCKET_BUFFER);
    socket.bind(&local.into())?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}
