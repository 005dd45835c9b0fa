//! Every flag of the benchmark command, in h2load's spelling, and how the
//! flags become a [`Plan`]. Flags that h2load has keep h2load's meaning;
//! the groups other commands share (outputs, the split between machines,
//! run control, -c/-t/-D) are flattened in from their own modules.

use crate::args::control::{StopGrace, Thresholds};
use crate::args::dashboard::DashboardArgs;
use crate::args::load::LoadArgs;
use crate::args::metrics::MetricsArgs;
use crate::args::output::OutputArgs;
use crate::args::plan_flags::{flag_of, Typed};
use crate::args::scale::{Clients, RunTime, Threads};
use crate::args::server_watch::ServerWatchArgs;
use crate::args::split::SplitArgs;
use clap::{Args, ValueEnum};
use loadgen_core::duration::{parse_duration, HumanDuration, HumanSize};
use loadgen_core::plan::{
    defaults, Cleartext, Http2Options, Mode, QuicOptions, Timeouts, TlsOptions, WebSocketOptions,
    WsExpect, UDP_PAYLOAD_RANGE,
};
use loadgen_core::protocols::per_call::BodyMaker;
use loadgen_core::segment::ExecutionSegment;
use loadgen_core::{Plan, PlanError, PlanInput};
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// URIs to request; scheme, host and port come from the first.
    #[arg(value_name = "URI", required_unless_present_any = ["input_file", "timing_script_file"])]
    pub uris: Vec<String>,

    #[command(flatten)]
    pub load: LoadArgs,

    #[command(flatten)]
    pub clients: Clients,

    #[command(flatten)]
    pub threads: Threads,

    #[command(flatten)]
    pub run_time: RunTime,

    /// Number of requests across all clients (ignored with -D).
    #[arg(short = 'n', long = "requests", value_name = "N")]
    pub requests: Option<u64>,

    /// Read URIs from a file, one per line ('-' for stdin); replaces URIs on the command line.
    #[arg(short = 'i', long = "input-file", value_name = "PATH")]
    pub input_file: Option<String>,

    /// Concurrent streams per HTTP/2 or HTTP/3 connection; pipelined requests per HTTP/1.1 connection.
    #[arg(
        short = 'm',
        long = "max-concurrent-streams",
        value_name = "N",
        default_value_t = defaults::MAX_CONCURRENT_STREAMS
    )]
    pub max_concurrent_streams: usize,

    /// Largest HTTP/2 frame the server may send us.
    #[arg(short = 'f', long = "max-frame-size", value_name = "SIZE", default_value_t = HumanSize(defaults::MAX_FRAME_SIZE.into()))]
    pub max_frame_size: HumanSize,

    /// HTTP/2 stream window is 2^N-1 (QUIC: N is capped at 26).
    #[arg(
        short = 'w',
        long = "window-bits",
        value_name = "N",
        default_value_t = defaults::WINDOW_BITS
    )]
    pub window_bits: u8,

    /// HTTP/2 connection window is 2^N-1 (QUIC: N is capped at 26).
    #[arg(
        short = 'W',
        long = "connection-window-bits",
        value_name = "N",
        default_value_t = defaults::WINDOW_BITS
    )]
    pub connection_window_bits: u8,

    /// Add or override a request header, as 'name: value' (repeatable).
    #[arg(short = 'H', long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,

    /// TLS 1.2 cipher suites, ':'-separated (OpenSSL or IANA names).
    #[arg(long, value_name = "SUITES")]
    pub ciphers: Option<String>,

    /// TLS 1.3 cipher suites, ':'-separated.
    #[arg(long = "tls13-ciphers", value_name = "SUITES")]
    pub tls13_ciphers: Option<String>,

    /// Key-exchange groups to offer, ':'-separated, e.g. X25519:P-256:P-384.
    #[arg(long, value_name = "GROUPS")]
    pub groups: Option<String>,

    /// Protocol for http:// URIs.
    #[arg(
        short = 'p',
        long = "no-tls-proto",
        value_name = "PROTOID",
        default_value_t = NoTlsProto::of(&defaults::CLEARTEXT)
    )]
    pub no_tls_proto: NoTlsProto,

    /// POST the content of FILE.
    #[arg(short = 'd', long = "data", value_name = "PATH")]
    pub data: Option<PathBuf>,

    /// Request method (default GET, or POST with -d).
    #[arg(long, value_name = "METHOD")]
    pub method: Option<String>,

    /// Before -D starts, send but do not record for this long.
    #[arg(long = "warm-up-time", value_name = "DURATION", value_parser = parse_duration)]
    pub warm_up_time: Option<Duration>,

    /// Close a connection after it has been open this long.
    #[arg(short = 'T', long = "connection-active-timeout", value_name = "DURATION", value_parser = parse_duration)]
    pub connection_active_timeout: Option<Duration>,

    /// Close a connection with requests in flight that saw no activity for this long.
    #[arg(short = 'N', long = "connection-inactivity-timeout", value_name = "DURATION", value_parser = parse_duration)]
    pub connection_inactivity_timeout: Option<Duration>,

    /// Give up on establishing a connection (TCP and TLS) after this long.
    #[arg(long = "connect-timeout", value_name = "DURATION", default_value_t = HumanDuration(defaults::CONNECT_TIMEOUT))]
    pub connect_timeout: HumanDuration,

    /// Count a request as timed out after this long without its full response.
    #[arg(long = "request-timeout", value_name = "DURATION", value_parser = parse_duration)]
    pub request_timeout: Option<Duration>,

    /// Take scheme, host and port from this URI, or connect to a UNIX socket with unix:PATH.
    #[arg(short = 'B', long = "base-uri", value_name = "URI")]
    pub base_uri: Option<String>,

    /// Connect to HOST[:PORT] instead of the URI's host and port; Host, :authority and SNI still come from the URI.
    #[arg(long = "connect-to", value_name = "HOST[:PORT]")]
    pub connect_to: Option<String>,

    /// ALPN protocols to offer, comma-separated, most preferred first.
    #[arg(
        long = "alpn-list",
        visible_alias = "npn-list",
        value_name = "LIST",
        default_value_t = defaults::ALPN.join(",")
    )]
    pub alpn_list: String,

    /// Force HTTP/1.1 on both http:// and https://.
    #[arg(long = "h1", conflicts_with = "h3")]
    pub h1: bool,

    /// ws:// and wss:// URIs: what each message carries, as text (see docs/websocket.md).
    #[arg(
        long = "ws-message",
        value_name = "TEXT",
        conflicts_with = "ws_message_file"
    )]
    pub ws_message: Option<String>,

    /// ws:// and wss:// URIs: each message carries the content of FILE.
    #[arg(long = "ws-message-file", value_name = "FILE")]
    pub ws_message_file: Option<PathBuf>,

    /// ws:// and wss:// URIs: send binary frames instead of text frames.
    #[arg(long = "ws-binary")]
    pub ws_binary: bool,

    /// ws:// and wss:// URIs: what ends a message's round trip: its echo (the next message
    /// received, which must equal it), or the next message of any content.
    #[arg(long = "ws-expect", value_name = "WHAT", default_value = "echo")]
    pub ws_expect: WsExpectArg,

    /// ws:// and wss:// URIs: open each WebSocket as an HTTP/2 stream (RFC 8441 extended
    /// CONNECT; h2c for ws://, ALPN h2 for wss://) instead of an HTTP/1.1 upgrade.
    #[arg(long = "ws-http2", conflicts_with_all = ["h1", "h3"])]
    pub ws_http2: bool,

    /// HTTP/3 over QUIC (same as --alpn-list h3); needs an https:// URI.
    #[arg(long = "h3")]
    pub h3: bool,

    /// HTTP/3: send one datagram per system call instead of batching them (UDP GSO).
    #[arg(long = "no-udp-gso")]
    pub no_udp_gso: bool,

    /// HTTP/3: the largest UDP datagram payload to send (1200 to 65527); path MTU discovery searches up to it.
    #[arg(long = "max-udp-payload-size", value_name = "SIZE")]
    pub max_udp_payload_size: Option<HumanSize>,

    /// HTTP/3: write each connection's qlog trace to BASE.THREAD.CLIENT.sqlog.
    #[arg(long = "qlog-file-base", value_name = "BASE")]
    pub qlog_file_base: Option<PathBuf>,

    /// With -m above 1 and no rate: before waiting on its sockets, a worker thread with
    /// requests in flight sleeps up to this long (at most 1/64 of the mean response time), so
    /// that the responses of that time are taken in one batch and the server is not made to
    /// wake the client for each (docs/performance.md); 0 turns this off. At most 1ms.
    #[arg(long = "coalesce-wakeups", value_name = "DURATION", default_value_t = HumanDuration(defaults::WAKE_COALESCING))]
    pub coalesce_wakeups: HumanDuration,

    /// HPACK decoder table size.
    #[arg(long = "header-table-size", value_name = "SIZE", default_value_t = HumanSize(defaults::HEADER_TABLE_SIZE.into()))]
    pub header_table_size: HumanSize,

    /// Do not verify the server's certificate.
    #[arg(short = 'k', long)]
    pub insecure: bool,

    /// Trust the CA certificates in this PEM file.
    #[arg(long = "tls-ca", value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,

    /// Server name for SNI and certificate checks (default: the URI's host).
    #[arg(long, value_name = "NAME")]
    pub sni: Option<String>,

    /// No progress lines on stderr.
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// Write one line per measured request to FILE: start (µs since the Unix epoch), status (-1 without a response), duration (µs), tab-separated (h2load's --log-file).
    #[arg(long = "log-file", value_name = "FILE")]
    pub log_file: Option<PathBuf>,

    /// Start the run at this wall-clock time: seconds since the Unix epoch (date +%s) or RFC 3339.
    /// Machines running parts of one run (--shard) and given the same time start together; a
    /// time already past is an error.
    #[arg(long = "start-at", value_name = "TIME", value_parser = crate::args::start_at::parse, conflicts_with = "workers")]
    pub start_at: Option<std::time::SystemTime>,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub dashboard: DashboardArgs,

    #[command(flatten)]
    pub split: SplitArgs,

    #[command(flatten)]
    pub thresholds: Thresholds,

    #[command(flatten)]
    pub stop: StopGrace,

    // Boxed: the command's arguments stay small beside the others'.
    #[command(flatten)]
    pub metrics: Box<MetricsArgs>,

    #[command(flatten)]
    pub server: ServerWatchArgs,

    /// Set by `loadgen grpc`: the call every request makes.
    #[arg(skip)]
    pub grpc_call: Option<GrpcCall>,
}

