//! The connection's unidirectional streams: the client's control stream
//! with its SETTINGS, and the server's control stream (read for GOAWAY)
//! and QPACK streams (read and dropped: with a table capacity of 0 they
//! carry nothing this client needs).

use super::frame::{self, get_varint, put_varint, CONTROL_STREAM, GOAWAY, SETTINGS};
use bytes::Bytes;

/// A control frame longer than this ends the reading of the stream.
const MAX_CONTROL_FRAME: usize = 1 << 16;

/// The client's control stream as it is sent: its type and an empty
/// SETTINGS frame (every setting at its default, so a QPACK table capacity
/// of 0). The stream stays open for the connection's life: closing it is
/// an error (RFC 9114 §6.2.1).
pub(super) fn client_control_stream() -> Bytes {
    let mut preface = Vec::new();
    put_varint(&mut preface, CONTROL_STREAM);
    preface.extend(frame::frame(SETTINGS, &[]));
    Bytes::from(preface)
}

/// One of the server's unidirectional streams, as read so far.
#[derive(Default)]
pub(super) struct ServerStream {
    /// Whether it is the control stream, once its type has arrived.
    is_control: Option<bool>,
    buffer: Vec<u8>,
    /// A frame too long to be a control frame: the rest is not read.
    given_up: bool,
}

impl ServerStream {
    /// Takes the stream's next bytes; true if they held a GOAWAY.
    pub fn push(&mut self, bytes: &[u8]) -> bool {
        if self.is_control == Some(false) || self.given_up {
            return false;
        }
        self.buffer.extend_from_slice(bytes);
        if self.is_control.is_none() {
            let Some((kind, used)) = get_varint(&self.buffer) else {
                return false;
            };
            self.buffer.drain(..used);
            self.is_control = Some(kind == CONTROL_STREAM);
            if kind != CONTROL_STREAM {
                self.buffer = Vec::new();
                return false;
            }
        }
        let mut goaway = false;
        let mut at = 0;
        while let Some((kind, kind_len)) = get_varint(&self.buffer[at..]) {
            let Some((len, len_len)) = get_varint(&self.buffer[at + kind_len..]) else {
                break;
            };
            let end = (at + kind_len + len_len).saturating_add(len as usize);
            if end > self.buffer.len() {
                break;
            }
            goaway |= kind == GOAWAY;
            at = end;
        }
        self.buffer.drain(..at);
        if self.buffer.len() > MAX_CONTROL_FRAME {
            self.given_up = true;
            self.buffer = Vec::new();
        }
        goaway
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goaway_is_seen_in_any_split() {
        let mut stream = Vec::new();
        put_varint(&mut stream, CONTROL_STREAM);
        stream.extend(frame::frame(SETTINGS, &[0x01, 0x00]));
        stream.extend(frame::frame(GOAWAY, &[0x04]));
        for split in 0..=stream.len() {
            let mut server = ServerStream::default();
            let (first, second) = stream.split_at(split);
            let seen = server.push(first) | server.push(second);
            assert!(seen, "split at {split}");
        }
    }

    #[test]
    fn other_streams_are_dropped() {
        let mut server = ServerStream::default();
        // A QPACK encoder stream (type 0x02) with a GOAWAY-looking payload.
        assert!(!server.push(&[0x02, 0x07, 0x01, 0x04]));
        assert!(!server.push(&[0x07, 0x01, 0x04]));
        assert!(server.buffer.is_empty());
    }
}
