//! `loadgen demo`: starts the built-in target on loopback and benchmarks it
//! over every protocol, then compares the runs in one table.

use crate::args::scale::{Clients, RunTime, Threads};
use clap::Args;
use loadgen_core::duration::HumanDuration;
use loadgen_core::plan::{Cleartext, Mode, TlsOptions, WebSocketOptions};
use loadgen_core::{PlanInput, Report};
use loadgen_report::text;
use loadgen_target::{Target, TargetConfig};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
#[command(mut_arg("duration", |arg| arg
    .help("Measured time per protocol (after a 1s warm-up)")
    .default_value("4s")))]
#[command(mut_arg("clients", |arg| arg.help("Clients per run").default_value("32")))]
#[command(mut_arg("threads", |arg| arg.help("Client worker threads").default_value("1")))]
pub struct DemoArgs {
    #[command(flatten)]
    pub run_time: RunTime,
    #[command(flatten)]
    pub clients: Clients,
    /// Concurrent streams per HTTP/2 and HTTP/3 connection, and messages in flight per WebSocket.
    #[arg(short = 'm', long, default_value_t = 10)]
    pub streams: usize,
    #[command(flatten)]
    pub threads: Threads,
}

impl DemoArgs {
    fn duration(&self) -> Duration {
        self.run_time.duration.expect("-D has a default")
    }
}

/// Unmeasured time before each protocol's measured part.
const WARM_UP: Duration = Duration::from_secs(1);

#[derive(Clone, Copy)]
enum Protocol {
    Http1,
    Http2,
    Http3,
    WebSocket,
    /// WebSocket over an HTTP/2 stream (RFC 8441).
    WebSocketHttp2,
    Grpc,
}

/// One protocol's timed run against `uri`, through the library.
fn run(args: &DemoArgs, protocol: Protocol, uri: &str) -> Result<Report, String> {
    let (alpn, cleartext, streams) = match protocol {
        Protocol::Http1 => ("http/1.1", Cleartext::Http1, 1),
        Protocol::Http2 => ("h2", Cleartext::H2c, args.streams),
        Protocol::Http3 => ("h3", Cleartext::H2c, args.streams),
        // The ws:// URI chooses the protocol; these are the defaults.
        Protocol::WebSocket | Protocol::WebSocketHttp2 => ("h2", Cleartext::H2c, args.streams),
        Protocol::Grpc => ("h2", Cleartext::H2c, args.streams),
    };
    let (method, headers, body) = match protocol {
        Protocol::Grpc => {
            let mut headers = Vec::new();
            loadgen_grpc::add_call_headers(&mut headers);
            (Some("POST".to_string()), headers, Some(echo_call()?))
        }
        _ => (None, Vec::new(), None),
    };
    let plan = PlanInput {
        method,
        headers,
        body,
        grpc: matches!(protocol, Protocol::Grpc),
        websocket: WebSocketOptions {
            http2: matches!(protocol, Protocol::WebSocketHttp2),
            ..WebSocketOptions::default()
        },
        uris: vec![uri.to_string()],
        alpn: vec![alpn.to_string()],
        cleartext,
        clients: args.clients.clients,
        threads: args.threads.threads,
        max_concurrent_streams: streams,
        mode: Mode::Duration {
            duration: args.duration(),
            warm_up: WARM_UP,
        },
        tls: TlsOptions {
            // The target's certificate is made up at start.
            insecure: true,
            ..TlsOptions::default()
        },
        ..PlanInput::default()
    }
    .build()
    .map_err(|e| e.to_string())?;
    let result = loadgen_core::run(&plan, None)?;
    Ok(Report::new(&plan, &result))
}

/// The gRPC row's message, `{"message": "hello"}`, encoded through the
/// target's own descriptors as `loadgen grpc --proto echo.proto` would.
fn echo_call() -> Result<Vec<u8>, String> {
    let pool = loadgen_grpc::DescriptorPool::decode(loadgen_target::ECHO_DESCRIPTOR_SET)
        .map_err(|e| format!("the target's descriptors: {e}"))?;
    let method = loadgen_grpc::find_method(&pool, ECHO_CALL)?;
    let message = loadgen_grpc::encode_json(&method, ECHO_MESSAGE)?;
    Ok(loadgen_grpc::frame(&message))
}

const ECHO_CALL: &str = "loadgen.echo.v1.Echo/Echo";
const ECHO_MESSAGE: &str = r#"{"message": "hello"}"#;

