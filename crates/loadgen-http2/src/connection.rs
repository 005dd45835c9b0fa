//! The client side of one HTTP/2 connection, without I/O: requests go in
//! with [`Connection::start_request`], the server's bytes with
//! [`Connection::receive`], and what to write back is in
//! [`Connection::output`]. Each stream carries the caller's `T` (for a
//! benchmark: which request it is and when it was sent) and hands it back
//! exactly once, in a response or an error.

use crate::acks::QueuedAcks;
use crate::events::{Deliver, GoAway};
use crate::frame::{self, code, setting};
use crate::hpack;
use crate::read_state::ReadState;
use crate::streams::{Phase, Sending, Stream, StreamMap};
use bytes::Bytes;

/// SETTINGS_HEADER_TABLE_SIZE until a SETTINGS frame changes it.
const DEFAULT_TABLE_SIZE: u32 = 4096;

/// 64 KiB: the most nghttp2 (and so h2load) takes for one header field,
/// while real response heads are a few hundred bytes. Without a limit a
/// server could make the client hold a header block of any size.
const DEFAULT_MAX_HEADER_LIST_SIZE: u32 = 64 * 1024;

#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// SETTINGS_INITIAL_WINDOW_SIZE we advertise (h2load's `-w`).
    pub stream_window: u32,
    /// The connection window we grant (h2load's `-W`).
    pub connection_window: u32,
    /// SETTINGS_MAX_FRAME_SIZE we advertise.
    pub max_frame_size: u32,
    /// SETTINGS_HEADER_TABLE_SIZE we advertise: the decoder's table limit.
    pub header_table_size: u32,
    /// Keep the HPACK table's contents, not only its sizes, so that
    /// streams can ask for their response's header fields ([`Deliver`]).
    pub keep_header_fields: bool,
    /// SETTINGS_MAX_HEADER_LIST_SIZE we advertise, and what we hold to it:
    /// a header block whose compressed bytes or decoded list (names,
    /// values and 32 bytes per field, RFC 9113 section 6.5.2) go beyond it
    /// ends the connection.
    pub max_header_list_size: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            stream_window: frame::DEFAULT_WINDOW,
            connection_window: frame::DEFAULT_WINDOW,
            max_frame_size: frame::DEFAULT_MAX_FRAME_SIZE,
            header_table_size: DEFAULT_TABLE_SIZE,
            keep_header_fields: false,
            max_header_list_size: DEFAULT_MAX_HEADER_LIST_SIZE,
        }
    }
}

/// The server's settings, as far as a client's sending depends on them.
pub(crate) struct PeerSettings {
    pub max_concurrent_streams: u32,
    pub initial_window: u32,
    pub max_frame_size: u32,
    /// SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441): extended CONNECT allowed.
    pub extended_connect: bool,
}

pub struct Connection<T> {
    pub(crate) config: Config,
    pub(crate) peer: PeerSettings,
    pub(crate) streams: StreamMap<T>,
    pub(crate) next_stream_id: u32,
    pub(crate) decoder: hpack::Decoder,
    /// What the server's decoder holds of our requests' fields.
    pub(crate) encoder: hpack::EncoderTable,
    pub(crate) out: Vec<u8>,
    out_pos: usize,
    /// PING and SETTINGS acknowledgements in `out` not yet written.
    pub(crate) acks: QueuedAcks,
    /// What we may still send on the connection.
    pub(crate) send_window: i64,
    /// What the server may still send on the connection.
    pub(crate) recv_window: i64,
    pub(crate) recv_unacked: u32,
    /// Streams whose body waits for window.
    pub(crate) blocked_bodies: Vec<u32>,
    pub(crate) read: ReadState,
    pub(crate) go_away: Option<GoAway>,
}

impl<T> Connection<T> {
    /// A connection whose preface, settings and connection window are
    /// already waiting in [`Connection::output`].
    pub fn new(config: Config) -> Self {
        let mut out = Vec::with_capacity(1024);
        out.extend_from_slice(frame::CLIENT_PREFACE);
        let mut settings = vec![
            (setting::ENABLE_PUSH, 0),
            (setting::INITIAL_WINDOW_SIZE, config.stream_window),
            (setting::MAX_HEADER_LIST_SIZE, config.max_header_list_size),
        ];
        if config.max_frame_size != frame::DEFAULT_MAX_FRAME_SIZE {
            settings.push((setting::MAX_FRAME_SIZE, config.max_frame_size));
        }
        if config.header_table_size != DEFAULT_TABLE_SIZE {
            settings.push((setting::HEADER_TABLE_SIZE, config.header_table_size));
        }
        frame::write_settings(&mut out, &settings);
        // The connection window starts at 65,535 and can only grow.
        let connection_window = config.connection_window.max(frame::DEFAULT_WINDOW);
        if connection_window > frame::DEFAULT_WINDOW {
            frame::write_window_update(&mut out, 0, connection_window - frame::DEFAULT_WINDOW);
        }
        Connection {
            config,
            peer: PeerSettings {
                // nghttp2's assumption until the server's SETTINGS arrive.
                max_concurrent_streams: 100,
                initial_window: frame::DEFAULT_WINDOW,
                max_frame_size: frame::DEFAULT_MAX_FRAME_SIZE,
                extended_connect: false,
            },
            streams: StreamMap::default(),
            next_stream_id: 1,
            // The server may use the default table size until it has our SETTINGS.
            decoder: {
                let size = config.header_table_size.max(DEFAULT_TABLE_SIZE) as usize;
                if config.keep_header_fields {
                    hpack::Decoder::keeping_fields(size)
                } else {
                    hpack::Decoder::new(size)
                }
            },
            encoder: hpack::EncoderTable::default(),
            out,
            out_pos: 0,
            acks: QueuedAcks::default(),
            send_window: i64::from(frame::DEFAULT_WINDOW),
            recv_window: i64::from(connection_window),
            recv_unacked: 0,
            blocked_bodies: Vec::new(),
            read: Default::default(),
            go_away: None,
        }
    }

