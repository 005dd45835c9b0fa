//! Where a push goes (`--metrics-push FORMAT=URL`) and one push sent
//! there: a new HTTP/1.1 connection (TLS for `https://`), one POST, the
//! answer's status.

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue};
use http::{header, Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// How long one push may take, connecting included.
const PUSH_LIMIT: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Prometheus remote write 1.0.
    PrometheusRemoteWrite,
    /// OTLP/HTTP metrics, protobuf.
    Otlp,
}

impl Format {
    pub const NAMES: [&str; 2] = ["prometheus-rw", "otlp"];

    pub fn name(self) -> &'static str {
        match self {
            Format::PrometheusRemoteWrite => "prometheus-rw",
            Format::Otlp => "otlp",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Destination {
    pub format: Format,
    pub url: String,
    host: String,
    port: u16,
    tls: bool,
    authority: String,
    path: String,
}

impl Destination {
    /// `FORMAT=URL`, as `--metrics-push` takes it.
    pub fn parse(spec: &str) -> Result<Destination, String> {
        let (format, url) = spec.split_once('=').ok_or_else(|| {
            format!(
                "'{spec}': expected FORMAT=URL, FORMAT one of {}",
                Format::NAMES.join(", ")
            )
        })?;
        let format = match format {
            "prometheus-rw" => Format::PrometheusRemoteWrite,
            "otlp" => Format::Otlp,
            other => {
                return Err(format!(
                    "'{other}' is not a format; expected one of {}",
                    Format::NAMES.join(", ")
                ))
            }
        };
        let uri: Uri = url
            .parse()
            .map_err(|e| format!("'{url}' is not a URL: {e}"))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => {
                return Err(format!(
                    "'{url}': only http:// and https:// URLs are pushed to"
                ))
            }
        };
        let authority = uri
            .authority()
            .ok_or_else(|| format!("'{url}' names no host"))?;
        let host = authority.host().trim_matches(['[', ']']).to_string();
        Ok(Destination {
            format,
            url: url.to_string(),
            port: authority.port_u16().unwrap_or(if tls { 443 } else { 80 }),
            host,
            tls,
            authority: authority.to_string(),
            path: uri
                .path_and_query()
                .map(|p| p.as_str().to_string())
                .unwrap_or_else(|| "/".to_string()),
        })
    }
}

/// Why a push failed, and whether trying again may help.
#[derive(Debug)]
pub struct PushError {
    pub message: String,
    pub retryable: bool,
}

impl PushError {
    fn retry(message: String) -> PushError {
        PushError {
            message,
            retryable: true,
        }
    }
}

/// What every push of a run sends along.
pub struct Sender {
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub tls: Arc<ClientConfig>,
}

impl Sender {
    pub fn new(headers: Vec<(HeaderName, HeaderValue)>) -> Sender {
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Sender {
            headers,
            tls: Arc::new(config),
        }
    }

    /// POSTs `body` to `to`; a 2xx is success, 429 and 5xx may be retried
    /// as may a connection that failed, any other status may not.
    pub async fn push(
        &self,
        to: &Destination,
        content_type: &str,
        extra: &[(&str, &str)],
        body: Bytes,
    ) -> Result<(), PushError> {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(&to.path)
            .header(header::HOST, &to.authority)
            .header(header::CONTENT_TYPE, content_type)
            .header(
                header::USER_AGENT,
                concat!("loadgen/", env!("CARGO_PKG_VERSION")),
            );
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let request = request.body(Full::new(body)).map_err(|e| PushError {
            message: format!("cannot make the request: {e}"),
            retryable: false,
        })?;
        let sending = async {
            let tcp = TcpStream::connect((to.host.as_str(), to.port))
                .await
                .map_err(|e| PushError::retry(format!("cannot connect: {e}")))?;
            let _ = tcp.set_nodelay(true);
            if to.tls {
                let name = ServerName::try_from(to.host.clone()).map_err(|e| PushError {
                    message: format!("not a TLS server name: {e}"),
                    retryable: false,
                })?;
                let stream = TlsConnector::from(self.tls.clone())
                    .connect(name, tcp)
                    .await
                    .map_err(|e| PushError::retry(format!("TLS: {e}")))?;
                exchange(TokioIo::new(stream), request).await
            } else {
                exchange(TokioIo::new(tcp), request).await
            }
        };
        tokio::time::timeout(PUSH_LIMIT, sending)
            .await
            .map_err(|_| PushError::retry(format!("no answer within {}s", PUSH_LIMIT.as_secs())))?
    }
}

async fn exchange<T>(io: T, request: Request<Full<Bytes>>) -> Result<(), PushError>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| PushError::retry(format!("HTTP: {e}")))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let outcome = async {
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| PushError::retry(format!("no answer: {e}")))?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let said = response
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let said = String::from_utf8_lossy(&said[..said.len().min(200)])
            .trim()
            .to_string();
        Err(PushError {
            message: format!("answered {status}: {said}"),
            retryable: status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error(),
        })
    }
    .await;
    driver.abort();
    outcome
}
