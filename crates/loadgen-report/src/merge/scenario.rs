//! The scenario sections of several reports added up: steps by name,
//! checks by step and name, scenarios by name; counts add, and every
//! duration's stats come from the sum of the reports' histograms, as for
//! the run's own. Reports of which some are scenario runs and some not do
//! not merge.

use super::counts::{self, Adder};
use super::MergeError;
use super::Source;
use hdrhistogram::Histogram;
use loadgen_core::histogram;
use loadgen_core::histogram_codec::{decode, encode};
use loadgen_core::report::scenario::{
    IterationCounts, ScenarioHistograms, ScenarioReport, StepHistograms, StepReport,
};
use loadgen_core::report::TimeStats;

/// The merged scenario section, `None` when no report has one. Counts add
/// through `adder`, as the run's own do.
pub fn merge(sources: &[Source], adder: &mut Adder) -> Result<Option<ScenarioReport>, MergeError> {
    let with: Vec<&Source> = sources
        .iter()
        .filter(|s| s.report.scenario.is_some())
        .collect();
    if with.is_empty() {
        return Ok(None);
    }
    if with.len() != sources.len() {
        let plain = sources
            .iter()
            .find(|s| s.report.scenario.is_none())
            .expect("one without");
        return Err(MergeError::Invalid {
            name: plain.name.clone(),
            why: format!(
                "is not a scenario run, and '{}' is: they are not parts of one test",
                with[0].name
            ),
        });
    }
    let mut merged = ScenarioReport::default();
    let mut iteration_duration = histogram::new();
    let mut steps: Vec<StepParts> = Vec::new();
    for source in sources {
        let name = &source.name;
        let section = source.report.scenario.as_ref().expect("all have one");
        let encoded = section
            .histograms
            .as_ref()
            .ok_or_else(|| MergeError::NoHistograms { name: name.clone() })?;
        iteration_duration
            .add(decoded(
                name,
                "scenario.histograms.iteration_duration",
                &encoded.iteration_duration,
                section.iteration_duration.count,
            )?)
            .expect("histograms of loadgen's shape add up");
        add_iterations(
            adder,
            "scenario.iterations",
            &mut merged.iterations,
            &section.iterations,
        );
        adder.add("scenario.vus_max", &mut merged.vus_max, section.vus_max);
        for executor in &section.scenarios {
            match merged
                .scenarios
                .iter_mut()
                .find(|e| e.name == executor.name)
            {
                Some(mine) => {
                    add_iterations(
                        adder,
                        "scenario.scenarios.iterations",
                        &mut mine.iterations,
                        &executor.iterations,
                    );
                    adder.add(
                        "scenario.scenarios.vus_max",
                        &mut mine.vus_max,
                        executor.vus_max,
                    );
                }
                None => merged.scenarios.push(executor.clone()),
            }
        }
        for step in &section.steps {
            let field = format!("scenario.steps[{}].histograms", step.name);
            let h = step
                .histograms
                .as_ref()
                .ok_or_else(|| MergeError::NoHistograms { name: name.clone() })?;
            let duration = decoded(
                name,
                &format!("{field}.duration"),
                &h.duration,
                step.duration.count,
            )?;
            let raw = decoded(
                name,
                &format!("{field}.duration_raw"),
                &h.duration_raw,
                step.duration_raw.count,
            )?;
            match steps.iter_mut().find(|s| s.name == step.name) {
                Some(mine) => {
                    mine.parts.push(step);
                    mine.duration
                        .add(duration)
                        .expect("histograms of loadgen's shape add up");
                    mine.raw
                        .add(raw)
                        .expect("histograms of loadgen's shape add up");
                }
                None => steps.push(StepParts {
                    name: step.name.clone(),
                    parts: vec![step],
                    duration,
                    raw,
                }),
            }
        }
        for check in &section.checks {
            match merged
                .checks
                .iter_mut()
                .find(|c| c.step == check.step && c.name == check.name)
            {
                Some(mine) => {
                    adder.add("scenario.checks.passes", &mut mine.passes, check.passes);
                    adder.add("scenario.checks.fails", &mut mine.fails, check.fails);
                }
                None => merged.checks.push(check.clone()),
            }
        }
    }
    merged.iteration_duration = TimeStats::of(&iteration_duration);
    merged.histograms = Some(ScenarioHistograms::of(&iteration_duration));
    merged.steps = steps.into_iter().map(|s| s.sum(adder)).collect();
    Ok(Some(merged))
}

/// One step's parts from every report, and their histograms summed.
struct StepParts<'a> {
    name: String,
    parts: Vec<&'a StepReport>,
    duration: Histogram<u64>,
    raw: Histogram<u64>,
}

impl StepParts<'_> {
    fn sum(self, adder: &mut Adder) -> StepReport {
        let StepParts {
            name,
            parts,
            duration,
            raw,
        } = self;
        step_sum(name, &parts, &duration, &raw, adder)
    }
}

fn step_sum(
    name: String,
    parts: &[&StepReport],
    duration: &Histogram<u64>,
    raw: &Histogram<u64>,
    adder: &mut Adder,
) -> StepReport {
    StepReport {
        name,
        requests: counts::requests(parts.iter().map(|s| &s.requests), adder),
        status_codes: counts::status_codes(parts.iter().map(|s| &s.status_codes), adder),
        errors: counts::errors(parts.iter().map(|s| &s.errors), adder),
        duration: TimeStats::of(duration),
        duration_raw: TimeStats::of(raw),
        redirects: adder.total(
            "scenario.steps.redirects",
            parts.iter().map(|s| s.redirects),
        ),
        extraction_failures: adder.total(
            "scenario.steps.extraction_failures",
            parts.iter().map(|s| s.extraction_failures),
        ),
        histograms: Some(StepHistograms {
            duration: encode(duration),
            duration_raw: encode(raw),
        }),
    }
}

/// `theirs` added to `mine`, each count through `adder`.
fn add_iterations(
    adder: &mut Adder,
    field: &'static str,
    mine: &mut IterationCounts,
    theirs: &IterationCounts,
) {
    adder.add(field, &mut mine.completed, theirs.completed);
    adder.add(field, &mut mine.aborted, theirs.aborted);
    adder.add(field, &mut mine.interrupted, theirs.interrupted);
    adder.add(field, &mut mine.dropped, theirs.dropped);
}

fn decoded(name: &str, field: &str, text: &str, count: u64) -> Result<Histogram<u64>, MergeError> {
    let histogram = decode(text).map_err(|e| MergeError::Invalid {
        name: name.to_string(),
        why: format!("{field}: {e}"),
    })?;
    if histogram.len() != count {
        return Err(MergeError::Invalid {
            name: name.to_string(),
            why: format!(
                "{field} holds {} samples where its stats count {count}",
                histogram.len()
            ),
        });
    }
    Ok(histogram)
}
