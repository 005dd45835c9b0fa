//! Where requests go: one origin (scheme, host, port) is one prepared set
//! of protocols and one connector, made the first time a worker thread's
//! virtual users reach it (a redirect may lead anywhere) and kept for the
//! run. Connections to it are each virtual user's own ([`crate::lane`]).
//! An [`OriginGuard`] may refuse origins (a distributed worker's allowed
//! targets): a request to a refused origin, or a redirect that leads to
//! one, is an error of its step, and nothing is sent there.

use crate::suite::{ConnectionSettings, Suite, UrlSpec};
use loadgen_core::connections::{Connections, PrepareError};
use loadgen_core::error_kind::ErrorKind;
use loadgen_core::plan::{Plan, PlanInput, Timeouts};
use loadgen_core::protocols::Protocols;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// Says whether requests may go to an origin; the error says why not.
pub type OriginGuard = Arc<dyn Fn(&OriginKey) -> Result<(), String> + Send + Sync>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OriginKey {
    pub scheme: String,
    pub host: String,
    pub port: u16,
}

impl OriginKey {
    pub fn of(url: &url::Url) -> OriginKey {
        OriginKey {
            scheme: url.scheme().to_string(),
            host: url.host_str().unwrap_or_default().to_string(),
            port: url.port_or_known_default().unwrap_or(80),
        }
    }

    /// Whether `url` is of this origin, without making its key.
    pub fn matches(&self, url: &url::Url) -> bool {
        self.port == url.port_or_known_default().unwrap_or(80)
            && self.scheme == url.scheme()
            && self.host == url.host_str().unwrap_or_default()
    }

    /// `host[:port]` as the `Host` header and `:authority` carry it.
    pub fn authority(&self) -> String {
        let default = if self.scheme == "https" { 443 } else { 80 };
        let host = if self.host.contains(':') && !self.host.starts_with('[') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == default {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

/// The origins a suite names in advance, in the file's order: every step's
/// fixed URL, and the base URL of templated ones. (A templated URL may still
/// lead elsewhere, and so may a redirect: an [`OriginGuard`] judges those
/// when they come.)
pub fn named_origins(suite: &Suite) -> Vec<url::Url> {
    let mut named: Vec<url::Url> = Vec::new();
    for step in suite.scenarios.iter().flat_map(|s| &s.steps) {
        let url = match &step.url {
            UrlSpec::Fixed(url) => Some(url),
            UrlSpec::Templated { base, .. } => base.as_ref(),
        };
        if let Some(url) = url {
            if !named.iter().any(|n| n.origin() == url.origin()) {
                named.push(url.clone());
            }
        }
    }
    named
}

/// One origin, ready to connect to.
pub struct Origin {
    pub key: OriginKey,
    pub plan: Plan,
    pub connections: Connections,
}

/// A worker thread's origins.
pub struct Origins<'s> {
    settings: &'s ConnectionSettings,
    guard: Option<OriginGuard>,
    known: std::cell::RefCell<HashMap<OriginKey, Rc<Origin>>>,
}

impl<'s> Origins<'s> {
    pub fn new(settings: &'s ConnectionSettings, guard: Option<OriginGuard>) -> Origins<'s> {
        Origins {
            settings,
            guard,
            known: Default::default(),
        }
    }

    /// The origin of `key`, prepared the first time; the error is of the
    /// kind a request to it is counted as.
    pub fn get(&self, key: &OriginKey) -> Result<Rc<Origin>, (ErrorKind, String)> {
        if let Some(origin) = self.known.borrow().get(key) {
            return Ok(origin.clone());
        }
        if let Some(guard) = &self.guard {
            guard(key).map_err(|why| (ErrorKind::Other, why))?;
        }
        let origin = Rc::new(prepare(key, self.settings).map_err(|why| (ErrorKind::Connect, why))?);
        self.known.borrow_mut().insert(key.clone(), origin.clone());
        Ok(origin)
    }
}

/// Prepares the connections to one origin as a benchmark of it would.
pub fn prepare(key: &OriginKey, settings: &ConnectionSettings) -> Result<Origin, String> {
    let host = if key.host.contains(':') {
        format!("[{}]", key.host.trim_matches(['[', ']']))
    } else {
        key.host.clone()
    };
    let uri = format!("{}://{}:{}/", key.scheme, host, key.port);
    let plan = PlanInput {
        uris: vec![uri.clone()],
        alpn: settings.alpn.clone(),
        cleartext: settings.cleartext.clone(),
        tls: settings.tls.clone(),
        timeouts: Timeouts {
            connect: Some(settings.connect_timeout),
            ..Timeouts::default()
        },
        ..PlanInput::default()
    }
    .build()
    .map_err(|e| format!("{uri}: {e}"))?;
    let connections = Connections::prepare(&plan, &Protocols::standard()).map_err(|e| match e {
        PrepareError::Invalid(e) => format!("{uri}: {e}"),
        PrepareError::Unreachable(message) => message,
    })?;
    Ok(Origin {
        key: key.clone(),
        plan,
        connections,
    })
}
