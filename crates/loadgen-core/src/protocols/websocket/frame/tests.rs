use super::*;

/// A server frame: never masked.
fn server_frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![(u8::from(fin) << 7) | opcode];
    match payload.len() {
        n if n < 126 => out.push(n as u8),
        n if n <= 0xFFFF => {
            out.push(126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(payload);
    out
}

/// Everything `reader` makes of `data`, as owned values.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Message(bool, Vec<u8>),
    Ping(Vec<u8>),
    Pong,
    Close(Option<u16>),
}

fn read_all(reader: &mut FrameReader, data: &[u8]) -> Result<(Vec<Seen>, usize), FrameError> {
    let mut seen = Vec::new();
    let mut used = 0;
    while let Some((n, event)) = reader.read(&data[used..])? {
        used += n;
        seen.extend(event.map(|event| match event {
            Incoming::Message { binary, payload } => Seen::Message(binary, payload.to_vec()),
            Incoming::Ping(p) => Seen::Ping(p.to_vec()),
            Incoming::Pong => Seen::Pong,
            Incoming::Close { code } => Seen::Close(code),
        }));
    }
    Ok((seen, used))
}

#[test]
fn client_frames_are_masked_with_the_right_length_encoding() {
    let mask = [1, 2, 3, 4];
    for len in [0usize, 5, 125, 126, 65_535, 65_536] {
        let payload: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let mut out = Vec::new();
        write_frame(&mut out, Opcode::Binary, &payload, mask);
        assert_eq!(out[0], 0x82);
        assert_eq!(out[1] & 0x80, 0x80, "the mask bit is set");
        let (len_field, header) = match out[1] & 0x7F {
            126 => (u64::from(u16::from_be_bytes([out[2], out[3]])), 4),
            127 => (u64::from_be_bytes(out[2..10].try_into().unwrap()), 10),
            n => (u64::from(n), 2),
        };
        assert_eq!(len_field, len as u64);
        assert_eq!(&out[header..header + 4], &mask);
        let mut body = out[header + 4..].to_vec();
        apply_mask(&mut body, mask);
        assert_eq!(body, payload);
    }
}

#[test]
fn masking_matches_the_rfc_example() {
    // RFC 6455 section 5.7: "Hello" masked with 37 fa 21 3d.
    let mut out = Vec::new();
    write_frame(&mut out, Opcode::Text, b"Hello", [0x37, 0xfa, 0x21, 0x3d]);
    assert_eq!(
        out,
        [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
    );
}

#[test]
fn messages_and_control_frames_arrive_byte_by_byte() {
    let mut wire = server_frame(true, 0x1, b"hello");
    wire.extend(server_frame(true, 0x9, b"p"));
    wire.extend(server_frame(true, 0x2, &[0, 1, 2]));
    wire.extend(server_frame(true, 0xA, b""));
    wire.extend(server_frame(true, 0x8, &[0x03, 0xF3, b'b', b'y', b'e']));
    // Fed one more byte at a time, as a slow network would.
    let mut reader = FrameReader::new(1024);
    let mut buffer = Vec::new();
    let mut seen = Vec::new();
    for byte in wire {
        buffer.push(byte);
        let (more, used) = read_all(&mut reader, &buffer).unwrap();
        buffer.drain(..used);
        seen.extend(more);
    }
    assert!(buffer.is_empty());
    assert_eq!(
        seen,
        [
            Seen::Message(false, b"hello".to_vec()),
            Seen::Ping(b"p".to_vec()),
            Seen::Message(true, vec![0, 1, 2]),
            Seen::Pong,
            Seen::Close(Some(1011)),
        ]
    );
}

#[test]
fn fragments_join_with_control_frames_between_them() {
    let mut wire = server_frame(false, 0x1, b"hel");
    wire.extend(server_frame(true, 0x9, b""));
    wire.extend(server_frame(false, 0x0, b"l"));
    wire.extend(server_frame(true, 0x0, b"o"));
    let mut reader = FrameReader::new(1024);
    let (seen, used) = read_all(&mut reader, &wire).unwrap();
    assert_eq!(used, wire.len());
    assert_eq!(
        seen,
        [Seen::Ping(vec![]), Seen::Message(false, b"hello".to_vec())]
    );
}

#[test]
fn the_size_cap_holds_for_one_frame_and_for_fragments() {
    let mut reader = FrameReader::new(10);
    // The header alone is enough to refuse: nothing of the payload is awaited.
    let header_only = &server_frame(true, 0x2, &[0; 11])[..2];
    let error = reader.read(header_only).unwrap_err();
    assert_eq!(error.code, close_code::MESSAGE_TOO_BIG);
    let huge = [0x82, 127, 0, 0, 0, 1, 0, 0, 0, 0];
    assert_eq!(
        FrameReader::new(10).read(&huge).unwrap_err().code,
        close_code::MESSAGE_TOO_BIG
    );
    let mut reader = FrameReader::new(10);
    let mut wire = server_frame(false, 0x2, &[0; 6]);
    wire.extend(server_frame(true, 0x0, &[0; 5]));
    let error = read_all(&mut reader, &wire).unwrap_err();
    assert_eq!(error.code, close_code::MESSAGE_TOO_BIG);
    // Exactly at the cap is fine.
    let mut reader = FrameReader::new(10);
    let mut wire = server_frame(false, 0x2, &[0; 5]);
    wire.extend(server_frame(true, 0x0, &[0; 5]));
    assert_eq!(
        read_all(&mut reader, &wire).unwrap().0,
        [Seen::Message(true, vec![0; 10])]
    );
}

#[test]
fn broken_frames_are_protocol_errors() {
    let cases: [(&str, Vec<u8>, u16); 8] = [
        ("masked", vec![0x81, 0x81, 0, 0, 0, 0, b'a'], 1002),
        ("reserved bit", vec![0xC1, 0x00], 1002),
        ("reserved opcode", vec![0x83, 0x00], 1002),
        ("fragmented ping", vec![0x09, 0x00], 1002),
        ("long ping", server_frame(true, 0x9, &[0; 126]), 1002),
        ("lone continuation", server_frame(true, 0x0, b"x"), 1002),
        ("bad UTF-8", server_frame(true, 0x1, &[0xFF]), 1007),
        ("one-byte close", server_frame(true, 0x8, &[3]), 1002),
    ];
    for (what, wire, code) in cases {
        let error = read_all(&mut FrameReader::new(1024), &wire).unwrap_err();
        assert_eq!(error.code, code, "{what}: {}", error.message);
    }
    let mut wire = server_frame(false, 0x1, b"a");
    wire.extend(server_frame(true, 0x1, b"b"));
    let error = read_all(&mut FrameReader::new(1024), &wire).unwrap_err();
    assert_eq!(error.code, 1002, "{}", error.message);
}

#[test]
fn a_close_without_a_code_has_none() {
    let wire = server_frame(true, 0x8, b"");
    let (seen, _) = read_all(&mut FrameReader::new(16), &wire).unwrap();
    assert_eq!(seen, [Seen::Close(None)]);
    let mut out = Vec::new();
    write_close(&mut out, 1000, [0; 4]);
    assert_eq!(out, [0x88, 0x82, 0, 0, 0, 0, 0x03, 0xE8]);
}
