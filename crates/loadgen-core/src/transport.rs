//! Opening connections: TCP or UNIX socket, then TLS when the scheme asks
//! for it; or a QUIC connection (see [`crate::quic`]) when the plan asks
//! for HTTP/3. Which protocol then speaks on the connection is the
//! registry's choice ([`crate::protocols`]), from what ALPN negotiated.

use crate::connection_info::{ClientId, ConnectError, ConnectPhases, TlsInfo};
use crate::error_kind::ErrorKind;
use crate::plan::Plan;
use crate::plan_error::PlanError;
use crate::quic::{QuicConnector, QuicLink};
use crate::tls;
use crate::uri::ConnectTo;
use rustls::pki_types::ServerName;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpSocket, TcpStream, UnixStream};
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

/// A byte stream to the server, whatever carries it.
pub enum Transport {
    Tcp(TcpStream),
    Unix(UnixStream),
    TlsTcp(Box<TlsStream<TcpStream>>),
    TlsUnix(Box<TlsStream<UnixStream>>),
}

/// What a protocol runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrier {
    /// A byte stream: TCP or a UNIX socket, with TLS on https.
    Stream,
    /// A QUIC connection.
    Quic,
    /// Nothing: the protocol answers in-process (test doubles, the
    /// engine's own overhead).
    InProcess,
}

/// What a connection attempt produced, for the protocol's driver.
pub enum Link {
    Stream(Transport),
    /// Boxed: quinn-proto's connection state is several kilobytes.
    Quic(Box<QuicLink>),
    InProcess,
}

impl Link {
    /// The protocol TLS or QUIC negotiated by ALPN, if any.
    pub fn alpn(&self) -> Option<Vec<u8>> {
        match self {
            Link::Stream(transport) => transport
                .tls_session()
                .and_then(|s| s.alpn_protocol())
                .map(<[u8]>::to_vec),
            Link::Quic(quic) => quic.alpn(),
            Link::InProcess => None,
        }
    }
}

/// What the worker threads need to open connections; built once per run.
pub struct Connector {
    target: ResolvedTarget,
    tls: Option<(TlsConnector, ServerName<'static>)>,
    quic: Option<QuicConnector>,
}

enum ResolvedTarget {
    /// `name` is set when the host is a name: it is looked up again for
    /// every connection, so DNS time is measured; `addrs` came from the
    /// lookup at start, which checked that the name resolves.
    Tcp {
        addrs: Vec<SocketAddr>,
        name: Option<(String, u16)>,
    },
    Unix(std::path::PathBuf),
    /// In-process protocols connect to nothing.
    None,
}

/// Why a connector cannot be built.
#[derive(Debug)]
pub enum SetupError {
    /// A TLS or QUIC setting cannot be used.
    Config(PlanError),
    /// The host's name does not resolve.
    Unresolved(String),
}

pub struct Connected {
    pub link: Link,
    pub tls: Option<TlsInfo>,
    pub phases: ConnectPhases,
}

impl Connector {
    /// Resolves the host and builds the TLS or QUIC configuration for
    /// connections on `carrier`; errors are one line for the user.
    pub fn new(plan: &Plan, carrier: Carrier) -> Result<Connector, SetupError> {
        let quic = if carrier == Carrier::Quic {
            Some(QuicConnector::new(plan).map_err(SetupError::Config)?)
        } else {
            None
        };
        let tls = if plan.is_tls() && carrier == Carrier::Stream {
            let config =
                tls::client_config(&plan.tls, &plan.tls_alpn()).map_err(SetupError::Config)?;
            let name =
                tls::server_name(&plan.tls, &plan.endpoint.host).map_err(SetupError::Config)?;
            Some((TlsConnector::from(config), name))
        } else {
            None
        };
        let target = match &plan.endpoint.connect {
            _ if carrier == Carrier::InProcess => ResolvedTarget::None,
            ConnectTo::Tcp { host, port } => {
                use std::net::ToSocketAddrs;
                let unresolved = |detail: String| {
                    SetupError::Unresolved(format!("cannot resolve host '{host}': {detail}"))
                };
                let addrs: Vec<SocketAddr> = (host.as_str(), *port)
                    .to_socket_addrs()
                    .map_err(|e| unresolved(e.to_string()))?
                    .collect();
                if addrs.is_empty() {
                    return Err(unresolved("no addresses".into()));
                }
                let name = host
                    .parse::<std::net::IpAddr>()
                    .is_err()
                    .then(|| (host.clone(), *port));
                ResolvedTarget::Tcp { addrs, name }
            }
            ConnectTo::Unix { path } => ResolvedTarget::Unix(path.clone()),
        };
        Ok(Connector { target, tls, quic })
    }