    /// Whether a new stream may start now: no GOAWAY, below the server's
    /// stream limit, and stream ids left.
    pub fn can_start_request(&self) -> bool {
        self.go_away.is_none()
            && (self.streams.len() as u64) < u64::from(self.peer.max_concurrent_streams)
            && self.next_stream_id <= frame::MAX_STREAM_ID
    }

    /// Whether this connection will never take another request.
    pub fn is_closing(&self) -> bool {
        self.go_away.is_some() || self.next_stream_id > frame::MAX_STREAM_ID
    }

    pub fn go_away(&self) -> Option<&GoAway> {
        self.go_away.as_ref()
    }

    pub fn open_streams(&self) -> usize {
        self.streams.len()
    }

    /// Whether the server's first SETTINGS frame has arrived.
    pub fn has_peer_settings(&self) -> bool {
        self.read.has_settings()
    }

    /// Whether the server allows extended CONNECT (RFC 8441), as its
    /// SETTINGS say; false until they arrive.
    pub fn allows_extended_connect(&self) -> bool {
        self.peer.extended_connect
    }

    /// Opens a stream with a header block from [`hpack::encode_request`]
    /// and sends `body` as far as the server's windows allow. Returns the
    /// stream id. Call only when [`Connection::can_start_request`] holds.
    pub fn start_request(&mut self, header_block: &[u8], body: Option<&Bytes>, user: T) -> u32 {
        self.start_request_delivering(header_block, body, user, Deliver::default())
    }

    /// [`Connection::start_request`] for a stream that wants its head or
    /// body delivered through [`Connection::receive_detailed`].
    pub fn start_request_delivering(
        &mut self,
        header_block: &[u8],
        body: Option<&Bytes>,
        user: T,
        deliver: Deliver,
    ) -> u32 {
        let block = hpack::RequestBlock::plain(header_block);
        self.start_request_with(block, body, user, deliver)
    }

    /// [`Connection::start_request_delivering`] with one of a run's
    /// prepared blocks ([`hpack::RequestBlocks::get`]): the connection
    /// sends the form that fits what the server's table holds, the first
    /// one that adds the shared fields, or the one that refers to them.
    pub fn start_request_with(
        &mut self,
        block: hpack::RequestBlock<'_>,
        body: Option<&Bytes>,
        user: T,
        deliver: Deliver,
    ) -> u32 {
        debug_assert!(self.can_start_request());
        debug_assert!(!deliver.headers || self.config.keep_header_fields);
        debug_assert!(!deliver.grpc_status || self.config.keep_header_fields);
        let sending = match body.filter(|b| !b.is_empty()) {
            Some(body) => Sending::Body {
                body: body.clone(),
                sent: 0,
            },
            None => Sending::Done,
        };
        self.open_stream(block, user, deliver, sending)
    }

    /// Opens an extended CONNECT stream (RFC 8441) with a header block
    /// from [`hpack::encode_extended_connect`]: the stream stays open both
    /// ways, bytes go out with [`Connection::send_on_tunnel`] and the
    /// server's come as DATA ([`Deliver::body`]) until either side ends it.
    /// Call only when [`Connection::allows_extended_connect`] and
    /// [`Connection::can_start_request`] hold.
    pub fn open_tunnel(&mut self, header_block: &[u8], user: T, deliver: Deliver) -> u32 {
        debug_assert!(self.allows_extended_connect());
        let sending = Sending::Tunnel(Box::default());
        let block = hpack::RequestBlock::plain(header_block);
        self.open_stream(block, user, deliver, sending)
    }

    /// Sends `data` on a tunnel as far as the windows allow; the rest
    /// follows as the server grants window. Nothing happens on a stream
    /// that is not an open tunnel.
    pub fn send_on_tunnel(&mut self, stream_id: u32, data: &[u8]) {
        let Some(Stream {
            sending: Sending::Tunnel(tunnel),
            ..
        }) = self.streams.get_mut(&stream_id)
        else {
            return;
        };
        if tunnel.ending {
            return;
        }
        tunnel.pending.extend_from_slice(data);
        self.send_body(stream_id);
    }