/// `--ws-expect`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum WsExpectArg {
    #[default]
    Echo,
    Any,
}

impl WsExpectArg {
    fn expect(self) -> WsExpect {
        match self {
            WsExpectArg::Echo => WsExpect::Echo,
            WsExpectArg::Any => WsExpect::Any,
        }
    }
}

/// `-p`: the cleartext protocols the command line offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NoTlsProto {
    H2c,
    #[value(name = "http/1.1")]
    Http1,
}

impl NoTlsProto {
    fn of(cleartext: &Cleartext) -> NoTlsProto {
        match cleartext {
            Cleartext::Http1 => NoTlsProto::Http1,
            _ => NoTlsProto::H2c,
        }
    }

    fn cleartext(self) -> Cleartext {
        match self {
            NoTlsProto::H2c => Cleartext::H2c,
            NoTlsProto::Http1 => Cleartext::Http1,
        }
    }
}

impl std::fmt::Display for NoTlsProto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.cleartext().name())
    }
}

/// A gRPC call as `loadgen grpc` resolved it from its flags: what every
/// request of the run carries.
#[derive(Clone, Debug)]
pub struct GrpcCall {
    /// `/package.Service/Method`.
    pub path: String,
    /// The request message, framed as gRPC frames it (with per-call
    /// messages, the first call's).
    pub body: Vec<u8>,
    /// Set when `-d` is a template: a message made for each call.
    pub per_call: Option<PerCallMessages>,
}

