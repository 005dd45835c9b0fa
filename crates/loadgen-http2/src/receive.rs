//! What the connection does with the server's frames.
//!
//! DATA payloads are counted as they arrive, in whatever pieces the socket
//! gives, so a read buffer never has to hold a whole DATA frame; every
//! other frame is handled once it is complete in the caller's buffer.

use crate::acks;
use crate::connection::Connection;
use crate::error::ConnectionError;
use crate::events::{Event, GoAway, Received, StreamError};
use crate::frame::{self, code, flag, kind, setting, FrameHeader, HEADER_LEN};
use crate::read_state::{DataInProgress, HeaderBlock};
use crate::streams::Phase;

type Result<T> = std::result::Result<T, ConnectionError>;

fn error(code: u32, reason: impl Into<String>) -> ConnectionError {
    ConnectionError::new(code, reason)
}

/// RFC 9113 section 6.5.2: a header list's size counts each field's name
/// and value and 32 bytes for the field.
const FIELD_OVERHEAD: u64 = 32;

/// A header block beyond our SETTINGS_MAX_HEADER_LIST_SIZE. A connection
/// error, because a block cannot be skipped: it has to be decoded whole to
/// keep the HPACK table in step. ENHANCE_YOUR_CALM rather than
/// PROTOCOL_ERROR because the setting is advisory, so a large block breaks
/// no rule; the server sends more than we are willing to hold, which is
/// what that code says, and a CONTINUATION flood is exactly that.
fn header_block_too_large(what: &str, limit: u32) -> ConnectionError {
    error(
        code::ENHANCE_YOUR_CALM,
        format!("the server's {what} exceeds our SETTINGS_MAX_HEADER_LIST_SIZE of {limit} bytes"),
    )
}

impl<T> Connection<T> {
    /// Takes the server's bytes and returns how many were used; the rest
    /// (an incomplete frame) must be offered again with more bytes after
    /// it. Streams that end are reported to `on_event`. After an error the
    /// connection is unusable: [`Connection::take_streams`] returns what
    /// was still open.
    pub fn receive(&mut self, input: &[u8], on_event: &mut impl FnMut(Event<T>)) -> Result<usize> {
        self.receive_detailed(input, &mut |received| {
            if let Received::Ended(event) = received {
                on_event(event)
            }
        })
    }