struct Row {
    name: &'static str,
    report: Report,
    /// Requests (WebSocket: messages) the target counted.
    served: u64,
}

pub fn main(args: &DemoArgs) -> ExitCode {
    let config = TargetConfig {
        clear_addr: Some(([127, 0, 0, 1], 0).into()),
        tls_addr: Some(([127, 0, 0, 1], 0).into()),
        ..TargetConfig::default()
    };
    let target = match Target::start(config) {
        Ok(target) => target,
        Err(e) => {
            eprintln!("loadgen: demo: cannot start the built-in target: {e}");
            return ExitCode::from(1);
        }
    };
    let clear = format!(
        "http://{}/",
        target.clear_addr().expect("clear listener configured")
    );
    let tls = format!(
        "https://{}/",
        target.tls_addr().expect("TLS listener configured")
    );
    let websocket = format!(
        "ws://{}/ws",
        target.clear_addr().expect("clear listener configured")
    );
    let grpc = format!(
        "http://{}{}",
        target.clear_addr().expect("clear listener configured"),
        loadgen_target::ECHO_GRPC_PATH
    );
    let grpc_flags = format!("-m M --call {ECHO_CALL} --reflect -d '{ECHO_MESSAGE}'",);
    // Each protocol's run, and the command line that makes the same run.
    let runs = [
        ("HTTP/1.1", Protocol::Http1, &clear, "--h1"),
        ("HTTP/1.1+TLS", Protocol::Http1, &tls, "--h1 -k"),
        ("h2c", Protocol::Http2, &clear, "-m M"),
        ("HTTP/2+TLS", Protocol::Http2, &tls, "-m M -k"),
        ("HTTP/3", Protocol::Http3, &tls, "--h3 -m M -k"),
        ("WebSocket", Protocol::WebSocket, &websocket, "-m M"),
        (
            "WebSocket/h2c",
            Protocol::WebSocketHttp2,
            &websocket,
            "-m M --ws-http2",
        ),
        ("gRPC (h2c)", Protocol::Grpc, &grpc, &grpc_flags),
    ];
    let mut rows = Vec::new();
    for (name, protocol, uri, flags) in runs {
        let flags = flags.replace("-m M", &format!("-m {}", args.streams));
        // `loadgen grpc` takes the server's URI; the path is the call's.
        let (command, shown_uri) = match protocol {
            Protocol::Grpc => (
                "loadgen grpc",
                uri.replace(loadgen_target::ECHO_GRPC_PATH, ""),
            ),
            _ => ("loadgen", uri.to_string()),
        };
        println!(
            "=== {name}: {command} -q -D {} --warm-up-time {} -c {} -t {} {flags} {shown_uri}",
            HumanDuration(args.duration()),
            HumanDuration(WARM_UP),
            args.clients.clients,
            args.threads.threads
        );
        let before = target.stats();
        let report = match run(args, protocol, uri) {
            Ok(report) => report,
            Err(message) => {
                eprintln!("loadgen: demo: {name}: {message}");
                return ExitCode::from(1);
            }
        };
        // Counts requests sent during warm-up too: the server cannot tell
        // them apart. A WebSocket row counts the messages echoed.
        let after = target.stats();
        let served = match protocol {
            Protocol::WebSocket | Protocol::WebSocketHttp2 => {
                after.websocket_messages - before.websocket_messages
            }
            _ => after.total - before.total,
        };
        println!("{}", text::render(&report));
        rows.push(Row {
            name,
            report,
            served,
        });
    }
    target.shutdown();
    print!("{}", comparison(&rows));
    ExitCode::SUCCESS
}

fn comparison(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<14} {:>12} {:>10} {:>10} {:>10} {:>10} {:>9} {:>14}\n",
        "protocol", "req/s", "MB/s", "p50", "p99", "p99.9", "errors", "server saw"
    );
    for row in rows {
        let r = &row.report;
        out.push_str(&format!(
            "{:<14} {:>12.2} {:>10.2} {:>10} {:>10} {:>10} {:>9} {:>14}\n",
            row.name,
            r.req_per_s,
            r.throughput_bytes_per_s / (1024.0 * 1024.0),
            micros(r.request_time.p50_us),
            micros(r.request_time.p99_us),
            micros(r.request_time.p99_9_us),
            r.requests.errored,
            row.served
        ));
    }
    out
}

fn micros(us: u64) -> String {
    if us >= 1000 {
        format!("{:.2}ms", us as f64 / 1000.0)
    } else {
        format!("{us}us")
    }
}
