//! A WebSocket over HTTP/2 (RFC 8441): the connection's preface, then,
//! once the server's SETTINGS allow extended CONNECT, one stream opened
//! with `:method CONNECT` and `:protocol websocket` whose DATA carries the
//! session's frames both ways. The stream ending or reset without a close
//! fails what was in flight.

use super::frame::close_code;
use super::session::{random_key_and_seed, Session};
use super::{is_handshake_field, Http2Upgrade, Messages};
use crate::driver::{Driver, Lost};
use crate::error_kind::ErrorKind;
use crate::events::{Events, Exchange};
use crate::protocols::http2::{read_more, write_output};
use crate::request::{is_connection_specific, RequestRef};
use crate::transport::Transport;
use loadgen_http2::{hpack, Config, Connection, Deliver, Event, Received};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

/// The stream asks for its head (the CONNECT's answer) and its DATA.
const TUNNEL: Deliver = Deliver {
    headers: true,
    body: true,
    head: false,
    grpc_status: false,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// The preface is out; the server's SETTINGS say whether it takes
    /// extended CONNECT.
    AwaitingSettings,
    /// The CONNECT is out on this stream; waiting for its 2xx.
    Connecting(u32),
    Open(u32),
    /// The stream is over: the connection takes nothing more.
    Ended,
}

