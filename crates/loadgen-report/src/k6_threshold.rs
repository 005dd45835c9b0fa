//! Thresholds in k6's grammar, as a scenario file writes them:
//! `http_req_duration: ["p(95)<300", "avg<100"]`, with a step selector
//! `http_req_duration{step:login}`, `checks: ["rate>0.99"]`,
//! `http_req_failed: ["rate<0.01"]`. Durations are milliseconds unless a
//! unit says otherwise, as in k6. A percentile other than the report's
//! fixed ones (50, 75, 90, 95, 99, 99.9) is read from the histograms, so
//! it is exact whenever the report carries them.

use crate::threshold::{Outcome, ThresholdResult};
use crate::units::duration_us;
use loadgen_core::histogram_codec;
use loadgen_core::report::scenario::StepReport;
use loadgen_core::report::TimeStats;
use loadgen_core::Report;

/// The metrics thresholds may name, with k6's names.
const METRICS: &str = "http_req_duration, http_req_failed, http_reqs, checks, iterations, \
                       iteration_duration, dropped_iterations, data_received or data_sent";

#[derive(Clone, Debug, PartialEq)]
pub struct K6Threshold {
    /// The metric as written, selector included: `http_req_duration{step:login}`.
    pub metric: String,
    /// The expression as written, without spaces: `p(95)<300`.
    pub expression: String,
    kind: Kind,
    step: Option<String>,
    aggregate: Aggregate,
    op: Op,
    limit: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A distribution of durations: avg, min, max, med, p(N).
    HttpReqDuration,
    IterationDuration,
    /// A share: rate.
    HttpReqFailed,
    Checks,
    /// A count: count, rate (per second).
    HttpReqs,
    Iterations,
    DroppedIterations,
    DataReceived,
    DataSent,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Aggregate {
    Avg,
    Min,
    Max,
    Med,
    Percentile(f64),
    Rate,
    Count,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Parses one threshold: `metric` (with an optional `{step:NAME}`) and one of its expressions.
pub fn parse(metric: &str, expression: &str) -> Result<K6Threshold, String> {
    let metric = metric.trim();
    let (name, step) = match metric.split_once('{') {
        Some((name, selector)) => {
            let selector = selector
                .strip_suffix('}')
                .ok_or_else(|| format!("'{metric}': a selector ends with '}}'"))?;
            let (key, value) = selector
                .split_once(':')
                .ok_or_else(|| format!("'{metric}': a selector is {{step:NAME}}"))?;
            if key.trim() != "step" {
                return Err(format!("'{metric}': the only selector is {{step:NAME}}"));
            }
            (name.trim(), Some(value.trim().to_string()))
        }
        None => (metric, None),
    };
    let kind = match name {
        "http_req_duration" => Kind::HttpReqDuration,
        "iteration_duration" => Kind::IterationDuration,
        "http_req_failed" => Kind::HttpReqFailed,
        "checks" => Kind::Checks,
        "http_reqs" => Kind::HttpReqs,
        "iterations" => Kind::Iterations,
        "dropped_iterations" => Kind::DroppedIterations,
        "data_received" => Kind::DataReceived,
        "data_sent" => Kind::DataSent,
        other => return Err(format!("unknown metric '{other}': use {METRICS}")),
    };
    if step.is_some()
        && !matches!(
            kind,
            Kind::HttpReqDuration | Kind::HttpReqFailed | Kind::HttpReqs | Kind::Checks
        )
    {
        return Err(format!(
            "'{metric}': {{step:NAME}} applies to http_req_duration, http_req_failed, http_reqs and checks"
        ));
    }
    let compact: String = expression.chars().filter(|c| !c.is_whitespace()).collect();
    let bad = |why: &str| format!("'{metric}': '{expression}': {why}");
    let at = compact
        .find(['<', '>', '=', '!'])
        .ok_or_else(|| bad("expected AGGREGATE OP VALUE, as in p(95)<300 or rate<0.01"))?;
    let (aggregate_text, rest) = compact.split_at(at);
    let (op, value) = match rest.as_bytes() {
        [b'<', b'=', ..] => (Op::Le, &rest[2..]),
        [b'>', b'=', ..] => (Op::Ge, &rest[2..]),
        [b'=', b'=', ..] => (Op::Eq, &rest[2..]),
        [b'!', b'=', ..] => (Op::Ne, &rest[2..]),
        [b'<', ..] => (Op::Lt, &rest[1..]),
        [b'>', ..] => (Op::Gt, &rest[1..]),
        _ => return Err(bad("the operator is one of <, <=, >, >=, ==, !=")),
    };
    let aggregate = match aggregate_text {
        "avg" => Aggregate::Avg,
        "min" => Aggregate::Min,
        "max" => Aggregate::Max,
        "med" => Aggregate::Med,
        "rate" => Aggregate::Rate,
        "count" => Aggregate::Count,
        p if p.starts_with("p(") && p.ends_with(')') => {
            let n: f64 = p[2..p.len() - 1]
                .parse()
                .ok()
                .filter(|n: &f64| (0.0..=100.0).contains(n))
                .ok_or_else(|| bad("a percentile is p(N) with N from 0 to 100"))?;
            Aggregate::Percentile(n)
        }
        other => return Err(bad(&format!("unknown aggregation '{other}'"))),
    };
    let is_trend = matches!(kind, Kind::HttpReqDuration | Kind::IterationDuration);
    let is_rate = matches!(kind, Kind::HttpReqFailed | Kind::Checks);
    let allowed = match aggregate {
        Aggregate::Avg
        | Aggregate::Min
        | Aggregate::Max
        | Aggregate::Med
        | Aggregate::Percentile(_) => is_trend,
        Aggregate::Rate => !is_trend,
        Aggregate::Count => !is_trend && !is_rate,
    };
    if !allowed {
        let which = if is_trend {
            "avg, min, max, med or p(N)"
        } else if is_rate {
            "rate"
        } else {
            "count or rate"
        };
        return Err(bad(&format!("{name} takes {which}")));
    }
    let limit = if is_trend {
        duration_ms(value).ok_or_else(|| {
            bad("expected a duration in milliseconds, or with a unit (300, 1.5s, 500ms)")
        })?
    } else {
        value
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad("expected a number"))?
    };
    Ok(K6Threshold {
        metric: metric.to_string(),
        expression: compact,
        kind,
        step,
        aggregate,
        op,
        limit,
    })
}

/// A duration in milliseconds: a bare number is milliseconds, as in k6.
fn duration_ms(text: &str) -> Option<f64> {
    if let Ok(ms) = text.parse::<f64>() {
        return ms.is_finite().then_some(ms);
    }
    loadgen_core::duration::parse_duration(text)
        .ok()
        .map(|d| d.as_secs_f64() * 1e3)
}

impl K6Threshold {
    /// `metric: expression`, as the results show it.
    pub fn name(&self) -> String {
        format!("{}: {}", self.metric, self.expression)
    }

