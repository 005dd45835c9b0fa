//! RFC 6455 frames, without I/O: the client's masked frames out, the
//! server's frames in, fragmented messages put back together under a size
//! cap. Tested by feeding bytes, one at a time where it matters.

/// A frame's opcode (RFC 6455 section 5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opcode {
    Continuation = 0x0,
    Text = 0x1,
    Binary = 0x2,
    Close = 0x8,
    Ping = 0x9,
    Pong = 0xA,
}

impl Opcode {
    fn of(bits: u8) -> Option<Opcode> {
        Some(match bits {
            0x0 => Opcode::Continuation,
            0x1 => Opcode::Text,
            0x2 => Opcode::Binary,
            0x8 => Opcode::Close,
            0x9 => Opcode::Ping,
            0xA => Opcode::Pong,
            _ => return None,
        })
    }

    fn is_control(self) -> bool {
        (self as u8) & 0x8 != 0
    }
}

/// Close codes this client sends (RFC 6455 section 7.4.1).
pub mod close_code {
    pub const NORMAL: u16 = 1000;
    pub const PROTOCOL_ERROR: u16 = 1002;
    pub const INVALID_PAYLOAD: u16 = 1007;
    pub const MESSAGE_TOO_BIG: u16 = 1009;
}

/// Appends one client frame, final and masked with `mask` as a client
/// must mask every frame (RFC 6455 section 5.3).
pub fn write_frame(out: &mut Vec<u8>, opcode: Opcode, payload: &[u8], mask: [u8; 4]) {
    out.push(0x80 | opcode as u8);
    let len = payload.len();
    if len < 126 {
        out.push(0x80 | len as u8);
    } else if len <= usize::from(u16::MAX) {
        out.push(0x80 | 126);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0x80 | 127);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    out.extend_from_slice(&mask);
    let start = out.len();
    out.extend_from_slice(payload);
    apply_mask(&mut out[start..], mask);
}

/// A close frame with `code` and no reason.
pub fn write_close(out: &mut Vec<u8>, code: u16, mask: [u8; 4]) {
    write_frame(out, Opcode::Close, &code.to_be_bytes(), mask);
}

/// XORs `data` with the repeated `mask`, eight bytes at a time: masking
/// is the one per-byte cost of sending a message.
pub fn apply_mask(data: &mut [u8], mask: [u8; 4]) {
    let wide = u64::from_ne_bytes([
        mask[0], mask[1], mask[2], mask[3], mask[0], mask[1], mask[2], mask[3],
    ]);
    let mut chunks = data.chunks_exact_mut(8);
    for chunk in &mut chunks {
        let word = u64::from_ne_bytes(chunk.try_into().expect("eight bytes")) ^ wide;
        chunk.copy_from_slice(&word.to_ne_bytes());
    }
    // The remainder starts at a multiple of 8, so at mask[0], and may be longer than 4.
    for (byte, key) in chunks.into_remainder().iter_mut().zip(mask.iter().cycle()) {
        *byte ^= key;
    }
}

/// What a server sent, as the client acts on it.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming<'a> {
    /// A whole message, its fragments joined.
    Message {
        binary: bool,
        payload: &'a [u8],
    },
    Ping(&'a [u8]),
    Pong,
    /// `code` is `None` when the close frame carried none (1005 in RFC terms).
    Close {
        code: Option<u16>,
    },
}

/// Why the server's bytes cannot be read on: the client closes with `code`.
#[derive(Debug, PartialEq, Eq)]
pub struct FrameError {
    pub code: u16,
    pub message: String,
}

impl FrameError {
    fn protocol(message: impl Into<String>) -> FrameError {
        FrameError {
            code: close_code::PROTOCOL_ERROR,
            message: message.into(),
        }
    }
}

/// Reads the server's frames; keeps the fragments of a message in progress.
pub struct FrameReader {
    /// The largest message (all its fragments) the server may send: a
    /// hostile server cannot make the client hold more.
    max_message: usize,
    /// The opcode of the fragmented message in progress, if any.
    fragmented: Option<Opcode>,
    fragments: Vec<u8>,
}

impl FrameReader {
    pub fn new(max_message: usize) -> FrameReader {
        FrameReader {
            max_message,
            fragmented: None,
            fragments: Vec::new(),
        }
    }

