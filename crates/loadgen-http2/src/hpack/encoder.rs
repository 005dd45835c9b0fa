//! Request header block encoding, field by field.

use super::static_table::{self, Match};
use super::{huffman, integer};

/// Encodes one request header block that leaves the dynamic table alone,
/// so that it is valid on any connection at any time: pseudo-headers first
/// (:method, :scheme, :authority, :path), then `headers` (lowercase names;
/// the caller has already removed connection-specific ones).
///
/// Uses the static table: fully indexed where name and value match (e.g.
/// `:method GET` = 0x82, `:path /` = 0x84, `:scheme https` = 0x87),
/// otherwise a literal with an indexed name when the static table has the
/// name, else a literal name; "never indexed" for the fields nghttp2 never
/// indexes ([`Indexing::Never`]). Strings are Huffman-coded when that is
/// shorter. [`super::RequestBlocks`] makes the blocks that use the dynamic
/// table.
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
    for (name, value) in fields(pseudo, headers) {
        field(name, value, dst);
    }
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
    for (name, value) in fields(pseudo, headers) {
        field(name, value, dst);
    }
}

/// Pseudo-headers first, as HTTP/2 requires, then the regular fields.
pub(super) fn fields<'a, const N: usize>(
    pseudo: [(&'a str, &'a str); N],
    headers: &'a [(String, String)],
) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
    let regular = headers.iter().map(|(n, v)| (n.as_str(), v.as_str()));
    pseudo.into_iter().chain(regular)
}

/// How nghttp2's deflater treats a field (`nghttp2_hd.c`), which is what
/// servers see from h2load and browsers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Indexing {
    /// The static table holds name and value: one byte, nothing to index.
    Static(usize),
    /// Worth a dynamic table entry: the next request says it in a byte.
    Incremental,
    /// Different in every request, or too large to keep.
    Without,
    /// Secrets (`authorization`, short cookies): intermediaries must not
    /// index them either.
    Never,
}

/// RFC 7541 section 4.1: an entry costs its name, its value and 32 bytes.
pub(super) fn entry_size(name: &str, value: &str) -> usize {
    name.len() + value.len() + 32
}

/// The dynamic table size every HTTP/2 connection starts with, and the
/// most the encoder ever uses (nghttp2's default too).
pub(super) const TABLE_SIZE: usize = 4096;

impl Indexing {
    pub(super) fn of(name: &str, value: &str) -> Indexing {
        if let Match::Field(index) = static_table::find(name, value) {
            return Indexing::Static(index);
        }
        match name {
            "authorization" => Indexing::Never,
            "cookie" if value.len() < 20 => Indexing::Never,
            ":path" | "age" | "content-length" | "etag" | "if-modified-since" | "if-none-match"
            | "location" | "set-cookie" => Indexing::Without,
            // nghttp2 keeps no entry larger than 3/4 of the table.
            _ if entry_size(name, value) > TABLE_SIZE * 3 / 4 => Indexing::Without,
            _ => Indexing::Incremental,
        }
    }
}

/// One field as it is in a block that leaves the dynamic table alone.
pub(super) fn field(name: &str, value: &str, dst: &mut Vec<u8>) {
    match Indexing::of(name, value) {
        Indexing::Static(index) => integer::encode(index, 7, 0x80, dst),
        Indexing::Never => literal(name, value, 4, 0x10, dst),
        Indexing::Incremental | Indexing::Without => literal(name, value, 4, 0x00, dst),
    }
}

/// A field that adds itself to the dynamic table (RFC 7541 section 6.2.1).
pub(super) fn inserted_field(name: &str, value: &str, dst: &mut Vec<u8>) {
    literal(name, value, 6, 0x40, dst);
}

/// The field at `index` of either table (RFC 7541 section 6.1).
pub(super) fn indexed_field(index: usize, dst: &mut Vec<u8>) {
    integer::encode(index, 7, 0x80, dst);
}

/// A literal field representation whose first byte carries `flags` above
/// a `prefix_bits`-bit name index: the static table's when it has the
/// name, else 0 and the name as a string.
fn literal(name: &str, value: &str, prefix_bits: u32, flags: u8, dst: &mut Vec<u8>) {
    match static_table::find(name, value) {
        Match::Field(index) | Match::Name(index) => integer::encode(index, prefix_bits, flags, dst),
        Match::None => {
            dst.push(flags);
            string(name.as_bytes(), dst);
        }
    }
    string(value.as_bytes(), dst);
}

/// A string literal, Huffman-coded when that is shorter, as nghttp2 does.
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

/// A dynamic table size update (RFC 7541 section 6.3), which must open
/// the first header block after the server lowered the table's limit.
pub(crate) fn size_update(size: usize, dst: &mut Vec<u8>) {
    integer::encode(size, 5, 0x20, dst);
}
