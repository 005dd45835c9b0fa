//! Each of the eight checks and each of the four extractors, once where it
//! must hold and once where it must not, against the built-in target.

mod common;

use common::{check, run_text, step, Served};

/// One VU, `iterations` iterations of `steps` (YAML list items, indented
/// for the `steps:` key) against `base`.
fn suite(base: &str, iterations: u64, steps: &str) -> String {
    format!(
        "\
defaults:
  base_url: {base}
scenarios:
  one:
    executor: per-vu-iterations
    vus: 1
    iterations: {iterations}
    steps:
{steps}"
    )
}

#[test]
fn every_check_passes_where_it_holds_and_fails_where_it_does_not() {
    let target = Served::start();
    let steps = r#"
      - name: holds
        url: /echo/path?x=abc123
        headers: {x-test: one}
        checks:
          status_in: [200, 201]
          body_includes: ['"method":"GET"']
          header_exists: [content-type]
          header_equals: {content-type: application/json}
          header_includes: {content-type: json}
          json_path_exists: ['$.args.x']
          json_path_equals: {'$.args.x[0]': abc123, "$.headers['x-test']": [one]}
          regex_match: ['"path":"/echo/pa.h"']
      - name: does not hold
        url: /echo/path?x=abc123
        checks:
          status_in: [404]
          body_includes: ['"method":"POST"']
          header_exists: [x-missing]
          header_equals: {content-type: text/html}
          header_includes: {content-type: xml}
          json_path_exists: ['$.args.y', '$.query.nested']
          json_path_equals: {'$.args.x[0]': abc124}
          regex_match: ['^nothing like it']
"#;
    let report = run_text(&suite(&target.http(), 3, steps));
    let scenario = report.scenario.as_ref().expect("a scenario section");
    let holds: Vec<_> = scenario
        .checks
        .iter()
        .filter(|c| c.step == "holds")
        .collect();
    assert_eq!(holds.len(), 9, "{holds:#?}");
    for c in holds {
        assert_eq!((c.passes, c.fails), (3, 0), "{c:?}");
    }
    let fails: Vec<_> = scenario
        .checks
        .iter()
        .filter(|c| c.step == "does not hold")
        .collect();
    assert_eq!(fails.len(), 9, "{fails:#?}");
    for c in fails {
        assert_eq!((c.passes, c.fails), (0, 3), "{c:?}");
    }
    // Failed checks do not stop the iteration unless the step says so.
    assert_eq!(scenario.iterations.completed, 3);
    assert_eq!(scenario.iterations.aborted, 0);
    assert_eq!(report.requests.succeeded, 6);
    // Every named check appears with the name as written.
    for name in [
        "status_in [200, 201]",
        "body_includes \"\\\"method\\\":\\\"GET\\\"\"",
        "header_exists content-type",
        "header_equals content-type == \"application/json\"",
        "header_includes content-type ~ \"json\"",
        "json_path_exists $.args.x",
        "json_path_equals $.args.x[0] == \"abc123\"",
        "regex_match /\"path\":\"/echo/pa.h\"/",
    ] {
        check(scenario, "holds", name);
    }
}

#[test]
fn a_failed_check_marked_to_abort_ends_the_iteration() {
    let target = Served::start();
    let steps = r#"
      - name: first
        url: /echo
        abort_on_failure: true
        checks:
          status_in: [500]
      - name: never reached
        url: /echo
"#;
    let report = run_text(&suite(&target.http(), 2, steps));
    let scenario = report.scenario.as_ref().unwrap();
    assert_eq!(scenario.iterations.aborted, 2, "{scenario:#?}");
    assert_eq!(scenario.iterations.completed, 0);
    assert_eq!(step(scenario, "first").requests.succeeded, 2);
    assert_eq!(step(scenario, "never reached").requests.total, 0);
    assert_eq!(target.served(), 2);
}

#[test]
fn every_extractor_takes_its_value_into_the_next_request() {
    let target = Served::start();
    let steps = r#"
      - name: token
        method: POST
        url: /api/token
        json: {username: alice, password: secret}
        extract:
          - {type: json, path: '$.token', as: token}
          - {type: json, path: '$.user', as: user_json}
          - {type: header, name: content-type, as: token_type}
      - name: me
        url: /api/me
        headers: {authorization: 'Bearer {{token}}'}
        checks:
          status_in: [200]
          json_path_equals: {'$.user': alice}
      - name: login page
        url: /app/login
        extract:
          - {type: dom, selector: '#login input[name=csrf]', attribute: value, as: csrf}
          - {type: dom, selector: 'form#login button', as: button}
          - {type: regex, pattern: 'name="csrf" value="([a-f0-9]+)"', group: 1, as: csrf_again}
      - name: echo
        url: /echo?csrf={{csrf}}&again={{csrf_again}}&button={{button}}&type={{token_type}}&user={{user_json}}
        checks:
          regex_match: ['"csrf":\["[a-f0-9]{32}"\]']
          body_includes: ['"again":["{{csrf}}"]']
          json_path_equals:
            '$.args.button': [Log in]
            '$.args.type': [application/json]
            '$.args.user': ['{"name":"alice"}']
"#;
    let report = run_text(&suite(&target.http(), 2, steps));
    let scenario = report.scenario.as_ref().unwrap();
    for s in &scenario.steps {
        assert_eq!(s.extraction_failures, 0, "{s:?}");
        assert_eq!(s.requests.succeeded, 2, "{s:?}");
    }
    for c in &scenario.checks {
        assert_eq!((c.passes, c.fails), (2, 0), "{c:?}");
    }
    assert_eq!(target.stats().token_grants, 2);
}

#[test]
fn a_failed_extraction_is_counted_and_its_variable_stops_the_step_that_needs_it() {
    let target = Served::start();
    let steps = r#"
      - name: nothing to take
        url: /echo
        extract:
          - {type: json, path: '$.missing', as: a}
          - {type: header, name: x-missing, as: b}
          - {type: regex, pattern: 'no (such) text', group: 1, as: c}
          - {type: dom, selector: 'div.missing', attribute: id, as: d}
      - name: uses it
        url: /echo?a={{a}}
"#;
    let report = run_text(&suite(&target.http(), 2, steps));
    let scenario = report.scenario.as_ref().unwrap();
    let first = step(scenario, "nothing to take");
    assert_eq!(first.extraction_failures, 8, "{first:?}");
    assert_eq!(first.requests.succeeded, 2);
    // A variable without a value is an error before anything is sent.
    let second = step(scenario, "uses it");
    assert_eq!(second.requests.errored_not_started, 2, "{second:?}");
    assert_eq!(second.requests.started, 0);
    assert_eq!(target.served(), 2);
    let message = second
        .errors
        .first_message
        .values()
        .next()
        .expect("a message");
    assert!(
        message.contains("step 'uses it'") && message.contains("variable 'a' has no value"),
        "{message}"
    );
}
