//! The flags of `loadgen serve`, and how they become the target's
//! configuration. Durations read as every other flag's.

use crate::args::scale::Threads;
use crate::args::server::{Listen, ServerTls};
use loadgen_core::duration::parse_duration;
use loadgen_target::{Fault, TargetConfig, TargetError};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Run the built-in target server until Ctrl-C or SIGTERM.
#[derive(clap::Args, Debug, Clone)]
#[command(mut_arg("listen", |arg| arg
    .help("Address for HTTP/1.1 and h2c (prior knowledge) in cleartext")
    .default_value("127.0.0.1:8080")))]
#[command(mut_arg("cert", |arg| arg.help("PEM certificate for TLS [default: a generated self-signed one]")))]
#[command(mut_arg("threads", |arg| arg.help("Worker threads (0 = one per CPU)").default_value("0")))]
pub struct ServeArgs {
    #[command(flatten)]
    pub listen: Listen,

    #[command(flatten)]
    pub tls: ServerTls,

    #[command(flatten)]
    pub threads: Threads,

    /// Address for HTTP/1.1 and HTTP/2 over TLS (chosen by ALPN), and HTTP/3 on its UDP port.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8443")]
    pub tls_listen: SocketAddr,

    /// Also serve HTTP/1.1 and h2c on this UNIX domain socket.
    #[arg(long, value_name = "PATH")]
    pub unix: Option<PathBuf>,

    /// Stall periodically: hold every response for --stall-for at the start of each period, counted from server start.
    #[arg(long, value_name = "DURATION", requires = "stall_for", value_parser = parse_duration)]
    pub stall_every: Option<Duration>,

    /// How long each periodic stall lasts (shorter than --stall-every).
    #[arg(long, value_name = "DURATION", requires = "stall_every", value_parser = parse_duration)]
    pub stall_for: Option<Duration>,

    /// Close each connection after N requests (HTTP/1.1: connection: close; HTTP/2 and HTTP/3: GOAWAY).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_requests_per_connection: Option<u64>,

    /// Serve at most R requests per second over all connections; requests beyond it wait their
    /// turn (a server of known capacity, for testing knee searches and load models).
    #[arg(long = "max-rate", value_name = "R")]
    pub max_rate: Option<f64>,

    /// Instead of the target, misbehave on purpose on --listen (cleartext only), to see what a client does with a broken server.
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with_all = ["unix", "cert", "stall_every", "max_requests_per_connection", "max_rate"]
    )]
    pub fault: Option<Fault>,
}

impl ServeArgs {
    pub fn to_config(&self) -> TargetConfig {
        TargetConfig {
            clear_addr: Some(self.listen.addr()),
            tls_addr: Some(self.tls_listen),
            unix_path: self.unix.clone(),
            cert: self.tls.cert.clone(),
            key: self.tls.key.clone(),
            threads: self.threads.threads,
            stall_every: self.stall_every,
            stall_for: self.stall_for,
            max_requests_per_connection: self.max_requests_per_connection,
            max_rate: self.max_rate,
        }
    }
}

impl ServeArgs {
    /// Serves until Ctrl-C or SIGTERM.
    pub fn run(&self) -> Result<(), TargetError> {
        match self.fault {
            Some(fault) => loadgen_target::serve_fault(fault, self.listen.addr()),
            None => loadgen_target::serve(self.to_config()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    #[test]
    fn defaults() {
        let cli = Cli::try_parse_from(["serve"]).unwrap();
        let config = cli.serve.to_config();
        assert_eq!(config.clear_addr, Some("127.0.0.1:8080".parse().unwrap()));
        assert_eq!(config.tls_addr, Some("127.0.0.1:8443".parse().unwrap()));
        assert_eq!(
            (config.unix_path, config.cert, config.threads),
            (None, None, 0)
        );
    }

    #[test]
    fn cert_and_key_go_together() {
        assert!(Cli::try_parse_from(["serve", "--cert", "c.pem"]).is_err());
        assert!(Cli::try_parse_from(["serve", "--key", "k.pem"]).is_err());
        let cli = Cli::try_parse_from(["serve", "--cert", "c.pem", "--key", "k.pem"]).unwrap();
        assert_eq!(cli.serve.tls.key, Some(PathBuf::from("k.pem")));
    }

    #[test]
    fn stall_flags_go_together() {
        assert!(Cli::try_parse_from(["serve", "--stall-every", "5s"]).is_err());
        assert!(Cli::try_parse_from(["serve", "--stall-for", "1s"]).is_err());
        assert!(
            Cli::try_parse_from(["serve", "--stall-every", "5x", "--stall-for", "1s"]).is_err()
        );
        // The same grammar as every other duration flag.
        let cli =
            Cli::try_parse_from(["serve", "--stall-every", "1m", "--stall-for", "2s"]).unwrap();
        assert_eq!(
            cli.serve.to_config().stall_every,
            Some(Duration::from_secs(60))
        );
        let cli =
            Cli::try_parse_from(["serve", "--stall-every", "5s", "--stall-for", "250ms"]).unwrap();
        let config = cli.serve.to_config();
        assert_eq!(config.stall_every, Some(Duration::from_secs(5)));
        assert_eq!(config.stall_for, Some(Duration::from_millis(250)));
        let defaults = Cli::try_parse_from(["serve"]).unwrap().serve.to_config();
        assert_eq!((defaults.stall_every, defaults.stall_for), (None, None));
    }

    #[test]
    fn max_requests_per_connection() {
        let cli = Cli::try_parse_from(["serve", "--max-requests-per-connection", "100"]).unwrap();
        assert_eq!(cli.serve.to_config().max_requests_per_connection, Some(100));
        assert!(Cli::try_parse_from(["serve", "--max-requests-per-connection", "0"]).is_err());
        let defaults = Cli::try_parse_from(["serve"]).unwrap().serve.to_config();
        assert_eq!(defaults.max_requests_per_connection, None);
    }

    #[test]
    fn a_fault_by_name() {
        let cli = Cli::try_parse_from(["serve", "--fault", "continuation-flood"]).unwrap();
        assert_eq!(cli.serve.fault, Some(Fault::ContinuationFlood));
        assert!(Cli::try_parse_from(["serve", "--fault", "no-such-fault"]).is_err());
        assert!(
            Cli::try_parse_from(["serve", "--fault", "no-settings", "--unix", "/tmp/s"]).is_err()
        );
        assert_eq!(Cli::try_parse_from(["serve"]).unwrap().serve.fault, None);
    }

    #[test]
    fn addresses_and_threads() {
        let cli = Cli::try_parse_from([
            "serve",
            "--listen",
            "[::1]:0",
            "--tls-listen",
            "0.0.0.0:9443",
            "--unix",
            "/tmp/t.sock",
            "--threads",
            "3",
        ])
        .unwrap();
        let config = cli.serve.to_config();
        assert_eq!(config.clear_addr, Some("[::1]:0".parse().unwrap()));
        assert_eq!(config.tls_addr, Some("0.0.0.0:9443".parse().unwrap()));
        assert_eq!(config.unix_path, Some(PathBuf::from("/tmp/t.sock")));
        assert_eq!(config.threads, 3);
    }
}
