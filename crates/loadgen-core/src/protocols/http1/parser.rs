//! HTTP/1.1 response parser with no I/O: feed it bytes, it reports what it
//! found and how many bytes it consumed. Bytes it did not consume (a partial
//! head or chunk-size line) must be offered again with more data appended.

mod head_memo;

use head_memo::HeadFacts;

const FEW_HEADERS: usize = 16;
const MAX_HEADERS: usize = 128;
const MAX_HEAD_BYTES: usize = 64 * 1024;
const MAX_LINE_BYTES: usize = 4 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The final response head. `header_bytes` counts header names and
    /// values, as h2load does.
    Head { status: u16, header_bytes: usize },
    /// Body bytes after transfer decoding.
    Data(usize),
    /// The response ended; `close` means the server will close the connection after it.
    Complete { close: bool },
}

/// What [`ResponseParser::parse_detailed`] reports: the events, and the
/// header fields and body bytes a request may want besides.
pub enum Parsed<'a> {
    Event(Event),
    /// The final response's status and header fields, just before its `Head` event.
    Fields {
        status: u16,
        fields: &'a [httparse::Header<'a>],
    },
    /// Body bytes after transfer decoding, just before their `Data` event.
    Body(&'a [u8]),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Head,
    Length { remaining: u64 },
    ChunkSize,
    ChunkData { remaining: u64 },
    ChunkDataEnd,
    Trailers,
    UntilClose,
}

enum HeadOutcome {
    Partial,
    Interim(usize),
    WithBody(usize),
    Bodiless(usize),
}

/// A 1xx response other than 101 comes before the final one and is skipped.
fn is_interim(status: u16) -> bool {
    (100..200).contains(&status) && status != 101
}

#[derive(Debug)]
pub struct ResponseParser {
    state: State,
    head_request: bool,
    close: bool,
}

impl ResponseParser {
    /// `head_request`: responses answer HEAD requests and so carry no body.
    pub fn new(head_request: bool) -> Self {
        ResponseParser {
            state: State::Head,
            head_request,
            close: false,
        }
    }

    /// True between responses: nothing of a response has been consumed.
    pub fn is_idle(&self) -> bool {
        self.state == State::Head
    }

    /// Whether the next response answers a HEAD request; set between
    /// responses, when requests of several methods share a connection.
    pub fn expect_head_response(&mut self, head_request: bool) {
        self.head_request = head_request;
    }

    /// Consumes as much of `buf` as it can, reporting events in order.
    /// Stops after each `Complete` so the caller can act before the next response.
    pub fn parse(
        &mut self,
        buf: &[u8],
        on_event: &mut impl FnMut(Event),
    ) -> Result<usize, ParseError> {
        self.run::<false>(buf, &mut |parsed| {
            if let Parsed::Event(event) = parsed {
                on_event(event)
            }
        })
    }

