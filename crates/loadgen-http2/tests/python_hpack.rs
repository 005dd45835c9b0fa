//! Request header blocks as a decoder not written from ours reads them:
//! Python's `hpack` (the test venv's, under `h2`), one decoder for the
//! connection's blocks in the order the connection wrote them. A server
//! applies a lower SETTINGS_HEADER_TABLE_SIZE once it reads our
//! acknowledgement, so the decoder gets the lower limit there, and refuses
//! any block after it that does not announce it first.

use loadgen_http2::frame::{self, kind, setting, FrameHeader, CLIENT_PREFACE, HEADER_LEN};
use loadgen_http2::hpack::{RequestBlocks, RequestFields};
use loadgen_http2::{Config, Connection, Deliver};
use std::io::Write;
use std::process::{Command, Stdio};

/// Reads lines of `limit N` (the server's new table limit) and hex header
/// blocks; prints each block's fields, then `size N`: what its table holds.
const DECODE: &str = r#"
import sys, hpack
decoder = hpack.Decoder()
for line in sys.stdin:
    word, arg = line.split()
    if word == "limit":
        decoder.max_allowed_table_size = int(arg)
        continue
    for name, value in decoder.decode(bytes.fromhex(arg), raw=True):
        print(name.decode("latin-1") + "\t" + value.decode("latin-1"))
    # RFC 7541 section 4.1, from the entries themselves.
    size = sum(32 + len(n) + len(v) for n, v in decoder.header_table.dynamic_entries)
    print("size\t" + str(size))
    print()
"#;

/// What the server reads of a connection's output, in order.
#[derive(Debug)]
enum Read {
    /// A HEADERS frame's payload.
    Block(Vec<u8>),
    /// Our acknowledgement of the server's SETTINGS.
    SettingsAck,
}

fn read_by_server(output: &[u8]) -> Vec<Read> {
    let mut rest = &output[CLIENT_PREFACE.len()..];
    let mut read = Vec::new();
    while let Some(header) = rest.first_chunk::<HEADER_LEN>() {
        let header = FrameHeader::parse(header);
        let end = HEADER_LEN + header.length as usize;
        match header.kind {
            kind::HEADERS => read.push(Read::Block(rest[HEADER_LEN..end].to_vec())),
            kind::SETTINGS if header.has(frame::flag::ACK) => read.push(Read::SettingsAck),
            _ => {}
        }
        rest = &rest[end..];
    }
    read
}

/// A decoded block: its fields, and the size of the decoder's table after it.
struct Decoded {
    fields: Vec<(String, String)>,
    table_size: usize,
}

