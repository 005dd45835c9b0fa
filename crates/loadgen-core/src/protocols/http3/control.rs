//! The connection's unidirectional streams: the client's control stream
//! with its SETTINGS, and the server's control stream (read for GOAWAY)
//! and QPACK streams (read and dropped: with a table capacity of 0 they
//! carry nothing this client needs).

use super::frame::{self, get_varint, put_varint, CONTROL_STREAM, GOAWAY, SETTINGS};
use futures_util::stream::{FuturesUnordered, StreamExt};
use std::cell::Cell;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::rc::Rc;
use std::task::Poll;

/// A control frame longer than this ends the reading of the stream.
const MAX_CONTROL_FRAME: usize = 1 << 16;

/// What the server said on its control stream.
#[derive(Default)]
pub(super) struct ServerControl {
    /// The server sent GOAWAY: no new requests on this connection.
    pub goaway: Cell<bool>,
}

/// Runs the connection's unidirectional streams until the connection ends;
/// returns why it ended.
pub(super) async fn run(
    connection: quinn::Connection,
    control: Rc<ServerControl>,
) -> quinn::ConnectionError {
    // Kept open for the connection's life: closing it is an error (§6.2.1).
    let _ours = match open_control_stream(&connection).await {
        Ok(stream) => stream,
        Err(e) => return e,
    };
    let mut readers = FuturesUnordered::new();
    let mut accept = Box::pin(connection.accept_uni());
    poll_fn(|cx| {
        loop {
            match accept.as_mut().poll(cx) {
                Poll::Ready(Ok(stream)) => {
                    readers.push(read_server_stream(stream, control.clone()));
                    accept.set(connection.accept_uni());
                }
                Poll::Ready(Err(e)) => return Poll::Ready(e),
                Poll::Pending => break,
            }
        }
        while let Poll::Ready(Some(())) = readers.poll_next_unpin(cx) {}
        Poll::Pending
    })
    .await
}

/// Opens the client's control stream and sends an empty SETTINGS frame:
/// every setting at its default, so a QPACK table capacity of 0.
async fn open_control_stream(
    connection: &quinn::Connection,
) -> Result<quinn::SendStream, quinn::ConnectionError> {
    let mut stream = connection.open_uni().await?;
    let mut preface = Vec::new();
    put_varint(&mut preface, CONTROL_STREAM);
    preface.extend(frame::frame(SETTINGS, &[]));
    match stream.write_all(&preface).await {
        Err(quinn::WriteError::ConnectionLost(e)) => Err(e),
        // A server that stops our control stream breaks the connection itself.
        _ => Ok(stream),
    }
}

/// Reads one of the server's unidirectional streams: frames of its control
/// stream, noting GOAWAY; anything else is read and dropped.
fn read_server_stream(
    mut stream: quinn::RecvStream,
    control: Rc<ServerControl>,
) -> Pin<Box<dyn Future<Output = ()>>> {
    Box::pin(async move {
        let mut buffer = Vec::new();
        let mut is_control = None;
        while let Ok(Some(chunk)) = stream.read_chunk(usize::MAX, true).await {
            if is_control == Some(false) {
                continue;
            }
            buffer.extend_from_slice(&chunk.bytes);
            if is_control.is_none() {
                let Some((kind, used)) = get_varint(&buffer) else {
                    continue;
                };
                buffer.drain(..used);
                is_control = Some(kind == CONTROL_STREAM);
                if kind != CONTROL_STREAM {
                    buffer.clear();
                    continue;
                }
            }
            let mut at = 0;
            while let Some((kind, kind_len)) = get_varint(&buffer[at..]) {
                let Some((len, len_len)) = get_varint(&buffer[at + kind_len..]) else {
                    break;
                };
                let end = (at + kind_len + len_len).saturating_add(len as usize);
                if end > buffer.len() {
                    break;
                }
                if kind == GOAWAY {
                    control.goaway.set(true);
                }
                at = end;
            }
            buffer.drain(..at);
            if buffer.len() > MAX_CONTROL_FRAME {
                return;
            }
        }
    })
}
