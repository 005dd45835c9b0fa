//! Decoder and encoder tests: RFC 7541 Appendix C, error cases, and
//! request blocks decoded back.

use super::*;

/// Hex with optional whitespace; `|` marks where one field representation
/// ends and the next begins.
fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Byte offsets at which a block written as `hex` with `|` separators can
/// be cut and still be a valid block.
fn boundaries(s: &str) -> Vec<usize> {
    let mut at = vec![0];
    let mut len = 0;
    for part in s.split('|') {
        len += hex(part).len();
        at.push(len);
    }
    at
}

struct Step {
    block: &'static str,
    fields: &'static [(&'static str, &'static str)],
    /// Dynamic table afterwards, newest first.
    table: &'static [(&'static str, &'static str)],
    table_size: usize,
}

fn check_sequence(max_table_size: usize, steps: &[Step]) {
    let mut d = Decoder::new(max_table_size);
    for (i, step) in steps.iter().enumerate() {
        let summary = d.decode(&hex(step.block)).unwrap();
        let status = step
            .fields
            .iter()
            .find(|f| f.0 == ":status")
            .map(|f| f.1.parse().unwrap());
        let bytes: usize = step.fields.iter().map(|f| f.0.len() + f.1.len()).sum();
        let content_length = step
            .fields
            .iter()
            .find(|f| f.0 == "content-length")
            .map(|f| f.1.parse().unwrap());
        let expect = BlockSummary {
            status,
            content_length,
            uncompressed_bytes: bytes as u64,
            fields: step.fields.len() as u32,
        };
        assert_eq!(summary, expect, "step {i}");
        let table: Vec<_> = step.table.iter().map(|e| (e.0.len(), e.1.len())).collect();
        assert_eq!(d.table_entries(), table, "step {i}");
        assert_eq!(d.table_size(), step.table_size, "step {i}");
    }
}

/// Cuts each block at every offset, with the table as the earlier blocks
/// left it: a cut between representations is a valid (shorter) block,
/// any other cut is an error.
fn check_truncations(max_table_size: usize, steps: &[Step]) {
    let mut d = Decoder::new(max_table_size);
    for step in steps {
        let block = hex(step.block);
        let ok_at = boundaries(step.block);
        for cut in 0..block.len() {
            let result = d.clone().decode(&block[..cut]);
            assert_eq!(
                result.is_ok(),
                ok_at.contains(&cut),
                "{} cut at {cut}: {result:?}",
                step.block
            );
        }
        d.decode(&block).unwrap();
    }
}

const DATE_21: &str = "Mon, 21 Oct 2013 20:13:21 GMT";
const DATE_22: &str = "Mon, 21 Oct 2013 20:13:22 GMT";
const LOCATION: &str = "https://www.example.com";
const COOKIE: &str = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";

const REQUEST_FIELDS: [&[(&str, &str)]; 3] = [
    &[
        (":method", "GET"),
        (":scheme", "http"),
        (":path", "/"),
        (":authority", "www.example.com"),
    ],
    &[
        (":method", "GET"),
        (":scheme", "http"),
        (":path", "/"),
        (":authority", "www.example.com"),
        ("cache-control", "no-cache"),
    ],
    &[
        (":method", "GET"),
        (":scheme", "https"),
        (":path", "/index.html"),
        (":authority", "www.example.com"),
        ("custom-key", "custom-value"),
    ],
];

const REQUEST_TABLES: [&[(&str, &str)]; 3] = [
    &[(":authority", "www.example.com")],
    &[
        ("cache-control", "no-cache"),
        (":authority", "www.example.com"),
    ],
    &[
        ("custom-key", "custom-value"),
        ("cache-control", "no-cache"),
        (":authority", "www.example.com"),
    ],
];

