//! HTTP/2 faults over cleartext with prior knowledge. The frames are
//! written by hand with `loadgen_http2::frame`'s writers: a fault is the
//! point where a server stops doing what a codec would make it do.

use loadgen_http2::frame::{self, code, flag, kind, setting, FrameHeader, HEADER_LEN};
use std::io::{self, Read, Write};
use std::net::TcpStream;

/// `:status: 200` from HPACK's static table.
const STATUS_200: &[u8] = &[0x88];
const BODY: &[u8] = b"hello, world\n";
/// Enough CONTINUATION bytes to show a client that buffers them all, yet
/// bounded so that such a client is not taken down with the test.
const FLOOD_BYTES: usize = 50 * 1000 * 1000;
const FLOOD_FRAME: usize = frame::DEFAULT_MAX_FRAME_SIZE as usize;
/// The PING and SETTINGS floods send this much per connection: more than
/// the socket buffers of loopback hold (a few MB), so that a client that
/// keeps every acknowledgement it cannot write grows by tens of MB.
const CONTROL_FLOOD_BYTES: usize = 50 * 1000 * 1000;
/// Flood frames are written this many at a time.
const FLOOD_BATCH: usize = 1024;
/// Responses on a connection before [`goaway_mid_run`] sends GOAWAY.
const RESPONSES_BEFORE_GOAWAY: usize = 3;

/// The server's side of one connection: frames in, frames out.
struct Peer {
    stream: TcpStream,
    input: Vec<u8>,
}

impl Peer {
    /// Takes the client's preface and sends nothing, which only
    /// [`no_settings`] wants; the others start with
    /// [`Peer::accept_with_settings`].
    fn accept(stream: TcpStream) -> io::Result<Peer> {
        let mut peer = Peer {
            stream,
            input: Vec::new(),
        };
        peer.fill(frame::CLIENT_PREFACE.len())?;
        if !peer.input.starts_with(frame::CLIENT_PREFACE) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the client did not send the HTTP/2 preface",
            ));
        }
        peer.input.drain(..frame::CLIENT_PREFACE.len());
        Ok(peer)
    }

    fn accept_with_settings(stream: TcpStream) -> io::Result<Peer> {
        Peer::accept_advertising(stream, &[])
    }

    fn accept_advertising(stream: TcpStream, settings: &[(u16, u32)]) -> io::Result<Peer> {
        let mut peer = Peer::accept(stream)?;
        let mut frame = Vec::new();
        frame::write_settings(&mut frame, settings);
        peer.send(&frame)?;
        Ok(peer)
    }

    /// Reads until `len` bytes are buffered; an early close is an error.
    fn fill(&mut self, len: usize) -> io::Result<()> {
        let mut chunk = [0; 16 * 1024];
        while self.input.len() < len {
            match self.stream.read(&mut chunk)? {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                n => self.input.extend_from_slice(&chunk[..n]),
            }
        }
        Ok(())
    }

    fn next_frame(&mut self) -> io::Result<(FrameHeader, Vec<u8>)> {
        self.fill(HEADER_LEN)?;
        let header = FrameHeader::parse(self.input[..HEADER_LEN].try_into().expect("9 bytes"));
        let end = HEADER_LEN + header.length as usize;
        self.fill(end)?;
        let payload = self.input[HEADER_LEN..end].to_vec();
        self.input.drain(..end);
        Ok((header, payload))
    }

    /// The stream id of the client's next request, acknowledging its
    /// SETTINGS and answering its PINGs meanwhile; `None` once it closed.
    fn next_request(&mut self) -> io::Result<Option<u32>> {
        loop {
            let (header, payload) = match self.next_frame() {
                Ok(frame) => frame,
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
                Err(e) => return Err(e),
            };
            if header.kind == kind::HEADERS {
                return Ok(Some(header.stream_id));
            }
            self.acknowledge(&header, &payload)?;
        }
    }

    /// Acknowledges the client's SETTINGS and PINGs, as a server must.
    fn acknowledge(&mut self, header: &FrameHeader, payload: &[u8]) -> io::Result<()> {
        let mut reply = Vec::new();
        match header.kind {
            kind::SETTINGS if !header.has(flag::ACK) => frame::write_settings_ack(&mut reply),
            kind::PING if !header.has(flag::ACK) => {
                if let Ok(data) = <&[u8; 8]>::try_from(payload) {
                    frame::write_ping_ack(&mut reply, data);
                }
            }
            _ => {}
        }
        self.send(&reply)
    }

    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    fn respond(&mut self, stream_id: u32) -> io::Result<()> {
        let mut out = Vec::new();
        let max_frame = frame::DEFAULT_MAX_FRAME_SIZE as usize;
        frame::write_headers(&mut out, stream_id, STATUS_200, false, max_frame);
        frame::write_data(&mut out, stream_id, BODY, true);
        self.send(&out)
    }

    /// Reads and drops what the client sends until it closes.
    fn drain(mut self) -> io::Result<()> {
        let mut chunk = [0; 16 * 1024];
        while self.stream.read(&mut chunk)? > 0 {}
        Ok(())
    }
}