/// A message made for each call, shared by every connection of the run.
#[derive(Clone)]
pub struct PerCallMessages(pub Arc<dyn BodyMaker>);

impl std::fmt::Debug for PerCallMessages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PerCallMessages")
    }
}

impl BenchArgs {
    /// Reads the files the flags name and validates everything; errors are one line.
    pub fn to_plan(&self) -> Result<Plan, String> {
        self.to_plan_input()?.build().map_err(|e| self.explain(&e))
    }

    /// The plan the flags describe, before its checks.
    pub fn to_plan_input(&self) -> Result<PlanInput, String> {
        let uris = match &self.input_file {
            Some(path) => read_uri_file(path)?,
            None => self.uris.clone(),
        };
        let body = match &self.data {
            Some(path) => Some(
                std::fs::read(path)
                    .map_err(|e| format!("-d: cannot read '{}': {e}", path.display()))?,
            ),
            None => None,
        };
        let ws_message = match (&self.ws_message, &self.ws_message_file) {
            (Some(text), _) => Some(text.clone().into_bytes()),
            (None, Some(path)) => Some(std::fs::read(path).map_err(|e| {
                format!("--ws-message-file: cannot read '{}': {e}", path.display())
            })?),
            (None, None) => None,
        };
        let mode = match (self.run_time.duration, self.warm_up_time) {
            (Some(duration), warm_up) => Mode::Duration {
                duration,
                warm_up: warm_up.unwrap_or_default(),
            },
            (None, Some(_)) => {
                return Err("--warm-up-time: only applies to timing-based runs; add -D".into())
            }
            (None, None) => Mode::Requests(self.requests.unwrap_or(defaults::REQUESTS)),
        };
        let shaped = self
            .load
            .to_load(self.requests, mode, self.clients.clients)?;
        let uris = shaped.uris.unwrap_or(uris);
        let (alpn, cleartext) = if self.h1 {
            (vec!["http/1.1".to_string()], Cleartext::Http1)
        } else if self.h3 {
            (vec!["h3".to_string()], Cleartext::H2c)
        } else {
            (
                self.alpn_list.split(',').map(str::to_string).collect(),
                self.no_tls_proto.cleartext(),
            )
        };
        let mut headers: Vec<(String, String)> = self
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<_, _>>()?;
        let (uris, body, method) = match &self.grpc_call {
            Some(call) => {
                let uris = uris
                    .iter()
                    .map(|uri| loadgen_grpc::call_uri(uri, &call.path))
                    .collect::<Result<_, _>>()?;
                loadgen_grpc::add_call_headers(&mut headers);
                (uris, Some(call.body.clone()), Some("POST".to_string()))
            }
            None => (uris, body, self.method.clone()),
        };
        let segment = self.segment()?;
        let max_frame_size =
            u32::try_from(self.max_frame_size.0).map_err(|_| "-f: too large".to_string())?;
        let header_table_size = u32::try_from(self.header_table_size.0)
            .map_err(|_| "--header-table-size: too large".to_string())?;
        let max_udp_payload_size = self
            .max_udp_payload_size
            .map(|HumanSize(size)| {
                u16::try_from(size).map_err(|_| {
                    format!(
                        "--max-udp-payload-size: must be between {} and {}, got {size}",
                        UDP_PAYLOAD_RANGE.start(),
                        UDP_PAYLOAD_RANGE.end()
                    )
                })
            })
            .transpose()?;
        Ok(PlanInput {
            segment,
            uris,
            base_uri: self.base_uri.clone(),
            connect_to: self.connect_to.clone(),
            log_file: self.log_file.clone(),
            alpn,
            cleartext,
            clients: shaped.clients,
            threads: self.threads.threads,
            max_concurrent_streams: self.max_concurrent_streams,
            mode: shaped.mode,
            load: shaped.load,
            method,
            headers,
            body,
            timeouts: Timeouts {
                connect: Some(self.connect_timeout.0),
                request: self.request_timeout,
                connection_active: self.connection_active_timeout,
                connection_inactivity: self.connection_inactivity_timeout,
            },
            tls: TlsOptions {
                insecure: self.insecure,
                ca_file: self.tls_ca.clone(),
                sni: self.sni.clone(),
                ciphers: self.ciphers.clone(),
                tls13_ciphers: self.tls13_ciphers.clone(),
                groups: self.groups.clone(),
            },
            http2: Http2Options {
                window_bits: self.window_bits,
                connection_window_bits: self.connection_window_bits,
                max_frame_size,
                header_table_size,
            },
            quic: QuicOptions {
                gso: !self.no_udp_gso,
                max_udp_payload_size,
                qlog_file_base: self.qlog_file_base.clone(),
            },
            websocket: WebSocketOptions {
                message: ws_message,
                binary: self.ws_binary,
                expect: self.ws_expect.expect(),
                http2: self.ws_http2,
            },
            grpc: self.grpc_call.is_some(),
            wake_coalescing: self.coalesce_wakeups.0,
        })
    }