const RESPONSE_FIELDS: [&[(&str, &str)]; 3] = [
    &[
        (":status", "302"),
        ("cache-control", "private"),
        ("date", DATE_21),
        ("location", LOCATION),
    ],
    &[
        (":status", "307"),
        ("cache-control", "private"),
        ("date", DATE_21),
        ("location", LOCATION),
    ],
    &[
        (":status", "200"),
        ("cache-control", "private"),
        ("date", DATE_22),
        ("location", LOCATION),
        ("content-encoding", "gzip"),
        ("set-cookie", COOKIE),
    ],
];

const RESPONSE_TABLES: [&[(&str, &str)]; 3] = [
    &[
        ("location", LOCATION),
        ("date", DATE_21),
        ("cache-control", "private"),
        (":status", "302"),
    ],
    &[
        (":status", "307"),
        ("location", LOCATION),
        ("date", DATE_21),
        ("cache-control", "private"),
    ],
    &[
        ("set-cookie", COOKIE),
        ("content-encoding", "gzip"),
        ("date", DATE_22),
    ],
];

/// RFC 7541 C.3: requests without Huffman coding.
const C3: [Step; 3] = [
    Step {
        block: "82|86|84|41 0f 7777 772e 6578 616d 706c 652e 636f 6d",
        fields: REQUEST_FIELDS[0],
        table: REQUEST_TABLES[0],
        table_size: 57,
    },
    Step {
        block: "82|86|84|be|58 08 6e6f 2d63 6163 6865",
        fields: REQUEST_FIELDS[1],
        table: REQUEST_TABLES[1],
        table_size: 110,
    },
    Step {
        block: "82|87|85|bf|40 0a 6375 7374 6f6d 2d6b 6579 0c 63 7573 746f 6d2d 7661 6c75 65",
        fields: REQUEST_FIELDS[2],
        table: REQUEST_TABLES[2],
        table_size: 164,
    },
];

/// RFC 7541 C.4: the same requests with Huffman coding.
const C4: [Step; 3] = [
    Step {
        block: "82|86|84|41 8c f1e3 c2e5 f23a 6ba0 ab90 f4ff",
        fields: REQUEST_FIELDS[0],
        table: REQUEST_TABLES[0],
        table_size: 57,
    },
    Step {
        block: "82|86|84|be|58 86 a8eb 1064 9cbf",
        fields: REQUEST_FIELDS[1],
        table: REQUEST_TABLES[1],
        table_size: 110,
    },
    Step {
        block: "82|87|85|bf|40 88 25a8 49e9 5ba9 7d7f 89 25a8 49e9 5bb8 e8b4 bf",
        fields: REQUEST_FIELDS[2],
        table: REQUEST_TABLES[2],
        table_size: 164,
    },
];

/// RFC 7541 C.5: responses without Huffman coding, table size 256.
const C5: [Step; 3] = [
    Step {
        block: "48 03 3330 32|58 07 7072 6976 6174 65|\
                61 1d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 54|\
                6e 17 6874 7470 733a 2f2f 7777 772e 6578 616d 706c 652e 636f 6d",
        fields: RESPONSE_FIELDS[0],
        table: RESPONSE_TABLES[0],
        table_size: 222,
    },
    Step {
        block: "48 03 3330 37|c1|c0|bf",
        fields: RESPONSE_FIELDS[1],
        table: RESPONSE_TABLES[1],
        table_size: 222,
    },
    Step {
        block: "88|c1|\
                61 1d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54|\
                c0|5a 04 677a 6970|\
                77 38 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 \
                4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31",
        fields: RESPONSE_FIELDS[2],
        table: RESPONSE_TABLES[2],
        table_size: 215,
    },
];

/// RFC 7541 C.6: the same responses with Huffman coding.
const C6: [Step; 3] = [
    Step {
        block: "48 82 6402|58 85 aec3 771a 4b|\
                61 96 d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff|\
                6e 91 9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3",
        fields: RESPONSE_FIELDS[0],
        table: RESPONSE_TABLES[0],
        table_size: 222,
    },
    Step {
        block: "48 83 640e ff|c1|c0|bf",
        fields: RESPONSE_FIELDS[1],
        table: RESPONSE_TABLES[1],
        table_size: 222,
    },
    Step {
        block: "88|c1|\
                61 96 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff|\
                c0|5a 83 9bd9 ab|\
                77 ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 \
                291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
        fields: RESPONSE_FIELDS[2],
        table: RESPONSE_TABLES[2],
        table_size: 215,
    },
];

