//! Request header block encoding.

use super::static_table::{self, Match};
use super::{huffman, integer};

/// Encodes one request header block, once per run (not hot):
/// pseudo-headers first (:method, :scheme, :authority, :path), then
/// `headers` (lowercase names; the caller has already removed
/// connection-specific ones).
///
/// Uses the static table: fully indexed where name and value match (e.g.
/// `:method GET` = 0x82, `:path /` = 0x84, `:scheme https` = 0x87),
/// otherwise "literal without indexing" with an indexed name when the
/// static table has the name, else a literal name. Never uses the dynamic
/// table, so every request's block is identical and independent of
/// connection state. Strings are Huffman-coded when that is shorter.
pub fn encode_request(
    method: &str,
    scheme: &str,
    authority: &str,
    path: &str,
    headers: &[(String, String)],
    dst: &mut Vec<u8>,
) {
    let pseudo = [
        (":method", method),
        (":scheme", scheme),
        (":authority", authority),
        (":path", path),
    ];
    block(&pseudo, headers, dst);
}

/// Encodes an extended CONNECT's header block (RFC 8441 section 4):
/// `:method CONNECT` with `:protocol` (e.g. `websocket`), then the other
/// pseudo-headers and `headers` as in [`encode_request`].
pub fn encode_extended_connect(
    protocol: &str,
    scheme: &str,
    authority: &str,
    path: &str,
    headers: &[(String, String)],
    dst: &mut Vec<u8>,
) {
    let pseudo = [
        (":method", "CONNECT"),
        (":protocol", protocol),
        (":scheme", scheme),
        (":authority", authority),
        (":path", path),
    ];
    block(&pseudo, headers, dst);
}

/// Pseudo-headers first, as HTTP/2 requires, then the regular fields.
fn block(pseudo: &[(&str, &str)], headers: &[(String, String)], dst: &mut Vec<u8>) {
    let regular = headers.iter().map(|(n, v)| (n.as_str(), v.as_str()));
    for (name, value) in pseudo.iter().copied().chain(regular) {
        field(name, value, dst);
    }
}

fn field(name: &str, value: &str, dst: &mut Vec<u8>) {
    match static_table::find(name, value) {
        Match::Field(index) => integer::encode(index, 7, 0x80, dst),
        Match::Name(index) => {
            integer::encode(index, 4, 0x00, dst);
            string(value.as_bytes(), dst);
        }
        Match::None => {
            dst.push(0x00);
            string(name.as_bytes(), dst);
            string(value.as_bytes(), dst);
        }
    }
}

fn string(s: &[u8], dst: &mut Vec<u8>) {
    let coded_len = huffman::encoded_len(s);
    if coded_len < s.len() {
        integer::encode(coded_len, 7, 0x80, dst);
        huffman::encode(s, dst);
    } else {
        integer::encode(s.len(), 7, 0x00, dst);
        dst.extend_from_slice(s);
    }
}
