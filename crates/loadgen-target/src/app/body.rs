//! Request bodies of the app's paths, kept in memory up to a bound.

use bytes::{Buf, Bytes, BytesMut};

/// The largest request body the app keeps; a larger one is read to the end,
/// counted and answered with `413 Payload Too Large`.
pub(crate) const MAX_BODY: usize = 1 << 20;

/// A request body as it arrives, whatever protocol carries it.
#[derive(Debug, Default)]
pub(crate) struct BoundedBody {
    kept: BytesMut,
    received: u64,
    too_large: bool,
}

impl BoundedBody {
    pub(crate) fn push(&mut self, mut data: impl Buf) {
        while data.has_remaining() {
            let chunk = data.chunk();
            let len = chunk.len();
            self.received += len as u64;
            if !self.too_large {
                if self.kept.len() + len <= MAX_BODY {
                    self.kept.extend_from_slice(chunk);
                } else {
                    // The rest is only counted: nothing of it will be used.
                    self.too_large = true;
                    self.kept = BytesMut::new();
                }
            }
            data.advance(len);
        }
    }

    /// Bytes received, including those beyond the bound.
    pub(crate) fn received(&self) -> u64 {
        self.received
    }

    /// The whole body, or `None` when it was larger than [`MAX_BODY`].
    pub(crate) fn into_bytes(self) -> Option<Bytes> {
        (!self.too_large).then(|| self.kept.freeze())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_body_up_to_the_bound() {
        let mut body = BoundedBody::default();
        body.push(&b"abc"[..]);
        body.push(Bytes::from(vec![b'x'; MAX_BODY - 3]));
        assert_eq!(body.received(), MAX_BODY as u64);
        let bytes = body.into_bytes().unwrap();
        assert_eq!((bytes.len(), &bytes[..3]), (MAX_BODY, &b"abc"[..]));
    }

    #[test]
    fn counts_but_drops_a_body_beyond_it() {
        let mut body = BoundedBody::default();
        body.push(Bytes::from(vec![0; MAX_BODY]));
        body.push(&b"1"[..]);
        body.push(&b"23"[..]);
        assert_eq!(body.received(), MAX_BODY as u64 + 3);
        assert!(body.kept.is_empty());
        assert_eq!(body.into_bytes(), None);
    }

    #[test]
    fn reads_every_chunk_of_a_split_buffer() {
        let mut body = BoundedBody::default();
        body.push(Buf::chain(&b"hello, "[..], &b"world"[..]));
        assert_eq!(body.into_bytes().unwrap(), "hello, world");
    }
}
