//! HTTP/2 frame layout (RFC 9113 section 4 and 6): the nine-byte header,
//! the codes a client needs, and writers for the frames it sends.

pub const CLIENT_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
pub const HEADER_LEN: usize = 9;
pub const DEFAULT_MAX_FRAME_SIZE: u32 = 16_384;
pub const DEFAULT_WINDOW: u32 = 65_535;
pub const MAX_WINDOW: u32 = (1 << 31) - 1;
pub const MAX_STREAM_ID: u32 = (1 << 31) - 1;

pub mod kind {
    pub const DATA: u8 = 0x0;
    pub const HEADERS: u8 = 0x1;
    pub const PRIORITY: u8 = 0x2;
    pub const RST_STREAM: u8 = 0x3;
    pub const SETTINGS: u8 = 0x4;
    pub const PUSH_PROMISE: u8 = 0x5;
    pub const PING: u8 = 0x6;
    pub const GOAWAY: u8 = 0x7;
    pub const WINDOW_UPDATE: u8 = 0x8;
    pub const CONTINUATION: u8 = 0x9;
}

pub mod flag {
    pub const END_STREAM: u8 = 0x1;
    pub const ACK: u8 = 0x1;
    pub const END_HEADERS: u8 = 0x4;
    pub const PADDED: u8 = 0x8;
    pub const PRIORITY: u8 = 0x20;
}

pub mod setting {
    pub const HEADER_TABLE_SIZE: u16 = 0x1;
    pub const ENABLE_PUSH: u16 = 0x2;
    pub const MAX_CONCURRENT_STREAMS: u16 = 0x3;
    pub const INITIAL_WINDOW_SIZE: u16 = 0x4;
    pub const MAX_FRAME_SIZE: u16 = 0x5;
    pub const MAX_HEADER_LIST_SIZE: u16 = 0x6;
    /// RFC 8441: the server accepts extended CONNECT.
    pub const ENABLE_CONNECT_PROTOCOL: u16 = 0x8;
}

pub mod code {
    pub const NO_ERROR: u32 = 0x0;
    pub const PROTOCOL_ERROR: u32 = 0x1;
    pub const INTERNAL_ERROR: u32 = 0x2;
    pub const FLOW_CONTROL_ERROR: u32 = 0x3;
    pub const STREAM_CLOSED: u32 = 0x5;
    pub const FRAME_SIZE_ERROR: u32 = 0x6;
    pub const REFUSED_STREAM: u32 = 0x7;
    pub const CANCEL: u32 = 0x8;
    pub const COMPRESSION_ERROR: u32 = 0x9;
    pub const ENHANCE_YOUR_CALM: u32 = 0xb;
}

/// RFC 9113 section 7's name for an error code, as servers' logs print it.
pub fn error_code_name(code: u32) -> &'static str {
    match code {
        0x0 => "NO_ERROR",
        0x1 => "PROTOCOL_ERROR",
        0x2 => "INTERNAL_ERROR",
        0x3 => "FLOW_CONTROL_ERROR",
        0x4 => "SETTINGS_TIMEOUT",
        0x5 => "STREAM_CLOSED",
        0x6 => "FRAME_SIZE_ERROR",
        0x7 => "REFUSED_STREAM",
        0x8 => "CANCEL",
        0x9 => "COMPRESSION_ERROR",
        0xa => "CONNECT_ERROR",
        0xb => "ENHANCE_YOUR_CALM",
        0xc => "INADEQUATE_SECURITY",
        0xd => "HTTP_1_1_REQUIRED",
        _ => "unknown error code",
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    pub length: u32,
    pub kind: u8,
    pub flags: u8,
    pub stream_id: u32,
}

impl FrameHeader {
    pub fn parse(bytes: &[u8; HEADER_LEN]) -> FrameHeader {
        FrameHeader {
            length: u32::from_be_bytes([0, bytes[0], bytes[1], bytes[2]]),
            kind: bytes[3],
            flags: bytes[4],
            // The reserved bit is ignored on receipt.
            stream_id: u32::from_be_bytes([bytes[5], bytes[6], bytes[7], bytes[8]]) & MAX_STREAM_ID,
        }
    }

    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    pub fn write(&self, dst: &mut Vec<u8>) {
        let len = self.length.to_be_bytes();
        let id = self.stream_id.to_be_bytes();
        dst.extend_from_slice(&[
            len[1], len[2], len[3], self.kind, self.flags, id[0], id[1], id[2], id[3],
        ]);
    }
}

fn header(dst: &mut Vec<u8>, length: usize, kind: u8, flags: u8, stream_id: u32) {
    FrameHeader {
        length: length as u32,
        kind,
        flags,
        stream_id,
    }
    .write(dst);
}

