//! The benchmark command: flags to plan, plan to run, run to report, and
//! the exit code (2 for bad input, 1 when nothing could be done, 99 when a
//! `--threshold` failed, else 0).

use crate::cli::BenchArgs;
use crate::hdr_log::HdrLog;
use crate::live::Live;
use crate::output;
use crate::threshold;
use loadgen_core::plan::Plan;
use loadgen_core::Report;
use std::process::ExitCode;

pub fn main(args: &BenchArgs) -> ExitCode {
    let plan = match validated_plan(args) {
        Ok(plan) => plan,
        Err(message) => return fail(2, &message),
    };
    let thresholds = match threshold::parse_all(&args.thresholds) {
        Ok(thresholds) => thresholds,
        Err(message) => return fail(2, &message),
    };
    if !args.json {
        print!("{}", output::text::preamble(&plan));
    }
    let mut live = if args.quiet { None } else { Live::start(&plan) };
    let print_progress = |percent: u32| eprintln!("progress: {percent}% done");
    let progress: Option<loadgen_core::runner::ProgressFn<'_>> = if args.quiet || live.is_some() {
        None
    } else {
        Some(&print_progress)
    };
    let mut hdr_log = match args.hdr_log.as_deref().map(HdrLog::create).transpose() {
        Ok(log) => log,
        Err(message) => return fail(2, &message),
    };
    let result = loadgen_core::runner::run_observed(&plan, progress, &mut |interval| {
        if let Some(live) = &mut live {
            live.interval(interval);
        }
        if let Some(log) = &mut hdr_log {
            log.write(interval);
        }
    });
    if let Some(live) = live {
        live.finish();
    }
    let (report, log_error) = match result {
        Ok(result) => (Report::new(&plan, &result), result.log_error),
        Err(message) => {
            if let Some(log) = hdr_log {
                log.discard();
            }
            return fail(1, &message);
        }
    };
    if let Some(log) = hdr_log {
        if let Err(message) = log.finish() {
            return fail(1, &message);
        }
    }
    report_errors(&report);
    let evaluated = threshold::evaluate_all(&thresholds, &report);
    let results: Vec<_> = evaluated.iter().map(|(t, o)| t.result(o)).collect();
    let document = output::document(&report, &results);
    if args.json {
        print!("{}", output::json_pretty(&document));
    } else {
        print!("{}", output::text::render(&report));
        print!("{}", threshold::render_text(&evaluated));
    }
    if let Some(path) = &args.output {
        if let Err(message) = output::write_file(path, args.file_format(), &document) {
            return fail(1, &message);
        }
    }
    if let Some(message) = log_error {
        return fail(1, &message);
    }
    if evaluated.iter().any(|(_, outcome)| !outcome.passed) {
        ExitCode::from(99)
    } else if report.all_errored() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The plan, with the TLS settings checked too so a bad cipher name is a usage error.
pub fn validated_plan(args: &BenchArgs) -> Result<Plan, String> {
    let plan = args.to_plan()?;
    loadgen_core::tls::client_config(&plan.tls, &plan.alpn)?;
    loadgen_core::tls::server_name(&plan.tls, &plan.endpoint.host)?;
    if plan.is_quic() {
        loadgen_core::quic::QuicConnector::new(&plan)?;
    }
    if let Some(path) = &plan.log_file {
        // Only to find out that it can be written; the run makes it again.
        drop(loadgen_core::request_log::LogFile::create(path)?);
    }
    Ok(plan)
}

pub fn execute(
    plan: &Plan,
    progress: Option<loadgen_core::runner::ProgressFn<'_>>,
) -> Result<Report, String> {
    let result = loadgen_core::run(plan, progress)?;
    Ok(Report::new(plan, &result))
}

/// One line per kind of error that occurred, with the first message seen.
fn report_errors(report: &Report) {
    let e = &report.errors;
    let counts = [
        ("connect", e.connect),
        ("tls", e.tls),
        ("timeout", e.timeout),
        ("protocol", e.protocol),
        ("reset", e.reset),
        ("other", e.other),
    ];
    for (kind, count) in counts {
        if count == 0 {
            continue;
        }
        match e.first_message.get(kind) {
            Some(message) => {
                eprintln!("loadgen: {count} request(s) with {kind} errors; first: {message}")
            }
            None => eprintln!("loadgen: {count} request(s) with {kind} errors"),
        }
    }
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("loadgen: {message}");
    ExitCode::from(code)
}