pub(super) struct Tunnel<'a> {
    transport: Transport,
    upgrade: &'a Http2Upgrade,
    connection: Connection<()>,
    state: State,
    session: Session<'a>,
    read_buf: Vec<u8>,
    /// The start of a WebSocket frame the stream's last DATA ended in.
    partial: Vec<u8>,
    started: Instant,
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<'a> Tunnel<'a> {
    pub(super) fn new(
        transport: Transport,
        messages: &'a Messages,
        upgrade: &'a Http2Upgrade,
    ) -> Self {
        let settings = &upgrade.settings;
        let config = Config {
            stream_window: settings.stream_window(),
            connection_window: settings.connection_window(),
            max_frame_size: settings.max_frame_size,
            header_table_size: settings.header_table_size,
            // The CONNECT's answer is read for its status.
            keep_header_fields: true,
            ..Config::default()
        };
        let (_, seed) = random_key_and_seed();
        Tunnel {
            transport,
            upgrade,
            connection: Connection::new(config),
            state: State::AwaitingSettings,
            session: Session::new(messages, seed),
            read_buf: Vec::new(),
            partial: Vec::new(),
            started: Instant::now(),
            deadline: messages
                .upgrade_limit
                .map(|limit| Box::pin(tokio::time::sleep(limit))),
        }
    }

    fn connect_block(&self) -> Vec<u8> {
        let messages = self.session.messages();
        let mut headers: Vec<(String, String)> = messages
            .headers
            .iter()
            .filter(|(name, _)| !is_connection_specific(name) && !is_handshake_field(name))
            .cloned()
            .collect();
        headers.push(("sec-websocket-version".into(), "13".into()));
        let mut block = Vec::new();
        hpack::encode_extended_connect(
            "websocket",
            self.upgrade.scheme,
            &messages.authority,
            &messages.path,
            &headers,
            &mut block,
        );
        block
    }

    /// Opens the stream once the server's SETTINGS allow it.
    fn open_when_allowed(&mut self) -> Result<(), Lost> {
        if self.state != State::AwaitingSettings || !self.connection.has_peer_settings() {
            return Ok(());
        }
        if !self.connection.allows_extended_connect() {
            return Err(Lost::new(
                ErrorKind::Protocol,
                "the server does not take WebSockets over HTTP/2 (its SETTINGS do not \
                 enable extended CONNECT); drop --ws-http2 to upgrade over HTTP/1.1",
            ));
        }
        if !self.connection.can_start_request() {
            return Err(Lost::new(
                ErrorKind::Protocol,
                "the server allows no stream for the WebSocket",
            ));
        }
        let block = self.connect_block();
        let id = self.connection.open_tunnel(&block, (), TUNNEL);
        self.state = State::Connecting(id);
        Ok(())
    }

    /// Moves the session's frames onto the stream.
    fn flush_session(&mut self) {
        if let State::Open(id) = self.state {
            if !self.session.out.is_empty() {
                self.connection.send_on_tunnel(id, &self.session.out);
                self.session.out.clear();
            }
            if self.session.close_sent {
                // Our close frame is the last thing we send.
                self.connection.end_tunnel(id);
            }
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> std::io::Result<()> {
        write_output(&mut self.connection, &mut self.transport, cx, events)
    }

    fn poll_connection(
        &mut self,
        cx: &mut Context<'_>,
        events: &mut Events<'_>,
    ) -> Poll<Result<(), Lost>> {
        self.flush_session();
        if let Err(e) = self.poll_write(cx, events) {
            return Poll::Ready(Err(self
                .session
                .lost(ErrorKind::Reset, format!("write failed: {e}"))));
        }
        if !matches!(self.state, State::Open(_)) {
            if let Some(deadline) = &mut self.deadline {
                if deadline.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(Lost::new(
                        ErrorKind::Timeout,
                        "no answer to the WebSocket's extended CONNECT within --connect-timeout",
                    )));
                }
            }
        }
        if self.state == State::Ended || (self.session.close_sent && self.session.in_flight() == 0)
        {
            // Nothing more to read for: the shared layer ends the connection.
            return Poll::Pending;
        }
        match self.poll_read(cx, events) {
            Ok(true) => Poll::Ready(Ok(())),
            Ok(false) => Poll::Pending,
            Err(lost) => Poll::Ready(Err(lost)),
        }
    }

    /// `Ok(true)`: bytes were read and handled; `Ok(false)`: nothing yet.
    fn poll_read(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Result<bool, Lost> {
        let n = match read_more(&mut self.transport, &mut self.read_buf, cx) {
            Poll::Pending => return Ok(false),
            Poll::Ready(Err(e)) => {
                return Err(self
                    .session
                    .lost(ErrorKind::Reset, format!("read failed: {e}")));
            }
            Poll::Ready(Ok(n)) => n,
        };
        let now = Instant::now();
        if n == 0 {
            events.active(now);
            self.session.closing = true;
            return Err(match self.state {
                State::Open(_) => self.session.lost(
                    ErrorKind::Reset,
                    "the server closed the TCP connection without a WebSocket close".into(),
                ),
                _ => Lost::new(
                    ErrorKind::Protocol,
                    "the server closed the connection before the WebSocket opened",
                ),
            });
        }
        events.read(n, now);
        self.receive(now, events)?;
        self.open_when_allowed()?;
        Ok(true)
    }

    /// Hands what was read to the HTTP/2 connection, and the stream's
    /// DATA to the session.
    fn receive(&mut self, now: Instant, events: &mut Events<'_>) -> Result<(), Lost> {
        let Self {
            connection,
            read_buf,
            state,
            session,
            partial,
            started,
            ..
        } = self;
        let mut outcome = Ok(());
        let consumed = connection
            .receive_detailed(read_buf, &mut |received| {
                if outcome.is_err() {
                    return;
                }
                outcome = match received {
                    Received::Head { status, .. } => opened(state, status, now - *started, events),
                    Received::Data { chunk, .. } => {
                        take_frames(session, partial, chunk, now, events)
                    }
                    Received::Ended(ended) => {
                        *state = State::Ended;
                        session.closing = true;
                        stream_ended(session, &ended)
                    }
                    Received::GrpcMessage { .. } => Ok(()),
                };
            })
            .map_err(|e| Lost::new(ErrorKind::Protocol, format!("HTTP/2 protocol error: {e}")))?;
        if consumed == read_buf.len() {
            read_buf.clear();
        } else {
            read_buf.drain(..consumed);
        }
        outcome
    }
}

/// The CONNECT's answer: 2xx opens the WebSocket.
fn opened(
    state: &mut State,
    status: u16,
    took: std::time::Duration,
    events: &mut Events<'_>,
) -> Result<(), Lost> {
    let State::Connecting(id) = *state else {
        return Ok(());
    };
    if !(200..300).contains(&status) {
        return Err(Lost::new(
            ErrorKind::Protocol,
            format!("the server answered the WebSocket's extended CONNECT with {status}"),
        ));
    }
    events.recorder.borrow_mut().websocket_upgraded(took);
    *state = State::Open(id);
    Ok(())
}

/// Frames from the stream's DATA, which may cut them anywhere.
fn take_frames(
    session: &mut Session<'_>,
    partial: &mut Vec<u8>,
    chunk: &[u8],
    now: Instant,
    events: &mut Events<'_>,
) -> Result<(), Lost> {
    if partial.is_empty() {
        let used = session.handle(chunk, now, events)?;
        partial.extend_from_slice(&chunk[used..]);
    } else {
        partial.extend_from_slice(chunk);
        let used = session.handle(partial, now, events)?;
        partial.drain(..used);
    }
    Ok(())
}

/// The server ended or reset the stream: a WebSocket already closed ends
/// quietly, one with messages in flight fails them.
fn stream_ended(session: &Session<'_>, ended: &Event<()>) -> Result<(), Lost> {
    match ended {
        Event::Response { status, .. } if !(200..300).contains(status) => Ok(()),
        Event::Response { .. } if session.in_flight() == 0 => Ok(()),
        Event::Response { .. } => Err(session.lost(
            ErrorKind::Reset,
            "the server ended the WebSocket's stream without a WebSocket close".into(),
        )),
        Event::Failed { error, .. } => Err(session.lost(
            ErrorKind::Reset,
            format!("the WebSocket's stream failed: {error}"),
        )),
    }
}

impl Driver for Tunnel<'_> {
    fn can_start(&self) -> bool {
        matches!(self.state, State::Open(_)) && !self.session.closing
    }

    fn start(&mut self, request: RequestRef<'_>, exchange: Exchange) {
        self.session.start(request, exchange);
    }

    fn in_flight(&self) -> usize {
        self.session.in_flight()
    }

    fn is_closing(&self) -> bool {
        self.session.closing || self.connection.is_closing()
    }

    fn poll(&mut self, cx: &mut Context<'_>, events: &mut Events<'_>) -> Poll<Result<(), Lost>> {
        self.session.record_sent(events);
        let polled = self.poll_connection(cx, events);
        if let Poll::Ready(Err(lost)) = &polled {
            if !matches!(self.state, State::Open(_)) && self.session.in_flight() == 0 {
                super::upgrade_failed(lost, events);
            }
        }
        polled
    }

    fn oldest_sent(&self) -> Option<Instant> {
        self.session.oldest_sent()
    }

    fn time_out(&mut self, _cutoff: Instant, _events: &mut Events<'_>) -> Result<(), Lost> {
        // Answers come in order: a late one leaves every later message unmatched.
        Err(self
            .session
            .lost(ErrorKind::Timeout, "a message timed out".into()))
    }

    fn take_in_flight(&mut self, each: &mut dyn FnMut(Exchange)) {
        self.session.take_in_flight(each);
    }

    fn close(&mut self, events: &mut Events<'_>) {
        self.session.record_sent(events);
        if matches!(self.state, State::Open(_)) {
            self.session.queue_close(close_code::NORMAL);
            self.flush_session();
        }
        // One try, without waiting: a polite close when the socket takes it.
        let mut cx = Context::from_waker(Waker::noop());
        let _ = self.poll_write(&mut cx, events);
    }
}
