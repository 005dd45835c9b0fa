//! gRPC's length-prefixed messages (`doc/PROTOCOL-HTTP2.md` in grpc/grpc):
//! a compressed flag, a big-endian u32 length, the message.

/// One uncompressed message as a call's body carries it.
pub fn frame(message: &[u8]) -> Vec<u8> {
    let length = u32::try_from(message.len()).expect("a gRPC message is below 4 GiB");
    let mut framed = Vec::with_capacity(5 + message.len());
    framed.push(0);
    framed.extend_from_slice(&length.to_be_bytes());
    framed.extend_from_slice(message);
    framed
}

/// The messages of a response body. We never offer compression
/// (no `grpc-accept-encoding`), so a compressed message is the server's
/// error, as is a body that ends inside a message.
pub(crate) fn messages(mut body: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut messages = Vec::new();
    while !body.is_empty() {
        if body.len() < 5 {
            return Err(format!(
                "the response ends inside a message prefix ({} bytes left)",
                body.len()
            ));
        }
        if body[0] != 0 {
            return Err(format!(
                "the response holds a compressed message (flag {}), which was not asked for",
                body[0]
            ));
        }
        let length = u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as usize;
        let rest = &body[5..];
        if rest.len() < length {
            return Err(format!(
                "the response ends inside a message: {} of {length} bytes",
                rest.len()
            ));
        }
        messages.push(&rest[..length]);
        body = &rest[length..];
    }
    Ok(messages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_flag_length_message() {
        assert_eq!(frame(b"abc"), [0, 0, 0, 0, 3, b'a', b'b', b'c']);
        assert_eq!(frame(b""), [0, 0, 0, 0, 0]);
        let big = vec![7u8; 70_000];
        let framed = frame(&big);
        assert_eq!(&framed[..5], &[0, 0, 1, 0x11, 0x70]);
        assert_eq!(framed.len(), 70_005);
    }

    #[test]
    fn bodies_split_into_their_messages() {
        let mut body = frame(b"one");
        body.extend(frame(b""));
        body.extend(frame(b"three"));
        assert_eq!(
            messages(&body).unwrap(),
            [&b"one"[..], &b""[..], &b"three"[..]]
        );
        assert!(messages(&[]).unwrap().is_empty());
    }

    #[test]
    fn broken_bodies_are_refused() {
        let body = frame(b"hello");
        assert!(messages(&body[..3]).unwrap_err().contains("prefix"));
        assert!(messages(&body[..7]).unwrap_err().contains("2 of 5 bytes"));
        let mut compressed = body.clone();
        compressed[0] = 1;
        assert!(messages(&compressed).unwrap_err().contains("compressed"));
    }
}