/// Decodes every block of `read`, the server's limit lowered to
/// `limit` at the first acknowledgement.
fn python_decodes(read: &[Read], limit: Option<u32>) -> Vec<Decoded> {
    let mut child = Command::new(loadgen_test_peers::python())
        .args(["-c", DECODE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the test venv's python");
    let mut stdin = child.stdin.take().unwrap();
    for item in read {
        match (item, limit) {
            (Read::Block(block), _) => {
                let hex: String = block.iter().map(|b| format!("{b:02x}")).collect();
                writeln!(stdin, "block {hex}").unwrap();
            }
            (Read::SettingsAck, Some(limit)) => writeln!(stdin, "limit {limit}").unwrap(),
            (Read::SettingsAck, None) => {}
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python's hpack refused a block");
    let text = String::from_utf8(out.stdout).unwrap();
    text.split("\n\n")
        .filter(|b| !b.is_empty())
        .map(|block| {
            let mut fields: Vec<(String, String)> = block
                .lines()
                .map(|line| {
                    let (n, v) = line.split_once('\t').unwrap();
                    (n.to_string(), v.to_string())
                })
                .collect();
            let (_, size) = fields.pop().unwrap();
            Decoded {
                fields,
                table_size: size.parse().unwrap(),
            }
        })
        .collect()
}

/// The server's SETTINGS frame.
fn server_settings(settings: &[(u16, u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    frame::write_settings(&mut out, settings);
    out
}

fn owned(fields: &[(&str, &str)]) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

const PATHS: [&str; 4] = ["/", "/static/app.js", "/index.html", "/img/logo.png?v=3"];

fn headers() -> Vec<(String, String)> {
    owned(&[
        ("user-agent", "loadgen/0.1.0"),
        ("accept-encoding", "br;q=1, gzip;q=0.8"),
        ("authorization", "Bearer secret"),
        ("x-custom", "Value With Spaces"),
    ])
}

fn requests(headers: &[(String, String)]) -> Vec<RequestFields<'_>> {
    PATHS
        .iter()
        .map(|path| RequestFields {
            method: "GET",
            scheme: "https",
            authority: "localhost:8443",
            path,
            headers,
        })
        .collect()
}

fn expected(path: &str, headers: &[(String, String)]) -> Vec<(String, String)> {
    let mut expected = owned(&[
        (":method", "GET"),
        (":scheme", "https"),
        (":authority", "localhost:8443"),
        (":path", path),
    ]);
    expected.extend(headers.iter().cloned());
    expected
}

/// One connection sends `order`'s requests; after the first `lowered_after`
/// of them it reads the server's SETTINGS with `limit`. Python decodes
/// what it wrote; every request's fields must come out as they went in.
fn send_and_decode(order: &[usize], lowered_after: usize, limit: Option<u32>) -> Vec<Decoded> {
    let headers = headers();
    let requests = requests(&headers);
    let blocks = RequestBlocks::encode(&requests);
    assert_eq!(blocks.table_size(), 56 + 55 + 65 + 57);
    let mut connection = Connection::new(Config::default());
    for (n, &i) in order.iter().enumerate() {
        if n == lowered_after {
            let settings: Vec<(u16, u32)> = limit
                .map(|limit| (setting::HEADER_TABLE_SIZE, limit))
                .into_iter()
                .collect();
            connection
                .receive(&server_settings(&settings), &mut |_| {})
                .unwrap();
        }
        connection.start_request_with(blocks.get(i), None, i, Deliver::default());
    }
    let read = read_by_server(connection.output());
    let decoded = python_decodes(&read, limit);
    assert_eq!(decoded.len(), order.len());
    for (&i, block) in order.iter().zip(&decoded) {
        assert_eq!(block.fields, expected(PATHS[i], &headers), "request {i}");
    }
    decoded
}

fn table_sizes(decoded: &[Decoded]) -> Vec<usize> {
    decoded.iter().map(|d| d.table_size).collect()
}

const ORDER: [usize; 9] = [2, 0, 1, 3, 3, 2, 0, 1, 0];

#[test]
fn pythons_hpack_decodes_first_and_later_blocks_of_many_uris() {
    let decoded = send_and_decode(&ORDER, 0, None);
    // The first request inserts the four shared fields; the rest refer to them.
    assert_eq!(table_sizes(&decoded), [233; 9]);
}

#[test]
fn a_limit_that_still_holds_the_entries_is_announced_and_they_stay() {
    let decoded = send_and_decode(&ORDER, 2, Some(233));
    assert_eq!(table_sizes(&decoded), [233; 9]);
}

#[test]
fn a_limit_below_the_entries_evicts_the_oldest_and_the_rest_go_plain() {
    // The size update to 120 evicts :authority, user-agent and
    // accept-encoding (RFC 7541 section 4.3); x-custom's 57 bytes stay.
    let decoded = send_and_decode(&ORDER, 3, Some(120));
    assert_eq!(
        table_sizes(&decoded),
        [233, 233, 233, 57, 57, 57, 57, 57, 57]
    );
}

#[test]
fn a_server_without_a_table_gets_an_update_to_zero_first() {
    let decoded = send_and_decode(&ORDER, 0, Some(0));
    assert_eq!(table_sizes(&decoded), [0; 9]);
}
