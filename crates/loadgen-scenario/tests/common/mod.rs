//! What the scenario tests share: a built-in target on loopback, a run of
//! a scenario file's text, and lookups in the report's scenario section.
#![allow(dead_code)]

use loadgen_core::report::scenario::{CheckCounts, ScenarioReport, StepReport};
use loadgen_core::Report;
use loadgen_scenario::compile::{compile, Options};
use loadgen_scenario::file::parse;
use loadgen_scenario::run::{run, ScenarioOptions};
use loadgen_target::{Stats, Target, TargetConfig};

/// A target with a cleartext and a TLS listener on loopback.
pub struct Served {
    pub target: Target,
}

impl Served {
    pub fn start() -> Served {
        Served::with(TargetConfig::default())
    }

    pub fn with(config: TargetConfig) -> Served {
        let target = Target::start(TargetConfig {
            clear_addr: Some(([127, 0, 0, 1], 0).into()),
            tls_addr: Some(([127, 0, 0, 1], 0).into()),
            ..config
        })
        .expect("target");
        Served { target }
    }

    pub fn http(&self) -> String {
        format!("http://{}", self.target.clear_addr().unwrap())
    }

    pub fn https(&self) -> String {
        format!("https://{}", self.target.tls_addr().unwrap())
    }

    pub fn stats(&self) -> Stats {
        self.target.stats()
    }

    /// Requests the target answered, the app's included.
    pub fn served(&self) -> u64 {
        self.stats().total
    }
}

/// Runs a scenario file given as text, with the default options.
pub fn run_text(text: &str) -> Report {
    run_with(text, ScenarioOptions::default())
}

pub fn run_with(text: &str, options: ScenarioOptions) -> Report {
    let loaded =
        parse("test.yaml", text, std::env::temp_dir()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let suite = compile(&loaded, &Options::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run(&suite, options).expect("runs")
}

pub fn step<'a>(scenario: &'a ScenarioReport, name: &str) -> &'a StepReport {
    scenario
        .steps
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no step '{name}' in {scenario:#?}"))
}

pub fn check<'a>(scenario: &'a ScenarioReport, step: &str, name: &str) -> &'a CheckCounts {
    scenario
        .checks
        .iter()
        .find(|c| c.step == step && c.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no check '{name}' of step '{step}' in {:#?}",
                scenario.checks
            )
        })
}
