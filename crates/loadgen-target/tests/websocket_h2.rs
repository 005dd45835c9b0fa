//! `/ws` over HTTP/2 (RFC 8441), driven by hyper's HTTP/2 client and
//! tungstenite: implementations other than loadgen's own.

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::Empty;
use hyper::client::conn::http2;
use hyper_util::rt::{TokioExecutor, TokioIo};
use loadgen_target::{Target, TargetConfig};
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

fn websocket_connect(path: &str) -> http::Request<Empty<Bytes>> {
    let mut request = http::Request::builder()
        .method(http::Method::CONNECT)
        .uri(format!("http://localhost{path}"))
        .header("sec-websocket-version", "13")
        .body(Empty::new())
        .unwrap();
    request
        .extensions_mut()
        .insert(hyper::ext::Protocol::from_static("websocket"));
    request
}

#[tokio::test]
async fn messages_echo_over_an_extended_connect_stream() {
    let target = Target::start(TargetConfig {
        tls_addr: None,
        ..TargetConfig::default()
    })
    .unwrap();
    let tcp = tokio::net::TcpStream::connect(target.clear_addr().unwrap())
        .await
        .unwrap();
    let (mut sender, conn) = http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);

    // Two WebSockets on one connection, each its own stream.
    let mut sockets = Vec::new();
    for _ in 0..2 {
        let mut response = sender.send_request(websocket_connect("/ws")).await.unwrap();
        assert_eq!(response.status(), 200);
        let upgraded = hyper::upgrade::on(&mut response).await.unwrap();
        sockets.push(
            WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Client, None).await,
        );
    }
    for (i, socket) in sockets.iter_mut().enumerate() {
        for n in 0..5 {
            let text = format!("socket {i} message {n}");
            socket.send(Message::text(text.clone())).await.unwrap();
            let echoed = socket.next().await.unwrap().unwrap();
            assert_eq!(echoed, Message::text(text));
        }
        socket.send(Message::binary(vec![0u8, 1, 2])).await.unwrap();
        assert_eq!(
            socket.next().await.unwrap().unwrap(),
            Message::binary(vec![0u8, 1, 2])
        );
        socket.close(None).await.unwrap();
    }
    assert_eq!(target.stats().websocket_messages, 12);

    // Anything but an extended CONNECT for websocket is refused.
    let get = http::Request::get("http://localhost/ws")
        .body(Empty::new())
        .unwrap();
    let response = sender.send_request(get).await.unwrap();
    assert_eq!(response.status(), 400);
    // Nor does an extended CONNECT to another path get a page as its tunnel.
    let response = sender.send_request(websocket_connect("/")).await.unwrap();
    assert_eq!(response.status(), 404);
    drop(sender);
    tokio::task::spawn_blocking(move || target.shutdown())
        .await
        .unwrap();
}
