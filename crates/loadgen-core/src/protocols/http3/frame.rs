//! HTTP/3 framing (RFC 9114 §7) for a client: the frames a request sends,
//! and a sans-IO reader of what comes back on a request stream.

use super::qpack;
use bytes::{Buf, Bytes, BytesMut};

pub(super) const DATA: u64 = 0x00;
pub(super) const HEADERS: u64 = 0x01;
const CANCEL_PUSH: u64 = 0x03;
pub(super) const SETTINGS: u64 = 0x04;
const PUSH_PROMISE: u64 = 0x05;
pub(super) const GOAWAY: u64 = 0x07;
const MAX_PUSH_ID: u64 = 0x0d;

/// Stream types of unidirectional streams (RFC 9114 §6.2, RFC 9204 §4.2).
pub(super) const CONTROL_STREAM: u64 = 0x00;

/// HTTP/3 error codes this client sends or acts on (RFC 9114 §8.1).
pub(super) const H3_NO_ERROR: u32 = 0x100;
pub(super) const H3_REQUEST_REJECTED: u64 = 0x10b;

/// A response's field section may be at most this long (a HEADERS frame's
/// payload); what servers send is far smaller.
pub(super) const MAX_FIELD_SECTION: u64 = 1 << 20;

/// Appends `value` as a QUIC variable-length integer (RFC 9000 §16).
pub(super) fn put_varint(out: &mut Vec<u8>, value: u64) {
    match value {
        0..=0x3f => out.push(value as u8),
        0x40..=0x3fff => out.extend_from_slice(&(0x4000 | value as u16).to_be_bytes()),
        0x4000..=0x3fff_ffff => out.extend_from_slice(&(0x8000_0000 | value as u32).to_be_bytes()),
        _ => out.extend_from_slice(&(0xc000_0000_0000_0000 | value).to_be_bytes()),
    }
}

/// Reads a variable-length integer from the front of `input`: the value
/// and its length, or `None` when `input` holds only part of it.
pub(super) fn get_varint(input: &[u8]) -> Option<(u64, usize)> {
    let first = *input.first()?;
    let len = 1usize << (first >> 6);
    let bytes = input.get(..len)?;
    let mut value = u64::from(first & 0x3f);
    for byte in &bytes[1..] {
        value = (value << 8) | u64::from(*byte);
    }
    Some((value, len))
}

/// A frame's type and length, then its payload (HEADERS, or DATA's header).
pub(super) fn frame(kind: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 16);
    put_varint(&mut out, kind);
    put_varint(&mut out, payload.len() as u64);
    out.extend_from_slice(payload);
    out
}

/// The type and length of a DATA frame of `len` bytes, sent before the body.
pub(super) fn data_header(len: usize) -> Bytes {
    let mut out = Vec::with_capacity(9);
    put_varint(&mut out, DATA);
    put_varint(&mut out, len as u64);
    Bytes::from(out)
}

/// Why a request stream's response is not a valid HTTP/3 response.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum ResponseError {
    /// A frame that has no place on a request stream, or DATA before HEADERS.
    Unexpected(u64),
    /// The field section could not be decoded.
    Qpack(qpack::DecodeError),
    /// No `:status`, or one that is not three digits.
    BadStatus,
    /// A field section longer than this client takes.
    HeadersTooLong(u64),
    /// The stream ended inside a frame, or before a response.
    Incomplete,
}

impl std::fmt::Display for ResponseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResponseError::Unexpected(kind) => {
                write!(f, "HTTP/3: unexpected frame {kind:#x} on a request stream")
            }
            ResponseError::Qpack(e) => write!(f, "HTTP/3: {e}"),
            ResponseError::BadStatus => f.write_str("HTTP/3: a response without a valid :status"),
            ResponseError::HeadersTooLong(len) => {
                write!(f, "HTTP/3: a {len}-byte field section is too long")
            }
            ResponseError::Incomplete => {
                f.write_str("HTTP/3: the server ended the stream before a whole response")
            }
        }
    }
}

/// A response's field: name and value as sent.
pub(super) type Field = (Bytes, Bytes);

