//! The one way into the engine's connections: a plan's protocols (each
//! with its wire form of the plan's requests) and its connector (TLS or
//! QUIC configuration, the host's address), prepared once; then, for each
//! connection, connecting within `--connect-timeout` and picking the
//! protocol the connection speaks.
//!
//! A benchmark's [`crate::Run`] holds one set, a scenario one per origin,
//! gRPC reflection one for its call: every front end reaches the server
//! through here.

use crate::connection_info::{ClientId, ConnectError};
use crate::driver::Prepared;
use crate::error_kind::ErrorKind;
use crate::plan::Plan;
use crate::plan_error::PlanError;
use crate::protocols::{Protocols, RunProtocols};
use crate::request::{self, requests_of};
use crate::transport::{Carrier, Connected, Connector, SetupError};
use std::fmt;
use std::time::{Duration, Instant};

/// A plan's protocols and connector, ready to connect.
pub struct Connections {
    pub protocols: RunProtocols,
    pub connector: Connector,
}

/// Why a plan cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrepareError {
    /// The plan asks for something that cannot be done (a cipher that does
    /// not exist, a file that cannot be written): the caller's mistake.
    Invalid(PlanError),
    /// The target cannot be reached (its name does not resolve).
    Unreachable(String),
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrepareError::Invalid(error) => error.fmt(f),
            PrepareError::Unreachable(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for PrepareError {}

/// A new connection and the protocol it speaks.
pub struct Negotiated<'c> {
    pub connected: Connected,
    /// When the attempt began, DNS excluded.
    pub started: Instant,
    /// The protocol's name, for reports.
    pub protocol: &'static str,
    /// The protocol's readied form, to open a driver with.
    pub prepared: &'c dyn Prepared,
}

impl Connections {
    /// Checks the plan's requests for every protocol it may speak, readies
    /// those protocols and builds the connector.
    pub fn prepare(plan: &Plan, protocols: &Protocols) -> Result<Connections, PrepareError> {
        let requests = requests_of(plan);
        request::validate(&requests, plan.endpoint.scheme.as_str())
            .map_err(PrepareError::Invalid)?;
        let protocols = protocols
            .for_run(plan, &requests)
            .map_err(PrepareError::Invalid)?;
        let connector = Connector::new(plan, protocols.carrier()).map_err(|e| match e {
            SetupError::Config(message) => PrepareError::Invalid(message),
            SetupError::Unresolved(message) => PrepareError::Unreachable(message),
        })?;
        Ok(Connections {
            protocols,
            connector,
        })
    }

    /// What carries the connections: TCP, QUIC or nothing.
    pub fn carrier(&self) -> Carrier {
        self.protocols.carrier()
    }

    /// Makes one connection within `limit` (`--connect-timeout`) and picks
    /// its protocol. Returns it with when the attempt began, DNS excluded:
    /// h2load resolves the host once, before it starts, so its connect and
    /// first-byte times leave DNS out, and so do these.
    pub async fn connect(
        &self,
        client: ClientId,
        limit: Option<Duration>,
    ) -> Result<Negotiated<'_>, ConnectError> {
        let attempt_started = Instant::now();
        let connected = match limit {
            Some(limit) => tokio::time::timeout(limit, self.connector.connect(client))
                .await
                .unwrap_or_else(|_| {
                    Err(ConnectError {
                        kind: ErrorKind::Connect,
                        message: format!(
                            "connection not established within {limit:?} (--connect-timeout)"
                        ),
                    })
                }),
            None => self.connector.connect(client).await,
        }?;
        let started = attempt_started + connected.phases.dns.unwrap_or_default();
        let (protocol, prepared) = self.protocols.choose(&connected.link)?;
        Ok(Negotiated {
            connected,
            started,
            protocol,
            prepared,
        })
    }
}
