//! Each executor's options, with k6's names, defaults and rules.

use crate::duration;
use crate::error::{Blame, ScenarioError};
use crate::file::model::{Scenario, Stage as StageText};
use loadgen_core::profile::{Profile, Stage};
use marked_yaml::Spanned;
use std::time::Duration;

/// k6's default `maxDuration` of the iteration-count executors.
pub const DEFAULT_MAX_DURATION: Duration = Duration::from_secs(600);
/// k6's default `gracefulStop` and `gracefulRampDown`.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(30);

#[derive(Clone, Debug, PartialEq)]
pub enum ExecutorSpec {
    /// `vus` share `iterations` between them.
    SharedIterations {
        vus: u64,
        iterations: u64,
        max_duration: Duration,
    },
    /// Each of `vus` runs `iterations`.
    PerVuIterations {
        vus: u64,
        iterations: u64,
        max_duration: Duration,
    },
    /// `vus` loop for `duration`.
    ConstantVus { vus: u64, duration: Duration },
    /// The number of looping virtual users follows `stages` from `start_vus`.
    RampingVus {
        start_vus: u64,
        stages: Vec<Stage>,
        graceful_ramp_down: Duration,
    },
    /// Iterations start at `rate` per second for `duration`.
    ConstantArrivalRate {
        rate: f64,
        duration: Duration,
        pre_allocated_vus: u64,
        max_vus: u64,
    },
    /// Iterations start at a rate per second that follows `stages` from `start_rate`.
    RampingArrivalRate {
        start_rate: f64,
        stages: Vec<Stage>,
        pre_allocated_vus: u64,
        max_vus: u64,
    },
}

impl ExecutorSpec {
    pub fn name(&self) -> &'static str {
        match self {
            ExecutorSpec::SharedIterations { .. } => "shared-iterations",
            ExecutorSpec::PerVuIterations { .. } => "per-vu-iterations",
            ExecutorSpec::ConstantVus { .. } => "constant-vus",
            ExecutorSpec::RampingVus { .. } => "ramping-vus",
            ExecutorSpec::ConstantArrivalRate { .. } => "constant-arrival-rate",
            ExecutorSpec::RampingArrivalRate { .. } => "ramping-arrival-rate",
        }
    }

    /// The most virtual users it may have at once.
    pub fn max_vus(&self) -> u64 {
        match self {
            ExecutorSpec::SharedIterations { vus, .. }
            | ExecutorSpec::PerVuIterations { vus, .. }
            | ExecutorSpec::ConstantVus { vus, .. } => *vus,
            ExecutorSpec::RampingVus {
                start_vus, stages, ..
            } => stages
                .iter()
                .map(|s| s.target.ceil() as u64)
                .fold(*start_vus, u64::max),
            ExecutorSpec::ConstantArrivalRate { max_vus, .. }
            | ExecutorSpec::RampingArrivalRate { max_vus, .. } => *max_vus,
        }
    }

    /// The schedule of an arrival-rate executor: iterations per second over
    /// time, whose integral's k-th unit is arrival k's time.
    pub fn arrival_profile(&self) -> Option<Profile> {
        match self {
            ExecutorSpec::ConstantArrivalRate { rate, .. } => Some(Profile::constant(*rate)),
            ExecutorSpec::RampingArrivalRate {
                start_rate, stages, ..
            } => Some(Profile::stages(*start_rate, stages)),
            _ => None,
        }
    }

    /// How long it starts iterations (its `maxDuration` for the
    /// iteration-count executors), from the scenario's start.
    pub fn length(&self) -> Duration {
        match self {
            ExecutorSpec::SharedIterations { max_duration, .. }
            | ExecutorSpec::PerVuIterations { max_duration, .. } => *max_duration,
            ExecutorSpec::ConstantVus { duration, .. }
            | ExecutorSpec::ConstantArrivalRate { duration, .. } => *duration,
            ExecutorSpec::RampingVus { stages, .. }
            | ExecutorSpec::RampingArrivalRate { stages, .. } => {
                stages.iter().map(|s| s.duration).sum()
            }
        }
    }
}

/// What the command line may put in place of the file's executors (k6's
/// `--vus`, `--duration`, `--iterations`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Overrides {
    pub vus: Option<u64>,
    pub duration: Option<Duration>,
    pub iterations: Option<u64>,
}

impl Overrides {
    pub fn any(&self) -> bool {
        self.vus.is_some() || self.duration.is_some() || self.iterations.is_some()
    }

    /// k6's rule: iterations make `shared-iterations`, a duration makes
    /// `constant-vus`, virtual users alone run one iteration each.
    pub fn executor(&self) -> ExecutorSpec {
        let vus = self.vus.unwrap_or(1);
        match (self.iterations, self.duration) {
            (Some(iterations), _) => ExecutorSpec::SharedIterations {
                vus,
                iterations,
                max_duration: self.duration.unwrap_or(DEFAULT_MAX_DURATION),
            },
            (None, Some(duration)) => ExecutorSpec::ConstantVus { vus, duration },
            (None, None) => ExecutorSpec::PerVuIterations {
                vus,
                iterations: 1,
                max_duration: DEFAULT_MAX_DURATION,
            },
        }
    }
}

