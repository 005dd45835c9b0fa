//! The opening handshake (RFC 6455 section 4): the client's HTTP/1.1
//! upgrade request and the check of the server's 101 answer, without I/O.

use base64::Engine;

/// The GUID RFC 6455 appends to the key before hashing it.
const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// The most a server's answer head may take: a server that never ends its
/// head cannot make the client hold more.
pub const MAX_HEAD: usize = 64 * 1024;

/// `Sec-WebSocket-Key`: 16 random bytes in base64.
pub fn new_key(random: [u8; 16]) -> String {
    base64::engine::general_purpose::STANDARD.encode(random)
}

/// What the server must answer in `Sec-WebSocket-Accept` for `key`.
pub fn accept_for(key: &str) -> String {
    let mut context = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
    context.update(key.as_bytes());
    context.update(GUID.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(context.finish())
}

/// The upgrade request for `path` on `authority` with the user's extra
/// header fields (`-H`), offering no extension and no subprotocol unless
/// the user adds them.
pub fn request(path: &str, authority: &str, headers: &[(String, String)], key: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(b"GET ");
    out.extend_from_slice(path.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\nHost: ");
    out.extend_from_slice(authority.as_bytes());
    out.extend_from_slice(
        b"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ",
    );
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\r\n");
    for (name, value) in headers {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// Why the server did not open a WebSocket.
#[derive(Debug, PartialEq, Eq)]
pub struct Refused(pub String);

/// Reads the server's answer at the start of `data`. `Ok(None)`: the head
/// is not complete yet; `Ok(Some(n))`: the first `n` bytes were a valid
/// 101 answer and frames follow.
pub fn check_answer(data: &[u8], expected_accept: &str) -> Result<Option<usize>, Refused> {
    let mut fields = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut fields);
    let used = match response.parse(data) {
        Ok(httparse::Status::Complete(used)) => used,
        Ok(httparse::Status::Partial) if data.len() > MAX_HEAD => {
            return Err(Refused(format!(
                "the server's answer to the upgrade exceeds {MAX_HEAD} bytes"
            )))
        }
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => {
            return Err(Refused(format!(
                "the server's answer to the upgrade is not HTTP/1.1: {e}"
            )))
        }
    };
    let status = response.code.unwrap_or_default();
    if status != 101 {
        return Err(Refused(format!(
            "the server answered the WebSocket upgrade with {status} {} instead of 101",
            response.reason.unwrap_or_default()
        )));
    }
    let field = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
    };
    let has_token = |value: Option<String>, token: &str| {
        value.is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    };
    if !has_token(field("upgrade"), "websocket") {
        return Err(Refused(
            "the server's 101 answer lacks 'Upgrade: websocket'".into(),
        ));
    }
    if !has_token(field("connection"), "upgrade") {
        return Err(Refused(
            "the server's 101 answer lacks 'Connection: Upgrade'".into(),
        ));
    }
    match field("sec-websocket-accept") {
        Some(accept) if accept == expected_accept => {}
        Some(accept) => {
            return Err(Refused(format!(
                "the server's Sec-WebSocket-Accept '{accept}' does not match the key sent (expected '{expected_accept}')"
            )))
        }
        None => {
            return Err(Refused(
                "the server's 101 answer lacks Sec-WebSocket-Accept".into(),
            ))
        }
    }
    if let Some(extensions) = field("sec-websocket-extensions") {
        return Err(Refused(format!(
            "the server accepted extensions that were not offered: {extensions}"
        )));
    }
    Ok(Some(used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accept_value_matches_the_rfc_example() {
        // RFC 6455 section 1.3.
        assert_eq!(
            accept_for("dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
        assert_eq!(new_key([0; 16]).len(), 24);
    }

    #[test]
    fn the_request_asks_for_an_upgrade() {
        let bytes = request(
            "/ws?x=1",
            "h:80",
            &[("origin".into(), "http://h".into())],
            "KEY",
        );
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with("GET /ws?x=1 HTTP/1.1\r\nHost: h:80\r\n"));
        assert!(text.contains("Upgrade: websocket\r\nConnection: Upgrade\r\n"));
        assert!(text.contains("Sec-WebSocket-Key: KEY\r\n"));
        assert!(text.ends_with("origin: http://h\r\n\r\n"));
    }

    #[test]
    fn a_valid_answer_is_accepted_however_it_arrives() {
        let key = "dGhlIHNhbXBsZSBub25jZQ==";
        let accept = accept_for(key);
        let answer = format!(
            "HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"
        );
        // A frame follows the head in the same read.
        let mut bytes = answer.into_bytes();
        bytes.extend_from_slice(&[0x81, 0x00]);
        let bytes = &bytes[..];
        for cut in 0..bytes.len() - 2 {
            assert_eq!(check_answer(&bytes[..cut], &accept), Ok(None), "{cut}");
        }
        assert_eq!(check_answer(bytes, &accept), Ok(Some(bytes.len() - 2)));
    }

    #[test]
    fn refusals_say_why() {
        let accept = accept_for("k");
        let cases = [
            ("HTTP/1.1 404 Not Found\r\n\r\n".to_string(), "404"),
            (
                format!("HTTP/1.1 101 OK\r\nConnection: upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n"),
                "Upgrade: websocket",
            ),
            (
                "HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: upgrade\r\nSec-WebSocket-Accept: nope\r\n\r\n".to_string(),
                "does not match",
            ),
            (
                format!("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: upgrade\r\nSec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n"),
                "extensions",
            ),
        ];
        for (answer, why) in cases {
            let Refused(message) = check_answer(answer.as_bytes(), &accept).unwrap_err();
            assert!(message.contains(why), "{message}");
        }
        let endless = vec![b'a'; MAX_HEAD + 1];
        let mut head = b"HTTP/1.1 101 OK\r\nx: ".to_vec();
        head.extend(endless);
        assert!(check_answer(&head, &accept).is_err());
    }
}
