//! The response body type.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::HeaderMap;
use hyper::body::{Frame, SizeHint};
use tokio::sync::mpsc;

/// Size of the shared filler buffer; larger bodies are sent as several
/// slices of it.
const FILL_LEN: usize = 16 << 20;

/// Filler content for `s=` bodies, created once and never freed so every
/// response can borrow it as `Bytes::from_static` without refcounting.
fn filler() -> &'static [u8] {
    static FILL: OnceLock<&'static [u8]> = OnceLock::new();
    FILL.get_or_init(|| {
        // Doubling with memcpy keeps this fast in unoptimized test builds too.
        let mut fill = Vec::with_capacity(FILL_LEN);
        fill.extend_from_slice(b"abcdefghijklmnopqrstuvwxyz");
        while fill.len() < FILL_LEN {
            fill.extend_from_within(..fill.len().min(FILL_LEN - fill.len()));
        }
        Box::leak(fill.into_boxed_slice())
    })
}

/// Builds the filler up front so the first `s=` request isn't slowed down.
pub(crate) fn warm_up() {
    filler();
}

/// A body that is known in full before the response is sent: `head`
/// followed by `rest` filler bytes, then, for gRPC, a [`Tail`]. Without a
/// tail the exact size hint makes hyper send a `content-length` rather
/// than chunked encoding.
#[derive(Debug)]
pub(crate) struct Body {
    head: Bytes,
    rest: u64,
    tail: Tail,
}

/// What follows a body's bytes.
#[derive(Debug)]
enum Tail {
    None,
    /// Boxed so that the benchmark responses' bodies stay small.
    Trailers(Box<HeaderMap>),
    /// Frames produced while the request is still arriving (a streaming
    /// gRPC call), its trailers last; over when the sender is dropped.
    Channel(mpsc::Receiver<Frame<Bytes>>),
}

impl Body {
    pub(crate) fn from_static(text: &'static str) -> Body {
        Body::bytes(Bytes::from_static(text.as_bytes()))
    }

    pub(crate) fn bytes(head: Bytes) -> Body {
        Body {
            head,
            rest: 0,
            tail: Tail::None,
        }
    }

    /// `head`, then the trailers (HTTP/2 and HTTP/3 only: HTTP/1.1 would
    /// need chunked encoding, which gRPC does not use).
    pub(crate) fn with_trailers(head: Bytes, trailers: HeaderMap) -> Body {
        Body {
            head,
            rest: 0,
            tail: Tail::Trailers(Box::new(trailers)),
        }
    }

    /// The frames `frames` receives, as they come. Its length is unknown
    /// ([`Body::len`] says 0): the sender counts what it sends.
    pub(crate) fn channel(frames: mpsc::Receiver<Frame<Bytes>>) -> Body {
        Body {
            head: Bytes::new(),
            rest: 0,
            tail: Tail::Channel(frames),
        }
    }

    /// `size` bytes of filler.
    pub(crate) fn filler(size: u64) -> Body {
        Body {
            head: Bytes::new(),
            rest: size,
            tail: Tail::None,
        }
    }

    pub(crate) fn len(&self) -> u64 {
        self.head.len() as u64 + self.rest
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if !self.head.is_empty() {
            return Poll::Ready(Some(Ok(Frame::data(std::mem::take(&mut self.head)))));
        }
        if self.rest == 0 {
            if let Tail::Channel(frames) = &mut self.tail {
                return frames.poll_recv(cx).map(|frame| frame.map(Ok));
            }
            return Poll::Ready(match std::mem::replace(&mut self.tail, Tail::None) {
                Tail::Trailers(trailers) => Some(Ok(Frame::trailers(*trailers))),
                _ => None,
            });
        }
        let n = self.rest.min(FILL_LEN as u64) as usize;
        self.rest -= n as u64;
        Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&filler()[..n])))))
    }

    fn is_end_stream(&self) -> bool {
        self.head.is_empty() && self.rest == 0 && matches!(self.tail, Tail::None)
    }

    fn size_hint(&self) -> SizeHint {
        match self.tail {
            Tail::None => SizeHint::with_exact(self.len()),
            // As gRPC servers do: no content-length beside trailers.
            _ => {
                let mut hint = SizeHint::new();
                hint.set_lower(self.len());
                hint
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn collect(body: Body) -> (Vec<usize>, Bytes) {
        let mut body = body;
        let mut sizes = Vec::new();
        let mut all = Vec::new();
        while let Some(frame) = body.frame().await {
            let data = frame.unwrap().into_data().unwrap();
            sizes.push(data.len());
            all.extend_from_slice(&data);
        }
        (sizes, all.into())
    }

    #[tokio::test]
    async fn filler_is_chunked_with_exact_size() {
        let size = FILL_LEN as u64 * 2 + 3;
        let body = Body::filler(size);
        assert_eq!(hyper::body::Body::size_hint(&body).exact(), Some(size));
        let (sizes, _) = collect(body).await;
        assert_eq!(sizes, vec![FILL_LEN, FILL_LEN, 3]);
    }

    #[tokio::test]
    async fn small_bodies() {
        let (_, data) = collect(Body::filler(30)).await;
        assert_eq!(&data[..], b"abcdefghijklmnopqrstuvwxyzabcd");
        assert_eq!(filler().len(), FILL_LEN);
        assert_eq!(&filler()[FILL_LEN - 4..], b"klmn");
        let (_, data) = collect(Body::from_static("hello")).await;
        assert_eq!(&data[..], b"hello");
        assert!(hyper::body::Body::is_end_stream(&Body::filler(0)));
    }

    #[tokio::test]
    async fn trailers_come_last_and_the_size_is_not_exact() {
        let mut trailers = HeaderMap::new();
        trailers.insert("grpc-status", "0".parse().unwrap());
        let mut body = Body::with_trailers(Bytes::from_static(b"abc"), trailers);
        assert_eq!(hyper::body::Body::size_hint(&body).exact(), None);
        let data = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(&data[..], b"abc");
        assert!(!hyper::body::Body::is_end_stream(&body));
        let frame = body.frame().await.unwrap().unwrap();
        assert_eq!(frame.into_trailers().unwrap()["grpc-status"], "0");
        assert!(body.frame().await.is_none());
        assert!(hyper::body::Body::is_end_stream(&body));
    }

    #[tokio::test]
    async fn a_channel_body_ends_when_its_sender_goes() {
        let (tx, rx) = mpsc::channel(2);
        let mut body = Body::channel(rx);
        tx.send(Frame::data(Bytes::from_static(b"x")))
            .await
            .unwrap();
        drop(tx);
        let data = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(&data[..], b"x");
        assert!(body.frame().await.is_none());
    }
}
