//! The streams a connection has open, keyed by stream id.

use bytes::Bytes;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// What a stream waits for from the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// No final response head yet (1xx heads may come first).
    AwaitingHead,
    /// The final head arrived: DATA and trailers follow.
    Body,
}

pub(crate) struct Stream<T> {
    pub user: T,
    pub phase: Phase,
    pub deliver: crate::Deliver,
    pub status: u16,
    pub header_bytes: u64,
    pub header_bytes_uncompressed: u64,
    pub data_bytes: u64,
    /// What the final head says the body holds: its `content-length`, or
    /// 0 when the response cannot have a body (HEAD, 204, 304).
    pub content_length: Option<u64>,
    /// The last `grpc-status` field seen, for streams that read it.
    pub grpc_status: Option<u16>,
    /// What the server may still send on this stream before we grant more.
    pub recv_window: i64,
    /// Received but not yet granted back with WINDOW_UPDATE.
    pub recv_unacked: u32,
    /// What we may still send: the server's window for this stream.
    pub send_window: i64,
    /// What the stream still has to send.
    pub sending: Sending,
}

/// A stream's sending side.
pub(crate) enum Sending {
    /// END_STREAM went out: the request is sent whole.
    Done,
    /// A request body, sent from `sent` on, then END_STREAM.
    Body { body: Bytes, sent: usize },
    /// An extended CONNECT's stream (RFC 8441): bytes go out as the
    /// caller hands them over, until the caller ends it.
    Tunnel(Box<TunnelOut>),
}

#[derive(Default)]
pub(crate) struct TunnelOut {
    /// Bytes the windows held back, from `sent` on.
    pub pending: Vec<u8>,
    pub sent: usize,
    /// END_STREAM follows the pending bytes.
    pub ending: bool,
}

impl<T> Stream<T> {
    /// Whether END_STREAM is still to be sent.
    pub fn is_sending(&self) -> bool {
        !matches!(self.sending, Sending::Done)
    }
}

/// Client stream ids are distinct odd numbers: shifting off the low bit
/// is a perfect hash, and hashing costs nothing per frame.
#[derive(Default)]
pub(crate) struct StreamIdHasher(u64);

impl Hasher for StreamIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, _: &[u8]) {
        unreachable!("stream ids hash as u32")
    }

    fn write_u32(&mut self, id: u32) {
        // hashbrown takes its control bits from the top of the hash.
        self.0 = u64::from(id >> 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub(crate) type StreamMap<T> = HashMap<u32, Stream<T>, BuildHasherDefault<StreamIdHasher>>;