    /// Whether a run's one-second windows hold what it measures, so that
    /// a live view can judge it before the end: the requests' durations
    /// (a step's too), failures and count. Checks, iterations and bytes,
    /// and a step's failures and count, are only in the finished report.
    pub fn reads_seconds(&self) -> bool {
        match self.kind {
            Kind::HttpReqDuration => true,
            Kind::HttpReqFailed | Kind::HttpReqs => self.step.is_none(),
            Kind::IterationDuration
            | Kind::Checks
            | Kind::Iterations
            | Kind::DroppedIterations
            | Kind::DataReceived
            | Kind::DataSent => false,
        }
    }

    pub fn evaluate(&self, report: &Report) -> Outcome {
        match self.measure(report) {
            Ok((value, shown, unit)) => {
                let passed = match self.op {
                    Op::Lt => value < self.limit,
                    Op::Le => value <= self.limit,
                    Op::Gt => value > self.limit,
                    Op::Ge => value >= self.limit,
                    Op::Eq => value == self.limit,
                    Op::Ne => value != self.limit,
                };
                Outcome {
                    passed,
                    actual: shown,
                    value: Some(value),
                    unit,
                }
            }
            Err(why) => Outcome {
                passed: false,
                actual: format!("not available: {why}"),
                value: None,
                unit: "",
            },
        }
    }

    pub fn result(&self, outcome: &Outcome) -> ThresholdResult {
        ThresholdResult {
            expression: self.name(),
            passed: outcome.passed,
            actual: outcome.actual.clone(),
            value: outcome.value,
            unit: outcome.unit,
        }
    }