    /// Opens one connection for `client`, timing each phase.
    ///
    /// One `async fn` where there were two: each level of them keeps its
    /// own copy of its arguments, and every client's attempt to connect is
    /// alive at once as a run starts (ten thousand of them at `-c 10000`).
    pub async fn connect(&self, client: ClientId) -> Result<Connected, ConnectError> {
        let mut phases = ConnectPhases::default();
        let (link, tls) = match &self.target {
            ResolvedTarget::Tcp { addrs, name } => {
                let looked_up;
                let addrs = match name {
                    Some((host, port)) => {
                        let started = Instant::now();
                        looked_up = resolve(host, *port).await?;
                        phases.dns = Some(started.elapsed());
                        &looked_up
                    }
                    None => addrs,
                };
                if let Some(quic) = &self.quic {
                    let started = Instant::now();
                    // Boxed, as the TLS handshake below: the handshakes are
                    // large futures, and a client's future holds room for
                    // its largest state for the whole run.
                    let connection = Box::pin(quic.connect(addrs, client)).await?;
                    phases.tls = Some(started.elapsed());
                    (Link::Quic(Box::new(connection)), Some(quic.tls_info()))
                } else {
                    let started = Instant::now();
                    let stream = connect_tcp(addrs).await?;
                    phases.tcp = Some(started.elapsed());
                    match &self.tls {
                        Some(tls) => {
                            let stream = self.secure(tls, stream, &mut phases).await?;
                            secured(Transport::TlsTcp(Box::new(stream)))
                        }
                        None => (Link::Stream(Transport::Tcp(stream)), None),
                    }
                }
            }
            ResolvedTarget::None => (Link::InProcess, None),
            ResolvedTarget::Unix(path) => {
                let started = Instant::now();
                let stream = UnixStream::connect(path).await.map_err(|e| ConnectError {
                    kind: ErrorKind::Connect,
                    message: format!("cannot connect to unix:{}: {e}", path.display()),
                })?;
                phases.tcp = Some(started.elapsed());
                match &self.tls {
                    Some(tls) => {
                        let stream = self.secure(tls, stream, &mut phases).await?;
                        secured(Transport::TlsUnix(Box::new(stream)))
                    }
                    None => (Link::Stream(Transport::Unix(stream)), None),
                }
            }
        };
        Ok(Connected { link, tls, phases })
    }

    /// The TLS handshake over `stream`, timed into `phases`.
    async fn secure<S>(
        &self,
        (connector, name): &(TlsConnector, ServerName<'static>),
        stream: S,
        phases: &mut ConnectPhases,
    ) -> Result<TlsStream<S>, ConnectError>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let started = Instant::now();
        // Boxed: the handshake future holds a whole rustls connection, which
        // every client's future would otherwise keep room for.
        let stream = Box::pin(connector.connect(name.clone(), stream))
            .await
            .map_err(|e| ConnectError {
                kind: ErrorKind::Tls,
                message: tls::explain_handshake_error(&e),
            })?;
        phases.tls = Some(started.elapsed());
        Ok(stream)
    }
}

/// A TLS transport and what its handshake settled.
fn secured(transport: Transport) -> (Link, Option<TlsInfo>) {
    let tls = transport.tls_session().map(tls::describe);
    (Link::Stream(transport), tls)
}

async fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>, ConnectError> {
    let failed = |detail: String| ConnectError {
        kind: ErrorKind::Connect,
        message: format!("cannot resolve host '{host}': {detail}"),
    };
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| failed(e.to_string()))?
        .collect();
    if addrs.is_empty() {
        return Err(failed("no addresses".into()));
    }
    Ok(addrs)
}

/// Connects to the first of `addrs` that answers. Through `TcpSocket`:
/// `TcpStream::connect` takes anything that resolves to addresses, and its
/// future keeps room for that (168 bytes against `TcpSocket::connect`'s
/// 120, in every client's attempt).
async fn connect_tcp(addrs: &[SocketAddr]) -> Result<TcpStream, ConnectError> {
    let mut last_error = None;
    for addr in addrs {
        let socket = match addr {
            SocketAddr::V4(_) => TcpSocket::new_v4(),
            SocketAddr::V6(_) => TcpSocket::new_v6(),
        };
        let connected = match socket {
            Ok(socket) => {
                // Requests are small and latency is what we measure.
                let _ = socket.set_nodelay(true);
                socket.connect(*addr).await
            }
            Err(e) => Err(e),
        };
        match connected {
            Ok(stream) => return Ok(stream),
            Err(e) => last_error = Some((addr, e)),
        }
    }
    let (addr, e) = last_error.expect("at least one address is resolved");
    Err(ConnectError {
        kind: ErrorKind::Connect,
        message: format!("cannot connect to {addr}: {e}"),
    })
}

