//! A scenario run split into execution segments: the parts, run one after
//! another against the built-in target, add up to the single run's virtual
//! users, iterations and arrivals, and what each part says it will run
//! ([`Suite::parts`]) is what it runs.

use loadgen_core::segment::{ExecutionSegment, Stripe};
use loadgen_scenario::compile::{compile, Options};
use loadgen_scenario::feeder::{Feeder, Order};
use loadgen_scenario::file::parse;
use loadgen_scenario::run::{run, ScenarioOptions};
use loadgen_scenario::suite::Suite;
use loadgen_target::{Target, TargetConfig};

fn scenario(base: &str) -> String {
    format!(
        "\
defaults:
  base_url: {base}
  protocol: h1
scenarios:
  shared:
    executor: shared-iterations
    vus: 5
    iterations: 23
    steps:
      - {{name: shared, url: /}}
  each:
    executor: per-vu-iterations
    vus: 4
    iterations: 3
    steps:
      - {{name: each, url: /}}
  arrivals:
    executor: constant-arrival-rate
    rate: 10
    duration: 2s
    preAllocatedVUs: 3
    maxVUs: 6
    steps:
      - {{name: arrivals, url: /}}
"
    )
}

fn suite(text: &str, segment: Option<ExecutionSegment>) -> Suite {
    let loaded = parse("split.yaml", text, std::env::temp_dir()).expect("parses");
    let mut suite = compile(&loaded, &Options::default()).expect("compiles");
    if let Some(segment) = segment {
        suite.split(segment).expect("a segment with work");
    }
    suite
}

fn thirds() -> Vec<ExecutionSegment> {
    (0..3)
        .map(|i| ExecutionSegment::shard(i, 3).unwrap())
        .collect()
}

/// Per scenario: (iterations started or dropped, the most VUs that existed).
fn counted(report: &loadgen_core::Report) -> Vec<(String, u64, u64)> {
    let section = report.scenario.as_ref().expect("a scenario section");
    section
        .scenarios
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                s.iterations.started() + s.iterations.dropped,
                s.vus_max,
            )
        })
        .collect()
}

#[test]
fn the_parts_of_a_split_scenario_add_up_to_the_whole() {
    let target = Target::start(TargetConfig {
        clear_addr: Some(([127, 0, 0, 1], 0).into()),
        ..TargetConfig::default()
    })
    .expect("target");
    let text = scenario(&format!("http://{}", target.clear_addr().unwrap()));

    let whole = suite(&text, None);
    let whole_parts = whole.parts();
    assert_eq!(
        whole_parts
            .iter()
            .map(|p| (p.vus, p.iterations, p.arrivals))
            .collect::<Vec<_>>(),
        [
            (5, Some(23), None),
            (4, Some(12), None),
            (6, None, Some(20))
        ]
    );
    let single = run(&whole, ScenarioOptions::default()).expect("runs");

    let mut summed = [(0u64, 0u64, 0u64); 3];
    let mut requests = 0;
    for segment in thirds() {
        let part = suite(&text, Some(segment.clone()));
        let said = part.parts();
        let report = run(
            &part,
            ScenarioOptions {
                threads: 2,
                ..ScenarioOptions::default()
            },
        )
        .expect("runs");
        assert_eq!(
            report.config.segment.as_deref(),
            Some(&*segment.to_string())
        );
        requests += report.requests.succeeded;
        for (i, (name, iterations, vus)) in counted(&report).into_iter().enumerate() {
            // What the part said it would run, it ran.
            let planned = said[i].iterations.or(said[i].arrivals).unwrap();
            assert_eq!(iterations, planned, "{segment} {name}");
            summed[i].0 += said[i].vus;
            summed[i].1 += iterations;
            summed[i].2 += vus;
        }
    }
    for (i, (name, iterations, vus)) in counted(&single).into_iter().enumerate() {
        let (parts_vus, parts_iterations, parts_vus_max) = summed[i];
        assert_eq!(parts_vus, whole_parts[i].vus, "{name}: virtual users");
        assert_eq!(parts_iterations, iterations, "{name}: iterations");
        // Looping users all exist at once; arrival-rate ones as needed.
        if name != "arrivals" {
            assert_eq!(parts_vus_max, vus, "{name}: virtual users that ran");
        }
    }
    assert_eq!(requests, single.requests.succeeded);
    assert_eq!(requests, 23 + 12 + 20);
}

#[test]
fn a_segment_that_would_run_nothing_is_refused() {
    let text = "\
scenarios:
  one:
    executor: per-vu-iterations
    vus: 1
    steps:
      - {name: s, url: 'http://127.0.0.1:1/'}
";
    let loaded = parse("one.yaml", text, std::env::temp_dir()).unwrap();
    let mut suite = compile(&loaded, &Options::default()).unwrap();
    let error = suite
        .split(ExecutionSegment::shard(1, 2).unwrap())
        .unwrap_err();
    assert!(
        error.message.contains("none of the virtual users"),
        "{error}"
    );
}

#[test]
fn round_robin_rows_are_not_taken_twice_across_segments() {
    let rows: Vec<Vec<String>> = (0..12).map(|i| vec![i.to_string()]).collect();
    let stripes: Vec<Stripe> = thirds().iter().map(|s| s.stripe().unwrap()).collect();
    let mut taken: Vec<usize> = Vec::new();
    for stripe in &stripes {
        let feeder = Feeder::new(
            "f".into(),
            vec!["n".into()],
            rows.clone(),
            Order::RoundRobin,
        );
        taken.extend((0..4).map(|_| feeder.row_for(1, stripe)));
    }
    taken.sort_unstable();
    assert_eq!(taken, (0..12).collect::<Vec<_>>());
    // Per virtual user: the run-wide number decides, wherever it runs.
    let feeder = Feeder::new("f".into(), vec!["n".into()], rows, Order::PerVu);
    assert_eq!(feeder.row_for(5, &stripes[2]), 4);
}
