//! gRPC's length-prefixed messages: a request body collected up to a
//! bound, split into its messages, and replies framed.

use bytes::{Buf, BufMut, Bytes, BytesMut};

use super::status::{Status, INTERNAL, RESOURCE_EXHAUSTED, UNIMPLEMENTED};

/// Request bodies beyond this are refused, so that no call can make the
/// target hold more than this much of it.
pub(crate) const MAX_REQUEST: usize = 4 << 20;
/// The compressed flag and the big-endian length.
const PREFIX: usize = 5;

/// A request body read as it arrives, kept up to [`MAX_REQUEST`] bytes.
#[derive(Debug, Default)]
pub(crate) struct Upload {
    kept: BytesMut,
    received: u64,
    too_large: bool,
}

impl Upload {
    /// Takes one chunk; false once the body is known to be too large, when
    /// the rest need not be read.
    pub(crate) fn push(&mut self, mut data: impl Buf) -> bool {
        while data.has_remaining() {
            let chunk = data.chunk();
            let len = chunk.len();
            self.received += len as u64;
            if self.kept.len() + len > MAX_REQUEST {
                self.too_large = true;
                self.kept = BytesMut::new();
                return false;
            }
            self.kept.extend_from_slice(chunk);
            data.advance(len);
        }
        true
    }

    /// Bytes read, for the counters.
    pub(crate) fn received(&self) -> u64 {
        self.received
    }

    /// The request's messages, in order.
    pub(crate) fn messages(self) -> Result<Vec<Bytes>, Status> {
        if self.too_large {
            return Err(Status::new(
                RESOURCE_EXHAUSTED,
                format!("request larger than {MAX_REQUEST} bytes"),
            ));
        }
        split(self.kept.freeze())
    }
}

/// Splits a whole request body into its messages.
pub(crate) fn split(body: Bytes) -> Result<Vec<Bytes>, Status> {
    let mut rest = BytesMut::from(body);
    let mut messages = Vec::new();
    while let Some(message) = take(&mut rest)? {
        messages.push(message);
    }
    match rest.is_empty() {
        true => Ok(messages),
        false => Err(truncated()),
    }
}

/// Takes the first message off `buf` once it has arrived whole, for
/// streams answered as they come; what remains at the stream's end is a
/// truncated message (see [`end`]).
pub(crate) fn take(buf: &mut BytesMut) -> Result<Option<Bytes>, Status> {
    if buf.len() < PREFIX {
        return Ok(None);
    }
    if buf[0] != 0 {
        // No grpc-encoding is offered, so no client may compress.
        return Err(Status::new(
            UNIMPLEMENTED,
            "compressed messages are not supported (no grpc-encoding)",
        ));
    }
    let len = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize;
    if len > MAX_REQUEST {
        // Refused before it is read, so no stream holds more than this.
        return Err(Status::new(
            RESOURCE_EXHAUSTED,
            format!("message larger than {MAX_REQUEST} bytes"),
        ));
    }
    if buf.len() - PREFIX < len {
        return Ok(None);
    }
    buf.advance(PREFIX);
    Ok(Some(buf.split_to(len).freeze()))
}

/// Checks what is left of a stream's body when it ends.
pub(crate) fn end(rest: &BytesMut) -> Result<(), Status> {
    match rest.is_empty() {
        true => Ok(()),
        false => Err(truncated()),
    }
}

fn truncated() -> Status {
    Status::new(INTERNAL, "request body ends inside a message")
}

/// `messages` framed one after the other, uncompressed.
pub(crate) fn frame(messages: &[Bytes]) -> Bytes {
    let len = messages.iter().map(|m| PREFIX + m.len()).sum();
    let mut out = BytesMut::with_capacity(len);
    for message in messages {
        out.put_u8(0);
        out.put_u32(message.len() as u32);
        out.put_slice(message);
    }
    out.freeze()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_splits_back() {
        let messages = [
            Bytes::from_static(b"one"),
            Bytes::new(),
            Bytes::from_static(b"three"),
        ];
        let body = frame(&messages);
        assert_eq!(&body[..8], b"\0\0\0\0\x03one");
        assert_eq!(body.len(), 3 * 5 + 8);
        assert_eq!(split(body).unwrap(), messages);
        assert_eq!(split(Bytes::new()).unwrap(), Vec::<Bytes>::new());
    }

    #[test]
    fn an_upload_in_pieces_is_split_whole() {
        let body = frame(&[Bytes::from_static(b"hello"), Bytes::from_static(b"x")]);
        let mut upload = Upload::default();
        for piece in body.chunks(3) {
            assert!(upload.push(piece));
        }
        assert_eq!(upload.received(), body.len() as u64);
        assert_eq!(upload.messages().unwrap(), ["hello", "x"]);
    }

    #[test]
    fn truncated_and_compressed_messages_are_refused() {
        let code = |body: &'static [u8]| split(Bytes::from_static(body)).unwrap_err().code;
        assert_eq!(code(b"\0\0\0"), INTERNAL);
        assert_eq!(code(b"\0\0\0\0\x05abc"), INTERNAL);
        assert_eq!(code(b"\x01\0\0\0\x01a"), UNIMPLEMENTED);
    }

    #[test]
    fn take_waits_for_whole_messages() {
        let mut buf = BytesMut::from(&b"\0\0\0"[..]);
        assert_eq!(take(&mut buf).unwrap(), None);
        buf.extend_from_slice(b"\0\x02a");
        assert_eq!(take(&mut buf).unwrap(), None);
        assert!(end(&buf).is_err());
        buf.extend_from_slice(b"b\0");
        assert_eq!(take(&mut buf).unwrap().unwrap(), "ab");
        assert_eq!(take(&mut buf).unwrap(), None);
        assert_eq!(&buf[..], b"\0");
        buf.clear();
        assert!(end(&buf).is_ok());
        let huge = (MAX_REQUEST as u32 + 1).to_be_bytes();
        let mut buf = BytesMut::from(&[0, huge[0], huge[1], huge[2], huge[3]][..]);
        assert_eq!(take(&mut buf).unwrap_err().code, RESOURCE_EXHAUSTED);
    }

    #[test]
    fn a_body_beyond_the_bound_is_resource_exhausted() {
        let mut upload = Upload::default();
        assert!(upload.push(&vec![0u8; MAX_REQUEST][..]));
        assert!(!upload.push(&b"1"[..]));
        assert_eq!(upload.received(), MAX_REQUEST as u64 + 1);
        assert!(upload.kept.is_empty());
        assert_eq!(upload.messages().unwrap_err().code, RESOURCE_EXHAUSTED);
    }
}