#[test]
fn c2_single_representations() {
    // C.2.1: literal with indexing, new name.
    check_sequence(
        4096,
        &[Step {
            block: "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
            fields: &[("custom-key", "custom-header")],
            table: &[("custom-key", "custom-header")],
            table_size: 55,
        }],
    );
    // C.2.2: literal without indexing, indexed name.
    check_sequence(
        4096,
        &[Step {
            block: "040c 2f73 616d 706c 652f 7061 7468",
            fields: &[(":path", "/sample/path")],
            table: &[],
            table_size: 0,
        }],
    );
    // C.2.3: literal never indexed, new name.
    check_sequence(
        4096,
        &[Step {
            block: "1008 7061 7373 776f 7264 0673 6563 7265 74",
            fields: &[("password", "secret")],
            table: &[],
            table_size: 0,
        }],
    );
    // C.2.4: indexed.
    check_sequence(
        4096,
        &[Step {
            block: "82",
            fields: &[(":method", "GET")],
            table: &[],
            table_size: 0,
        }],
    );
}

#[test]
fn c3_requests_without_huffman() {
    check_sequence(4096, &C3);
}

#[test]
fn c4_requests_with_huffman() {
    check_sequence(4096, &C4);
}

#[test]
fn c5_responses_without_huffman() {
    check_sequence(256, &C5);
}

#[test]
fn c6_responses_with_huffman() {
    check_sequence(256, &C6);
}

#[test]
fn truncated_blocks_are_errors() {
    check_truncations(4096, &C3);
    check_truncations(4096, &C4);
    check_truncations(256, &C5);
    check_truncations(256, &C6);
}

#[test]
fn status_through_dynamic_table() {
    let mut d = Decoder::new(256);
    for step in &C6[..2] {
        d.decode(&hex(step.block)).unwrap();
    }
    // Index 62 is `:status: 307`.
    let s = d.decode(&[0xbe]).unwrap();
    assert_eq!(s.status, Some(307));
    assert_eq!(s.uncompressed_bytes, 10);
    // A new value under the dynamic entry's name.
    let s = d.decode(&[0x7e, 0x03, b'2', b'0', b'4']).unwrap();
    assert_eq!(s.status, Some(204));
    assert_eq!(d.decode(&[0xbe]).unwrap().status, Some(204));
}

#[test]
fn status_with_literal_name() {
    let mut d = Decoder::new(4096);
    let mut block = vec![0x00, 0x07];
    block.extend_from_slice(b":status");
    block.extend_from_slice(&[0x03, b'4', b'0', b'4']);
    assert_eq!(d.decode(&block).unwrap().status, Some(404));
    // Huffman-coded name and value.
    let block = [0x00, 0x85, 0xb8, 0x84, 0x8d, 0x36, 0xa3, 0x82, 0x10, 0x01];
    let s = d.decode(&block).unwrap();
    assert_eq!(s.status, Some(200));
    assert_eq!(s.uncompressed_bytes, 10);
    // A name that only shares the length is not `:status`.
    let mut block = vec![0x00];
    integer::encode(huffman::encoded_len(b"expires"), 7, 0x80, &mut block);
    huffman::encode(b"expires", &mut block);
    block.extend_from_slice(&[0x01, b'0']);
    assert_eq!(
        d.decode(&block).unwrap(),
        BlockSummary {
            status: None,
            content_length: None,
            uncompressed_bytes: 8,
            fields: 1
        }
    );
}

