//! The protocols a run can speak, and which one a connection speaks.
//!
//! [`Protocols::standard`] registers HTTP/1.1, HTTP/2 and HTTP/3; a front
//! end (or a test) adds its own with [`Protocols::with`]. A connection's
//! protocol is ALPN's choice on TLS and QUIC, or the plan's cleartext
//! protocol (h2load's `-p`) without TLS. A `ws://` or `wss://` URI asks
//! for the protocol that serves that scheme (WebSocket).

pub mod http1;
pub mod http2;
pub mod http3;
pub mod per_call;
pub mod websocket;

use crate::connection_info::ConnectError;
use crate::driver::{Prepared, Protocol};
use crate::error_kind::ErrorKind;
use crate::plan::Plan;
use crate::plan_error::{PlanError, PlanField};
use crate::request::Request;
use crate::transport::{Carrier, Link};
use std::sync::Arc;

/// The registered protocols, most used first.
#[derive(Clone)]
pub struct Protocols {
    list: Vec<Arc<dyn Protocol>>,
}

impl Default for Protocols {
    fn default() -> Self {
        Protocols::standard()
    }
}

impl Protocols {
    /// HTTP/1.1, HTTP/2, HTTP/3 and WebSocket (over HTTP/1.1 and HTTP/2).
    pub fn standard() -> Self {
        Protocols {
            list: vec![
                Arc::new(http1::Http1),
                Arc::new(http2::Http2),
                Arc::new(http3::Http3),
                Arc::new(websocket::WebSocket),
                Arc::new(websocket::WebSocketOverHttp2),
            ],
        }
    }

    /// These protocols and `protocol`.
    pub fn with(mut self, protocol: Arc<dyn Protocol>) -> Self {
        self.list.push(protocol);
        self
    }

    /// These protocols, each sending bodies `maker` makes per call
    /// ([`per_call`]) instead of the plan's one body.
    pub fn with_bodies(self, maker: Arc<dyn per_call::BodyMaker>) -> Self {
        let list = self
            .list
            .into_iter()
            .map(|inner| {
                Arc::new(per_call::WithBodies {
                    inner,
                    maker: maker.clone(),
                }) as Arc<dyn Protocol>
            })
            .collect();
        Protocols { list }
    }

    /// The protocols `plan` may speak, each readied for the run; errors
    /// are one line for the user.
    pub fn for_run(&self, plan: &Plan, requests: &[Request]) -> Result<RunProtocols, PlanError> {
        let ready = |protocol: &dyn Protocol, name: &'static str| {
            Ok::<_, PlanError>(Choice {
                alpn: protocol.alpn(),
                name,
                prepared: protocol.prepare(plan, requests)?,
            })
        };
        let alpn = plan.tls_alpn();
        let offered = |protocol: &&Arc<dyn Protocol>| alpn.iter().any(|p| p == protocol.alpn());
        let scheme = plan.endpoint.scheme;
        let serving = |protocol: &&Arc<dyn Protocol>| protocol.schemes().contains(&scheme);
        if plan.is_websocket() {
            // One protocol serves the scheme over the HTTP version asked
            // for; TLS offers only its ALPN id.
            let alpn = plan.websocket_alpn();
            let protocol = self
                .list
                .iter()
                .filter(serving)
                .find(|p| p.alpn() == alpn)
                .ok_or_else(|| {
                    PlanError::new(
                        PlanField::Uris,
                        format!("no protocol serves {}:// URIs over {alpn}", scheme.as_str()),
                    )
                })?;
            // Reports name it as the protocol, not as what ALPN said.
            let name = protocol.cleartext_name().unwrap_or(protocol.alpn());
            return Ok(RunProtocols {
                carrier: protocol.carrier(),
                negotiated: plan.is_tls(),
                fallback: Some(0),
                choices: vec![ready(protocol.as_ref(), name)?],
            });
        }
        if !plan.is_tls() {
            let name = plan.cleartext.name();
            let protocol = self
                .list
                .iter()
                .filter(serving)
                .find(|p| p.cleartext_name() == Some(name))
                .ok_or_else(|| {
                    PlanError::new(
                        PlanField::Cleartext,
                        format!("no protocol '{name}' runs without TLS"),
                    )
                })?;
            return Ok(RunProtocols {
                carrier: protocol.carrier(),
                negotiated: false,
                choices: vec![ready(
                    protocol.as_ref(),
                    protocol.cleartext_name().unwrap_or_default(),
                )?],
                fallback: None,
            });
        }
        // As in h2load, an ALPN list that starts with h3 means QUIC.
        let carrier = if plan.is_quic() {
            Carrier::Quic
        } else {
            Carrier::Stream
        };
        let choices = self
            .list
            .iter()
            .filter(|p| p.carrier() == carrier)
            .filter(serving)
            .filter(offered)
            .map(|p| ready(p.as_ref(), p.alpn()))
            .collect::<Result<Vec<_>, _>>()?;
        if choices.is_empty() {
            return Err(PlanError::new(
                PlanField::Alpn,
                format!(
                    "none of '{}' is supported; offer h3, h2 and/or http/1.1",
                    plan.alpn.join(",")
                ),
            ));
        }
        // A server that selects nothing gets HTTP/1.1 when it was offered.
        let fallback = choices.iter().position(|c| c.alpn == "http/1.1");
        Ok(RunProtocols {
            carrier,
            negotiated: true,
            choices,
            fallback,
        })
    }
}

/// One protocol a run may speak, readied for it.
struct Choice {
    alpn: &'static str,
    /// h2load's "Application protocol": the ALPN id, or the cleartext name.
    name: &'static str,
    prepared: Box<dyn Prepared>,
}

/// The protocols of one run, shared read-only by its worker threads.
pub struct RunProtocols {
    carrier: Carrier,
    /// Whether ALPN picks the protocol (TLS and QUIC), else the plan does.
    negotiated: bool,
    choices: Vec<Choice>,
    fallback: Option<usize>,
}

impl RunProtocols {
    /// What the run's connections are made of.
    pub fn carrier(&self) -> Carrier {
        self.carrier
    }

    /// The protocol a new connection speaks: its name for reports, and its
    /// readied form to open a driver with.
    pub fn choose(&self, link: &Link) -> Result<(&'static str, &dyn Prepared), ConnectError> {
        let chosen = if self.negotiated {
            let alpn = link.alpn();
            let matching = alpn
                .as_deref()
                .and_then(|alpn| self.choices.iter().position(|c| c.alpn.as_bytes() == alpn));
            match (matching, &alpn) {
                (Some(index), _) => index,
                (None, None) if self.fallback.is_some() => self.fallback.expect("checked"),
                (None, other) => {
                    return Err(ConnectError {
                        kind: ErrorKind::Tls,
                        message: format!(
                            "the server negotiated no usable protocol ({}); offer http/1.1 with --alpn-list or use --h1",
                            other
                                .as_deref()
                                .map(|p| String::from_utf8_lossy(p).into_owned())
                                .unwrap_or_else(|| "no ALPN".into())
                        ),
                    })
                }
            }
        } else {
            0
        };
        let choice = &self.choices[chosen];
        Ok((choice.name, choice.prepared.as_ref()))
    }
}