/// What the reader hands on as the response arrives. Fields are lent one
/// at a time, so a sink that keeps none costs no allocation.
pub(super) trait ResponseSink {
    /// A regular field of the final response's head.
    fn field(&mut self, name: &[u8], value: &[u8]);
    /// The final head ended: its status and encoded length.
    fn head(&mut self, status: u16, encoded_len: u64);
    /// A piece of the body, when the reader keeps the body.
    fn data(&mut self, piece: Bytes);
    /// A field of the trailers.
    fn trailer(&mut self, name: &[u8], value: &[u8]);
}

enum Reading {
    /// Between frames.
    FrameStart,
    /// Inside a DATA frame with this much left.
    Data(u64),
    /// Inside a frame that is skipped, with this much left.
    Skip(u64),
    /// Collecting a HEADERS frame of this length.
    Headers(usize),
}

/// Parses the frames of one request stream as pieces arrive.
///
/// In C layout, what a piece of a DATA frame touches first: its state and
/// the body's byte count, which [`RequestStream`](super::stream::RequestStream)
/// puts on one cache line with its stream ID.
#[repr(C)]
pub(super) struct ResponseReader {
    reading: Reading,
    /// DATA payload bytes of the final response so far.
    data_bytes: u64,
    /// Pieces of the body go to the sink; otherwise they are only counted.
    keep_body: bool,
    /// The final (non-1xx) head has been seen.
    headed: bool,
    buffer: BytesMut,
    /// Huffman-decoded strings of the field section being read.
    scratch: Vec<u8>,
}

impl ResponseReader {
    /// A reader that hands the body's pieces to its sink if `keep_body`.
    pub(super) fn new(keep_body: bool) -> Self {
        ResponseReader {
            reading: Reading::FrameStart,
            data_bytes: 0,
            keep_body,
            headed: false,
            buffer: BytesMut::new(),
            scratch: Vec::new(),
        }
    }

    /// The body's length so far: DATA payload bytes.
    pub(super) fn data_bytes(&self) -> u64 {
        self.data_bytes
    }

    /// Bytes held for a frame header or a field section split across pieces.
    pub(super) fn buffered(&self) -> usize {
        self.buffer.len()
    }

    /// Takes in the next piece of the stream.
    pub(super) fn push(
        &mut self,
        mut piece: Bytes,
        sink: &mut impl ResponseSink,
    ) -> Result<(), ResponseError> {
        loop {
            match self.reading {
                Reading::Data(left) => {
                    // Body bytes go on without a copy when nothing is buffered.
                    let take = left.min(piece.len() as u64) as usize;
                    self.data_bytes += take as u64;
                    if !self.keep_body {
                        piece.advance(take);
                    } else if take == piece.len() {
                        sink.data(std::mem::take(&mut piece));
                    } else if take > 0 {
                        sink.data(piece.split_to(take));
                    }
                    self.reading = match left - take as u64 {
                        0 => Reading::FrameStart,
                        rest => Reading::Data(rest),
                    };
                    if piece.is_empty() {
                        return Ok(());
                    }
                }
                Reading::Skip(left) => {
                    let take = left.min(piece.len() as u64) as usize;
                    piece.advance(take);
                    self.reading = match left - take as u64 {
                        0 => Reading::FrameStart,
                        rest => Reading::Skip(rest),
                    };
                    if piece.is_empty() {
                        return Ok(());
                    }
                }
                Reading::FrameStart | Reading::Headers(_) => {
                    if piece.is_empty() {
                        return Ok(());
                    }
                    if self.buffer.is_empty() {
                        if let Some(used) = self.step(&piece, sink)? {
                            piece.advance(used);
                            continue;
                        }
                    }
                    // A frame header or a field section split across pieces.
                    self.buffer.extend_from_slice(&piece);
                    piece.clear();
                    let buffered = self.buffer.split().freeze();
                    let mut rest = buffered.clone();
                    while let Some(used) = self.step(&rest, sink)? {
                        rest.advance(used);
                        if !matches!(self.reading, Reading::FrameStart | Reading::Headers(_)) {
                            break;
                        }
                    }
                    if matches!(self.reading, Reading::FrameStart | Reading::Headers(_)) {
                        self.buffer.extend_from_slice(&rest);
                        return Ok(());
                    }
                    piece = rest;
                }
            }
        }
    }