    /// [`ResponseParser::parse`], also showing header fields and body bytes.
    pub fn parse_detailed(
        &mut self,
        buf: &[u8],
        on: &mut impl FnMut(Parsed<'_>),
    ) -> Result<usize, ParseError> {
        self.run::<true>(buf, on)
    }

    /// Both: `FIELDS` says whether the head's fields are handed over, so
    /// that [`ResponseParser::parse`] pays nothing for them.
    fn run<const FIELDS: bool>(
        &mut self,
        buf: &[u8],
        on: &mut impl FnMut(Parsed<'_>),
    ) -> Result<usize, ParseError> {
        let mut pos = 0;
        loop {
            let rest = &buf[pos..];
            match self.state {
                State::Head => match self.parse_head::<FIELDS>(rest, on)? {
                    HeadOutcome::Partial => return Ok(pos),
                    HeadOutcome::Interim(used) => pos += used,
                    HeadOutcome::WithBody(used) => pos += used,
                    HeadOutcome::Bodiless(used) => return Ok(pos + used + self.complete(on)),
                },
                State::Length { remaining } => {
                    if rest.is_empty() {
                        return Ok(pos);
                    }
                    let take = remaining.min(rest.len() as u64);
                    on(Parsed::Body(&rest[..take as usize]));
                    on(Parsed::Event(Event::Data(take as usize)));
                    pos += take as usize;
                    if take == remaining {
                        return Ok(pos + self.complete(on));
                    }
                    self.state = State::Length {
                        remaining: remaining - take,
                    };
                }
                State::ChunkSize => {
                    let Some((line, used)) = take_line(rest)? else {
                        return Ok(pos);
                    };
                    pos += used;
                    let size = parse_chunk_size(line)?;
                    self.state = if size == 0 {
                        State::Trailers
                    } else {
                        State::ChunkData { remaining: size }
                    };
                }
                State::ChunkData { remaining } => {
                    if rest.is_empty() {
                        return Ok(pos);
                    }
                    let take = remaining.min(rest.len() as u64);
                    on(Parsed::Body(&rest[..take as usize]));
                    on(Parsed::Event(Event::Data(take as usize)));
                    pos += take as usize;
                    self.state = if take == remaining {
                        State::ChunkDataEnd
                    } else {
                        State::ChunkData {
                            remaining: remaining - take,
                        }
                    };
                }
                State::ChunkDataEnd => {
                    let Some((line, used)) = take_line(rest)? else {
                        return Ok(pos);
                    };
                    if !line.is_empty() {
                        return Err(ParseError("chunk data not followed by CRLF".into()));
                    }
                    pos += used;
                    self.state = State::ChunkSize;
                }
                State::Trailers => {
                    let Some((line, used)) = take_line(rest)? else {
                        return Ok(pos);
                    };
                    pos += used;
                    if line.is_empty() {
                        return Ok(pos + self.complete(on));
                    }
                }
                State::UntilClose => {
                    if !rest.is_empty() {
                        on(Parsed::Body(rest));
                        on(Parsed::Event(Event::Data(rest.len())));
                    }
                    return Ok(buf.len());
                }
            }
        }
    }

    /// The peer closed the connection. A close-delimited body completes;
    /// anything else in progress is an error.
    pub fn finish(&mut self, on_event: &mut impl FnMut(Event)) -> Result<(), ParseError> {
        match self.state {
            State::Head => Ok(()),
            State::UntilClose => {
                self.complete(&mut |parsed| {
                    if let Parsed::Event(event) = parsed {
                        on_event(event)
                    }
                });
                Ok(())
            }
            _ => Err(ParseError(
                "connection closed in the middle of a response".into(),
            )),
        }
    }

    fn parse_head<const FIELDS: bool>(
        &mut self,
        buf: &[u8],
        on: &mut impl FnMut(Parsed<'_>),
    ) -> Result<HeadOutcome, ParseError> {
        if !FIELDS {
            if let Some(facts) = head_memo::recall(buf) {
                return Ok(self.follow(facts, on));
            }
        }
        // Zeroing the header slots costs more than parsing a small response: try a
        // few first, and only a response with many headers pays for the full set.
        let mut few = [httparse::EMPTY_HEADER; FEW_HEADERS];
        let (mut many, mut folded);
        let mut response = httparse::Response::new(&mut few);
        let mut parsed = response.parse(buf);
        if let Err(httparse::Error::TooManyHeaders) = parsed {
            many = vec![httparse::EMPTY_HEADER; MAX_HEADERS];
            response = httparse::Response::new(&mut many);
            parsed = response.parse(buf);
        }
        // RFC 9112 section 5.2: a user agent accepts obs-fold in a response,
        // each fold read as spaces. httparse refuses a fold unless asked,
        // and asked it checks the byte after every line end (about 50
        // instructions a response): so only a head refused this way is
        // parsed again, accepting folds. The values read below
        // (Content-Length, Transfer-Encoding, Connection) are trimmed and
        // split on commas, where CR and LF are whitespace like the spaces
        // they stand for.
        if let Err(httparse::Error::HeaderName) = parsed {
            folded = vec![httparse::EMPTY_HEADER; MAX_HEADERS];
            response = httparse::Response::new(&mut folded);
            parsed = httparse::ParserConfig::default()
                .allow_obsolete_multiline_headers_in_responses(true)
                .parse_response(&mut response, buf);
        }
        // The limit holds for the head, not for what one read brought: a
        // head refused when it trickles in is refused when it comes whole.
        let used = match parsed {
            Ok(httparse::Status::Complete(used)) if used > MAX_HEAD_BYTES => {
                return Err(head_too_large())
            }
            Ok(httparse::Status::Complete(used)) => used,
            Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD_BYTES => {
                return Err(head_too_large())
            }
            Ok(httparse::Status::Partial) => return Ok(HeadOutcome::Partial),
            Err(e) => return Err(ParseError(format!("malformed response head: {e}"))),
        };
        let status = response.code.unwrap_or(0);
        let mut facts = HeadFacts {
            used,
            status,
            header_bytes: 0,
            content_length: None,
            chunked: false,
            close: response.version == Some(0),
        };
        // An interim head is skipped whole: its fields frame nothing.
        if !is_interim(status) {
            read_framing(response.headers, response.version, &mut facts)?;
            if FIELDS {
                deliver_fields(status, response.headers, on);
            }
        }
        head_memo::remember(&buf[..used], facts);
        Ok(self.follow(facts, on))
    }

    /// Reports a parsed head and readies the parser for what follows it.
    fn follow(&mut self, facts: HeadFacts, on: &mut impl FnMut(Parsed<'_>)) -> HeadOutcome {
        let HeadFacts { used, status, .. } = facts;
        if is_interim(status) {
            return HeadOutcome::Interim(used);
        }
        on(Parsed::Event(Event::Head {
            status,
            header_bytes: facts.header_bytes,
        }));
        self.close = facts.close;
        if self.head_request || status == 204 || status == 304 || status == 101 {
            return HeadOutcome::Bodiless(used);
        }
        self.state = if facts.chunked {
            State::ChunkSize
        } else {
            match facts.content_length {
                Some(0) => return HeadOutcome::Bodiless(used),
                Some(n) => State::Length { remaining: n },
                None => {
                    self.close = true;
                    State::UntilClose
                }
            }
        };
        HeadOutcome::WithBody(used)
    }

    fn complete(&mut self, on: &mut impl FnMut(Parsed<'_>)) -> usize {
        on(Parsed::Event(Event::Complete { close: self.close }));
        self.state = State::Head;
        self.close = false;
        0
    }
}

/// What a final head's fields say about framing: header bytes, length,
/// chunked, close.
fn read_framing(
    headers: &[httparse::Header<'_>],
    version: Option<u8>,
    facts: &mut HeadFacts,
) -> Result<(), ParseError> {
    for header in headers {
        facts.header_bytes += header.name.len() + header.value.len();
        if header.name.eq_ignore_ascii_case("content-length") {
            let value = std::str::from_utf8(header.value)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok());
            match (value, facts.content_length) {
                (None, _) => return Err(ParseError("invalid Content-Length".into())),
                (Some(v), Some(previous)) if v != previous => {
                    return Err(ParseError("conflicting Content-Length headers".into()))
                }
                (Some(v), _) => facts.content_length = Some(v),
            }
        } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
            // Chunked framing applies when chunked is the last coding.
            facts.chunked = header
                .value
                .rsplit(|&b| b == b',')
                .next()
                .is_some_and(|last| last.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        } else if header.name.eq_ignore_ascii_case("connection") {
            for token in header.value.split(|&b| b == b',') {
                let token = token.trim_ascii();
                if token.eq_ignore_ascii_case(b"close") {
                    facts.close = true;
                } else if token.eq_ignore_ascii_case(b"keep-alive") && version == Some(0) {
                    facts.close = false;
                }
            }
        }
    }
    Ok(())
}

/// Hands the head's fields over, each obs-fold in a value replaced by
/// spaces (RFC 9112 section 5.2): one space for each CR and LF, so that
/// values keep their length and still add up to the head's `header_bytes`.
fn deliver_fields(status: u16, fields: &[httparse::Header<'_>], on: &mut impl FnMut(Parsed<'_>)) {
    let folded = |value: &[u8]| value.iter().any(|&b| b == b'\r' || b == b'\n');
    if !fields.iter().any(|h| folded(h.value)) {
        on(Parsed::Fields { status, fields });
        return;
    }
    let unfolded: Vec<Vec<u8>> = fields
        .iter()
        .map(|h| {
            h.value
                .iter()
                .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b })
                .collect()
        })
        .collect();
    let fields: Vec<httparse::Header<'_>> = fields
        .iter()
        .zip(&unfolded)
        .map(|(h, value)| httparse::Header {
            name: h.name,
            value,
        })
        .collect();
    on(Parsed::Fields {
        status,
        fields: &fields,
    });
}

fn head_too_large() -> ParseError {
    ParseError(format!("response head larger than {MAX_HEAD_BYTES} bytes"))
}

/// A CRLF-terminated line (a bare LF is accepted) without its terminator,
/// and the bytes it used; `None` until the whole line is there.
fn take_line(buf: &[u8]) -> Result<Option<(&[u8], usize)>, ParseError> {
    // The limit holds for the line, not for what one read brought: only
    // the first MAX_LINE_BYTES + 1 bytes may hold its LF, whether the
    // line comes whole or a byte at a time.
    let longest = &buf[..buf.len().min(MAX_LINE_BYTES + 1)];
    match longest.iter().position(|&b| b == b'\n') {
        Some(end) => {
            let line = &buf[..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            Ok(Some((line, end + 1)))
        }
        None if buf.len() > MAX_LINE_BYTES => Err(ParseError("chunk line too long".into())),
        None => Ok(None),
    }
}

fn parse_chunk_size(line: &[u8]) -> Result<u64, ParseError> {
    let digits = line
        .split(|&b| b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    if digits.is_empty() || digits.len() > 15 {
        return Err(ParseError("invalid chunk size".into()));
    }
    let mut size = 0u64;
    for &b in digits {
        let digit = (b as char)
            .to_digit(16)
            .ok_or_else(|| ParseError("invalid chunk size".into()))?;
        size = size * 16 + u64::from(digit);
    }
    Ok(size)
}

#[cfg(test)]
mod tests;