#[test]
fn trailers_have_no_status() {
    let mut d = Decoder::new(4096);
    let mut block = vec![0x00, 0x0b];
    block.extend_from_slice(b"grpc-status");
    block.extend_from_slice(&[0x01, b'0']);
    assert_eq!(
        d.decode(&block).unwrap(),
        BlockSummary {
            status: None,
            content_length: None,
            uncompressed_bytes: 12,
            fields: 1
        }
    );
    assert_eq!(d.decode(&[]).unwrap(), BlockSummary::default());
}

#[test]
fn malformed_status_keeps_table_in_step() {
    let mut d = Decoder::new(4096);
    // `:status: 20` inserted, then `a: b` inserted.
    let block = [0x48, 0x02, b'2', b'0', 0x40, 0x01, b'a', 0x01, b'b'];
    let err = d.decode(&block).unwrap_err();
    assert_eq!(err, BAD_STATUS);
    assert!(err.is_malformed_response());
    assert_eq!(d.table_entries(), [(1, 1), (7, 2)]);
    // The bad entry stays bad when referenced.
    assert_eq!(d.decode(&[0xbf]), Err(BAD_STATUS));
    assert_eq!(d.decode(&[0x08, 0x03, b'2', b'0', b'x']), Err(BAD_STATUS));
    assert_eq!(
        d.decode(&[0x08, 0x04, b'2', b'0', b'0', b'0']),
        Err(BAD_STATUS)
    );

    let err = d.decode(&[0x88, 0x89]).unwrap_err();
    assert_eq!(err, DUPLICATE_STATUS);
    assert!(err.is_malformed_response());
    assert!(!HpackError("other").is_malformed_response());
}

#[test]
fn bad_indexes() {
    let mut d = Decoder::new(4096);
    assert!(d.decode(&[0x80]).is_err());
    assert!(d.decode(&[0xbe]).is_err());
    assert!(d.decode(&[0x7e, 0x01, b'x']).is_err());
    assert!(d.decode(&[0x0f, 0x2f, 0x01, b'x']).is_err());
    assert!(d.decode(&[0xbd]).is_ok());
    // Huge index.
    assert!(d.decode(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]).is_err());
}

fn size_update(size: usize) -> Vec<u8> {
    let mut v = Vec::new();
    integer::encode(size, 5, 0x20, &mut v);
    v
}

#[test]
fn size_update_rules() {
    let mut d = Decoder::new(4096);
    // Above our setting.
    assert!(d.decode(&size_update(4097)).is_err());
    // After a field.
    let mut block = vec![0x82];
    block.extend(size_update(100));
    assert_eq!(
        d.decode(&block).unwrap_err().0,
        "dynamic table size update after a header field"
    );
    // Several at the start are fine and evict.
    let mut d = Decoder::new(4096);
    for step in &C3 {
        d.decode(&hex(step.block)).unwrap();
    }
    let mut block = size_update(60);
    block.extend(size_update(4096));
    block.push(0x82);
    assert_eq!(d.decode(&block).unwrap().fields, 1);
    assert_eq!((d.table_len(), d.table_size()), (1, 54));
    // Size 0 empties the table; inserting then keeps nothing.
    let mut block = size_update(0);
    block.extend_from_slice(&[0x40, 0x01, b'a', 0x01, b'b']);
    assert_eq!(d.decode(&block).unwrap().fields, 1);
    assert_eq!((d.table_len(), d.table_size()), (0, 0));
    assert!(d.decode(&[0xbe]).is_err());
}

#[test]
fn lowered_setting_requires_size_update() {
    let mut d = Decoder::new(4096);
    d.set_max_table_size(100);
    assert!(d.decode(&[0x82]).is_err());
    let mut d = Decoder::new(4096);
    d.set_max_table_size(100);
    assert!(d.decode(&size_update(101)).is_err());
    let mut d = Decoder::new(4096);
    d.set_max_table_size(100);
    let mut block = size_update(100);
    block.push(0x82);
    assert!(d.decode(&block).is_ok());
    assert!(
        d.decode(&[0x82]).is_ok(),
        "only the next block needs the update"
    );

    // Lowered then raised again: the lowest value must be signalled first.
    let mut d = Decoder::new(4096);
    d.set_max_table_size(0);
    d.set_max_table_size(4096);
    assert!(d.decode(&size_update(4096)).is_err());
    let mut d = Decoder::new(4096);
    d.set_max_table_size(0);
    d.set_max_table_size(4096);
    let mut block = size_update(0);
    block.extend(size_update(4096));
    assert!(d.decode(&block).is_ok());

    // Raising needs no update.
    let mut d = Decoder::new(4096);
    d.set_max_table_size(8192);
    assert!(d.decode(&[0x82]).is_ok());
    assert!(d.decode(&size_update(8192)).is_ok());
}

