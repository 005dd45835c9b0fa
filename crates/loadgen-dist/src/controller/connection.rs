//! One control connection to a worker: TCP (and TLS), HTTP/1.1, the
//! bearer token on every request. Its clock is measured over it and the
//! run streams back over it; dropping it closes the socket, which is what
//! tells the worker to stop.

use super::address::WorkerAddress;
use crate::token::Token;
use bytes::Bytes;
use http::{header, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_rustls::TlsConnector;

/// How long connecting (TCP, TLS, HTTP) may take.
const CONNECT_LIMIT: Duration = Duration::from_secs(10);
/// How long a worker may take to answer a call's head.
const ANSWER_LIMIT: Duration = Duration::from_secs(10);
/// The largest answer read whole (a refusal, the clock).
const ANSWER_BYTES: usize = 1 << 20;

pub struct Connection {
    sender: SendRequest<Full<Bytes>>,
    driver: JoinHandle<()>,
    authority: String,
    authorization: header::HeaderValue,
}

impl Drop for Connection {
    fn drop(&mut self) {
        // Closes the socket now, whatever is still being read from it.
        self.driver.abort();
    }
}

impl Connection {
    pub async fn open(
        address: &WorkerAddress,
        tls: &Arc<ClientConfig>,
        token: &Token,
    ) -> Result<Connection, String> {
        let connecting = async {
            let tcp = TcpStream::connect((address.host.as_str(), address.port))
                .await
                .map_err(|e| format!("cannot connect: {e}"))?;
            let _ = tcp.set_nodelay(true);
            if address.tls {
                let name = ServerName::try_from(address.host.clone())
                    .map_err(|e| format!("not a TLS server name: {e}"))?;
                let stream = TlsConnector::from(tls.clone())
                    .connect(name, tcp)
                    .await
                    .map_err(|e| format!("TLS: {e}"))?;
                Self::handshake(TokioIo::new(stream)).await
            } else {
                Self::handshake(TokioIo::new(tcp)).await
            }
        };
        let (sender, driver) = tokio::time::timeout(CONNECT_LIMIT, connecting)
            .await
            .map_err(|_| format!("no connection within {}s", CONNECT_LIMIT.as_secs()))??;
        Ok(Connection {
            sender,
            driver,
            authority: address.authority.clone(),
            authorization: token.header(),
        })
    }

    async fn handshake<T>(io: T) -> Result<(SendRequest<Full<Bytes>>, JoinHandle<()>), String>
    where
        T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
    {
        let (sender, connection) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|e| format!("HTTP: {e}"))?;
        let driver = tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok((sender, driver))
    }

    /// Sends one call; returns the answer's head with its body unread.
    pub async fn call(
        &mut self,
        method: Method,
        path: &str,
        json: Option<Vec<u8>>,
    ) -> Result<Response<Incoming>, String> {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, &self.authority)
            .header(header::AUTHORIZATION, self.authorization.clone());
        if json.is_some() {
            request = request.header(header::CONTENT_TYPE, "application/json");
        }
        let request = request
            .body(Full::new(Bytes::from(json.unwrap_or_default())))
            .map_err(|e| format!("cannot make the request: {e}"))?;
        self.sender
            .ready()
            .await
            .map_err(|e| format!("the connection closed: {e}"))?;
        tokio::time::timeout(ANSWER_LIMIT, self.sender.send_request(request))
            .await
            .map_err(|_| format!("no answer within {}s", ANSWER_LIMIT.as_secs()))?
            .map_err(|e| format!("no answer: {e}"))
    }

    /// Sends one call and reads its whole answer.
    pub async fn call_whole(
        &mut self,
        method: Method,
        path: &str,
        json: Option<Vec<u8>>,
    ) -> Result<(StatusCode, Bytes), String> {
        let response = self.call(method, path, json).await?;
        let status = response.status();
        let body = read_whole(response.into_body()).await?;
        Ok((status, body))
    }
}

/// A bounded answer, read to its end.
pub async fn read_whole(body: Incoming) -> Result<Bytes, String> {
    let reading = Limited::new(body, ANSWER_BYTES).collect();
    match tokio::time::timeout(ANSWER_LIMIT, reading).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) => Err(format!("cannot read the answer: {e}")),
        Err(_) => Err(format!(
            "the answer took more than {}s",
            ANSWER_LIMIT.as_secs()
        )),
    }
}

/// What a refusal says: its `error` line, or its status alone.
pub fn refusal_text(status: StatusCode, body: &[u8]) -> String {
    let said = serde_json::from_slice::<crate::protocol::ErrorReply>(body)
        .map(|reply| reply.error)
        .unwrap_or_default();
    if said.is_empty() {
        format!("{status}")
    } else {
        format!("{} {said}", status.as_u16())
    }
}