fn frame_header(out: &mut Vec<u8>, length: usize, kind: u8, flags: u8, stream_id: u32) {
    FrameHeader {
        length: length as u32,
        kind,
        flags,
        stream_id,
    }
    .write(out);
}

/// HEADERS without END_HEADERS on the first request, then CONTINUATION
/// frames that never end it.
pub(super) fn continuation_flood(stream: TcpStream) -> io::Result<()> {
    let mut peer = Peer::accept_with_settings(stream)?;
    let Some(id) = peer.next_request()? else {
        return Ok(());
    };
    let mut out = Vec::new();
    frame_header(&mut out, STATUS_200.len(), kind::HEADERS, 0, id);
    out.extend_from_slice(STATUS_200);
    peer.send(&out)?;
    let mut continuation = Vec::with_capacity(HEADER_LEN + FLOOD_FRAME);
    frame_header(&mut continuation, FLOOD_FRAME, kind::CONTINUATION, 0, id);
    // Zeros read as literal fields with empty names and values, should a
    // client ever decode them.
    continuation.resize(HEADER_LEN + FLOOD_FRAME, 0);
    let mut sent = 0;
    while sent < FLOOD_BYTES {
        peer.send(&continuation)?;
        sent += FLOOD_FRAME;
    }
    peer.drain()
}

/// Answers [`RESPONSES_BEFORE_GOAWAY`] requests, then a graceful GOAWAY
/// whose last stream is the last one answered: streams the client opened
/// after it are refused, and it has to connect again.
pub(super) fn goaway_mid_run(stream: TcpStream) -> io::Result<()> {
    let mut peer = Peer::accept_with_settings(stream)?;
    let mut last_answered = 0;
    for _ in 0..RESPONSES_BEFORE_GOAWAY {
        let Some(id) = peer.next_request()? else {
            return Ok(());
        };
        peer.respond(id)?;
        last_answered = id;
    }
    let mut out = Vec::new();
    frame::write_goaway(&mut out, last_answered, code::NO_ERROR);
    peer.send(&out)?;
    peer.drain()
}

pub(super) fn rst_stream_every_stream(stream: TcpStream) -> io::Result<()> {
    let mut peer = Peer::accept_with_settings(stream)?;
    while let Some(id) = peer.next_request()? {
        let mut out = Vec::new();
        frame::write_rst_stream(&mut out, id, code::INTERNAL_ERROR);
        peer.send(&out)?;
    }
    Ok(())
}

/// A PING must be 8 bytes long (RFC 9113 section 6.7); this one is 7.
pub(super) fn malformed_frame(stream: TcpStream) -> io::Result<()> {
    let mut peer = Peer::accept_with_settings(stream)?;
    if peer.next_request()?.is_some() {
        let mut out = Vec::new();
        frame_header(&mut out, 7, kind::PING, 0, 0);
        out.extend_from_slice(b"1234567");
        peer.send(&out)?;
    }
    peer.drain()
}