    /// Reads a frame header, or a whole HEADERS payload, from the front of
    /// `input`; the bytes used, or `None` when more are needed.
    fn step(
        &mut self,
        input: &[u8],
        sink: &mut impl ResponseSink,
    ) -> Result<Option<usize>, ResponseError> {
        match self.reading {
            Reading::Headers(len) => {
                let Some(section) = input.get(..len) else {
                    return Ok(None);
                };
                self.reading = Reading::FrameStart;
                self.headers(section, sink)?;
                Ok(Some(len))
            }
            _ => {
                let Some((kind, kind_len)) = get_varint(input) else {
                    return Ok(None);
                };
                let Some((len, len_len)) = get_varint(&input[kind_len..]) else {
                    return Ok(None);
                };
                self.reading = match kind {
                    DATA if !self.headed => return Err(ResponseError::Unexpected(kind)),
                    DATA if len == 0 => Reading::FrameStart,
                    DATA => Reading::Data(len),
                    HEADERS if len > MAX_FIELD_SECTION => {
                        return Err(ResponseError::HeadersTooLong(len))
                    }
                    HEADERS if len == 0 => {
                        // A field section has at least its prefix: an empty
                        // one is refused here, where no byte is left to wait
                        // for, whether or not more follow in this piece.
                        self.headers(&[], sink)?;
                        Reading::FrameStart
                    }
                    HEADERS => Reading::Headers(len as usize),
                    CANCEL_PUSH | SETTINGS | PUSH_PROMISE | GOAWAY | MAX_PUSH_ID | 0x02 | 0x06
                    | 0x08 | 0x09 => return Err(ResponseError::Unexpected(kind)),
                    // Unknown and reserved frame types are skipped (§9).
                    _ if len == 0 => Reading::FrameStart,
                    _ => Reading::Skip(len),
                };
                Ok(Some(kind_len + len_len))
            }
        }
    }

    fn headers(
        &mut self,
        section: &[u8],
        sink: &mut impl ResponseSink,
    ) -> Result<(), ResponseError> {
        if self.headed {
            return qpack::decode(section, &mut self.scratch, |name, value| {
                if !name.starts_with(b":") {
                    sink.trailer(name, value);
                }
            })
            .map_err(ResponseError::Qpack);
        }
        // Pseudo-fields come first (RFC 9114 §4.3), so the status is known
        // by the first regular field; an interim (1xx) head's fields are dropped.
        let mut status = None;
        qpack::decode(section, &mut self.scratch, |name, value| {
            if name == b":status" {
                status = Some(parse_status(value));
            } else if !name.starts_with(b":") && matches!(status, Some(Some(200..))) {
                sink.field(name, value);
            }
        })
        .map_err(ResponseError::Qpack)?;
        let status = status.flatten().ok_or(ResponseError::BadStatus)?;
        if status >= 200 {
            self.headed = true;
            sink.head(status, section.len() as u64);
        }
        Ok(())
    }

    /// The stream ended: whether that was at a frame's end, after a head.
    pub(super) fn finish(&self) -> Result<(), ResponseError> {
        let between_frames = matches!(self.reading, Reading::FrameStart) && self.buffer.is_empty();
        if self.headed && between_frames {
            Ok(())
        } else {
            Err(ResponseError::Incomplete)
        }
    }
}