    /// Ends our side of a tunnel (END_STREAM after what is pending).
    pub fn end_tunnel(&mut self, stream_id: u32) {
        if let Some(Stream {
            sending: Sending::Tunnel(tunnel),
            ..
        }) = self.streams.get_mut(&stream_id)
        {
            tunnel.ending = true;
            self.send_body(stream_id);
        }
    }

    fn open_stream(
        &mut self,
        block: hpack::RequestBlock<'_>,
        user: T,
        deliver: Deliver,
        sending: Sending,
    ) -> u32 {
        let id = self.next_stream_id;
        self.next_stream_id += 2;
        let ((update, update_len), block) = self.encoder.choose(block);
        frame::write_headers_after(
            &mut self.out,
            id,
            &update[..update_len],
            block,
            matches!(sending, Sending::Done),
            self.peer.max_frame_size as usize,
        );
        let has_body = matches!(sending, Sending::Body { .. });
        self.streams.insert(
            id,
            Stream {
                user,
                phase: Phase::AwaitingHead,
                deliver,
                status: 0,
                header_bytes: 0,
                header_bytes_uncompressed: 0,
                data_bytes: 0,
                content_length: None,
                grpc_status: None,
                recv_window: i64::from(self.config.stream_window),
                recv_unacked: 0,
                send_window: i64::from(self.peer.initial_window),
                sending,
            },
        );
        if has_body {
            self.send_body(id);
        }
        id
    }

    /// Gives up on a stream (a request timeout): resets it and returns its `T`.
    pub fn cancel(&mut self, stream_id: u32) -> Option<T> {
        let stream = self.streams.remove(&stream_id)?;
        frame::write_rst_stream(&mut self.out, stream_id, code::CANCEL);
        Some(stream.user)
    }

    /// The open streams' ids and `T`s.
    pub fn streams(&self) -> impl Iterator<Item = (u32, &T)> {
        self.streams.iter().map(|(id, s)| (*id, &s.user))
    }

    /// Takes every open stream's `T`: the connection is being dropped.
    pub fn take_streams(&mut self) -> impl Iterator<Item = T> + '_ {
        self.blocked_bodies.clear();
        self.streams.drain().map(|(_, s)| s.user)
    }

    /// Bytes waiting to be written to the server.
    pub fn output(&self) -> &[u8] {
        &self.out[self.out_pos..]
    }

    /// `n` bytes of [`Connection::output`] were written.
    pub fn consume_output(&mut self, n: usize) {
        self.out_pos += n;
        self.acks.written_up_to(self.out_pos);
        if self.out_pos >= self.out.len() {
            self.out.clear();
            self.out_pos = 0;
        }
    }

    /// Sends as much of a stream's body (or tunnel bytes) as both windows allow.
    pub(crate) fn send_body(&mut self, id: u32) {
        let max_frame = self.peer.max_frame_size as usize;
        let Some(stream) = self.streams.get_mut(&id) else {
            return;
        };
        loop {
            let (left, ends) = match &stream.sending {
                Sending::Done => return,
                Sending::Body { body, sent } => (&body[*sent..], true),
                Sending::Tunnel(tunnel) => (&tunnel.pending[tunnel.sent..], tunnel.ending),
            };
            if left.is_empty() && !ends {
                // A tunnel with nothing to send stays open.
                return;
            }
            let allowed = stream.send_window.min(self.send_window).max(0) as usize;
            let n = left.len().min(allowed).min(max_frame);
            if n == 0 && !left.is_empty() {
                if !self.blocked_bodies.contains(&id) {
                    self.blocked_bodies.push(id);
                }
                return;
            }
            let end = ends && n == left.len();
            frame::write_data(&mut self.out, id, &left[..n], end);
            stream.send_window -= n as i64;
            self.send_window -= n as i64;
            match &mut stream.sending {
                _ if end => stream.sending = Sending::Done,
                Sending::Body { sent, .. } => *sent += n,
                Sending::Tunnel(tunnel) => {
                    tunnel.sent += n;
                    if tunnel.sent == tunnel.pending.len() {
                        tunnel.pending.clear();
                        tunnel.sent = 0;
                    }
                }
                Sending::Done => unreachable!("returned above"),
            }
        }
    }

    /// Window opened: bodies that waited for it go on.
    pub(crate) fn send_blocked_bodies(&mut self) {
        if self.blocked_bodies.is_empty() {
            return;
        }
        let waiting = std::mem::take(&mut self.blocked_bodies);
        for id in &waiting {
            self.send_body(*id);
        }
        // Give the vector's storage back so the next wait does not allocate.
        let mut waiting = waiting;
        waiting.clear();
        waiting.append(&mut self.blocked_bodies);
        self.blocked_bodies = waiting;
    }

    /// Ends a stream: the server finished it or broke it.
    pub(crate) fn close_stream(&mut self, id: u32) -> Option<Stream<T>> {
        let stream = self.streams.remove(&id)?;
        if stream.is_sending() {
            // The server answered before reading the whole body (or ended
            // a tunnel we had not): stop sending.
            frame::write_rst_stream(&mut self.out, id, code::NO_ERROR);
        }
        Some(stream)
    }
}
