//! Runs the target on its own, e.g.
//! `cargo run --release -p loadgen-target --example serve -- --listen 127.0.0.1:8080`.

use clap::Parser;
use loadgen_target::ServeArgs;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn main() {
    if let Err(err) = loadgen_target::serve(Cli::parse().serve) {
        eprintln!("error: {err}");
        std::process::exit(1);
    }
}