    /// [`Connection::receive`], also reporting the heads and body bytes of
    /// the streams that asked for them ([`crate::Deliver`]).
    pub fn receive_detailed(
        &mut self,
        input: &[u8],
        on_event: &mut impl FnMut(Received<'_, T>),
    ) -> Result<usize> {
        let mut pos = 0;
        loop {
            if self.read.data.is_some() {
                pos += self.continue_data(&input[pos..], on_event);
                if self.read.data.is_some() {
                    return Ok(pos);
                }
                continue;
            }
            let available = &input[pos..];
            let Some(header) = available.first_chunk::<HEADER_LEN>() else {
                return Ok(pos);
            };
            let header = FrameHeader::parse(header);
            self.check_frame_order(&header)?;
            if header.kind == kind::DATA {
                let needed = HEADER_LEN + usize::from(header.has(flag::PADDED));
                if available.len() < needed {
                    return Ok(pos);
                }
                let padding = if header.has(flag::PADDED) {
                    Some(available[HEADER_LEN])
                } else {
                    None
                };
                self.begin_data(header, padding, on_event)?;
                pos += needed;
                continue;
            }
            let total = HEADER_LEN + header.length as usize;
            if available.len() < total {
                return Ok(pos);
            }
            pos += total;
            self.handle_frame(header, &available[HEADER_LEN..total], on_event)?;
        }
    }

    fn check_frame_order(&mut self, header: &FrameHeader) -> Result<()> {
        if !self.read.settings_seen && (header.kind != kind::SETTINGS || header.has(flag::ACK)) {
            return Err(ConnectionError::not_http2());
        }
        if header.length > self.config.max_frame_size {
            return Err(error(
                code::FRAME_SIZE_ERROR,
                format!(
                    "the server sent a {}-byte frame; the limit is {}",
                    header.length, self.config.max_frame_size
                ),
            ));
        }
        if let Some(pending) = &self.read.continuation {
            if header.kind != kind::CONTINUATION || header.stream_id != pending.stream_id {
                return Err(error(
                    code::PROTOCOL_ERROR,
                    "a header block was interrupted before its END_HEADERS",
                ));
            }
        }
        Ok(())
    }

    fn handle_frame(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Received<'_, T>),
    ) -> Result<()> {
        match header.kind {
            kind::HEADERS => self.on_headers(header, payload, on_event),
            kind::CONTINUATION => self.on_continuation(header, payload, on_event),
            kind::SETTINGS => self.on_settings(header, payload),
            kind::PING => self.on_ping(header, payload),
            kind::GOAWAY => self.on_go_away(header, payload, on_event),
            kind::RST_STREAM => self.on_rst_stream(header, payload, on_event),
            kind::WINDOW_UPDATE => self.on_window_update(header, payload, on_event),
            kind::PUSH_PROMISE => Err(error(
                code::PROTOCOL_ERROR,
                "the server pushed a stream although push was disabled",
            )),
            // PRIORITY and unknown frame types carry nothing a client must act on.
            _ => Ok(()),
        }
    }

    /// A stream the server refers to must be one we opened.
    fn check_stream_was_opened(&self, stream_id: u32, frame_name: &str) -> Result<()> {
        if stream_id == 0 || stream_id.is_multiple_of(2) || stream_id >= self.next_stream_id {
            return Err(error(
                code::PROTOCOL_ERROR,
                format!("{frame_name} on stream {stream_id}, which the client never opened"),
            ));
        }
        Ok(())
    }

    fn begin_data(
        &mut self,
        header: FrameHeader,
        padding: Option<u8>,
        on_event: &mut impl FnMut(Received<'_, T>),
    ) -> Result<()> {
        self.check_stream_was_opened(header.stream_id, "DATA")?;
        let length = header.length as usize;
        let padding_total = padding.map_or(0, |p| usize::from(p) + 1);
        if padding_total > length {
            return Err(error(
                code::PROTOCOL_ERROR,
                "DATA padding exceeds the frame",
            ));
        }
        // Flow control counts the whole payload, padding included.
        if i64::from(header.length) > self.recv_window {
            return Err(error(
                code::FLOW_CONTROL_ERROR,
                "the server sent more than the connection window",
            ));
        }
        self.recv_window -= i64::from(header.length);
        self.recv_unacked += header.length;
        if self.recv_unacked >= grant_threshold(self.config.connection_window) {
            frame::write_window_update(&mut self.out, 0, self.recv_unacked);
            self.recv_window += i64::from(self.recv_unacked);
            self.recv_unacked = 0;
        }
        let stream_window = self.config.stream_window;
        let end_stream = header.has(flag::END_STREAM);
        let data_len = length - padding_total;
        let mut broken = None;
        if let Some(stream) = self.streams.get_mut(&header.stream_id) {
            if stream.phase == Phase::AwaitingHead {
                broken = Some(("DATA before the response head", code::PROTOCOL_ERROR));
            } else if stream
                .content_length
                .is_some_and(|expected| stream.data_bytes + data_len as u64 > expected)
            {
                // As nghttp2: more DATA than the content-length said.
                broken = Some((
                    "DATA beyond the response's content-length",
                    code::PROTOCOL_ERROR,
                ));
            } else if i64::from(header.length) > stream.recv_window {
                broken = Some((
                    "the server sent more than the stream window",
                    code::FLOW_CONTROL_ERROR,
                ));
            } else {
                stream.recv_window -= i64::from(header.length);
                stream.recv_unacked += header.length;
                if !end_stream && stream.recv_unacked >= grant_threshold(stream_window) {
                    frame::write_window_update(
                        &mut self.out,
                        header.stream_id,
                        stream.recv_unacked,
                    );
                    stream.recv_window += i64::from(stream.recv_unacked);
                    stream.recv_unacked = 0;
                }
            }
        }
        if let Some((what, rst_code)) = broken {
            self.fail_stream(header.stream_id, what, rst_code, on_event);
        }
        self.read.data = Some(DataInProgress {
            stream_id: header.stream_id,
            data_left: data_len,
            padding_left: padding_total - usize::from(padding.is_some()),
            end_stream,
        });
        Ok(())
    }

    /// Counts DATA payload bytes; returns how many of `input` were used.
    fn continue_data(&mut self, input: &[u8], on_event: &mut impl FnMut(Received<'_, T>)) -> usize {
        let data = self
            .read
            .data
            .as_mut()
            .expect("a DATA frame is in progress");
        let n = data.data_left.min(input.len());
        data.data_left -= n;
        if n > 0 {
            if let Some(stream) = self.streams.get_mut(&data.stream_id) {
                stream.data_bytes += n as u64;
                if stream.deliver.body {
                    on_event(Received::Data {
                        user: &stream.user,
                        chunk: &input[..n],
                    });
                }
            }
        }
        let skipped = data.padding_left.min(input.len() - n);
        data.padding_left -= skipped;
        if data.data_left == 0 && data.padding_left == 0 {
            let done = self.read.data.take().expect("checked above");
            if done.end_stream {
                self.complete_stream(done.stream_id, on_event);
            }
        }
        n + skipped
    }

    fn on_headers(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Received<'_, T>),
    ) -> Result<()> {
        let mut fragment = payload;
        let mut padding = 0;
        if header.has(flag::PADDED) {
            let (&pad, rest) = fragment.split_first().ok_or_else(|| {
                error(code::FRAME_SIZE_ERROR, "HEADERS too short for its padding")
            })?;
            padding = usize::from(pad);
            fragment = rest;
        }
        if header.has(flag::PRIORITY) {
            fragment = fragment.get(5..).ok_or_else(|| {
                error(code::FRAME_SIZE_ERROR, "HEADERS too short for its priority")
            })?;
        }
        if padding > fragment.len() {
            return Err(error(
                code::PROTOCOL_ERROR,
                "HEADERS padding exceeds the frame",
            ));
        }
        let fragment = &fragment[..fragment.len() - padding];
        self.check_header_block_size(fragment.len())?;
        let end_stream = header.has(flag::END_STREAM);
        let block = HeaderBlock {
            stream_id: header.stream_id,
            end_stream,
            frame_bytes: u64::from(header.length),
        };
        if header.has(flag::END_HEADERS) {
            return self.on_header_block(block, fragment, on_event);
        }
        self.read.block.clear();
        self.read.block.extend_from_slice(fragment);
        self.read.continuation = Some(block);
        Ok(())
    }

    fn on_continuation(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Received<'_, T>),
    ) -> Result<()> {
        let Some(pending) = &mut self.read.continuation else {
            return Err(error(
                code::PROTOCOL_ERROR,
                "CONTINUATION without a HEADERS frame before it",
            ));
        };
        pending.frame_bytes += u64::from(header.length);
        // Checked before appending, so that a flood of CONTINUATION frames
        // never makes the block larger than the limit.
        self.check_header_block_size(self.read.block.len() + payload.len())?;
        self.read.block.extend_from_slice(payload);
        if !header.has(flag::END_HEADERS) {
            return Ok(());
        }
        let pending = self.read.continuation.take().expect("checked above");
        let block = std::mem::take(&mut self.read.block);
        let result = self.on_header_block(pending, &block, on_event);
        self.read.block = block;
        result
    }

    /// Compressed bytes can only exceed the list size they decode to if
    /// the encoder wasted them (a field costs 32 bytes in the list, a few
    /// in the block), so a block larger than the limit is refused before
    /// it is decoded, or even whole.
    fn check_header_block_size(&self, compressed: usize) -> Result<()> {
        let limit = self.config.max_header_list_size;
        if compressed as u64 > u64::from(limit) {
            return Err(header_block_too_large("header block", limit));
        }
        Ok(())
    }

    fn on_header_block(
        &mut self,
        header_block: HeaderBlock,
        block: &[u8],
        on_event: &mut impl FnMut(Received<'_, T>),
    ) -> Result<()> {
        let HeaderBlock {
            stream_id,
            end_stream,
            frame_bytes,
        } = header_block;
        self.check_stream_was_opened(stream_id, "HEADERS")?;
        let mut stream = self.streams.get_mut(&stream_id);
        let wants_fields = stream
            .as_ref()
            .is_some_and(|s| s.deliver.headers && s.phase == Phase::AwaitingHead);
        let wants_grpc_status = stream.as_ref().is_some_and(|s| s.deliver.grpc_status);
        let mut grpc_status = None;
        let grpc_message = &mut self.read.grpc_message;
        grpc_message.clear();
        if let Some(stream) = &mut stream {
            stream.header_bytes += frame_bytes;
        }
        let limit = u64::from(self.config.max_header_list_size);
        // Decoded even for a stream we closed: the table must stay in step.
        let decoded = if wants_fields {
            let fields = &mut self.read.fields;
            fields.clear();
            let mut list_size = 0;
            self.decoder.decode_fields(block, &mut |name, value| {
                list_size += (name.len() + value.len()) as u64 + FIELD_OVERHEAD;
                // One byte can name a table entry of kilobytes: past the
                // limit the block is refused below, and its fields are
                // not worth holding meanwhile.
                if list_size <= limit {
                    fields.push(name, value);
                }
                if wants_grpc_status {
                    read_grpc_field(name, value, &mut grpc_status, grpc_message);
                }
            })
        } else if wants_grpc_status {
            self.decoder.decode_fields(block, &mut |name, value| {
                read_grpc_field(name, value, &mut grpc_status, grpc_message);
            })
        } else if self.config.keep_header_fields {
            self.decoder.decode_fields(block, &mut |_, _| {})
        } else {
            self.decoder.decode(block)
        };
        let summary = match decoded {
            Ok(summary) => summary,
            Err(e) if e.is_malformed_response() => {
                self.fail_stream(stream_id, e.0, code::PROTOCOL_ERROR, on_event);
                return Ok(());
            }
            Err(e) => return Err(error(code::COMPRESSION_ERROR, format!("HPACK: {e}"))),
        };
        let list_size = summary.uncompressed_bytes + FIELD_OVERHEAD * u64::from(summary.fields);
        if list_size > limit {
            return Err(header_block_too_large(
                "decoded header list",
                self.config.max_header_list_size,
            ));
        }
        let Some(stream) = stream else {
            return Ok(());
        };
        stream.header_bytes_uncompressed += summary.uncompressed_bytes;
        if grpc_status.is_some() {
            stream.grpc_status = grpc_status;
        }
        if !self.read.grpc_message.is_empty() {
            on_event(Received::GrpcMessage {
                user: &stream.user,
                grpc_status: stream.grpc_status,
                message: &self.read.grpc_message,
            });
        }
        let problem = match (stream.phase, summary.status) {
            (Phase::AwaitingHead, None) => Some("a response head without :status"),
            (Phase::AwaitingHead, Some(100..=199)) if end_stream => {
                Some("an interim response that ends the stream")
            }
            (Phase::AwaitingHead, Some(100..=199)) => None,
            (Phase::AwaitingHead, Some(status)) => {
                stream.status = status;
                stream.phase = Phase::Body;
                stream.content_length = if stream.deliver.head || status == 204 || status == 304 {
                    Some(0)
                } else {
                    summary.content_length
                };
                if wants_fields {
                    let fields = self.read.fields.as_pairs();
                    on_event(Received::Head {
                        user: &stream.user,
                        status,
                        fields: &fields,
                    });
                }
                if end_stream {
                    self.complete_stream(stream_id, on_event);
                }
                None
            }
            (Phase::Body, _) if !end_stream => Some("trailers without END_STREAM"),
            (Phase::Body, _) => {
                self.complete_stream(stream_id, on_event);
                None
            }
        };
        if let Some(what) = problem {
            self.fail_stream(stream_id, what, code::PROTOCOL_ERROR, on_event);
        }
        Ok(())
    }

    fn on_settings(&mut self, header: FrameHeader, payload: &[u8]) -> Result<()> {
        if header.stream_id != 0 {
            return Err(error(code::PROTOCOL_ERROR, "SETTINGS on a stream"));
        }
        if header.has(flag::ACK) {
            if !payload.is_empty() {
                return Err(error(code::FRAME_SIZE_ERROR, "SETTINGS ACK with a payload"));
            }
            // Only one SETTINGS frame is ever sent: this acknowledges our table size.
            self.decoder
                .set_max_table_size(self.config.header_table_size as usize);
            return Ok(());
        }
        if !payload.len().is_multiple_of(6) {
            return Err(error(
                code::FRAME_SIZE_ERROR,
                "SETTINGS of a length not a multiple of 6",
            ));
        }
        for entry in payload.chunks_exact(6) {
            let id = u16::from_be_bytes([entry[0], entry[1]]);
            let value = u32::from_be_bytes([entry[2], entry[3], entry[4], entry[5]]);
            self.apply_setting(id, value)?;
        }
        self.read.settings_seen = true;
        self.acknowledge("SETTINGS", frame::write_settings_ack)?;
        self.send_blocked_bodies();
        Ok(())
    }

    fn apply_setting(&mut self, id: u16, value: u32) -> Result<()> {
        match id {
            setting::MAX_CONCURRENT_STREAMS => self.peer.max_concurrent_streams = value,
            setting::INITIAL_WINDOW_SIZE => {
                if value > frame::MAX_WINDOW {
                    return Err(error(
                        code::FLOW_CONTROL_ERROR,
                        "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1",
                    ));
                }
                let delta = i64::from(value) - i64::from(self.peer.initial_window);
                for stream in self.streams.values_mut() {
                    stream.send_window += delta;
                    if stream.send_window > i64::from(frame::MAX_WINDOW) {
                        return Err(error(
                            code::FLOW_CONTROL_ERROR,
                            "a stream window grew above 2^31-1",
                        ));
                    }
                }
                self.peer.initial_window = value;
            }
            setting::MAX_FRAME_SIZE => {
                if !(frame::DEFAULT_MAX_FRAME_SIZE..=0xff_ffff).contains(&value) {
                    return Err(error(
                        code::PROTOCOL_ERROR,
                        "SETTINGS_MAX_FRAME_SIZE outside 16,384..16,777,215",
                    ));
                }
                self.peer.max_frame_size = value;
            }
            setting::ENABLE_PUSH if value > 1 => {
                return Err(error(code::PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH above 1"));
            }
            setting::ENABLE_CONNECT_PROTOCOL => {
                if value > 1 {
                    return Err(error(
                        code::PROTOCOL_ERROR,
                        "SETTINGS_ENABLE_CONNECT_PROTOCOL above 1",
                    ));
                }
                self.peer.extended_connect = value == 1;
            }
            setting::HEADER_TABLE_SIZE => self.encoder.server_limit(value),
            // Unknown settings are ignored.
            _ => {}
        }
        Ok(())
    }

    fn on_ping(&mut self, header: FrameHeader, payload: &[u8]) -> Result<()> {
        let Ok(payload) = <&[u8; 8]>::try_from(payload) else {
            return Err(error(code::FRAME_SIZE_ERROR, "PING not 8 bytes long"));
        };
        if header.stream_id != 0 {
            return Err(error(code::PROTOCOL_ERROR, "PING on a stream"));
        }
        if !header.has(flag::ACK) {
            self.acknowledge("PING", |out| frame::write_ping_ack(out, payload))?;
        }
        Ok(())
    }

    /// Queues the acknowledgement of a `what` frame, unless the server has
    /// left too many unread: a connection error, the way nghttp2 ends a
    /// PING or SETTINGS flood, since the output would grow without end.
    fn acknowledge(&mut self, what: &str, write: impl FnOnce(&mut Vec<u8>)) -> Result<()> {
        if !self.acks.has_room() {
            return Err(error(
                code::ENHANCE_YOUR_CALM,
                format!(
                    "the server sent {what} frames faster than it read our acknowledgements \
                     ({} waiting to be written)",
                    acks::MOST_QUEUED
                ),
            ));
        }
        write(&mut self.out);
        self.acks.queued(self.out.len());
        Ok(())
    }

    fn on_go_away(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Received<'_, T>),
    ) -> Result<()> {
        if header.stream_id != 0 {
            return Err(error(code::PROTOCOL_ERROR, "GOAWAY on a stream"));
        }
        let Some(fixed) = payload.first_chunk::<8>() else {
            return Err(error(code::FRAME_SIZE_ERROR, "GOAWAY shorter than 8 bytes"));
        };
        let last_stream_id =
            u32::from_be_bytes([fixed[0], fixed[1], fixed[2], fixed[3]]) & frame::MAX_STREAM_ID;
        let code = u32::from_be_bytes([fixed[4], fixed[5], fixed[6], fixed[7]]);
        self.go_away = Some(GoAway {
            last_stream_id,
            code,
        });
        let refused: Vec<u32> = self
            .streams
            .keys()
            .copied()
            .filter(|id| *id > last_stream_id)
            .collect();
        for id in refused {
            if let Some(stream) = self.close_stream(id) {
                on_event(Received::Ended(Event::Failed {
                    user: stream.user,
                    error: StreamError::Refused,
                }));
            }
        }
        Ok(())
    }

    fn on_rst_stream(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Received<'_, T>),
    ) -> Result<()> {
        let Ok(code) = <[u8; 4]>::try_from(payload) else {
            return Err(error(code::FRAME_SIZE_ERROR, "RST_STREAM not 4 bytes long"));
        };
        self.check_stream_was_opened(header.stream_id, "RST_STREAM")?;
        if let Some(stream) = self.streams.remove(&header.stream_id) {
            on_event(Received::Ended(Event::Failed {
                user: stream.user,
                error: StreamError::Reset(u32::from_be_bytes(code)),
            }));
        }
        Ok(())
    }

    fn on_window_update(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Received<'_, T>),
    ) -> Result<()> {
        let Ok(increment) = <[u8; 4]>::try_from(payload) else {
            return Err(error(
                code::FRAME_SIZE_ERROR,
                "WINDOW_UPDATE not 4 bytes long",
            ));
        };
        let increment = i64::from(u32::from_be_bytes(increment) & frame::MAX_WINDOW);
        if header.stream_id == 0 {
            if increment == 0 {
                return Err(error(code::PROTOCOL_ERROR, "WINDOW_UPDATE of 0"));
            }
            self.send_window += increment;
            if self.send_window > i64::from(frame::MAX_WINDOW) {
                return Err(error(
                    code::FLOW_CONTROL_ERROR,
                    "the connection window grew above 2^31-1",
                ));
            }
        } else {
            self.check_stream_was_opened(header.stream_id, "WINDOW_UPDATE")?;
            let broken = match self.streams.get_mut(&header.stream_id) {
                None => None,
                Some(_) if increment == 0 => Some(("WINDOW_UPDATE of 0", code::PROTOCOL_ERROR)),
                Some(stream) => {
                    stream.send_window += increment;
                    (stream.send_window > i64::from(frame::MAX_WINDOW)).then_some((
                        "the stream window grew above 2^31-1",
                        code::FLOW_CONTROL_ERROR,
                    ))
                }
            };
            if let Some((what, rst_code)) = broken {
                self.fail_stream(header.stream_id, what, rst_code, on_event);
            }
        }
        self.send_blocked_bodies();
        Ok(())
    }

    // Inlined as it was before the length check: it runs once per response.
    #[inline]
    fn complete_stream(&mut self, stream_id: u32, on_event: &mut impl FnMut(Received<'_, T>)) {
        if let Some(stream) = self.close_stream(stream_id) {
            if stream
                .content_length
                .is_some_and(|expected| stream.data_bytes != expected)
            {
                return ended_short(stream.user, on_event);
            }
            on_event(Received::Ended(Event::Response {
                user: stream.user,
                status: stream.status,
                header_bytes: stream.header_bytes,
                header_bytes_uncompressed: stream.header_bytes_uncompressed,
                data_bytes: stream.data_bytes,
                grpc_status: stream.grpc_status,
            }));
        }
    }

    /// A stream error (RFC 9113 section 5.4.2): reset that stream only.
    fn fail_stream(
        &mut self,
        stream_id: u32,
        what: &'static str,
        rst_code: u32,
        on_event: &mut impl FnMut(Received<'_, T>),
    ) {
        if let Some(stream) = self.streams.remove(&stream_id) {
            frame::write_rst_stream(&mut self.out, stream_id, rst_code);
            on_event(Received::Ended(Event::Failed {
                user: stream.user,
                error: StreamError::Malformed(what),
            }));
        }
    }
}

/// The longest `grpc-message` kept: enough to say why a call failed.
const GRPC_MESSAGE_LIMIT: usize = 1024;

fn read_grpc_field(
    name: &[u8],
    value: &[u8],
    grpc_status: &mut Option<u16>,
    grpc_message: &mut Vec<u8>,
) {
    match name {
        b"grpc-status" => *grpc_status = Some(parse_grpc_status(value)),
        b"grpc-message" => {
            grpc_message.clear();
            grpc_message.extend_from_slice(&value[..value.len().min(GRPC_MESSAGE_LIMIT)]);
        }
        _ => {}
    }
}

/// A `grpc-status` value: a decimal number, else `u16::MAX` (which no
/// gRPC status is), so that a garbled status is never read as OK.
fn parse_grpc_status(value: &[u8]) -> u16 {
    std::str::from_utf8(value)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(u16::MAX)
}

/// As nghttp2: the stream ended short of its content-length. Both sides
/// are done with it, so there is nothing to reset.
#[cold]
#[inline(never)]
fn ended_short<T>(user: T, on_event: &mut impl FnMut(Received<'_, T>)) {
    on_event(Received::Ended(Event::Failed {
        user,
        error: StreamError::Malformed("the stream ended before the response's content-length"),
    }));
}

/// Window is granted back once half of it is used, as nghttp2 does.
fn grant_threshold(window: u32) -> u32 {
    (window / 2).max(1)
}

#[cfg(test)]
impl<T> Connection<T> {
    /// Header block bytes held while CONTINUATION frames are awaited.
    pub(crate) fn buffered_header_block(&self) -> usize {
        self.read.block.len()
    }

    /// Bytes of decoded header fields held for a stream that asked for them.
    pub(crate) fn held_header_fields(&self) -> usize {
        self.read.fields.bytes.len()
    }
}