/// Reads scenario `name`'s executor and its options.
pub fn parse(
    scenario: &Scenario,
    field: &str,
    blame: &Blame,
) -> Result<ExecutorSpec, ScenarioError> {
    let kind = scenario.executor.as_str();
    let allowed: &[&str] = match kind {
        "shared-iterations" | "per-vu-iterations" => &["vus", "iterations", "maxDuration"],
        "constant-vus" => &["vus", "duration"],
        "ramping-vus" => &["startVUs", "stages", "gracefulRampDown"],
        "constant-arrival-rate" => &["rate", "timeUnit", "duration", "preAllocatedVUs", "maxVUs"],
        "ramping-arrival-rate" => &[
            "startRate",
            "timeUnit",
            "stages",
            "preAllocatedVUs",
            "maxVUs",
        ],
        other => {
            return Err(blame.at(
                scenario.executor.span(),
                format!("{field}.executor"),
                format!(
                    "unknown executor '{other}': use shared-iterations, per-vu-iterations, \
                     constant-vus, ramping-vus, constant-arrival-rate or ramping-arrival-rate"
                ),
            ))
        }
    };
    for (option, span) in given_options(scenario) {
        if !allowed.contains(&option) {
            return Err(blame.at(
                span,
                format!("{field}.{option}"),
                format!(
                    "'{option}' is not an option of {kind} (its options: {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    let count =
        |value: &Option<Spanned<u64>>, name: &str, default: Option<u64>, least: u64| match value {
            Some(v) if **v < least => Err(blame.at(
                v.span(),
                format!("{field}.{name}"),
                format!("must be at least {least}"),
            )),
            Some(v) => Ok(**v),
            None => default.ok_or_else(|| {
                blame.at(
                    scenario.executor.span(),
                    format!("{field}.{name}"),
                    format!("{kind} needs '{name}'"),
                )
            }),
        };
    // A grace may be zero (k6: interrupt at once); a run's length may not.
    let time_or_zero = |value: &Option<Spanned<String>>,
                        name: &str,
                        default: Option<Duration>,
                        zero_ok: bool| match value {
        Some(text) => {
            let parsed = duration::parse(text)
                .map_err(|why| blame.at(text.span(), format!("{field}.{name}"), why))?;
            if parsed.is_zero() && !zero_ok {
                return Err(blame.at(
                    text.span(),
                    format!("{field}.{name}"),
                    "must be more than 0",
                ));
            }
            Ok(parsed)
        }
        None => default.ok_or_else(|| {
            blame.at(
                scenario.executor.span(),
                format!("{field}.{name}"),
                format!("{kind} needs '{name}'"),
            )
        }),
    };
    let time = |value: &Option<Spanned<String>>, name: &str, default: Option<Duration>| {
        time_or_zero(value, name, default, false)
    };
    let per_second = |value: f64, time_unit: Duration| value / time_unit.as_secs_f64();
    let rate = |value: &Option<Spanned<f64>>, name: &str, default: Option<f64>| match value {
        Some(v) if !v.is_finite() || **v < 0.0 => Err(blame.at(
            v.span(),
            format!("{field}.{name}"),
            "must be a number, 0 or more",
        )),
        Some(v) => Ok(**v),
        None => default.ok_or_else(|| {
            blame.at(
                scenario.executor.span(),
                format!("{field}.{name}"),
                format!("{kind} needs '{name}'"),
            )
        }),
    };
    let stages = |time_unit: Duration| -> Result<Vec<Stage>, ScenarioError> {
        let Some(stages) = &scenario.stages else {
            return Err(blame.at(
                scenario.executor.span(),
                format!("{field}.stages"),
                format!("{kind} needs 'stages'"),
            ));
        };
        if stages.is_empty() {
            return Err(blame.at(
                scenario.executor.span(),
                format!("{field}.stages"),
                "needs at least one stage",
            ));
        }
        stages
            .iter()
            .enumerate()
            .map(
                |(
                    i,
                    StageText {
                        duration: text,
                        target,
                    },
                )| {
                    let at = format!("{field}.stages[{i}]");
                    let duration = duration::parse(text)
                        .map_err(|why| blame.at(text.span(), format!("{at}.duration"), why))?;
                    if !target.is_finite() || **target < 0.0 {
                        return Err(blame.at(
                            target.span(),
                            format!("{at}.target"),
                            "must be a number, 0 or more",
                        ));
                    }
                    Ok(Stage {
                        duration,
                        target: per_second(**target, time_unit),
                    })
                },
            )
            .collect()
    };
    let time_unit = time(
        &scenario.time_unit,
        "timeUnit",
        Some(Duration::from_secs(1)),
    )?;
    let spec = match kind {
        "shared-iterations" | "per-vu-iterations" => {
            let vus = count(&scenario.vus, "vus", Some(1), 1)?;
            let iterations = count(&scenario.iterations, "iterations", Some(1), 1)?;
            let max_duration = time(
                &scenario.max_duration,
                "maxDuration",
                Some(DEFAULT_MAX_DURATION),
            )?;
            if kind == "shared-iterations" {
                if iterations < vus {
                    return Err(blame.at(
                        scenario.iterations.as_ref().map_or(scenario.executor.span(), |v| v.span()),
                        format!("{field}.iterations"),
                        format!("{iterations} iterations cannot be shared by {vus} virtual users: give at least as many iterations"),
                    ));
                }
                ExecutorSpec::SharedIterations {
                    vus,
                    iterations,
                    max_duration,
                }
            } else {
                ExecutorSpec::PerVuIterations {
                    vus,
                    iterations,
                    max_duration,
                }
            }
        }
        "constant-vus" => ExecutorSpec::ConstantVus {
            vus: count(&scenario.vus, "vus", Some(1), 1)?,
            duration: time(&scenario.duration, "duration", None)?,
        },
        "ramping-vus" => ExecutorSpec::RampingVus {
            start_vus: count(&scenario.start_vus, "startVUs", Some(1), 0)?,
            // Targets are numbers of virtual users, not rates: no time unit.
            stages: stages(Duration::from_secs(1))?,
            graceful_ramp_down: time_or_zero(
                &scenario.graceful_ramp_down,
                "gracefulRampDown",
                Some(DEFAULT_GRACE),
                true,
            )?,
        },
        "constant-arrival-rate" => {
            let pre_allocated_vus = count(&scenario.pre_allocated_vus, "preAllocatedVUs", None, 1)?;
            let given = rate(&scenario.rate, "rate", None)?;
            if given == 0.0 {
                return Err(blame.at(
                    scenario.rate.as_ref().expect("given").span(),
                    format!("{field}.rate"),
                    "must be more than 0",
                ));
            }
            ExecutorSpec::ConstantArrivalRate {
                rate: per_second(given, time_unit),
                duration: time(&scenario.duration, "duration", None)?,
                pre_allocated_vus,
                max_vus: max_vus(scenario, field, blame, pre_allocated_vus)?,
            }
        }
        _ => {
            let pre_allocated_vus = count(&scenario.pre_allocated_vus, "preAllocatedVUs", None, 1)?;
            ExecutorSpec::RampingArrivalRate {
                start_rate: per_second(
                    rate(&scenario.start_rate, "startRate", Some(0.0))?,
                    time_unit,
                ),
                stages: stages(time_unit)?,
                pre_allocated_vus,
                max_vus: max_vus(scenario, field, blame, pre_allocated_vus)?,
            }
        }
    };
    Ok(spec)
}

fn max_vus(
    scenario: &Scenario,
    field: &str,
    blame: &Blame,
    pre_allocated: u64,
) -> Result<u64, ScenarioError> {
    match &scenario.max_vus {
        None => Ok(pre_allocated),
        Some(max) if **max < pre_allocated => Err(blame.at(
            max.span(),
            format!("{field}.maxVUs"),
            format!("must be at least preAllocatedVUs ({pre_allocated})"),
        )),
        Some(max) => Ok(**max),
    }
}

/// The executor options the scenario gives, with where.
fn given_options(s: &Scenario) -> Vec<(&'static str, &marked_yaml::Span)> {
    let options: [(&'static str, Option<&marked_yaml::Span>); 12] = [
        ("vus", s.vus.as_ref().map(|v| v.span())),
        ("iterations", s.iterations.as_ref().map(|v| v.span())),
        ("duration", s.duration.as_ref().map(|v| v.span())),
        ("maxDuration", s.max_duration.as_ref().map(|v| v.span())),
        ("startVUs", s.start_vus.as_ref().map(|v| v.span())),
        ("stages", s.stages.as_ref().map(|_| s.executor.span())),
        (
            "gracefulRampDown",
            s.graceful_ramp_down.as_ref().map(|v| v.span()),
        ),
        ("rate", s.rate.as_ref().map(|v| v.span())),
        ("startRate", s.start_rate.as_ref().map(|v| v.span())),
        ("timeUnit", s.time_unit.as_ref().map(|v| v.span())),
        (
            "preAllocatedVUs",
            s.pre_allocated_vus.as_ref().map(|v| v.span()),
        ),
        ("maxVUs", s.max_vus.as_ref().map(|v| v.span())),
    ];
    options
        .into_iter()
        .filter_map(|(name, span)| Some((name, span?)))
        .collect()
}
