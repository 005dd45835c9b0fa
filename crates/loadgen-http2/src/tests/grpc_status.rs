//! A gRPC call's status travels in its trailers, or in the head of a
//! Trailers-Only response; streams that ask for it get it with their end.

use super::*;
use crate::Deliver;

fn harness_keeping_fields() -> Harness {
    let mut h = Harness::new(Config {
        keep_header_fields: true,
        ..Config::default()
    });
    h.feed(&server_settings(&[])).unwrap();
    h.written();
    h
}

fn start_call(h: &mut Harness, user: u32) {
    let deliver = Deliver {
        grpc_status: true,
        ..Deliver::default()
    };
    h.connection
        .start_request_delivering(&[0x83, 0x86, 0x84], None, user, deliver);
}

fn grpc_statuses(h: &Harness) -> Vec<Option<u16>> {
    h.events
        .iter()
        .map(|e| match e {
            Event::Response { grpc_status, .. } => *grpc_status,
            Event::Failed { .. } => panic!("the call failed: {e:?}"),
        })
        .collect()
}

#[test]
fn status_comes_from_the_trailers() {
    let mut h = harness_keeping_fields();
    start_call(&mut h, 1);
    let mut server = frame_bytes(kind::HEADERS, flag::END_HEADERS, 1, STATUS_200);
    server.extend(frame_bytes(kind::DATA, 0, 1, &[0, 0, 0, 0, 0]));
    let mut trailers = literal("grpc-status", "14");
    trailers.extend(literal("grpc-message", "try later"));
    server.extend(frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        &trailers,
    ));
    h.feed(&server).unwrap();
    assert_eq!(grpc_statuses(&h), [Some(14)]);
}

#[test]
fn status_comes_from_a_trailers_only_head() {
    let mut h = harness_keeping_fields();
    start_call(&mut h, 1);
    let mut head = STATUS_200.to_vec();
    head.extend(literal("grpc-status", "3"));
    h.feed(&frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        &head,
    ))
    .unwrap();
    assert_eq!(grpc_statuses(&h), [Some(3)]);
}

#[test]
fn missing_and_garbled_statuses_are_told_apart_from_ok() {
    let mut h = harness_keeping_fields();
    start_call(&mut h, 1);
    start_call(&mut h, 3);
    let mut server = response(STATUS_200, 1, b"");
    server.extend(frame_bytes(kind::HEADERS, flag::END_HEADERS, 3, STATUS_200));
    server.extend(frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        3,
        &literal("grpc-status", "zero"),
    ));
    h.feed(&server).unwrap();
    assert_eq!(grpc_statuses(&h), [None, Some(u16::MAX)]);
}

#[test]
fn streams_that_do_not_ask_get_no_status() {
    let mut h = harness_keeping_fields();
    h.started(1);
    let mut server = frame_bytes(kind::HEADERS, flag::END_HEADERS, 1, STATUS_200);
    server.extend(frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        &literal("grpc-status", "0"),
    ));
    h.feed(&server).unwrap();
    assert_eq!(grpc_statuses(&h), [None]);
}

#[test]
fn a_grpc_message_is_delivered_with_the_status() {
    let mut h = harness_keeping_fields();
    start_call(&mut h, 1);
    let mut trailers = literal("grpc-status", "14");
    trailers.extend(literal("grpc-message", "try%20later"));
    let mut server = frame_bytes(kind::HEADERS, flag::END_HEADERS, 1, STATUS_200);
    server.extend(frame_bytes(
        kind::HEADERS,
        flag::END_HEADERS | flag::END_STREAM,
        1,
        &trailers,
    ));
    let mut messages = Vec::new();
    let mut statuses = Vec::new();
    h.connection
        .receive_detailed(&server, &mut |received| match received {
            crate::Received::GrpcMessage {
                user,
                grpc_status,
                message,
            } => messages.push((*user, grpc_status, message.to_vec())),
            crate::Received::Ended(Event::Response { grpc_status, .. }) => {
                statuses.push(grpc_status)
            }
            _ => {}
        })
        .unwrap();
    assert_eq!(messages, [(1, Some(14), b"try%20later".to_vec())]);
    assert_eq!(statuses, [Some(14)]);
}
