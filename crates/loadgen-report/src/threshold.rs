//! `--threshold`: pass/fail criteria on the final report, as k6 has them.
//! `p99<250ms`, `errors<1%`, `rps>10000`: a metric, an operator (`<`, `<=`,
//! `>`, `>=`) and a value, spaces optional. Any failed threshold makes the
//! run exit 99 so CI can gate on it.
//!
//! Metrics are read from the report serialized as JSON, by field name, so a
//! threshold works on every report that has the field it names. No metric
//! names the encoded histograms; they are dropped before evaluating.

use crate::histogram_fields::omit_histograms;
use crate::units::duration_us;
use loadgen_core::duration::parse_duration;
use loadgen_core::Report;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write;

/// One parsed `--threshold`.
#[derive(Clone, Debug, PartialEq)]
pub struct Threshold {
    /// The expression without whitespace, as shown in the results: `p99<250ms`.
    pub expression: String,
    /// The metric as written, lower-cased: `p99`, `p99.9_raw`, `errors`.
    pub metric_name: String,
    metric: Metric,
    op: Op,
    limit: Limit,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Metric {
    /// A field of `request_time` (`request_time_raw` when `raw`).
    Latency { field: &'static str, raw: bool },
    /// `requests.errored`: connect, TLS, protocol and reset errors, timeouts.
    Errors,
    /// `requests.failed`: h2load's failed, 4xx/5xx responses plus errors.
    Failed,
    /// `req_per_s`.
    Rps,
    /// gRPC calls that ended with this status (`grpc.statuses`).
    Grpc { code: u16 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Limit {
    Micros(f64),
    Percent(f64),
    Count(u64),
    Rate(f64),
}

/// What a threshold found in a report.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub passed: bool,
    /// The measured value as shown: `1.23ms`, `3.10%`, `12`, `10234.56`,
    /// or `not available (…)` when the report lacks the metric.
    pub actual: String,
    /// The measured value in `unit`; `None` when not available.
    pub value: Option<f64>,
    /// `us`, `%`, `count` or `req/s`.
    pub unit: &'static str,
}

/// One entry of the report's `thresholds` array (JSON) and column (CSV).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThresholdResult {
    pub expression: String,
    pub passed: bool,
    pub actual: String,
    pub value: Option<f64>,
    pub unit: &'static str,
}

/// (metric name, `TimeStats` field) of every latency metric.
const LATENCY: &[(&str, &str)] = &[
    ("min", "min_us"),
    ("max", "max_us"),
    ("mean", "mean_us"),
    ("p50", "p50_us"),
    ("p75", "p75_us"),
    ("p90", "p90_us"),
    ("p95", "p95_us"),
    ("p99", "p99_us"),
    ("p99.9", "p99_9_us"),
];

const METRICS_HELP: &str = "min, max, mean, p50, p75, p90, p95, p99, p99.9 (each optionally with _raw), errors, failed, rps or grpc_STATUS (grpc_unavailable, grpc_14)";

/// Parses one `--threshold` value; the error is one line naming the flag and the text.
pub fn parse(text: &str) -> Result<Threshold, String> {
    let expression: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let fail = |why: &str| format!("--threshold '{}': {why}", text.trim());
    let Some(at) = expression.find(['<', '>']) else {
        return Err(fail(
            "expected METRIC OP VALUE with OP one of <, <=, >, >=, e.g. 'p99<250ms' or 'errors<1%'",
        ));
    };
    let (metric_text, rest) = expression.split_at(at);
    let (op, value) = match rest.as_bytes() {
        [b'<', b'=', ..] => (Op::Le, &rest[2..]),
        [b'>', b'=', ..] => (Op::Ge, &rest[2..]),
        [b'<', ..] => (Op::Lt, &rest[1..]),
        _ => (Op::Gt, &rest[1..]),
    };
    if metric_text.contains('=') || value.starts_with(['<', '>', '=']) {
        return Err(fail("the operator must be one of <, <=, >, >="));
    }
    if metric_text.is_empty() {
        return Err(fail(&format!(
            "missing metric before the operator; use {METRICS_HELP}"
        )));
    }
    if value.is_empty() {
        return Err(fail("missing value after the operator"));
    }
    let metric_name = metric_text.to_ascii_lowercase();
    let (base, raw) = match metric_name.strip_suffix("_raw") {
        Some(base) => (base, true),
        None => (metric_name.as_str(), false),
    };
    let metric = match base {
        "errors" => Metric::Errors,
        "failed" => Metric::Failed,
        "rps" => Metric::Rps,
        _ if base.starts_with("grpc_") => {
            let status = &base["grpc_".len()..];
            match loadgen_core::grpc::status_code(status) {
                Some(code) => Metric::Grpc { code },
                None => {
                    return Err(fail(&format!(
                        "unknown gRPC status '{status}'; use a name like grpc_unavailable or a code like grpc_14"
                    )))
                }
            }
        }
        _ => match LATENCY.iter().find(|(name, _)| *name == base) {
            Some((_, field)) => Metric::Latency { field, raw },
            None => {
                return Err(fail(&format!(
                    "unknown metric '{metric_text}'; use {METRICS_HELP}"
                )))
            }
        },
    };
    if raw && !matches!(metric, Metric::Latency { .. }) {
        return Err(fail(&format!(
            "'_raw' applies to latency metrics only, not to '{base}'"
        )));
    }
    let limit = match metric {
        Metric::Latency { .. } => Limit::Micros(parse_latency(value).map_err(|why| fail(&why))?),
        Metric::Errors | Metric::Failed | Metric::Grpc { .. } => match value.strip_suffix('%') {
            Some(number) => match plain_number(number) {
                Some(pct) if pct <= 100.0 => Limit::Percent(pct),
                _ => {
                    return Err(fail(&format!(
                        "'{value}' is not a percentage from 0% to 100%"
                    )))
                }
            },
            None => Limit::Count(value.parse().map_err(|_| {
                fail(&format!(
                    "'{value}' is neither a count like 10 nor a percentage like 1%"
                ))
            })?),
        },
        Metric::Rps => Limit::Rate(plain_number(value).ok_or_else(|| {
            fail(&format!(
                "'{value}' is not a number of requests per second like 10000"
            ))
        })?),
    };
    Ok(Threshold {
        expression,
        metric_name,
        metric,
        op,
        limit,
    })
}

/// Parses every `--threshold`, stopping at the first bad one.
pub fn parse_all(texts: &[String]) -> Result<Vec<Threshold>, String> {
    texts.iter().map(|t| parse(t)).collect()
}

/// A duration with a unit, in microseconds: a bare number is ambiguous here.
fn parse_latency(value: &str) -> Result<f64, String> {
    if !value.ends_with(|c: char| c.is_alphabetic()) {
        return Err(format!(
            "'{value}' needs a unit: a latency is a duration like 250ms, 1s or 500us"
        ));
    }
    parse_duration(value).map(|d| d.as_secs_f64() * 1e6)
}

/// Digits with at most one decimal point; no sign, exponent, `inf` or `nan`.
fn plain_number(text: &str) -> Option<f64> {
    let digits = text.bytes().filter(u8::is_ascii_digit).count();
    let dots = text.bytes().filter(|b| *b == b'.').count();
    if digits == 0 || digits + dots != text.len() || dots > 1 {
        return None;
    }
    text.parse().ok()
}

impl Threshold {
    /// Whether the threshold reads 4xx/5xx responses (`failed`); `errors`
    /// counts transport errors and timeouts only, latencies and `rps` no
    /// outcome at all.
    pub fn counts_failed_responses(&self) -> bool {
        self.metric == Metric::Failed
    }

    /// Checks the threshold against a finished run's report.
    pub fn evaluate(&self, report: &Report) -> Outcome {
        self.evaluate_json(&metrics_of(report))
    }

    /// Checks the threshold against a report serialized as JSON.
    pub fn evaluate_json(&self, report: &Value) -> Outcome {
        let number = |pointer: &str| report.pointer(pointer).and_then(Value::as_f64);
        let measured = match self.metric {
            Metric::Latency { field, raw } => {
                let section = if raw {
                    "request_time_raw"
                } else {
                    "request_time"
                };
                match (
                    number(&format!("/{section}/count")),
                    number(&format!("/{section}/{field}")),
                ) {
                    (Some(count), Some(us)) if count > 0.0 => Ok(us),
                    (Some(_), Some(_)) => Err("no response was measured".to_string()),
                    _ => Err(format!("the report has no {section}")),
                }
            }
            Metric::Errors | Metric::Failed => {
                let field = if self.metric == Metric::Errors {
                    "errored"
                } else {
                    "failed"
                };
                match (
                    number(&format!("/requests/{field}")),
                    number("/requests/total"),
                ) {
                    (Some(count), Some(total)) => Ok(match self.limit {
                        Limit::Percent(_) if total > 0.0 => count * 100.0 / total,
                        Limit::Percent(_) => 0.0,
                        _ => count,
                    }),
                    _ => Err(format!("the report has no requests.{field}")),
                }
            }
            Metric::Rps => number("/req_per_s").ok_or_else(|| "the report has no req_per_s".into()),
            Metric::Grpc { code } => {
                let name = loadgen_core::grpc::status_name(code);
                match (report.pointer("/grpc/statuses"), number("/requests/total")) {
                    (Some(statuses), Some(total)) => {
                        let count = statuses.get(&name).and_then(Value::as_f64).unwrap_or(0.0);
                        Ok(match self.limit {
                            Limit::Percent(_) if total > 0.0 => count * 100.0 / total,
                            Limit::Percent(_) => 0.0,
                            _ => count,
                        })
                    }
                    _ => Err("the report has no grpc statuses (not a gRPC run)".to_string()),
                }
            }
        };
        let unit = match self.limit {
            Limit::Micros(_) => "us",
            Limit::Percent(_) => "%",
            Limit::Count(_) => "count",
            Limit::Rate(_) => "req/s",
        };
        let value = match measured {
            Ok(value) => value,
            Err(why) => {
                return Outcome {
                    passed: false,
                    actual: format!("not available: {why}"),
                    value: None,
                    unit,
                }
            }
        };
        let (limit, actual) = match self.limit {
            Limit::Micros(limit) => (limit, duration_us(value)),
            Limit::Percent(limit) => (limit, format!("{value:.2}%")),
            Limit::Count(limit) => (limit as f64, format!("{}", value as u64)),
            Limit::Rate(limit) => (limit, format!("{value:.2}")),
        };
        let passed = match self.op {
            Op::Lt => value < limit,
            Op::Le => value <= limit,
            Op::Gt => value > limit,
            Op::Ge => value >= limit,
        };
        Outcome {
            passed,
            actual,
            value: Some(value),
            unit,
        }
    }

    pub fn result(&self, outcome: &Outcome) -> ThresholdResult {
        ThresholdResult {
            expression: self.expression.clone(),
            passed: outcome.passed,
            actual: outcome.actual.clone(),
            value: outcome.value,
            unit: outcome.unit,
        }
    }
}

/// Every threshold evaluated against `report`.
pub fn evaluate_all(thresholds: &[Threshold], report: &Report) -> Vec<(Threshold, Outcome)> {
    if thresholds.is_empty() {
        return Vec::new();
    }
    let metrics = metrics_of(report);
    thresholds
        .iter()
        .map(|t| (t.clone(), t.evaluate_json(&metrics)))
        .collect()
}

/// The report as thresholds read it: JSON, without the histograms.
fn metrics_of(report: &Report) -> Value {
    let mut value = serde_json::to_value(report).expect("a report serializes");
    omit_histograms(&mut value);
    value
}

/// The block text mode prints after the report; empty without thresholds.
pub fn render_text(results: &[(Threshold, Outcome)]) -> String {
    if results.is_empty() {
        return String::new();
    }
    let width = results
        .iter()
        .map(|(t, _)| t.expression.len())
        .max()
        .unwrap_or(0)
        .max(16);
    let mut out = String::from("\nthresholds:\n");
    for (threshold, outcome) in results {
        let verdict = if outcome.passed { "pass" } else { "FAIL" };
        let actual = match outcome.value {
            Some(_) => format!("{} = {}", threshold.metric_name, outcome.actual),
            None => format!("{} {}", threshold.metric_name, outcome.actual),
        };
        let _ = writeln!(
            out,
            "  {:width$}  {verdict}  ({actual})",
            threshold.expression
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limit_of(text: &str) -> (Metric, Op, Limit) {
        let t = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        (t.metric, t.op, t.limit)
    }

    fn latency(field: &'static str) -> Metric {
        Metric::Latency { field, raw: false }
    }

    #[test]
    fn parses_every_metric_and_operator() {
        assert_eq!(
            limit_of("p99<250ms"),
            (latency("p99_us"), Op::Lt, Limit::Micros(250_000.0))
        );
        assert_eq!(
            limit_of("p50<=20ms"),
            (latency("p50_us"), Op::Le, Limit::Micros(20_000.0))
        );
        assert_eq!(
            limit_of("mean<5ms"),
            (latency("mean_us"), Op::Lt, Limit::Micros(5_000.0))
        );
        assert_eq!(
            limit_of("max<1s"),
            (latency("max_us"), Op::Lt, Limit::Micros(1e6))
        );
        assert_eq!(
            limit_of("min>=500us"),
            (latency("min_us"), Op::Ge, Limit::Micros(500.0))
        );
        assert_eq!(
            limit_of("p99.9<300ms"),
            (latency("p99_9_us"), Op::Lt, Limit::Micros(300_000.0))
        );
        for (name, field) in LATENCY {
            assert_eq!(limit_of(&format!("{name}<1s")).0, latency(field));
        }
        assert_eq!(
            limit_of("errors<1%"),
            (Metric::Errors, Op::Lt, Limit::Percent(1.0))
        );
        assert_eq!(
            limit_of("errors<=10"),
            (Metric::Errors, Op::Le, Limit::Count(10))
        );
        assert_eq!(
            limit_of("failed<0.5%"),
            (Metric::Failed, Op::Lt, Limit::Percent(0.5))
        );
        assert_eq!(
            limit_of("rps>10000"),
            (Metric::Rps, Op::Gt, Limit::Rate(10_000.0))
        );
        assert_eq!(
            limit_of("rps>=99.5"),
            (Metric::Rps, Op::Ge, Limit::Rate(99.5))
        );
    }

    #[test]
    fn spaces_are_optional_and_dropped() {
        let t = parse("  p99 < 250 ms ").unwrap();
        assert_eq!(t.expression, "p99<250ms");
        assert_eq!(t.limit, Limit::Micros(250_000.0));
        assert_eq!(parse("errors <= 1 %").unwrap().expression, "errors<=1%");
        assert_eq!(parse("P99<1s").unwrap().metric_name, "p99");
    }

    #[test]
    fn raw_variants_of_latency() {
        let t = parse("p99_raw<100ms").unwrap();
        assert_eq!(
            t.metric,
            Metric::Latency {
                field: "p99_us",
                raw: true
            }
        );
        assert_eq!(t.metric_name, "p99_raw");
        assert!(parse("p99.9_raw<=1s").is_ok());
        assert!(parse("errors_raw<1%").unwrap_err().contains("latency"));
        assert!(parse("rps_raw>1").is_err());
    }

    #[test]
    fn bad_syntax_is_one_line_naming_the_flag_and_text() {
        let cases = [
            ("", "METRIC OP VALUE"),
            ("p99", "METRIC OP VALUE"),
            ("p99=250ms", "METRIC OP VALUE"),
            ("p99==250ms", "METRIC OP VALUE"),
            ("p99<<250ms", "operator"),
            ("p99<>250ms", "operator"),
            ("p99=<250ms", "operator"),
            ("<250ms", "missing metric"),
            ("p99<", "missing value"),
            ("p98<250ms", "unknown metric 'p98'"),
            ("latency<1s", "unknown metric"),
            ("p99<250", "needs a unit"),
            ("p99<0.5", "needs a unit"),
            ("p99<1%", "needs a unit"),
            ("p99<250xs", "unknown unit"),
            ("p99<-1ms", "invalid duration"),
            ("errors<1.5", "count"),
            ("errors<-1", "count"),
            ("errors<lots", "count"),
            ("errors<101%", "percentage"),
            ("errors<x%", "percentage"),
            ("failed<1e2%", "percentage"),
            ("rps>10k", "requests per second"),
            ("rps>1e4", "requests per second"),
            ("rps>inf", "requests per second"),
            ("rps>5%", "requests per second"),
        ];
        for (text, mention) in cases {
            let err = parse(text).expect_err(text);
            assert!(
                err.starts_with(&format!("--threshold '{}'", text.trim())),
                "{text}: {err}"
            );
            assert!(err.contains(mention), "{text}: {err}");
            assert!(!err.contains('\n'), "{text}: {err}");
        }
    }

    #[test]
    fn parse_all_stops_at_the_first_bad_one() {
        let texts = ["p99<1s".to_string(), "nope".to_string()];
        assert!(parse_all(&texts).unwrap_err().contains("'nope'"));
        assert_eq!(parse_all(&texts[..1]).unwrap().len(), 1);
    }

    fn report() -> Value {
        json!({
            "elapsed_s": 2.0,
            "requests": {"total": 1000, "errored": 31, "failed": 40},
            "req_per_s": 484.5,
            "request_time": {"count": 969, "min_us": 90, "max_us": 900_000,
                "mean_us": 1500.5, "p50_us": 1000, "p75_us": 1100, "p90_us": 1200,
                "p95_us": 1300, "p99_us": 1230, "p99_9_us": 250_000},
        })
    }

    fn check(text: &str, report: &Value) -> Outcome {
        parse(text).unwrap().evaluate_json(report)
    }

    #[test]
    fn evaluates_latency() {
        let r = report();
        let o = check("p99<250ms", &r);
        assert!(o.passed);
        assert_eq!(
            (o.actual.as_str(), o.value, o.unit),
            ("1.23ms", Some(1230.0), "us")
        );
        assert!(!check("p99<1ms", &r).passed);
        assert!(check("p99.9<=250ms", &r).passed);
        assert!(!check("p99.9<250ms", &r).passed);
        assert!(check("p99.9>=250ms", &r).passed);
        assert!(!check("p99.9>250ms", &r).passed);
        assert!(check("max<1s", &r).passed);
        assert!(check("min<100us", &r).passed);
        assert_eq!(check("mean<5ms", &r).actual, "1.50ms");
    }

    #[test]
    fn evaluates_grpc_statuses_by_name_or_code() {
        let mut r = report();
        r["grpc"] = json!({"statuses": {"OK": 960, "UNAVAILABLE": 30, "INVALID_ARGUMENT": 10}});
        let o = check("grpc_unavailable<1%", &r);
        assert!(!o.passed);
        assert_eq!((o.actual.as_str(), o.unit), ("3.00%", "%"));
        assert!(check("grpc_UNAVAILABLE<=30", &r).passed);
        assert!(check("grpc_14<=30", &r).passed);
        assert!(check("grpc_ok>=96%", &r).passed);
        assert_eq!(check("grpc_data_loss<1", &r).actual, "0");
        assert!(check("grpc_data_loss<1", &r).passed);
        let o = check("grpc_ok>1", &report());
        assert!(!o.passed);
        assert!(o.actual.contains("not a gRPC run"), "{}", o.actual);
        let err = parse("grpc_nope<1").unwrap_err();
        assert!(err.contains("unknown gRPC status 'nope'"), "{err}");
    }

    #[test]
    fn evaluates_errors_failed_and_rps() {
        let r = report();
        let o = check("errors<1%", &r);
        assert!(!o.passed);
        assert_eq!((o.actual.as_str(), o.unit), ("3.10%", "%"));
        assert!(check("errors<5%", &r).passed);
        let o = check("errors<=31", &r);
        assert!(o.passed);
        assert_eq!((o.actual.as_str(), o.unit), ("31", "count"));
        assert!(!check("errors<31", &r).passed);
        assert_eq!(check("failed<=4%", &r).actual, "4.00%");
        assert!(check("failed<=4%", &r).passed);
        assert!(!check("failed<40", &r).passed);
        let o = check("rps>10000", &r);
        assert!(!o.passed);
        assert_eq!((o.actual.as_str(), o.unit), ("484.50", "req/s"));
        assert!(check("rps>=484.5", &r).passed);
    }

    #[test]
    fn a_missing_metric_fails_as_not_available() {
        let r = report();
        let o = check("p99_raw<100ms", &r);
        assert!(!o.passed);
        assert_eq!(o.value, None);
        assert!(o.actual.starts_with("not available"), "{}", o.actual);
        let mut with_raw = report();
        with_raw["request_time_raw"] = r["request_time"].clone();
        assert!(check("p99_raw<100ms", &with_raw).passed);
        // No response at all: a latency gate must not pass on zeros.
        let mut empty = report();
        empty["request_time"]["count"] = json!(0);
        empty["request_time"]["p99_us"] = json!(0);
        let o = check("p99<250ms", &empty);
        assert!(!o.passed);
        assert!(o.actual.contains("no response"), "{}", o.actual);
    }

    #[test]
    fn histograms_do_not_change_a_verdict() {
        let mut r = report();
        let before: Vec<Outcome> = ["p99<250ms", "errors<1%", "rps>100"]
            .iter()
            .map(|t| check(t, &r))
            .collect();
        r["histograms"] =
            json!({"request_time": "HISTFAAAAB...", "request_time_raw": "HISTFAAAAC..."});
        let after: Vec<Outcome> = ["p99<250ms", "errors<1%", "rps>100"]
            .iter()
            .map(|t| check(t, &r))
            .collect();
        assert_eq!(before, after);
    }

    #[test]
    fn no_requests_due_means_no_error_rate() {
        let mut r = report();
        r["requests"] = json!({"total": 0, "errored": 0, "failed": 0});
        assert!(check("errors<1%", &r).passed);
    }

    #[test]
    fn text_block() {
        let r = report();
        let results: Vec<(Threshold, Outcome)> = ["p99<250ms", "errors<1%", "p99_raw<1s"]
            .iter()
            .map(|t| {
                let t = parse(t).unwrap();
                let o = t.evaluate_json(&r);
                (t, o)
            })
            .collect();
        assert_eq!(
            render_text(&results),
            "\nthresholds:\n\
             \x20 p99<250ms         pass  (p99 = 1.23ms)\n\
             \x20 errors<1%         FAIL  (errors = 3.10%)\n\
             \x20 p99_raw<1s        FAIL  (p99_raw not available: the report has no request_time_raw)\n"
        );
        assert_eq!(render_text(&[]), "");
    }
}
