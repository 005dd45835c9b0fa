//! `-o results.xml` (`--format junit`): a run's verdicts as JUnit XML, the
//! test report format CI servers read. One `<testsuite>` per run, one
//! `<testcase>` per threshold (`--threshold` and a scenario file's) and
//! per check of each scenario step; a run with neither gets one case, its
//! responses, failed when no request got one (as the exit code 1 is).
//!
//! Read from the document `-o`'s other formats write, so a run and
//! `loadgen merge` of its reports give the same cases. The layout is the
//! Ant/Jenkins schema's (`JUnit.xsd`), which CI parsers accept: the
//! `<properties>`, `<system-out>` and `<system-err>` elements it requires,
//! a timestamp without a zone (UTC here).

use loadgen_core::report::scenario::CheckCounts;
use loadgen_core::report::RequestCounts;
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write;

/// The parts of the report the cases are made of.
#[derive(Deserialize)]
struct Run {
    loadgen_version: String,
    started_at: String,
    elapsed_s: f64,
    config: Config,
    requests: RequestCounts,
    #[serde(default)]
    interrupted: bool,
    #[serde(default)]
    thresholds: Vec<ThresholdVerdict>,
    #[serde(default)]
    scenario: Option<Scenario>,
}

#[derive(Deserialize)]
struct Config {
    uris: Vec<String>,
}

#[derive(Deserialize)]
struct Scenario {
    checks: Vec<CheckCounts>,
}

/// One entry of the document's `thresholds`.
#[derive(Deserialize)]
struct ThresholdVerdict {
    expression: String,
    passed: bool,
    actual: String,
    value: Option<f64>,
    unit: String,
}

/// What one test case found.
enum Finding {
    Passed,
    /// The criterion was measured and not met.
    Failure {
        kind: &'static str,
        message: String,
        detail: String,
    },
    /// The criterion could not be measured (a metric the report lacks).
    Error {
        kind: &'static str,
        message: String,
    },
    /// Nothing to judge: a check no response reached.
    Skipped {
        message: String,
    },
}

struct Case {
    classname: String,
    name: String,
    finding: Finding,
}

/// The JUnit document of a report as `-o` writes it (`document`);
/// `hostname` is the machine the run was made from.
pub fn render(document: &Value, hostname: &str) -> Result<String, String> {
    let run = Run::deserialize(document)
        .map_err(|e| format!("the report lacks what JUnit needs: {e}"))?;
    let cases = cases(&run);
    let count = |f: fn(&Finding) -> bool| cases.iter().filter(|c| f(&c.finding)).count();
    let failures = count(|r| matches!(r, Finding::Failure { .. }));
    let errors = count(|r| matches!(r, Finding::Error { .. }));
    let skipped = count(|r| matches!(r, Finding::Skipped { .. }));
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    let _ = writeln!(
        xml,
        "  <testsuite package=\"loadgen\" id=\"0\" name=\"{}\" timestamp=\"{}\" hostname=\"{}\" \
         tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        attribute(&suite_name(&run)),
        attribute(&timestamp(&run.started_at)),
        attribute(non_empty(hostname, "localhost")),
        cases.len(),
        run.elapsed_s.max(0.0),
    );
    xml.push_str("    <properties>\n");
    for (name, value) in properties(&run) {
        let _ = writeln!(
            xml,
            "      <property name=\"{}\" value=\"{}\"/>",
            attribute(name),
            attribute(&value)
        );
    }
    xml.push_str("    </properties>\n");
    for case in &cases {
        let _ = write!(
            xml,
            "    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
            attribute(&case.classname),
            attribute(non_empty(&case.name, "(unnamed)")),
        );
        match &case.finding {
            Finding::Passed => xml.push_str("/>\n"),
            Finding::Failure {
                kind,
                message,
                detail,
            } => {
                let _ = writeln!(
                    xml,
                    ">\n      <failure type=\"{kind}\" message=\"{}\">{}</failure>\n    </testcase>",
                    attribute(message),
                    text(detail)
                );
            }
            Finding::Error { kind, message } => {
                let _ = writeln!(
                    xml,
                    ">\n      <error type=\"{kind}\" message=\"{}\">{}</error>\n    </testcase>",
                    attribute(message),
                    text(message)
                );
            }
            Finding::Skipped { message } => {
                let _ = writeln!(
                    xml,
                    ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                    attribute(message)
                );
            }
        }
    }
    let _ = writeln!(
        xml,
        "    <system-out>{}</system-out>\n    <system-err/>\n  </testsuite>\n</testsuites>",
        text(&summary(&run))
    );
    Ok(xml)
}

fn cases(run: &Run) -> Vec<Case> {
    let mut cases: Vec<Case> = run.thresholds.iter().map(threshold_case).collect();
    let checks = run.scenario.iter().flat_map(|s| &s.checks);
    cases.extend(checks.map(check_case));
    if cases.is_empty() {
        cases.push(responses_case(&run.requests));
    }
    cases
}