    /// `--execution-segment` (with its sequence) or `--shard`.
    fn segment(&self) -> Result<Option<ExecutionSegment>, String> {
        self.split.segment()
    }

    /// A plan error as one line naming the flag at fault.
    pub fn explain(&self, error: &PlanError) -> String {
        let typed = self.typed();
        error.render(|field| flag_of(field, &typed).to_string())
    }

    /// Which of two flags for one plan field was typed.
    fn typed(&self) -> Typed {
        Typed {
            h3: self.h3,
            shard: self.split.shard.is_some(),
            ws_message_file: self.ws_message_file.is_some(),
        }
    }
}

fn read_uri_file(path: &str) -> Result<Vec<String>, String> {
    let mut text = String::new();
    let result = if path == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_string(&mut text))
            .map(|_| ())
    };
    result.map_err(|e| format!("-i: cannot read '{path}': {e}"))?;
    let uris: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    if uris.is_empty() {
        return Err(format!("-i: '{path}' holds no URI"));
    }
    Ok(uris)
}

/// `name: value`; a leading ':' belongs to the name (pseudo-headers, as in h2load).
fn parse_header(text: &str) -> Result<(String, String), String> {
    let colon = text
        .get(1..)
        .and_then(|rest| rest.find(':'))
        .map(|i| i + 1)
        .ok_or_else(|| format!("-H: '{text}' is not of the form 'name: value'"))?;
    let name = text[..colon].trim();
    let value = text[colon + 1..].trim_start();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("-H: '{text}' has no valid header name"));
    }
    Ok((name.to_string(), value.to_string()))
}

