//! `loadgen convert`: a browser's HAR recording, or a curl command line,
//! made into a scenario file for `loadgen run`. The conversion is
//! `loadgen_scenario::convert`; this reads the input and writes the file.

use crate::args::output::OutputFile;
use crate::failure::{exit, Failure};
use clap::{Args, ValueEnum};
use loadgen_scenario::convert::{self, Options};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Inputs larger than this are refused before they are read whole.
const MAX_INPUT_BYTES: u64 = 512 << 20;

#[derive(Args, Debug)]
#[command(mut_arg("output", |arg| arg.help("The scenario file to write [default: standard output]")))]
pub struct ConvertArgs {
    /// The recording (a .har file) or the file holding the curl command line; - reads standard input.
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    /// What INPUT holds.
    #[arg(long, value_enum, default_value_t = Input::Har)]
    pub from: Input,

    /// Keep requests for images, stylesheets, scripts, fonts and media as steps.
    #[arg(long = "include-assets")]
    pub include_assets: bool,

    /// Keep the recorded User-Agent header (loadgen sends its own otherwise).
    #[arg(long = "keep-user-agent")]
    pub keep_user_agent: bool,

    #[command(flatten)]
    pub output: OutputFile,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Input {
    /// A HAR 1.2 file, as browsers export it and Playwright records it.
    Har,
    /// A curl command line, as a browser's "Copy as cURL" gives it.
    Curl,
}

pub fn main(args: &ConvertArgs) -> ExitCode {
    exit(convert(args).map(|()| ExitCode::SUCCESS))
}

fn convert(args: &ConvertArgs) -> Result<(), Failure> {
    let name = if args.input == Path::new("-") {
        "standard input".to_string()
    } else {
        args.input.display().to_string()
    };
    let text =
        read_input(&args.input).map_err(|e| Failure::usage(format!("convert: {name}: {e}")))?;
    let options = Options {
        include_assets: args.include_assets,
        keep_user_agent: args.keep_user_agent,
    };
    let scenario = match args.from {
        Input::Har => convert::from_har(&text, options),
        Input::Curl => convert::from_curl(&text, options),
    }
    .map_err(|e| Failure::usage(format!("convert: {name}: {e}")))?;
    match &args.output.output {
        Some(path) => std::fs::write(path, scenario)
            .map_err(|e| Failure::run(format!("convert: cannot write {}: {e}", path.display()))),
        None => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(scenario.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(Failure::run(format!("convert: cannot write: {e}")))
                }
                _ => Ok(()),
            }
        }
    }
}

fn read_input(path: &Path) -> Result<String, String> {
    let mut bytes = Vec::new();
    let read = if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes))
    };
    read.map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!("larger than {} MiB", MAX_INPUT_BYTES >> 20));
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}
