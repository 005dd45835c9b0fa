//! HTTP/1.1 faults: each reads the client's requests and answers them
//! wrongly. Requests are taken as heads only, which is all a load
//! generator's GET sends.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A response head of this size is beyond any client's limit (loadgen's
/// and nghttp2's are 64 KiB).
const OVERSIZED_HEAD: usize = 100 * 1000;
/// Pieces the split oversized head is written in, and the pause between
/// them that keeps the kernel from sending them as one.
const SPLIT_PIECE: usize = 4096;
const SPLIT_PAUSE: Duration = Duration::from_millis(1);
/// The pause before each byte of a [`slowloris`] response: its 52 bytes
/// take over half a second, slow for a response yet quick enough for a
/// test to wait out, and the pauses are far shorter than any inactivity
/// timeout a test would set.
const DRIP_PAUSE: Duration = Duration::from_millis(10);
/// What every HTTP/1.1 fault that answers properly answers.
const OK: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 13\r\n\r\nhello, world\n";

/// The client's request heads, one at a time.
struct Requests {
    stream: TcpStream,
    buffer: Vec<u8>,
}

impl Requests {
    fn new(stream: TcpStream) -> Self {
        Requests {
            stream,
            buffer: Vec::new(),
        }
    }

    /// Waits for the next whole request head; false when the client closed
    /// the connection instead.
    fn next(&mut self) -> io::Result<bool> {
        loop {
            if let Some(end) = self.buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                self.buffer.drain(..end + 4);
                return Ok(true);
            }
            let mut chunk = [0; 4096];
            match self.stream.read(&mut chunk)? {
                0 => return Ok(false),
                n => self.buffer.extend_from_slice(&chunk[..n]),
            }
        }
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }
}

/// Answers every request with the same bytes until the client goes away.
fn answer_each(stream: TcpStream, response: &[u8]) -> io::Result<()> {
    let mut requests = Requests::new(stream);
    while requests.next()? {
        requests.write(response)?;
    }
    Ok(())
}

pub(super) fn malformed_status_line(stream: TcpStream) -> io::Result<()> {
    answer_each(stream, b"HTTP/1.1 2x0 OK\r\ncontent-length: 0\r\n\r\n")
}

pub(super) fn bad_content_length(stream: TcpStream) -> io::Result<()> {
    answer_each(
        stream,
        b"HTTP/1.1 200 OK\r\ncontent-length: twelve\r\n\r\nhello, world",
    )
}

pub(super) fn conflicting_content_length(stream: TcpStream) -> io::Result<()> {
    answer_each(
        stream,
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nok!",
    )
}

pub(super) fn bad_chunk_size(stream: TcpStream) -> io::Result<()> {
    answer_each(
        stream,
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n",
    )
}

/// A 16-byte chunk of which 5 bytes come, then the connection closes.
pub(super) fn truncated_chunked_body(stream: TcpStream) -> io::Result<()> {
    let mut requests = Requests::new(stream);
    if requests.next()? {
        requests.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n10\r\nhello")?;
    }
    Ok(())
}

pub(super) fn reset_after_status_line(stream: TcpStream) -> io::Result<()> {
    let mut requests = Requests::new(stream);
    if requests.next()? {
        requests.write(b"HTTP/1.1 200 OK\r\n")?;
        // A zero linger turns the close into a reset.
        socket2::SockRef::from(&requests.stream).set_linger(Some(Duration::ZERO))?;
    }
    Ok(())
}

/// A complete response with a 2-byte body whose head is
/// [`OVERSIZED_HEAD`] bytes, most of them one header's value.
fn oversized_response() -> Vec<u8> {
    let start = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-big: ";
    let end = b"\r\n\r\nok";
    let mut response = start.to_vec();
    response.resize(OVERSIZED_HEAD - (end.len() - 2), b'a');
    response.extend_from_slice(end);
    response
}

pub(super) fn oversized_header_whole(stream: TcpStream) -> io::Result<()> {
    answer_each(stream, &oversized_response())
}

pub(super) fn oversized_header_split(stream: TcpStream) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let response = oversized_response();
    let mut requests = Requests::new(stream);
    while requests.next()? {
        for piece in response.chunks(SPLIT_PIECE) {
            requests.write(piece)?;
            std::thread::sleep(SPLIT_PAUSE);
        }
    }
    Ok(())
}

/// Takes every request and answers none.
pub(super) fn stall(stream: TcpStream) -> io::Result<()> {
    let mut requests = Requests::new(stream);
    while requests.next()? {}
    Ok(())
}

/// Answers every request properly, one byte at a time.
pub(super) fn slowloris(stream: TcpStream) -> io::Result<()> {
    // Without Nagle's delay each byte leaves in a segment of its own.
    stream.set_nodelay(true)?;
    let mut requests = Requests::new(stream);
    while requests.next()? {
        for byte in OK.chunks(1) {
            std::thread::sleep(DRIP_PAUSE);
            requests.write(byte)?;
        }
    }
    Ok(())
}

/// Each answer comes with a second response, in the same write, that
/// answers no request.
pub(super) fn unsolicited_response(stream: TcpStream) -> io::Result<()> {
    answer_each(
        stream,
        b"HTTP/1.1 200 OK\r\ncontent-length: 13\r\n\r\nhello, world\n\
          HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\nunsolicited",
    )
}

pub(super) fn interim_before_final(stream: TcpStream) -> io::Result<()> {
    answer_each(
        stream,
        b"HTTP/1.1 100 Continue\r\n\r\n\
          HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n\
          HTTP/1.1 200 OK\r\ncontent-length: 13\r\n\r\nhello, world\n",
    )
}

/// 204 has no body whatever its headers say (RFC 9112 section 6.3), so the
/// bytes after its head are garbage where the next response should start.
pub(super) fn no_content_with_body(stream: TcpStream) -> io::Result<()> {
    answer_each(
        stream,
        b"HTTP/1.1 204 No Content\r\ncontent-length: 5\r\n\r\nhello",
    )
}

/// A status outside 100-599 (RFC 9110 section 15: invalid, which a client
/// treats as 5xx), with a proper body.
pub(super) fn status_out_of_range(stream: TcpStream) -> io::Result<()> {
    answer_each(
        stream,
        b"HTTP/1.1 999 Request Denied\r\ncontent-length: 13\r\n\r\nhello, world\n",
    )
}

/// Header lines folded the obsolete way (RFC 9112 section 5.2), one of them
/// Content-Length, whose value comes on the continuation line.
pub(super) fn obs_fold(stream: TcpStream) -> io::Result<()> {
    answer_each(
        stream,
        b"HTTP/1.1 200 OK\r\nx-folded: one\r\n two\r\ncontent-length:\r\n\t13\r\n\r\nhello, world\n",
    )
}

/// A body whose end is the close of the connection (a transfer coding
/// other than chunked, RFC 9112 section 6.3), and a connection that is
/// never closed: a part of the body comes, then nothing.
pub(super) fn close_delimited_stall(stream: TcpStream) -> io::Result<()> {
    let mut requests = Requests::new(stream);
    if requests.next()? {
        requests.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nnot all of it")?;
        while requests.next()? {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oversized_head_has_the_intended_size() {
        let response = oversized_response();
        let head_end = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        assert_eq!(head_end, OVERSIZED_HEAD);
        assert_eq!(&response[head_end..], b"ok");
    }
}
