//! `loadgen`: benchmark an HTTP server with h2load's command line
//! (`loadgen [OPTIONS] URI...`), run the built-in target (`loadgen serve`),
//! see both at work on loopback (`loadgen demo`), add up the reports of
//! several runs (`loadgen merge`), run a scenario file of steps
//! (`loadgen run`), or run parts of a distributed run
//! (`loadgen worker`; the controller is the benchmark with `--workers`).

mod bench;
mod cli;
mod demo;
mod distributed;
mod flags;
mod grpc_cmd;
mod grpc_messages;
mod live;
mod load_args;
mod merge;
mod one_line;
mod page_args;
mod report_output;
mod report_page;
mod scenario_cmd;
mod scenario_dist;
mod serve_args;
mod signals;
mod split_args;
mod start_at;
mod sweep;
mod worker_args;

use clap::error::ErrorKind;
use clap::Parser;
use cli::{Cli, Command};
use one_line::one_line;
use std::process::ExitCode;

// A benchmark client allocates on every request inside the HTTP/2 and HTTP/3
// libraries; mimalloc's thread-local free lists cost a fraction of glibc
// malloc's there (see docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // A sweep's swept flag keeps the benchmark's spelling with a list as
    // its value, so it is taken out before the benchmark's flags are read.
    let (argv, swept) = sweep::take_swept(std::env::args_os().collect());
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(error) => return usage_error(error),
    };
    match &cli.command {
        Some(Command::Serve(args)) => match args.run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("loadgen: serve: {}", one_line(&e.to_string()));
                // Contradictory settings are a usage error, as for the benchmark.
                let usage = matches!(e, loadgen_target::TargetError::Config(_));
                ExitCode::from(if usage { 2 } else { 1 })
            }
        },
        Some(Command::Demo(args)) => demo::main(args),
        Some(Command::Merge(args)) => merge::main(args),
        Some(Command::Report(args)) => report_page::main(args),
        Some(Command::Sweep(args)) => sweep::main(args, &swept),
        Some(Command::Run(args)) => scenario_cmd::main(args),
        Some(Command::Grpc(args)) => grpc_cmd::main(args),
        Some(Command::Worker(args)) => match args.run() {
            Ok(()) => ExitCode::SUCCESS,
            Err((code, message)) => fail(code, &format!("worker: {message}")),
        },
        None => bench::main(&cli.bench),
    }
}

/// The error contract of every command: one line on stderr, and the code.
pub(crate) fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("loadgen: {}", one_line(message));
    ExitCode::from(code)
}

/// mimalloc asks the kernel for transparent huge pages on the memory it
/// reserves (`madvise(MADV_HUGEPAGE)`), so the first small allocation in a
/// region makes 2 MiB of it resident: megabytes of a run's peak RSS for
/// nothing a load generator needs (see docs/performance.md, "Memory"). This
/// turns them off for the whole process from a constructor, which runs
/// before the Rust runtime's first allocation; from `main` it is too late
/// for the pages that allocation already faulted in.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static DISABLE_TRANSPARENT_HUGE_PAGES: extern "C" fn() = {
    extern "C" fn disable() {
        // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
        }
    }
    disable
};

/// Help and version go to stdout as usual; a usage error is one line on stderr.
fn usage_error(error: clap::Error) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        _ => {
            // clap's first paragraph, e.g. "missing argument:\n  <URI>...", as one line.
            let rendered = error.to_string();
            let paragraph: Vec<&str> = rendered
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let joined = paragraph.join(" ");
            let message = joined.strip_prefix("error: ").unwrap_or(&joined);
            eprintln!("loadgen: {message} (see loadgen --help)");
            ExitCode::from(2)
        }
    }
}