fn threshold_case(verdict: &ThresholdVerdict) -> Case {
    let finding = match (verdict.passed, verdict.value) {
        (true, _) => Finding::Passed,
        (false, Some(value)) => Finding::Failure {
            kind: "threshold",
            message: format!("observed {}", verdict.actual),
            detail: format!(
                "{} not met: observed {} ({value} {})",
                verdict.expression, verdict.actual, verdict.unit
            ),
        },
        (false, None) => Finding::Error {
            kind: "threshold",
            message: format!("{}: {}", verdict.expression, verdict.actual),
        },
    };
    Case {
        classname: "thresholds".to_string(),
        name: verdict.expression.clone(),
        finding,
    }
}

fn check_case(check: &CheckCounts) -> Case {
    let evaluated = check.passes + check.fails;
    let finding = if evaluated == 0 {
        Finding::Skipped {
            message: "never evaluated: no response of the step reached the check".to_string(),
        }
    } else if check.fails == 0 {
        Finding::Passed
    } else {
        let rate = check.rate() * 100.0;
        Finding::Failure {
            kind: "check",
            message: format!("{} of {evaluated} failed", check.fails),
            detail: format!(
                "step '{}', check {}: {} passed, {} failed ({rate:.2}% passed)",
                check.step, check.name, check.passes, check.fails
            ),
        }
    };
    Case {
        classname: format!("checks.{}", check.step),
        name: check.name.clone(),
        finding,
    }
}

/// Without criteria, the run itself: it fails when no request got a
/// response, the one outcome that makes a run without thresholds exit 1.
fn responses_case(r: &RequestCounts) -> Case {
    let responses = r.succeeded + r.failed_status;
    let finding = if responses > 0 {
        Finding::Passed
    } else {
        Finding::Failure {
            kind: "run",
            message: format!(
                "no request got a response ({} started, {} errored)",
                r.started, r.errored
            ),
            detail: format!(
                "{} requests: {} started, {} done, {} errored ({} timed out)",
                r.total, r.started, r.done, r.errored, r.timeout
            ),
        }
    };
    Case {
        classname: "run".to_string(),
        name: "responses".to_string(),
        finding,
    }
}

fn suite_name(run: &Run) -> String {
    match run.config.uris.as_slice() {
        [] => "loadgen".to_string(),
        uris => format!("loadgen {}", uris.join(" ")),
    }
}

/// What CI shows beside the cases: where the run went and what it did.
fn properties(run: &Run) -> Vec<(&'static str, String)> {
    let r = &run.requests;
    let mut properties = vec![
        ("loadgen_version", run.loadgen_version.clone()),
        ("started_at", run.started_at.clone()),
    ];
    properties.extend(run.config.uris.iter().map(|uri| ("uri", uri.clone())));
    properties.extend([
        ("requests.total", r.total.to_string()),
        ("requests.succeeded", r.succeeded.to_string()),
        ("requests.failed", r.failed.to_string()),
        ("requests.errored", r.errored.to_string()),
        ("interrupted", run.interrupted.to_string()),
    ]);
    properties
}

/// Every case's verdict and observed value, passed ones included (a
/// `<testcase>` has no place for the value of a criterion it met).
fn summary(run: &Run) -> String {
    let mut out = String::new();
    for verdict in &run.thresholds {
        let shown = if verdict.passed { "pass" } else { "FAIL" };
        let _ = writeln!(out, "{}  {shown}  ({})", verdict.expression, verdict.actual);
    }
    for check in run.scenario.iter().flat_map(|s| &s.checks) {
        let _ = writeln!(
            out,
            "{}: {}  {} passed, {} failed",
            check.step, check.name, check.passes, check.fails
        );
    }
    let r = &run.requests;
    let _ = writeln!(
        out,
        "requests: {} total, {} succeeded, {} failed, {} errored",
        r.total, r.succeeded, r.failed, r.errored
    );
    out
}

/// `2026-11-22T02:14:36`: the schema's timestamp has whole seconds and no
/// zone; the report's `started_at` is UTC.
fn timestamp(started_at: &str) -> String {
    started_at
        .get(..19)
        .unwrap_or("1970-01-01T00:00:00")
        .to_string()
}

fn non_empty<'a>(text: &'a str, otherwise: &'a str) -> &'a str {
    if text.trim().is_empty() {
        otherwise
    } else {
        text
    }
}

fn attribute(value: &str) -> String {
    escape(value, true)
}

fn text(value: &str) -> String {
    escape(value, false)
}

/// XML 1.0 escaping; characters XML cannot carry at all (most control
/// characters) become U+FFFD rather than an unreadable file.
fn escape(value: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if in_attribute => out.push_str("&quot;"),
            '\n' if in_attribute => out.push_str("&#10;"),
            '\t' if in_attribute => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            '\t' | '\n' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
