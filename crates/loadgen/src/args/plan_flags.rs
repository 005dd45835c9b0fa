//! How the plan's fields are spelled on this command line, so that an
//! error from the engine names the flag the user typed.

use loadgen_core::PlanField;

/// What was typed where two flags set the same plan field.
pub struct Typed {
    /// `--h3`, rather than `--alpn-list h3`.
    pub h3: bool,
    /// `--shard`, rather than `--execution-segment`.
    pub shard: bool,
    /// `--ws-message-file`, rather than `--ws-message`.
    pub ws_message_file: bool,
}

/// The flag that sets `field`, given what was typed.
pub fn flag_of(field: PlanField, typed: &Typed) -> &'static str {
    match field {
        PlanField::Uris => "URI",
        PlanField::BaseUri => "-B/--base-uri",
        PlanField::ConnectTo => "--connect-to",
        PlanField::Alpn => "--alpn-list",
        PlanField::AlpnHttp3 if typed.h3 => "--h3",
        PlanField::AlpnHttp3 => "--alpn-list",
        PlanField::Cleartext => "-p",
        PlanField::Clients => "-c",
        PlanField::Threads => "-t",
        PlanField::MaxConcurrentStreams => "-m",
        PlanField::Requests => "-n",
        PlanField::Duration => "-D",
        PlanField::Method => "--method",
        PlanField::Headers => "-H",
        PlanField::ConnectTimeout => "--connect-timeout",
        PlanField::RequestTimeout => "--request-timeout",
        PlanField::ConnectionActiveTimeout => "-T",
        PlanField::ConnectionInactivityTimeout => "-N",
        PlanField::TlsCaFile => "--tls-ca",
        PlanField::TlsSni => "--sni",
        PlanField::TlsCiphers => "--ciphers",
        PlanField::Tls13Ciphers => "--tls13-ciphers",
        PlanField::TlsGroups => "--groups",
        PlanField::WindowBits => "-w",
        PlanField::ConnectionWindowBits => "-W",
        PlanField::MaxFrameSize => "-f",
        PlanField::HeaderTableSize => "--header-table-size",
        PlanField::MaxUdpPayloadSize => "--max-udp-payload-size",
        PlanField::QlogFileBase => "--qlog-file-base",
        PlanField::Rps => "--rps",
        PlanField::Rate => "--rate",
        PlanField::Stages => "--stages",
        PlanField::TimingScript => "--timing-script-file",
        PlanField::ConnectionRate => "-r/--rate-period",
        PlanField::LogFile => "--log-file",
        PlanField::ExecutionSegment if typed.shard => "--shard",
        PlanField::ExecutionSegment => "--execution-segment",
        PlanField::ExecutionSegmentSequence => "--execution-segment-sequence",
        PlanField::WebSocketMessage if typed.ws_message_file => "--ws-message-file",
        PlanField::WebSocketMessage => "--ws-message",
        PlanField::WebSocketBinary => "--ws-binary",
        PlanField::WebSocketHttp2 => "--ws-http2",
        PlanField::WebSocketExpect => "--ws-expect",
        PlanField::WakeCoalescing => "--coalesce-wakeups",
    }
}