/// A literal without indexing with a static name, value Huffman-coded, as
/// nginx sends most response fields.
fn nginx_field(index: usize, value: &str, block: &mut Vec<u8>) {
    integer::encode(index, 4, 0x00, block);
    integer::encode(huffman::encoded_len(value.as_bytes()), 7, 0x80, block);
    huffman::encode(value.as_bytes(), block);
}

#[test]
fn nginx_style_response() {
    let fields = [
        (54, "server", "nginx/1.24.0"),
        (33, "date", "Tue, 04 Jun 2024 10:11:12 GMT"),
        (31, "content-type", "text/html"),
        (28, "content-length", "615"),
        (44, "last-modified", "Tue, 11 Apr 2023 01:45:34 GMT"),
        (34, "etag", "\"6434bbbe-267\""),
        (18, "accept-ranges", "bytes"),
    ];
    let mut block = vec![0x88];
    let mut bytes = ":status".len() + 3;
    for (index, name, value) in fields {
        nginx_field(index, value, &mut block);
        bytes += name.len() + value.len();
    }
    let mut d = Decoder::new(4096);
    for _ in 0..3 {
        let s = d.decode(&block).unwrap();
        assert_eq!(
            s,
            BlockSummary {
                status: Some(200),
                content_length: Some(615),
                uncompressed_bytes: bytes as u64,
                fields: 8
            }
        );
    }
    assert_eq!(d.table_len(), 0);
    // A status that is not in the static table.
    let mut block = Vec::new();
    nginx_field(8, "503", &mut block);
    assert_eq!(d.decode(&block).unwrap().status, Some(503));
}

#[test]
fn garbage_never_panics() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let valid: Vec<Vec<u8>> = C3
        .iter()
        .chain(&C4)
        .chain(&C5)
        .chain(&C6)
        .map(|s| hex(s.block))
        .collect();
    let mut d = Decoder::new(256);
    for i in 0..20_000 {
        let block: Vec<u8> = if i % 2 == 0 {
            let len = (next() % 40) as usize;
            (0..len).map(|_| next() as u8).collect()
        } else {
            // A valid block with a few bytes changed.
            let mut b = valid[(next() % valid.len() as u64) as usize].clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % b.len() as u64) as usize;
                b[at] = next() as u8;
            }
            b
        };
        if d.decode(&block).is_err() {
            d = Decoder::new(256);
        }
        assert!(d.table_size() <= 256);
    }
}