/// Takes the preface and whatever follows, and never says a word.
pub(super) fn no_settings(stream: TcpStream) -> io::Result<()> {
    Peer::accept(stream)?.drain()
}

/// Sends `frame` over and over, [`CONTROL_FLOOD_BYTES`] in all, reading
/// nothing: whatever the client answers piles up on its side.
fn flood(peer: &mut Peer, frame: &[u8]) -> io::Result<()> {
    let batch = frame.repeat(FLOOD_BATCH);
    let mut sent = 0;
    while sent < CONTROL_FLOOD_BYTES {
        peer.send(&batch)?;
        sent += batch.len();
    }
    Ok(())
}

/// After the first request, PINGs that each ask for an acknowledgement,
/// without reading one.
pub(super) fn ping_flood(stream: TcpStream) -> io::Result<()> {
    let mut peer = Peer::accept_with_settings(stream)?;
    if peer.next_request()?.is_none() {
        return Ok(());
    }
    let mut ping = Vec::new();
    frame_header(&mut ping, 8, kind::PING, 0, 0);
    ping.extend_from_slice(b"floodmsg");
    flood(&mut peer, &ping)?;
    peer.drain()
}

/// After the first request, empty SETTINGS frames, each to be
/// acknowledged, without reading an acknowledgement.
pub(super) fn settings_flood(stream: TcpStream) -> io::Result<()> {
    let mut peer = Peer::accept_with_settings(stream)?;
    if peer.next_request()?.is_none() {
        return Ok(());
    }
    let mut settings = Vec::new();
    frame::write_settings(&mut settings, &[]);
    flood(&mut peer, &settings)?;
    peer.drain()
}

/// Answers every request with a body of [`BODY`]'s 13 bytes under a
/// `content-length` that says `announced`.
fn body_of_another_length(stream: TcpStream, announced: &str) -> io::Result<()> {
    let mut peer = Peer::accept_with_settings(stream)?;
    // `:status: 200`, then content-length with its static name (index 28).
    let mut head = STATUS_200.to_vec();
    head.extend_from_slice(&[0x0f, 28 - 15, announced.len() as u8]);
    head.extend_from_slice(announced.as_bytes());
    while let Some(id) = peer.next_request()? {
        let mut out = Vec::new();
        let max_frame = frame::DEFAULT_MAX_FRAME_SIZE as usize;
        frame::write_headers(&mut out, id, &head, false, max_frame);
        frame::write_data(&mut out, id, BODY, true);
        peer.send(&out)?;
    }
    Ok(())
}

/// A body shorter than its content-length: the stream ends after 13 of 20.
pub(super) fn content_length_short(stream: TcpStream) -> io::Result<()> {
    body_of_another_length(stream, "20")
}

/// A body longer than its content-length: 13 bytes where 5 were announced.
pub(super) fn content_length_long(stream: TcpStream) -> io::Result<()> {
    body_of_another_length(stream, "5")
}

/// Advertises a stream window of 0 and never opens a window, nor answers:
/// a request body can never be sent whole. Before it has our SETTINGS a
/// client may send up to the default windows of 65,535 bytes (RFC 9113
/// section 6.9.2); DATA that comes after its acknowledgement of them broke
/// the window, and gets RST_STREAM with FLOW_CONTROL_ERROR, so that it
/// shows.
pub(super) fn zero_window(stream: TcpStream) -> io::Result<()> {
    let mut peer = Peer::accept_advertising(stream, &[(setting::INITIAL_WINDOW_SIZE, 0)])?;
    let mut settings_acknowledged = false;
    loop {
        let (header, payload) = match peer.next_frame() {
            Ok(frame) => frame,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        };
        match header.kind {
            kind::SETTINGS if header.has(flag::ACK) => settings_acknowledged = true,
            kind::DATA if settings_acknowledged && header.length > 0 => {
                let mut reset = Vec::new();
                frame::write_rst_stream(&mut reset, header.stream_id, code::FLOW_CONTROL_ERROR);
                peer.send(&reset)?;
            }
            _ => peer.acknowledge(&header, &payload)?,
        }
    }
}
