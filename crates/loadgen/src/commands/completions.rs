//! `loadgen completions SHELL`: the shell's completion script, made from
//! the same clap definitions the command line is parsed with, so it offers
//! every flag and subcommand there is and no other.

use crate::Cli;
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use std::io::Write;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

pub fn main(args: &CompletionsArgs) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "loadgen", &mut script);
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&script).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`loadgen completions bash | head`) is not worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => crate::failure::fail(1, &format!("completions: cannot write: {e}")),
    }
}
