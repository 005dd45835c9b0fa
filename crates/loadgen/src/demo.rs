//! `loadgen demo`: starts the built-in target on loopback and benchmarks it
//! over every protocol, then compares the runs in one table.

use crate::cli::Cli;
use clap::{Args, Parser};
use loadgen_core::duration::parse_duration;
use loadgen_core::Report;
use loadgen_report::text;
use loadgen_target::{Target, TargetConfig};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct DemoArgs {
    /// Measured time per protocol (after a 1s warm-up).
    #[arg(short = 'D', long, default_value = "4s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Clients per run.
    #[arg(short = 'c', long, default_value_t = 32)]
    pub clients: usize,
    /// Concurrent streams per HTTP/2 and HTTP/3 connection.
    #[arg(short = 'm', long, default_value_t = 10)]
    pub streams: usize,
    /// Client worker threads.
    #[arg(short = 't', long, default_value_t = 1)]
    pub threads: usize,
}

struct Row {
    name: &'static str,
    report: Report,
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
    let streams = args.streams.to_string();
    let runs: [(&str, Vec<&str>); 5] = [
        ("HTTP/1.1", vec!["--h1", &clear]),
        ("HTTP/1.1+TLS", vec!["--h1", "-k", &tls]),
        ("h2c", vec!["-m", &streams, &clear]),
        ("HTTP/2+TLS", vec!["-m", &streams, "-k", &tls]),
        ("HTTP/3", vec!["--h3", "-m", &streams, "-k", &tls]),
    ];
    let duration = format!("{}ms", args.duration.as_millis());
    let (clients, threads) = (args.clients.to_string(), args.threads.to_string());
    let mut rows = Vec::new();
    for (name, protocol_args) in runs {
        let mut argv = vec![
            "loadgen",
            "-q",
            "-D",
            &duration,
            "--warm-up-time",
            "1s",
            "-c",
            &clients,
            "-t",
            &threads,
        ];
        argv.extend(protocol_args);
        println!("=== {name}: loadgen {}", argv[1..].join(" "));
        let cli = Cli::try_parse_from(&argv).expect("demo arguments are valid");
        let before = target.stats().total;
        let report = match cli.bench.to_plan().and_then(|plan| {
            let result = loadgen_core::run(&plan, None)?;
            Ok(Report::new(&plan, &result))
        }) {
            Ok(report) => report,
            Err(message) => {
                eprintln!("loadgen: demo: {name}: {message}");
                return ExitCode::from(1);
            }
        };
        // Counts requests sent during warm-up too: the server cannot tell them apart.
        let served = target.stats().total - before;
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