    /// Reads the next frame at the start of `data`. `Ok(None)`: a frame is
    /// not complete in `data` yet. `Ok(Some((used, event)))`: `used` bytes
    /// were one frame; `event` is `None` for a fragment that completes no
    /// message.
    pub fn read<'a>(
        &'a mut self,
        data: &'a [u8],
    ) -> Result<Option<(usize, Option<Incoming<'a>>)>, FrameError> {
        let Some(header) = Header::parse(data)? else {
            return Ok(None);
        };
        let Some(opcode) = Opcode::of(header.opcode) else {
            return Err(FrameError::protocol(format!(
                "the server sent a frame with the reserved opcode {:#x}",
                header.opcode
            )));
        };
        if opcode.is_control() && (!header.fin || header.len > 125) {
            return Err(FrameError::protocol(
                "the server sent a fragmented or oversized control frame",
            ));
        }
        let held = if opcode == Opcode::Continuation {
            self.fragments.len()
        } else {
            0
        };
        if !opcode.is_control() && header.len.saturating_add(held as u64) > self.max_message as u64
        {
            return Err(FrameError {
                code: close_code::MESSAGE_TOO_BIG,
                message: format!(
                    "the server sent a message larger than {} bytes",
                    self.max_message
                ),
            });
        }
        let end = header.size + header.len as usize;
        if data.len() < end {
            return Ok(None);
        }
        let payload = &data[header.size..end];
        let event = match opcode {
            Opcode::Ping => Some(Incoming::Ping(payload)),
            Opcode::Pong => Some(Incoming::Pong),
            Opcode::Close => Some(Incoming::Close {
                code: close_code_of(payload)?,
            }),
            Opcode::Text | Opcode::Binary => {
                if self.fragmented.is_some() {
                    return Err(FrameError::protocol(
                        "the server started a message before finishing the last one",
                    ));
                }
                if header.fin {
                    Some(message(opcode, payload)?)
                } else {
                    self.fragmented = Some(opcode);
                    self.fragments.clear();
                    self.fragments.extend_from_slice(payload);
                    None
                }
            }
            Opcode::Continuation => {
                let Some(first) = self.fragmented else {
                    return Err(FrameError::protocol(
                        "the server sent a continuation frame outside a message",
                    ));
                };
                self.fragments.extend_from_slice(payload);
                if header.fin {
                    self.fragmented = None;
                    Some(message(first, &self.fragments)?)
                } else {
                    None
                }
            }
        };
        Ok(Some((end, event)))
    }
}

fn message(opcode: Opcode, payload: &[u8]) -> Result<Incoming<'_>, FrameError> {
    let binary = opcode == Opcode::Binary;
    if !binary && std::str::from_utf8(payload).is_err() {
        return Err(FrameError {
            code: close_code::INVALID_PAYLOAD,
            message: "the server sent a text message that is not UTF-8".into(),
        });
    }
    Ok(Incoming::Message { binary, payload })
}

fn close_code_of(payload: &[u8]) -> Result<Option<u16>, FrameError> {
    match payload {
        [] => Ok(None),
        [_] => Err(FrameError::protocol(
            "the server sent a close frame with a one-byte payload",
        )),
        [high, low, reason @ ..] => {
            if std::str::from_utf8(reason).is_err() {
                return Err(FrameError {
                    code: close_code::INVALID_PAYLOAD,
                    message: "the server's close reason is not UTF-8".into(),
                });
            }
            Ok(Some(u16::from_be_bytes([*high, *low])))
        }
    }
}

/// A frame's header as the server sent it.
struct Header {
    fin: bool,
    opcode: u8,
    len: u64,
    /// Bytes of the header itself.
    size: usize,
}

impl Header {
    fn parse(data: &[u8]) -> Result<Option<Header>, FrameError> {
        let [first, second, ..] = *data else {
            return Ok(None);
        };
        if first & 0x70 != 0 {
            // No extension was negotiated, so no reserved bit may be set.
            return Err(FrameError::protocol(
                "the server set a reserved bit though no extension was negotiated",
            ));
        }
        if second & 0x80 != 0 {
            return Err(FrameError::protocol("the server sent a masked frame"));
        }
        let (len, size) = match second & 0x7F {
            126 => match data.get(2..4) {
                Some(b) => (u64::from(u16::from_be_bytes([b[0], b[1]])), 4),
                None => return Ok(None),
            },
            127 => match data.get(2..10) {
                Some(b) => {
                    let len = u64::from_be_bytes(b.try_into().expect("eight bytes"));
                    if len >> 63 != 0 {
                        return Err(FrameError::protocol(
                            "the server sent a frame length with the high bit set",
                        ));
                    }
                    (len, 10)
                }
                None => return Ok(None),
            },
            short => (u64::from(short), 2),
        };
        Ok(Some(Header {
            fin: first & 0x80 != 0,
            opcode: first & 0x0F,
            len,
            size,
        }))
    }
}

#[cfg(test)]
mod tests;
