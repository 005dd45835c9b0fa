//! The login/logout flow of the built-in target's app, through every
//! protocol: every iteration passes every check, the target's own counters
//! agree, and the cookies go where RFC 6265 sends them.

use loadgen_scenario::compile::{compile, Options};
use loadgen_scenario::file::parse;
use loadgen_scenario::run::{run, ScenarioOptions};
use loadgen_target::{Target, TargetConfig};

fn target() -> Target {
    Target::start(TargetConfig {
        clear_addr: Some(([127, 0, 0, 1], 0).into()),
        tls_addr: Some(([127, 0, 0, 1], 0).into()),
        ..TargetConfig::default()
    })
    .expect("target")
}

fn login_flow(base: &str, protocol: &str) -> String {
    format!(
        "\
defaults:
  base_url: {base}
  protocol: {protocol}
  insecure: true
scenarios:
  login:
    executor: per-vu-iterations
    vus: 3
    iterations: 4
    steps:
      - name: login page
        url: /app/login
        checks:
          status_in: [200]
          header_includes: {{set-cookie: 'sid='}}
        extract:
          - type: dom
            selector: 'form#login input[name=\"csrf\"]'
            attribute: value
            as: csrf
      - name: log in
        url: /app/login
        form:
          username: user{{{{vu}}}}
          password: secret
          csrf: '{{{{csrf}}}}'
        checks:
          status_in: [200]
          body_includes: ['Welcome, user{{{{vu}}}}']
        extract:
          - type: regex
            pattern: 'logout\\?token=([a-f0-9]+)'
            as: logout_token
      - name: log out
        url: /app/logout?token={{{{logout_token}}}}
        follow_redirects: 0
        checks:
          status_in: [302]
          header_equals: {{location: /app/login}}
"
    )
}

fn run_flow(base: String, protocol: &str, target: &Target) {
    let text = login_flow(&base, protocol);
    let loaded = parse("login.yaml", &text, std::env::temp_dir()).expect("parses");
    let suite = compile(&loaded, &Options::default()).expect("compiles");
    let before = target.stats();
    let report = run(&suite, ScenarioOptions::default()).expect("runs");
    let after = target.stats();
    let scenario = report.scenario.as_ref().expect("a scenario section");
    assert_eq!(scenario.iterations.completed, 12, "{scenario:#?}");
    for check in &scenario.checks {
        assert_eq!((check.passes, check.fails), (12, 0), "{check:?}");
    }
    for step in &scenario.steps {
        assert_eq!(step.requests.succeeded, 12, "{step:?}");
        assert_eq!(step.extraction_failures, 0, "{step:?}");
    }
    // The login POST is answered 302 and followed to the inbox.
    assert_eq!(scenario.steps[1].redirects, 12);
    assert_eq!(after.logins - before.logins, 12);
    assert_eq!(after.failed_logins - before.failed_logins, 0);
    assert_eq!(after.logouts - before.logouts, 12);
    // Every request counted once: page, login, inbox, logout.
    assert_eq!(report.requests.succeeded, 48);
}

#[test]
fn login_flow_over_http1() {
    let target = target();
    run_flow(
        format!("http://{}", target.clear_addr().unwrap()),
        "h1",
        &target,
    );
}

#[test]
fn login_flow_over_h2c() {
    let target = target();
    run_flow(
        format!("http://{}", target.clear_addr().unwrap()),
        "h2",
        &target,
    );
}

#[test]
fn login_flow_over_http2_tls() {
    let target = target();
    run_flow(
        format!("https://{}", target.tls_addr().unwrap()),
        "h2",
        &target,
    );
}

#[test]
fn login_flow_over_http3() {
    let target = target();
    run_flow(
        format!("https://{}", target.tls_addr().unwrap()),
        "h3",
        &target,
    );
}