pub fn write_settings(dst: &mut Vec<u8>, settings: &[(u16, u32)]) {
    header(dst, settings.len() * 6, kind::SETTINGS, 0, 0);
    for (id, value) in settings {
        dst.extend_from_slice(&id.to_be_bytes());
        dst.extend_from_slice(&value.to_be_bytes());
    }
}

pub fn write_settings_ack(dst: &mut Vec<u8>) {
    header(dst, 0, kind::SETTINGS, flag::ACK, 0);
}

pub fn write_window_update(dst: &mut Vec<u8>, stream_id: u32, increment: u32) {
    header(dst, 4, kind::WINDOW_UPDATE, 0, stream_id);
    dst.extend_from_slice(&increment.to_be_bytes());
}

pub fn write_ping_ack(dst: &mut Vec<u8>, payload: &[u8; 8]) {
    header(dst, 8, kind::PING, flag::ACK, 0);
    dst.extend_from_slice(payload);
}

pub fn write_rst_stream(dst: &mut Vec<u8>, stream_id: u32, error_code: u32) {
    header(dst, 4, kind::RST_STREAM, 0, stream_id);
    dst.extend_from_slice(&error_code.to_be_bytes());
}

pub fn write_goaway(dst: &mut Vec<u8>, last_stream_id: u32, error_code: u32) {
    header(dst, 8, kind::GOAWAY, 0, 0);
    dst.extend_from_slice(&last_stream_id.to_be_bytes());
    dst.extend_from_slice(&error_code.to_be_bytes());
}

/// A header block as one HEADERS frame, or HEADERS and CONTINUATION frames
/// when it is larger than the peer's maximum frame size.
pub fn write_headers(
    dst: &mut Vec<u8>,
    stream_id: u32,
    block: &[u8],
    end_stream: bool,
    max_frame_size: usize,
) {
    write_headers_after(dst, stream_id, &[], block, end_stream, max_frame_size);
}

/// [`write_headers`] for a header block sent as `first` then `rest`: a
/// dynamic table size update before a block encoded in advance.
pub fn write_headers_after(
    dst: &mut Vec<u8>,
    stream_id: u32,
    first: &[u8],
    rest: &[u8],
    end_stream: bool,
    max_frame_size: usize,
) {
    let max_frame_size = max_frame_size.max(1);
    let total = first.len() + rest.len();
    let mut kind = kind::HEADERS;
    let mut flags = if end_stream { flag::END_STREAM } else { 0 };
    let mut start = 0;
    // An empty block still needs its HEADERS frame.
    loop {
        let end = total.min(start + max_frame_size);
        if end == total {
            flags |= flag::END_HEADERS;
        }
        header(dst, end - start, kind, flags, stream_id);
        let split = first.len();
        dst.extend_from_slice(&first[start.min(split)..end.min(split)]);
        dst.extend_from_slice(&rest[start.max(split) - split..end.max(split) - split]);
        if end == total {
            return;
        }
        start = end;
        kind = kind::CONTINUATION;
        flags = 0;
    }
}

pub fn write_data(dst: &mut Vec<u8>, stream_id: u32, data: &[u8], end_stream: bool) {
    let flags = if end_stream { flag::END_STREAM } else { 0 };
    header(dst, data.len(), kind::DATA, flags, stream_id);
    dst.extend_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_ignores_the_reserved_bit() {
        let frame = FrameHeader {
            length: 0x01_02_03,
            kind: kind::HEADERS,
            flags: flag::END_HEADERS,
            stream_id: 7,
        };
        let mut bytes = Vec::new();
        frame.write(&mut bytes);
        assert_eq!(bytes, [1, 2, 3, 1, 4, 0, 0, 0, 7]);
        bytes[5] |= 0x80;
        let parsed = FrameHeader::parse(bytes[..9].try_into().unwrap());
        assert_eq!(parsed, frame);
    }

    #[test]
    fn large_header_blocks_continue_in_continuation_frames() {
        let block = vec![0xaa; 40];
        let mut out = Vec::new();
        write_headers(&mut out, 3, &block, true, 16);
        let mut frames = Vec::new();
        let mut rest = &out[..];
        while !rest.is_empty() {
            let h = FrameHeader::parse(rest[..9].try_into().unwrap());
            frames.push((h.kind, h.flags, h.length));
            rest = &rest[9 + h.length as usize..];
        }
        assert_eq!(
            frames,
            [
                (kind::HEADERS, flag::END_STREAM, 16),
                (kind::CONTINUATION, 0, 16),
                (kind::CONTINUATION, flag::END_HEADERS, 8),
            ]
        );
    }
}