impl Transport {
    /// The rustls session, on TLS transports.
    pub fn tls_session(&self) -> Option<&rustls::ClientConnection> {
        match self {
            Transport::TlsTcp(s) => Some(s.get_ref().1),
            Transport::TlsUnix(s) => Some(s.get_ref().1),
            _ => None,
        }
    }

    /// Pushes out what TLS buffered (plain sockets have nothing to flush);
    /// a flush that must wait is not an error.
    pub fn push_out(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        // A socket holds nothing back: only TLS has records to flush. The
        // call through the four transports cost a plain request about 120
        // instructions for nothing.
        if matches!(self, Transport::Tcp(_) | Transport::Unix(_)) {
            return Ok(());
        }
        match Pin::new(self).poll_flush(cx) {
            Poll::Ready(Err(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// Reads once from the socket into `buffer`'s spare capacity and
    /// appends what arrived, on TLS every record that read brought;
    /// `Ok(0)` is the end of the stream. Reading into uninitialized
    /// capacity spares zeroing the buffer before every read.
    ///
    /// tokio-rustls hands out one record's plaintext per read, though one
    /// read from the socket often brings several (an HTTP/2 server sends
    /// each response in a record of its own). Taken one at a time, each
    /// record's responses were answered with a write of their own: four
    /// times as many writes (and records for the server to open) per
    /// request as h2load's (docs/performance.md, "HTTP/2 on the wire").
    pub fn poll_read_append(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<u8>,
    ) -> Poll<io::Result<usize>> {
        let filled_before = buffer.len();
        ready!(self.poll_read_once_append(cx, buffer))?;
        while self.has_decrypted_data() && buffer.len() < buffer.capacity() {
            // No socket read happens here: the data is in rustls already.
            match self.poll_read_once_append(cx, buffer) {
                Poll::Ready(Ok(0)) | Poll::Pending => break,
                Poll::Ready(Ok(_)) => {}
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(buffer.len() - filled_before))
    }

    fn poll_read_once_append(
        &mut self,
        cx: &mut Context<'_>,
        buffer: &mut Vec<u8>,
    ) -> Poll<io::Result<usize>> {
        let filled_before = buffer.len();
        let mut buf = ReadBuf::uninit(buffer.spare_capacity_mut());
        ready!(Pin::new(&mut *self).poll_read(cx, &mut buf))?;
        let n = buf.filled().len();
        // SAFETY: `poll_read` initialized the first `n` bytes of the spare capacity.
        unsafe { buffer.set_len(filled_before + n) };
        Poll::Ready(Ok(n))
    }

    /// Whether TLS holds plaintext it has decrypted and not handed out; a
    /// read then takes it without reading the socket. (rustls stops
    /// wanting to read while it holds plaintext, or after the server's
    /// close_notify, when a read returns the end of the stream.)
    fn has_decrypted_data(&self) -> bool {
        self.tls_session()
            .is_some_and(|s| !s.is_handshaking() && !s.wants_read())
    }
}

macro_rules! delegate {
    ($self:ident, $s:ident => $call:expr) => {
        match $self.get_mut() {
            Transport::Tcp($s) => $call,
            Transport::Unix($s) => $call,
            Transport::TlsTcp($s) => $call,
            Transport::TlsUnix($s) => $call,
        }
    };
}

impl AsyncRead for Transport {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        delegate!(self, s => Pin::new(s).poll_read(cx, buf))
    }
}

impl AsyncWrite for Transport {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        delegate!(self, s => Pin::new(s).poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        delegate!(self, s => Pin::new(s).poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Transport::Tcp(s) => s.is_write_vectored(),
            Transport::Unix(s) => s.is_write_vectored(),
            Transport::TlsTcp(s) => s.is_write_vectored(),
            Transport::TlsUnix(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        delegate!(self, s => Pin::new(s).poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        delegate!(self, s => Pin::new(s).poll_shutdown(cx))
    }
}
