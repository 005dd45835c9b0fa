//! Why a plan cannot run, in the plan's own words: the field at fault and
//! what is wrong with it. Front ends name the field their way (the CLI by
//! its flag, a controller by its JSON key) through [`PlanError::render`].

use std::fmt;

/// A field of the plan, by its path in the plan's JSON form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlanField {
    Uris,
    BaseUri,
    ConnectTo,
    Alpn,
    /// The ALPN list asks for HTTP/3 (it starts with `h3`).
    AlpnHttp3,
    Cleartext,
    Clients,
    Threads,
    MaxConcurrentStreams,
    Requests,
    Duration,
    Method,
    Headers,
    ConnectTimeout,
    RequestTimeout,
    ConnectionActiveTimeout,
    ConnectionInactivityTimeout,
    TlsCaFile,
    TlsSni,
    TlsCiphers,
    Tls13Ciphers,
    TlsGroups,
    WindowBits,
    ConnectionWindowBits,
    MaxFrameSize,
    HeaderTableSize,
    MaxUdpPayloadSize,
    QlogFileBase,
    Rps,
    Rate,
    Stages,
    TimingScript,
    ConnectionRate,
    LogFile,
    ExecutionSegment,
    ExecutionSegmentSequence,
    WebSocketMessage,
    WebSocketBinary,
    WebSocketExpect,
    WebSocketHttp2,
    WakeCoalescing,
}

impl PlanField {
    pub const ALL: [PlanField; 41] = [
        PlanField::Uris,
        PlanField::BaseUri,
        PlanField::ConnectTo,
        PlanField::Alpn,
        PlanField::AlpnHttp3,
        PlanField::Cleartext,
        PlanField::Clients,
        PlanField::Threads,
        PlanField::MaxConcurrentStreams,
        PlanField::Requests,
        PlanField::Duration,
        PlanField::Method,
        PlanField::Headers,
        PlanField::ConnectTimeout,
        PlanField::RequestTimeout,
        PlanField::ConnectionActiveTimeout,
        PlanField::ConnectionInactivityTimeout,
        PlanField::TlsCaFile,
        PlanField::TlsSni,
        PlanField::TlsCiphers,
        PlanField::Tls13Ciphers,
        PlanField::TlsGroups,
        PlanField::WindowBits,
        PlanField::ConnectionWindowBits,
        PlanField::MaxFrameSize,
        PlanField::HeaderTableSize,
        PlanField::MaxUdpPayloadSize,
        PlanField::QlogFileBase,
        PlanField::Rps,
        PlanField::Rate,
        PlanField::Stages,
        PlanField::TimingScript,
        PlanField::ConnectionRate,
        PlanField::LogFile,
        PlanField::ExecutionSegment,
        PlanField::ExecutionSegmentSequence,
        PlanField::WebSocketMessage,
        PlanField::WebSocketBinary,
        PlanField::WebSocketExpect,
        PlanField::WebSocketHttp2,
        PlanField::WakeCoalescing,
    ];

    /// The field's path in the plan's JSON form.
    pub fn path(self) -> &'static str {
        match self {
            PlanField::Uris => "uris",
            PlanField::BaseUri => "base_uri",
            PlanField::ConnectTo => "connect_to",
            PlanField::Alpn => "alpn",
            PlanField::AlpnHttp3 => "alpn",
            PlanField::Cleartext => "cleartext",
            PlanField::Clients => "clients",
            PlanField::Threads => "threads",
            PlanField::MaxConcurrentStreams => "max_concurrent_streams",
            PlanField::Requests => "mode.requests",
            PlanField::Duration => "mode.duration.duration",
            PlanField::Method => "method",
            PlanField::Headers => "headers",
            PlanField::ConnectTimeout => "timeouts.connect",
            PlanField::RequestTimeout => "timeouts.request",
            PlanField::ConnectionActiveTimeout => "timeouts.connection_active",
            PlanField::ConnectionInactivityTimeout => "timeouts.connection_inactivity",
            PlanField::TlsCaFile => "tls.ca_file",
            PlanField::TlsSni => "tls.sni",
            PlanField::TlsCiphers => "tls.ciphers",
            PlanField::Tls13Ciphers => "tls.tls13_ciphers",
            PlanField::TlsGroups => "tls.groups",
            PlanField::WindowBits => "http2.window_bits",
            PlanField::ConnectionWindowBits => "http2.connection_window_bits",
            PlanField::MaxFrameSize => "http2.max_frame_size",
            PlanField::HeaderTableSize => "http2.header_table_size",
            PlanField::MaxUdpPayloadSize => "quic.max_udp_payload_size",
            PlanField::QlogFileBase => "quic.qlog_file_base",
            PlanField::Rps => "load.pacing.per_client_rate.rps",
            PlanField::Rate => "load.pacing.open.profile",
            PlanField::Stages => "load.active_clients",
            PlanField::TimingScript => "load.pacing.script.offsets",
            PlanField::ConnectionRate => "load.connection_rate",
            PlanField::LogFile => "log_file",
            PlanField::ExecutionSegment => "segment",
            PlanField::ExecutionSegmentSequence => "segment.sequence",
            PlanField::WebSocketMessage => "websocket.message",
            PlanField::WebSocketBinary => "websocket.binary",
            PlanField::WebSocketExpect => "websocket.expect",
            PlanField::WebSocketHttp2 => "websocket.http2",
            PlanField::WakeCoalescing => "wake_coalescing",
        }
    }
}

/// A plan field that cannot be used, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError {
    pub field: PlanField,
    /// What is wrong, without the field's name; other fields it mentions
    /// appear as `{path}` (e.g. `{clients}`), named by [`PlanError::render`].
    pub message: String,
}

impl PlanError {
    pub fn new(field: PlanField, message: impl Into<String>) -> Self {
        PlanError {
            field,
            message: message.into(),
        }
    }

    /// One line naming every field with `name`: `FIELD: MESSAGE`.
    pub fn render(&self, name: impl Fn(PlanField) -> String) -> String {
        let mut message = self.message.clone();
        for field in PlanField::ALL {
            let placeholder = format!("{{{}}}", field.path());
            if message.contains(&placeholder) {
                message = message.replace(&placeholder, &name(field));
            }
        }
        format!("{}: {message}", name(self.field))
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(|field| field.path().to_string()))
    }
}

impl std::error::Error for PlanError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_named_by_the_front_end() {
        let error = PlanError::new(
            PlanField::Threads,
            "the number of threads (4) must not exceed the number of clients (2); raise {clients} or lower {threads}",
        );
        assert_eq!(
            error.to_string(),
            "threads: the number of threads (4) must not exceed the number of clients (2); raise clients or lower threads"
        );
        let flags = error.render(|field| match field {
            PlanField::Clients => "-c".into(),
            PlanField::Threads => "-t".into(),
            other => other.path().into(),
        });
        assert_eq!(
            flags,
            "-t: the number of threads (4) must not exceed the number of clients (2); raise -c or lower -t"
        );
    }
}