fn parse_status(value: &[u8]) -> Option<u16> {
    match value {
        [a, b, c] if value.iter().all(u8::is_ascii_digit) && *a != b'0' => {
            Some(u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0'))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Seen {
        status: Option<u16>,
        fields: Vec<Field>,
        body: Vec<u8>,
        trailers: Vec<Field>,
    }

    impl ResponseSink for Seen {
        fn field(&mut self, name: &[u8], value: &[u8]) {
            self.fields
                .push((Bytes::copy_from_slice(name), Bytes::copy_from_slice(value)));
        }
        fn head(&mut self, status: u16, _encoded_len: u64) {
            self.status = Some(status);
        }
        fn data(&mut self, piece: Bytes) {
            self.body.extend_from_slice(&piece);
        }
        fn trailer(&mut self, name: &[u8], value: &[u8]) {
            self.trailers
                .push((Bytes::copy_from_slice(name), Bytes::copy_from_slice(value)));
        }
    }

    fn response() -> Vec<u8> {
        let interim = qpack::encode_section([(":status", "103")]);
        let head = qpack::encode_section([(":status", "200"), ("content-type", "text/plain")]);
        let trailers = qpack::encode_section([("grpc-status", "0")]);
        let mut out = frame(HEADERS, &interim);
        out.extend(frame(HEADERS, &head));
        out.extend(frame(0x21, b"reserved"));
        out.extend(frame(DATA, b"hello, "));
        out.extend(frame(DATA, b""));
        out.extend(frame(DATA, b"world"));
        out.extend(frame(HEADERS, &trailers));
        out
    }

    #[test]
    fn a_response_in_every_split_reads_the_same() {
        let whole = response();
        for keep_body in [true, false] {
            for split in 0..whole.len() {
                for second in split..whole.len() {
                    let mut reader = ResponseReader::new(keep_body);
                    let mut seen = Seen::default();
                    for piece in [&whole[..split], &whole[split..second], &whole[second..]] {
                        reader
                            .push(Bytes::copy_from_slice(piece), &mut seen)
                            .unwrap();
                    }
                    reader.finish().unwrap();
                    assert_eq!(seen.status, Some(200));
                    assert_eq!(seen.fields.len(), 1);
                    assert_eq!(reader.data_bytes(), 12);
                    // A body not kept is counted, never handed on.
                    let body: &[u8] = if keep_body { b"hello, world" } else { b"" };
                    assert_eq!(seen.body, body);
                    assert!(seen
                        .trailers
                        .iter()
                        .any(|(n, v)| &n[..] == b"grpc-status" && &v[..] == b"0"));
                }
            }
        }
    }

    #[test]
    fn data_before_headers_and_control_frames_are_refused() {
        let mut seen = Seen::default();
        let early = frame(DATA, b"x");
        assert_eq!(
            ResponseReader::new(true).push(Bytes::from(early), &mut seen),
            Err(ResponseError::Unexpected(DATA))
        );
        let goaway = frame(GOAWAY, &[0]);
        assert_eq!(
            ResponseReader::new(true).push(Bytes::from(goaway), &mut seen),
            Err(ResponseError::Unexpected(GOAWAY))
        );
    }

    #[test]
    fn an_empty_field_section_is_refused_at_the_end_of_a_piece_too() {
        let empty = frame(HEADERS, b"");
        let mut then_data = empty.clone();
        then_data.extend(frame(DATA, b"x"));
        for input in [empty, then_data] {
            let mut seen = Seen::default();
            assert!(matches!(
                ResponseReader::new(true).push(Bytes::from(input), &mut seen),
                Err(ResponseError::Qpack(_))
            ));
        }
    }

    #[test]
    fn a_stream_cut_inside_a_frame_is_incomplete() {
        let whole = response();
        let mut reader = ResponseReader::new(true);
        let mut seen = Seen::default();
        reader
            .push(Bytes::copy_from_slice(&whole[..whole.len() - 1]), &mut seen)
            .unwrap();
        assert_eq!(reader.finish(), Err(ResponseError::Incomplete));
        assert_eq!(
            ResponseReader::new(true).finish(),
            Err(ResponseError::Incomplete)
        );
    }

    /// Whatever a server sends, in whatever pieces, the reader answers
    /// with a result, never a panic.
    #[test]
    fn arbitrary_bytes_in_arbitrary_pieces_never_panic() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let valid = response();
        for _ in 0..5_000 {
            // Half start from a valid response with bytes changed, half are noise.
            let mut input = if next() % 2 == 0 {
                valid.clone()
            } else {
                (0..next() % 200).map(|_| next() as u8).collect()
            };
            for _ in 0..next() % 4 {
                if !input.is_empty() {
                    let at = next() as usize % input.len();
                    input[at] = next() as u8;
                }
            }
            let mut reader = ResponseReader::new(true);
            let mut seen = Seen::default();
            let mut rest = &input[..];
            while !rest.is_empty() {
                let take = 1 + next() as usize % rest.len();
                if reader
                    .push(Bytes::copy_from_slice(&rest[..take]), &mut seen)
                    .is_err()
                {
                    break;
                }
                rest = &rest[take..];
            }
            let _ = reader.finish();
        }
    }

    #[test]
    fn varints_round_trip() {
        for value in [
            0,
            63,
            64,
            16383,
            16384,
            (1 << 30) - 1,
            1 << 30,
            (1 << 62) - 1,
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            assert_eq!(get_varint(&out), Some((value, out.len())));
            assert_eq!(get_varint(&out[..out.len() - 1]), None);
        }
    }
}
