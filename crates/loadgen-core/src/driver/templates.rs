//! Requests as `http` types, for the drivers that hand requests to a crate
//! taking them in that form (HTTP/3 over `h3`).

use crate::request::RequestSpec;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};

/// Each path's request as `http` types, built once per run and cloned per
/// request by HTTP/3; building them also checks the method and headers
/// for every protocol.
pub struct RequestTemplates {
    pub(crate) per_path: Vec<Template>,
}

pub(crate) struct Template {
    pub(crate) method: Method,
    pub(crate) uri: Uri,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Option<Bytes>,
}

impl RequestTemplates {
    pub fn new(specs: &[RequestSpec], scheme: &str) -> Result<Self, String> {
        let per_path = specs
            .iter()
            .map(|spec| {
                let method = Method::from_bytes(spec.method.as_bytes()).map_err(|_| {
                    format!("--method: '{}' is not a valid HTTP method", spec.method)
                })?;
                let uri = Uri::builder()
                    .scheme(scheme)
                    .authority(spec.authority.as_str())
                    .path_and_query(spec.path.as_str())
                    .build()
                    .map_err(|e| {
                        format!(
                            "invalid request target '{}{}': {e}",
                            spec.authority, spec.path
                        )
                    })?;
                let mut headers = HeaderMap::with_capacity(spec.headers.len());
                for (name, value) in &spec.headers {
                    let name = HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| format!("-H: '{name}' is not a valid header name"))?;
                    if is_connection_specific(name.as_str()) {
                        continue;
                    }
                    let value = HeaderValue::from_str(value).map_err(|_| {
                        format!("-H: the value of '{name}' is not a valid header value")
                    })?;
                    headers.append(name, value);
                }
                Ok(Template {
                    method,
                    uri,
                    headers,
                    body: spec.body.clone(),
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(RequestTemplates { per_path })
    }
}

/// HTTP/2 and HTTP/3 forbid these.
pub(crate) fn is_connection_specific(name: &str) -> bool {
    matches!(
        name,
        "connection" | "keep-alive" | "proxy-connection" | "transfer-encoding" | "upgrade"
    )
}