/// The benchmark's flags as a command of their own, for tests.
#[cfg(test)]
#[derive(clap::Parser)]
pub(crate) struct Bench {
    #[command(flatten)]
    pub bench: BenchArgs,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse_bench<const N: usize>(argv: [&str; N]) -> Result<BenchArgs, clap::Error> {
        Bench::try_parse_from(argv).map(|b| b.bench)
    }

    #[test]
    fn headers() {
        assert_eq!(
            parse_header("X-A: b c").unwrap(),
            ("X-A".into(), "b c".into())
        );
        assert_eq!(
            parse_header(":method: PUT").unwrap(),
            (":method".into(), "PUT".into())
        );
        assert_eq!(parse_header("x:").unwrap(), ("x".into(), "".into()));
        assert!(parse_header("novalue").is_err());
        assert!(parse_header(": x").is_err());
    }

    #[test]
    fn h2load_command_lines_parse() {
        let cli = parse_bench([
            "loadgen",
            "-n",
            "100",
            "-c",
            "10",
            "-m",
            "8",
            "--h1",
            "http://a/",
        ])
        .unwrap();
        let plan = cli.to_plan().unwrap();
        assert_eq!(plan.alpn, ["http/1.1"]);
        assert_eq!(plan.cleartext, Cleartext::Http1);
        let cli = parse_bench([
            "loadgen",
            "-D",
            "10s",
            "--warm-up-time",
            "500ms",
            "--npn-list",
            "h2",
            "https://a/",
        ])
        .unwrap();
        let plan = cli.to_plan().unwrap();
        assert_eq!(
            plan.mode,
            Mode::Duration {
                duration: Duration::from_secs(10),
                warm_up: Duration::from_millis(500)
            }
        );
        assert_eq!(plan.alpn, ["h2"]);
    }

    #[test]
    fn h3_flag_and_alpn_list_select_quic() {
        let cli = parse_bench(["loadgen", "--h3", "https://a/"]).unwrap();
        let plan = cli.to_plan().unwrap();
        assert!(plan.is_quic());
        let cli = parse_bench([
            "loadgen",
            "--alpn-list",
            "h3",
            "--groups",
            "P-256",
            "https://a/",
        ])
        .unwrap();
        let plan = cli.to_plan().unwrap();
        assert!(plan.is_quic());
        assert_eq!(plan.tls.groups.as_deref(), Some("P-256"));
        assert!(parse_bench(["loadgen", "--h1", "--h3", "https://a/"]).is_err());
        let cli = parse_bench(["loadgen", "--h3", "http://a/"]).unwrap();
        assert!(cli.to_plan().unwrap_err().starts_with("--h3:"));
    }

    #[test]
    fn every_plan_field_names_a_flag_the_command_has() {
        use loadgen_core::PlanField;
        let command = <Bench as clap::CommandFactory>::command();
        let spelled: Vec<String> = command
            .get_arguments()
            .flat_map(|arg| {
                let short = arg.get_short().map(|c| format!("-{c}"));
                let long = arg.get_long().map(|l| format!("--{l}"));
                short.into_iter().chain(long)
            })
            .collect();
        let args = Bench::try_parse_from(["loadgen", "http://a/"])
            .unwrap()
            .bench;
        for field in PlanField::ALL {
            let flag = flag_of(field, &args.typed());
            if flag == "URI" {
                continue;
            }
            for part in flag.split('/') {
                assert!(
                    spelled.iter().any(|s| s == part),
                    "{field:?} maps to {part}, which loadgen does not have"
                );
            }
        }
    }
}
