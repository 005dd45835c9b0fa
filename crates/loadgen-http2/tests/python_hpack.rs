//! Request header blocks as a decoder not written from ours reads them:
//! Python's `hpack` (the test venv's, under `h2`), one decoder for the
//! connection's blocks in the order the connection wrote them.

use loadgen_http2::frame::{FrameHeader, CLIENT_PREFACE, HEADER_LEN};
use loadgen_http2::hpack::{RequestBlocks, RequestFields};
use loadgen_http2::{Config, Connection, Deliver};
use std::io::Write;
use std::process::{Command, Stdio};

const DECODE: &str = r#"
import sys, hpack
decoder = hpack.Decoder()
for line in sys.stdin:
    for name, value in decoder.decode(bytes.fromhex(line.strip()), raw=True):
        print(name.decode("latin-1") + "\t" + value.decode("latin-1"))
    print()
"#;

/// The payload of every HEADERS frame in a connection's output.
fn header_blocks(output: &[u8]) -> Vec<Vec<u8>> {
    let mut rest = &output[CLIENT_PREFACE.len()..];
    let mut blocks = Vec::new();
    while let Some(header) = rest.first_chunk::<HEADER_LEN>() {
        let header = FrameHeader::parse(header);
        let end = HEADER_LEN + header.length as usize;
        if header.kind == loadgen_http2::frame::kind::HEADERS {
            blocks.push(rest[HEADER_LEN..end].to_vec());
        }
        rest = &rest[end..];
    }
    blocks
}

fn python_decodes(blocks: &[Vec<u8>]) -> Vec<Vec<(String, String)>> {
    let mut child = Command::new(loadgen_test_peers::python())
        .args(["-c", DECODE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the test venv's python");
    let mut stdin = child.stdin.take().unwrap();
    for block in blocks {
        let hex: String = block.iter().map(|b| format!("{b:02x}")).collect();
        writeln!(stdin, "{hex}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python's hpack refused a block");
    let text = String::from_utf8(out.stdout).unwrap();
    text.split("\n\n")
        .filter(|b| !b.is_empty())
        .map(|block| {
            block
                .lines()
                .map(|line| {
                    let (n, v) = line.split_once('\t').unwrap();
                    (n.to_string(), v.to_string())
                })
                .collect()
        })
        .collect()
}

fn owned(fields: &[(&str, &str)]) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

#[test]
fn pythons_hpack_decodes_first_and_later_blocks_of_many_uris() {
    let headers = owned(&[
        ("user-agent", "loadgen/0.1.0"),
        ("accept-encoding", "br;q=1, gzip;q=0.8"),
        ("authorization", "Bearer secret"),
        ("x-custom", "Value With Spaces"),
    ]);
    let paths = ["/", "/static/app.js", "/index.html", "/img/logo.png?v=3"];
    let requests: Vec<RequestFields<'_>> = paths
        .iter()
        .map(|path| RequestFields {
            method: "GET",
            scheme: "https",
            authority: "localhost:8443",
            path,
            headers: &headers,
        })
        .collect();
    let blocks = RequestBlocks::encode(&requests);
    assert!(blocks.table_size() > 0);
    let order = [2, 0, 1, 3, 3, 2, 0, 1, 0];
    let mut connection = Connection::new(Config::default());
    for &i in &order {
        connection.start_request_with(blocks.get(i), None, i, Deliver::default());
    }
    let sent = header_blocks(connection.output());
    assert_eq!(sent.len(), order.len());
    // The later blocks are the short ones.
    assert!(
        sent[1].len() * 2 < sent[0].len(),
        "{} {}",
        sent[1].len(),
        sent[0].len()
    );
    let decoded = python_decodes(&sent);
    for (&i, fields) in order.iter().zip(&decoded) {
        let mut expected = owned(&[
            (":method", "GET"),
            (":scheme", "https"),
            (":authority", "localhost:8443"),
            (":path", paths[i]),
        ]);
        expected.extend(headers.iter().cloned());
        assert_eq!(fields, &expected, "request {i}");
    }
    assert_eq!(decoded.len(), order.len());
}