fn owned(headers: &[(&str, &str)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

fn check_request_round_trip(
    method: &str,
    scheme: &str,
    authority: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> Vec<u8> {
    let headers = owned(headers);
    let mut block = Vec::new();
    encode_request(method, scheme, authority, path, &headers, &mut block);
    let mut bytes = ":method".len() + method.len() + ":scheme".len() + scheme.len();
    bytes += ":authority".len() + authority.len() + ":path".len() + path.len();
    bytes += headers
        .iter()
        .map(|(n, v)| n.len() + v.len())
        .sum::<usize>();
    let mut d = Decoder::new(4096);
    let s = d.decode(&block).unwrap();
    assert_eq!(
        s,
        BlockSummary {
            status: None,
            content_length: None,
            uncompressed_bytes: bytes as u64,
            fields: 4 + headers.len() as u32
        }
    );
    assert_eq!(
        d.table_len(),
        0,
        "request blocks must not touch the dynamic table"
    );
    block
}

#[test]
fn request_exact_bytes() {
    let block = check_request_round_trip("GET", "https", "www.example.com", "/", &[]);
    // Authority: literal without indexing, name index 1, value as in C.4.1.
    assert_eq!(block, hex("82 87 01 8c f1e3 c2e5 f23a 6ba0 ab90 f4ff 84"));

    let block = check_request_round_trip("POST", "http", "", "/index.html", &[]);
    assert_eq!(block, [0x83, 0x86, 0x81, 0x85]);
}

#[test]
fn request_with_headers_round_trips() {
    let long_value = "x".repeat(300);
    let block = check_request_round_trip(
        "PUT",
        "https",
        "localhost:8443",
        "/api/v1/items?id=42&name=%E2%9C%93",
        &[
            ("user-agent", "loadgen/0.1.0"),
            ("accept", "*/*"),
            ("accept-encoding", "gzip, deflate"),
            ("x-custom", "Value With Spaces"),
            ("x-bytes", "\u{7f}\u{1}"),
            ("x-long", &long_value),
            ("x-empty", ""),
        ],
    );
    // `:method PUT` has a static name but not the value.
    assert_eq!(block[0], 0x02);
    // accept-encoding with the static value is fully indexed.
    assert!(block.contains(&0x90));
}

/// A literal field without indexing whose name is `content-length` from
/// the static table (index 28: the 4-bit prefix 15, then 13), its value
/// raw or Huffman-coded.
fn content_length_field(value: &[u8], huffman: bool, block: &mut Vec<u8>) {
    block.extend_from_slice(&[0x0f, 28 - 15]);
    if huffman {
        let mut coded = Vec::new();
        huffman::encode(value, &mut coded);
        block.push(0x80 | coded.len() as u8);
        block.extend_from_slice(&coded);
    } else {
        block.push(value.len() as u8);
        block.extend_from_slice(value);
    }
}

#[test]
fn content_length_is_read_however_it_is_coded() {
    for huffman in [false, true] {
        let mut block = vec![0x88];
        content_length_field(b"13", huffman, &mut block);
        let summary = Decoder::new(4096).decode(&block).unwrap();
        assert_eq!(summary.content_length, Some(13), "huffman {huffman}");
    }
    // A literal name, Huffman-coded, with incremental indexing; then the
    // same field by its dynamic index only.
    let mut name = Vec::new();
    huffman::encode(b"content-length", &mut name);
    let mut block = vec![0x88, 0x40, 0x80 | name.len() as u8];
    block.extend_from_slice(&name);
    block.extend_from_slice(&[0x02, b'4', b'2']);
    let mut d = Decoder::new(4096);
    assert_eq!(d.decode(&block).unwrap().content_length, Some(42));
    assert_eq!(d.decode(&[0x88, 0xbe]).unwrap().content_length, Some(42));
    assert_eq!(d.decode(&[0x88]).unwrap().content_length, None);
}

#[test]
fn a_bad_or_second_content_length_is_a_malformed_response() {
    let mut d = Decoder::new(4096);
    let mut bad = vec![0x88];
    content_length_field(b"1x3", false, &mut bad);
    let err = d.decode(&bad).unwrap_err();
    assert!(err.is_malformed_response(), "{err}");
    assert!(err.0.contains("content-length is not a number"), "{err}");
    // The static entry alone names content-length with an empty value.
    let err = d.decode(&[0x88, 0x9c]).unwrap_err();
    assert!(err.0.contains("not a number"), "{err}");
    let mut twice = vec![0x88];
    content_length_field(b"5", false, &mut twice);
    content_length_field(b"5", true, &mut twice);
    let err = d.decode(&twice).unwrap_err();
    assert!(err.is_malformed_response(), "{err}");
    assert!(err.0.contains("more than one content-length"), "{err}");
    // The decoder is still in step.
    assert_eq!(d.decode(&[0x88]).unwrap().status, Some(200));
}
