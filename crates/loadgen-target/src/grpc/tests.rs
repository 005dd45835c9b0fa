//! The dispatch and the shape of the responses, without a network.

use http_body_util::BodyExt;
use prost::Message;

use super::echo::{EchoReply, EchoRequest};
use super::*;

fn head(path: &str, content_type: &str, version: Version) -> Parts {
    let (mut parts, ()) = http::Request::post(path)
        .version(version)
        .header(CONTENT_TYPE, content_type)
        .body(())
        .unwrap()
        .into_parts();
    parts.version = version;
    parts
}

fn upload(body: &[u8]) -> Upload {
    let mut upload = Upload::default();
    upload.push(body);
    upload
}

fn echo_body(request: &EchoRequest) -> Bytes {
    framing::frame(&[request.encode_to_vec().into()])
}

fn grpc_status(response: &Response<Body>) -> (&str, Option<&str>) {
    let headers = response.headers();
    (
        headers["grpc-status"].to_str().unwrap(),
        headers.get("grpc-message").map(|m| m.to_str().unwrap()),
    )
}

#[test]
fn recognises_grpc_content_types_but_not_grpc_web() {
    let with = |ct: &str| head("/", ct, Version::HTTP_2).headers;
    assert!(is_grpc(&with("application/grpc")));
    assert!(is_grpc(&with("application/grpc+proto")));
    assert!(is_grpc(&with("application/grpc; charset=utf-8")));
    assert!(is_grpc(&with("application/grpc+json")));
    assert!(!is_grpc(&with("application/grpc-web")));
    assert!(!is_grpc(&with("text/plain")));
    assert!(!is_grpc(&HeaderMap::new()));
}

#[tokio::test]
async fn echo_answers_with_data_and_trailers() {
    let request = EchoRequest {
        message: "hello".into(),
        payload: Bytes::from_static(b"\xff\0"),
        ..EchoRequest::default()
    };
    let head = head(ECHO_PATH, "application/grpc+proto", Version::HTTP_2);
    let response = respond(&head, upload(&echo_body(&request)));
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()[CONTENT_TYPE], "application/grpc");
    assert!(response.headers().get("grpc-status").is_none());
    let collected = response.into_body().collect().await.unwrap();
    let trailers = collected.trailers().unwrap().clone();
    assert_eq!(trailers["grpc-status"], "0");
    let replies = framing::split(collected.to_bytes()).unwrap();
    let reply = EchoReply::decode(replies[0].clone()).unwrap();
    assert_eq!(
        (reply.message.as_str(), &reply.payload[..]),
        ("hello", &b"\xff\0"[..])
    );
}

#[tokio::test]
async fn failures_are_trailers_only() {
    let request = EchoRequest {
        status: 14,
        status_message: "try later: 100%".into(),
        ..EchoRequest::default()
    };
    let head = head(ECHO_PATH, "application/grpc", Version::HTTP_3);
    let response = respond(&head, upload(&echo_body(&request)));
    assert_eq!(response.status(), 200);
    assert_eq!(grpc_status(&response), ("14", Some("try later: 100%25")));
    let collected = response.into_body().collect().await.unwrap();
    assert!(collected.trailers().is_none());
    assert!(collected.to_bytes().is_empty());
}

#[test]
fn unknown_services_and_methods_are_unimplemented() {
    for path in [
        "/loadgen.echo.v1.Echo/Nope",
        "/loadgen.echo.v1.Other/Echo",
        "/grpc.reflection.v1.ServerReflection/Nope",
        "/",
        "/x",
    ] {
        let response = respond(
            &head(path, "application/grpc", Version::HTTP_2),
            upload(b""),
        );
        assert_eq!(grpc_status(&response).0, "12", "{path}");
    }
}

#[test]
fn malformed_compressed_and_oversized_requests() {
    let h2 = head(ECHO_PATH, "application/grpc", Version::HTTP_2);
    let response = respond(&h2, upload(b"\0\0\0\0\x03\x0a\x09x"));
    assert_eq!(grpc_status(&response).0, "3");
    let response = respond(&h2, upload(b"\x01\0\0\0\x01x"));
    assert_eq!(grpc_status(&response).0, "12");
    let mut big = Upload::default();
    big.push(&vec![0u8; framing::MAX_REQUEST + 1][..]);
    assert_eq!(grpc_status(&respond(&h2, big)).0, "8");
}

#[test]
fn http1_and_other_sub_types_are_refused() {
    let body = echo_body(&EchoRequest::default());
    let h1 = head(ECHO_PATH, "application/grpc", Version::HTTP_11);
    assert_eq!(grpc_status(&respond(&h1, upload(&body))).0, "12");
    let json = head(ECHO_PATH, "application/grpc+json", Version::HTTP_2);
    assert_eq!(respond(&json, upload(&body)).status(), 415);
}

#[test]
fn only_reflection_over_http2_or_http3_streams() {
    let v1 = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";
    let v1alpha = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";
    assert!(is_stream(&head(v1, "application/grpc", Version::HTTP_2)));
    assert!(is_stream(&head(
        v1alpha,
        "application/grpc+proto",
        Version::HTTP_3
    )));
    assert!(!is_stream(&head(v1, "application/grpc", Version::HTTP_11)));
    assert!(!is_stream(&head(
        v1,
        "application/grpc+json",
        Version::HTTP_2
    )));
    assert!(!is_stream(&head(
        ECHO_PATH,
        "application/grpc",
        Version::HTTP_2
    )));
    assert!(!is_stream(&head(
        "/grpc.reflection.v1.ServerReflection/Other",
        "application/grpc",
        Version::HTTP_2
    )));
    let mut get = head(v1, "application/grpc", Version::HTTP_2);
    get.method = Method::GET;
    assert!(!is_stream(&get));
}