    /// The measured value in the threshold's unit, as shown, and the unit.
    fn measure(&self, report: &Report) -> Result<(f64, String, &'static str), String> {
        let scenario = report.scenario.as_ref();
        let step = match &self.step {
            Some(name) => Some(
                scenario
                    .and_then(|s| s.steps.iter().find(|st| st.name == *name))
                    .ok_or_else(|| format!("no step named '{name}'"))?,
            ),
            None => None,
        };
        let per_second = |count: f64| {
            if report.elapsed_s > 0.0 {
                count / report.elapsed_s
            } else {
                0.0
            }
        };
        let count_or_rate = |count: u64| match self.aggregate {
            Aggregate::Count => (count as f64, count.to_string(), "count"),
            _ => {
                let rate = per_second(count as f64);
                (rate, format!("{rate:.2}/s"), "/s")
            }
        };
        let share = |part: u64, whole: u64| {
            let rate = if whole == 0 {
                0.0
            } else {
                part as f64 / whole as f64
            };
            (rate, format!("{:.2}%", rate * 100.0), "rate")
        };
        Ok(match self.kind {
            Kind::HttpReqDuration => {
                let (stats, encoded) = match step {
                    Some(step) => (&step.duration, step_histogram(step)),
                    None => (
                        &report.request_time,
                        report.histograms.as_ref().map(|h| h.request_time.as_str()),
                    ),
                };
                self.trend(stats, encoded)?
            }
            Kind::IterationDuration => {
                let scenario = scenario.ok_or("not a scenario run")?;
                let encoded = scenario
                    .histograms
                    .as_ref()
                    .map(|h| h.iteration_duration.as_str());
                self.trend(&scenario.iteration_duration, encoded)?
            }
            Kind::HttpReqFailed => match step {
                Some(step) => share(step.requests.failed, step.requests.total),
                None => share(report.requests.failed, report.requests.total),
            },
            Kind::Checks => {
                let scenario = scenario.ok_or("not a scenario run")?;
                let (passes, fails) = scenario
                    .checks
                    .iter()
                    .filter(|c| self.step.as_ref().is_none_or(|s| *s == c.step))
                    .fold((0, 0), |(p, f), c| (p + c.passes, f + c.fails));
                share(passes, passes + fails)
            }
            Kind::HttpReqs => count_or_rate(match step {
                Some(step) => step.requests.done,
                None => report.requests.done,
            }),
            Kind::Iterations => {
                count_or_rate(scenario.ok_or("not a scenario run")?.iterations.completed)
            }
            Kind::DroppedIterations => {
                count_or_rate(scenario.ok_or("not a scenario run")?.iterations.dropped)
            }
            Kind::DataReceived => count_or_rate(report.bytes.total),
            Kind::DataSent => count_or_rate(report.bytes.sent),
        })
    }

    fn trend(
        &self,
        stats: &TimeStats,
        encoded: Option<&str>,
    ) -> Result<(f64, String, &'static str), String> {
        if stats.count == 0 {
            return Err("nothing was measured".into());
        }
        let us = match self.aggregate {
            Aggregate::Avg => stats.mean_us,
            Aggregate::Min => stats.min_us as f64,
            Aggregate::Max => stats.max_us as f64,
            Aggregate::Med => stats.p50_us as f64,
            Aggregate::Percentile(p) => match encoded.and_then(|e| histogram_codec::decode(e).ok()) {
                Some(histogram) => histogram.value_at_quantile(p / 100.0) as f64,
                None => fixed_percentile(stats, p).ok_or_else(|| {
                    format!("p({p}) needs the report's histograms; without them use p(50), p(75), p(90), p(95), p(99) or p(99.9)")
                })?,
            },
            Aggregate::Rate | Aggregate::Count => unreachable!("checked when parsed"),
        };
        Ok((us / 1e3, duration_us(us), "ms"))
    }
}

fn step_histogram(step: &StepReport) -> Option<&str> {
    step.histograms.as_ref().map(|h| h.duration.as_str())
}

fn fixed_percentile(stats: &TimeStats, p: f64) -> Option<f64> {
    let fixed = [
        (50.0, stats.p50_us),
        (75.0, stats.p75_us),
        (90.0, stats.p90_us),
        (95.0, stats.p95_us),
        (99.0, stats.p99_us),
        (99.9, stats.p99_9_us),
    ];
    fixed
        .iter()
        .find(|(q, _)| *q == p)
        .map(|(_, us)| *us as f64)
}

/// Every threshold of a scenario file, parsed; the first bad one is the error.
pub fn parse_all(thresholds: &[(String, Vec<String>)]) -> Result<Vec<K6Threshold>, String> {
    thresholds
        .iter()
        .flat_map(|(metric, expressions)| expressions.iter().map(move |e| parse(metric, e)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k6_expressions() {
        let t = parse("http_req_duration{step:login}", "p(95) < 300").unwrap();
        assert_eq!(
            (t.step.as_deref(), t.aggregate, t.op, t.limit),
            (Some("login"), Aggregate::Percentile(95.0), Op::Lt, 300.0)
        );
        assert_eq!(t.name(), "http_req_duration{step:login}: p(95)<300");
        assert_eq!(
            parse("http_req_duration", "avg<1.5s").unwrap().limit,
            1500.0
        );
        assert_eq!(
            parse("checks", "rate>0.99").unwrap().aggregate,
            Aggregate::Rate
        );
        assert_eq!(parse("http_reqs", "count>=100").unwrap().op, Op::Ge);
    }

    #[test]
    fn refuses_what_k6_refuses() {
        for (metric, expression) in [
            ("http_req_duration", "rate<1"),
            ("checks", "p(95)<1"),
            ("checks", "count>1"),
            ("http_reqs", "avg<1"),
            ("nope", "rate<1"),
            ("iterations{step:x}", "count>1"),
            ("http_req_duration{scenario:x}", "avg<1"),
            ("http_req_duration", "p(101)<1"),
            ("http_req_duration", "p95<1"),
            ("http_req_duration", "avg 1"),
        ] {
            assert!(parse(metric, expression).is_err(), "{metric}: {expression}");
        }
    }
}
