//! `loadgen`: benchmark an HTTP server with h2load's command line
//! (`loadgen [OPTIONS] URI...`), run the built-in target (`loadgen serve`),
//! see both at work on loopback (`loadgen demo`), add up the reports of
//! several runs (`loadgen merge`), run a scenario file of steps
//! (`loadgen run`), or run parts of a distributed run
//! (`loadgen worker`; the controller is the benchmark with `--workers`).

// The options' doc comments are their `--help` text, written for a
// terminal: `HOST[:PORT]` and `<TAB>` there are not links or tags.
#[allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]
mod args;
mod commands;
mod failure;
mod pipeline;
mod resident_memory;

use args::bench::BenchArgs;
use clap::error::ErrorKind;
use clap::{Parser, Subcommand};
use commands::{completions, convert, demo, grpc, man, merge, report, run, serve, sweep, worker};
use failure::{fail, one_line};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "loadgen",
    version,
    about = "HTTP/1.1, HTTP/2, HTTP/3, gRPC and WebSocket benchmark client with h2load's command line",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub bench: BenchArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the built-in target server (HTTP/1.1 and h2c; HTTP/1.1, HTTP/2 and HTTP/3 over TLS).
    Serve(serve::ServeArgs),
    /// Benchmark the built-in target over loopback on every protocol.
    Demo(demo::DemoArgs),
    /// Run a scenario file: steps with templates, checks, extractors, cookies and redirects, under k6's executors.
    Run(run::RunArgs),
    /// Add up reports written with -o FILE.json (or --hdr-log interval logs) into one, percentiles exactly.
    Merge(merge::MergeArgs),
    /// Draw saved JSON reports as one HTML page; two or more are compared against the first.
    Report(report::ReportArgs),
    /// Run the benchmark at several loads (-c LIST, --batch, -m LIST, --rate LOW:HIGH:STEP), or find the highest rate meeting --slo.
    Sweep(Box<sweep::SweepArgs>),
    /// Call a gRPC unary method under load (h2c, HTTP/2 over TLS, HTTP/3), as ghz does, with h2load's flags.
    Grpc(Box<grpc::GrpcArgs>),
    /// Run plan segments for a controller (loadgen --workers ...) over an authenticated HTTP/JSON API.
    Worker(worker::WorkerArgs),
    /// Make a scenario file from a browser's HAR recording or a curl command line.
    Convert(convert::ConvertArgs),
    /// Print the completion script for bash, zsh, fish, elvish or powershell.
    Completions(completions::CompletionsArgs),
    /// Write man pages for loadgen and each subcommand (loadgen.1, loadgen-run.1, ...) into DIR.
    Man(man::ManArgs),
}

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
        Some(Command::Report(args)) => report::main(args),
        Some(Command::Sweep(args)) => sweep::main(args, &swept),
        Some(Command::Run(args)) => run::main(args),
        Some(Command::Grpc(args)) => grpc::main(args),
        Some(Command::Worker(args)) => match args.run() {
            Ok(()) => ExitCode::SUCCESS,
            Err((code, message)) => fail(code, &format!("worker: {message}")),
        },
        Some(Command::Convert(args)) => convert::main(args),
        Some(Command::Completions(args)) => completions::main(args),
        Some(Command::Man(args)) => man::main(args),
        None => commands::bench::main(&cli.bench),
    }
}

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

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;
    use std::collections::BTreeMap;
    use std::path::Path;

    /// Every long flag of every command, with the commands that take it.
    fn long_flags(command: &clap::Command, path: &str, into: &mut BTreeMap<String, Vec<String>>) {
        for arg in command.get_arguments() {
            if let Some(long) = arg.get_long() {
                into.entry(long.to_string())
                    .or_default()
                    .push(path.to_string());
            }
        }
        for sub in command.get_subcommands() {
            long_flags(sub, &format!("{path} {}", sub.get_name()), into);
        }
    }

    /// Where each long flag is defined in the source: a field whose
    /// `#[arg(...)]` says `long` (its name then from the field) or
    /// `long = "name"`.
    fn definitions(dir: &Path, into: &mut BTreeMap<String, Vec<String>>) {
        for entry in std::fs::read_dir(dir).expect("src is readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                definitions(&path, into);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source is readable");
            let file = syn::parse_file(&text).expect("source parses");
            let mut visitor = ArgFields {
                file: path.display().to_string(),
                into: &mut *into,
            };
            syn::visit::Visit::visit_file(&mut visitor, &file);
        }
    }

    struct ArgFields<'a> {
        file: String,
        into: &'a mut BTreeMap<String, Vec<String>>,
    }

    impl<'ast> syn::visit::Visit<'ast> for ArgFields<'_> {
        fn visit_field(&mut self, field: &'ast syn::Field) {
            for attr in field.attrs.iter().filter(|a| a.path().is_ident("arg")) {
                let mut long = None;
                attr.parse_nested_meta(|meta| {
                    let named = meta.path.is_ident("long");
                    if meta.input.peek(syn::Token![=]) {
                        let value: syn::Expr = meta.value()?.parse()?;
                        if let (true, syn::Expr::Lit(lit)) = (named, &value) {
                            if let syn::Lit::Str(name) = &lit.lit {
                                long = Some(name.value());
                            }
                        }
                    } else if named {
                        let ident = field.ident.as_ref().expect("a named field");
                        long = Some(ident.to_string().replace('_', "-"));
                    }
                    Ok(())
                })
                .expect("#[arg(...)] parses");
                if let Some(long) = long {
                    let ident = field.ident.as_ref().map(ToString::to_string);
                    self.into.entry(long).or_default().push(format!(
                        "{}: {}",
                        self.file,
                        ident.unwrap_or_default()
                    ));
                }
            }
        }
    }

    #[test]
    fn every_long_flag_is_defined_once() {
        let mut flags = BTreeMap::new();
        long_flags(&Cli::command(), "loadgen", &mut flags);
        let mut defined = BTreeMap::new();
        definitions(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut defined,
        );
        let mut wrong = Vec::new();
        for (flag, commands) in &flags {
            // clap's own.
            if flag == "help" || flag == "version" {
                continue;
            }
            match defined.get(flag).map(Vec::as_slice) {
                Some([_]) => {}
                Some(places) => wrong.push(format!(
                    "--{flag} (in {}) is defined {} times: {}",
                    commands.join(", "),
                    places.len(),
                    places.join("; ")
                )),
                None => wrong.push(format!("--{flag} is defined nowhere in src/")),
            }
        }
        assert!(
            wrong.is_empty(),
            "define a shared flag once in args/ and flatten it:\n{}",
            wrong.join("\n")
        );
        // The walk saw the shared groups in several commands.
        assert!(flags["output"].len() >= 4, "{:?}", flags["output"]);
        assert!(flags["threads"].len() >= 4, "{:?}", flags["threads"]);
    }
}
