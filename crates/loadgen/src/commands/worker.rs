//! `loadgen worker`: its flags, and the lines it prints before serving.
//! The worker itself is `loadgen_dist::worker`.

use crate::args::server::{Listen, ServerTls};
use crate::args::split::TokenFile;
use crate::pipeline::signals;
use clap::Args;
use loadgen_core::duration::{HumanDuration, HumanSize};
use loadgen_core::CancelHandle;
use loadgen_dist::allow::{AllowList, AllowedTarget};
use loadgen_dist::bounds::Bounds;
use loadgen_dist::token::Token;
use loadgen_dist::worker::{tls_acceptor, Worker, WorkerConfig};

/// Run plan segments for a controller (`loadgen --workers ...`) over an authenticated HTTP/JSON API.
#[derive(Args, Debug)]
#[command(mut_arg("listen", |arg| arg
    .help("Address to serve the API on, e.g. 0.0.0.0:7070; port 0 picks a free one (printed at start)")
    .required(true)))]
#[command(mut_arg("token_file", |arg| arg
    .help("The bearer token every call must carry: the first line of FILE")
    .required(true)))]
#[command(mut_arg("cert", |arg| arg.help("Serve HTTPS with this PEM certificate chain")))]
pub struct WorkerArgs {
    #[command(flatten)]
    pub listen: Listen,

    #[command(flatten)]
    pub token: TokenFile,

    #[command(flatten)]
    pub tls: ServerTls,

    /// Only load this target (repeatable): HOST or HOST:PORT where the plan's connections go
    /// (its URI, -B or --connect-to), compared as written. Without it, any target.
    #[arg(long = "allow-target", value_name = "HOST[:PORT]")]
    pub allow_target: Vec<String>,

    /// Refuse a plan whose part here has more clients (a scenario: more virtual users).
    #[arg(long = "max-clients", value_name = "N", default_value_t = Bounds::default().max_clients)]
    pub max_clients: usize,

    /// Refuse a plan with more threads (-t).
    #[arg(long = "max-threads", value_name = "N", default_value_t = Bounds::default().max_threads)]
    pub max_threads: usize,

    /// Refuse a longer -D (with its warm-up) or scenario (startTime, duration and gracefulStop);
    /// stop a run by count (-n) or a scenario after this long.
    #[arg(long = "max-duration", value_name = "DURATION", default_value_t = HumanDuration(Bounds::default().max_duration))]
    pub max_duration: HumanDuration,

    /// Refuse a larger request body (-d).
    #[arg(long = "max-body", value_name = "SIZE", default_value_t = HumanSize(Bounds::default().max_body))]
    pub max_body: HumanSize,

    /// Refuse a larger API request (the run request's JSON, a scenario file with the files it names).
    #[arg(long = "max-request", value_name = "SIZE", default_value_t = HumanSize(Bounds::default().max_request))]
    pub max_request: HumanSize,

    /// Refuse a scenario whose part here counts more iterations in advance (shared-iterations,
    /// per-vu-iterations, the arrival-rate executors' arrivals).
    #[arg(long = "max-iterations", value_name = "N", default_value_t = Bounds::default().max_iterations)]
    pub max_iterations: u64,
}

impl WorkerArgs {
    fn to_config(&self) -> Result<WorkerConfig, String> {
        let token_file = self.token.token_file.as_deref().expect("clap requires it");
        let token = Token::read(token_file)?;
        let allow = self
            .allow_target
            .iter()
            .map(|t| AllowedTarget::parse(t))
            .collect::<Result<Vec<_>, _>>()?;
        if self.max_duration.0.is_zero() {
            return Err("--max-duration: must be greater than zero".into());
        }
        Ok(WorkerConfig {
            listen: self.listen.addr(),
            token,
            tls: match (&self.tls.cert, &self.tls.key) {
                (Some(cert), Some(key)) => Some(tls_acceptor(cert, key)?),
                _ => None,
            },
            allow: AllowList::new(allow),
            bounds: Bounds {
                max_clients: self.max_clients,
                max_threads: self.max_threads,
                max_duration: self.max_duration.0,
                max_body: self.max_body.0,
                max_request: self.max_request.0,
                max_iterations: self.max_iterations,
            },
        })
    }

    /// Serves until the first SIGINT, SIGTERM or SIGHUP, watched as a run
    /// watches them (`pipeline::signals`: one burst is one stop, a later
    /// signal exits at once); a run under way is stopped and its report
    /// sent before the worker exits. The error says whether the input was
    /// at fault (exit 2) or serving failed (exit 1).
    pub fn run(&self) -> Result<(), (u8, String)> {
        let config = self.to_config().map_err(|m| (2, m))?;
        let open = config.allow.allows_any();
        let worker = Worker::bind(config).map_err(|m| (1, m))?;
        eprintln!("loadgen worker: listening on {}", worker.url());
        if open {
            eprintln!(
                "loadgen worker: no --allow-target: any target is allowed to whoever holds the token"
            );
        }
        let stop = CancelHandle::new();
        signals::watch(stop.clone()).map_err(|m| (1, m))?;
        worker.serve_until(stop).map_err(|m| (1, m))
    }
}
