//! The fault servers at the socket: what each connection gets, seen by a
//! plain blocking client.

use super::*;
use clap::ValueEnum;
use std::io::{Read, Write};
use std::time::Duration;

const GET: &[u8] = b"GET / HTTP/1.1\r\nhost: localhost\r\n\r\n";

fn connect(server: &FaultServer) -> TcpStream {
    let stream = TcpStream::connect(server.addr()).expect("connect to the fault server");
    // Bounds each test's reads, should a fault fail to do its part.
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// Everything the server sends after `request`, until it closes or, for
/// a server that keeps the connection, until `enough` bytes came.
fn exchange(fault: Fault, request: &[u8], enough: usize) -> Vec<u8> {
    let server = FaultServer::start(fault).unwrap();
    let mut stream = connect(&server);
    stream.write_all(request).unwrap();
    let mut received = Vec::new();
    let mut chunk = [0; 4096];
    while received.len() < enough {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => received.extend_from_slice(&chunk[..n]),
        }
    }
    received
}

#[test]
fn every_fault_is_listed_once_under_its_own_name() {
    assert_eq!(Fault::ALL.len(), Fault::value_variants().len());
    for fault in Fault::ALL {
        assert_eq!(Fault::from_str(&fault.name(), false), Ok(fault));
    }
    let mut names: Vec<String> = Fault::ALL.iter().map(|f| f.name()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), Fault::ALL.len());
}

#[test]
fn http1_faults_answer_each_request_as_named() {
    let response = exchange(Fault::MalformedStatusLine, GET, 10);
    assert!(response.starts_with(b"HTTP/1.1 2x0 "), "{response:?}");
    let response = exchange(Fault::NoContentWithBody, GET, 51);
    assert!(response.starts_with(b"HTTP/1.1 204 "), "{response:?}");
    assert!(response.ends_with(b"\r\n\r\nhello"), "{response:?}");
}

#[test]
fn a_reset_follows_the_status_line() {
    let server = FaultServer::start(Fault::ResetAfterStatusLine).unwrap();
    let mut stream = connect(&server);
    stream.write_all(GET).unwrap();
    let mut received = Vec::new();
    let mut chunk = [0; 64];
    let end = loop {
        match stream.read(&mut chunk) {
            Ok(0) => break None,
            Ok(n) => received.extend_from_slice(&chunk[..n]),
            Err(e) => break Some(e.kind()),
        }
    };
    assert_eq!(received, b"HTTP/1.1 200 OK\r\n");
    assert_eq!(end, Some(std::io::ErrorKind::ConnectionReset));
}

#[test]
fn the_oversized_head_is_written_whole_or_in_pieces() {
    for fault in [Fault::OversizedHeaderWhole, Fault::OversizedHeaderSplit] {
        let response = exchange(fault, GET, 100_002);
        assert_eq!(response.len(), 100_002, "{fault:?}");
        assert!(response.ends_with(b"\r\n\r\nok"), "{fault:?}");
    }
}

#[test]
fn h2c_faults_start_with_settings_except_no_settings() {
    let mut request = loadgen_http2::frame::CLIENT_PREFACE.to_vec();
    loadgen_http2::frame::write_settings(&mut request, &[]);
    let response = exchange(Fault::RstStreamEveryStream, &request, 9);
    assert_eq!(
        &response[..9],
        &[0, 0, 0, 4, 0, 0, 0, 0, 0],
        "an empty SETTINGS"
    );

    let server = FaultServer::start(Fault::NoSettings).unwrap();
    let mut stream = connect(&server);
    stream.write_all(&request).unwrap();
    // Dropping the server cuts the connection off: the client sees it end
    // without a byte.
    drop(server);
    let mut chunk = [0; 64];
    assert!(matches!(stream.read(&mut chunk), Ok(0) | Err(_)));
}

#[test]
fn stalls_take_what_is_sent_and_answer_nothing() {
    for fault in [Fault::Stall, Fault::TlsHandshakeStall] {
        let server = FaultServer::start(fault).unwrap();
        let mut stream = connect(&server);
        stream.write_all(GET).unwrap();
        // The server is cut off once it is dropped: the client sees the
        // connection end without a byte.
        drop(server);
        let mut chunk = [0; 64];
        assert!(
            matches!(stream.read(&mut chunk), Ok(0) | Err(_)),
            "{fault:?}"
        );
    }
}

#[test]
fn slowloris_answers_whole_in_the_end() {
    let response = exchange(Fault::Slowloris, GET, 52);
    assert_eq!(
        response,
        b"HTTP/1.1 200 OK\r\ncontent-length: 13\r\n\r\nhello, world\n"
    );
}

/// The client's preface, an empty SETTINGS and a request's HEADERS.
fn h2c_request() -> Vec<u8> {
    use loadgen_http2::frame::{self, flag, kind, FrameHeader};
    let mut request = frame::CLIENT_PREFACE.to_vec();
    frame::write_settings(&mut request, &[]);
    FrameHeader {
        length: 1,
        kind: kind::HEADERS,
        flags: flag::END_HEADERS | flag::END_STREAM,
        stream_id: 1,
    }
    .write(&mut request);
    // `:method: GET`, from the static table.
    request.push(0x82);
    request
}

#[test]
fn zero_window_advertises_a_window_of_zero() {
    let response = exchange(Fault::ZeroWindow, &h2c_request(), 15);
    // SETTINGS_INITIAL_WINDOW_SIZE (4) = 0.
    assert_eq!(
        response[..15],
        [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0]
    );
}

#[test]
fn floods_follow_the_first_request() {
    use loadgen_http2::frame::{kind, FrameHeader};
    for (fault, flood_kind) in [
        (Fault::PingFlood, kind::PING),
        (Fault::SettingsFlood, kind::SETTINGS),
    ] {
        // SETTINGS, the acknowledgement of ours, then 100 flood frames.
        let response = exchange(fault, &h2c_request(), 18 + 100 * 17);
        let mut rest = &response[..];
        let mut kinds = Vec::new();
        while let Some(header) = rest.first_chunk::<9>() {
            let header = FrameHeader::parse(header);
            kinds.push(header.kind);
            rest = rest.get(9 + header.length as usize..).unwrap_or_default();
        }
        assert_eq!(kinds[..2], [kind::SETTINGS, kind::SETTINGS], "{fault:?}");
        assert!(kinds.len() > 50, "{fault:?}: {kinds:?}");
        assert!(kinds[2..].iter().all(|&k| k == flood_kind), "{fault:?}");
    }
}

#[test]
fn tls_faults_are_served_over_https() {
    for fault in Fault::ALL {
        let server = FaultServer::start(fault).unwrap();
        let scheme = if fault.is_tls() {
            "https://"
        } else {
            "http://"
        };
        assert!(server.url("/").starts_with(scheme), "{fault:?}");
    }
}
