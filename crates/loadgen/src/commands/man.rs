//! `loadgen man [DIR]`: man pages for the command and each subcommand
//! (`loadgen.1`, `loadgen-run.1`, ...), made from the clap definitions the
//! command line is parsed with, so they say what `--help` says.

use crate::failure::fail;
use crate::Cli;
use clap::{Args, CommandFactory};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ManArgs {
    /// The directory to write the pages into (made if missing).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
}

pub fn main(args: &ManArgs) -> ExitCode {
    let dir = &args.dir;
    if let Err(e) = std::fs::create_dir_all(dir) {
        return fail(1, &format!("man: cannot make {}: {e}", dir.display()));
    }
    if let Err(e) = clap_mangen::generate_to(Cli::command(), dir) {
        return fail(1, &format!("man: cannot write into {}: {e}", dir.display()));
    }
    let mut pages: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name == "loadgen.1" || name.starts_with("loadgen-") && name.ends_with(".1"))
        .collect();
    pages.sort();
    let mut stdout = std::io::stdout().lock();
    for page in pages {
        // A closed pipe (`loadgen man DIR | head -1`) ends the listing, not the command.
        if writeln!(stdout, "{}", dir.join(page).display()).is_err() {
            break;
        }
    }
    ExitCode::SUCCESS
}
