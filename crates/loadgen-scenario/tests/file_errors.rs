//! A scenario file with an error gets one line naming the file, the line
//! and the field, before anything is sent.

use loadgen_scenario::compile::{compile, Options};
use loadgen_scenario::file::parse;

fn error_of(text: &str) -> String {
    let loaded = match parse("test.yaml", text, std::env::temp_dir()) {
        Ok(loaded) => loaded,
        Err(e) => return e.to_string(),
    };
    match compile(&loaded, &Options::default()) {
        Ok(_) => panic!("the file compiled"),
        Err(e) => e.to_string(),
    }
}

const GOOD: &str = "\
defaults:
  base_url: http://127.0.0.1:8080
scenarios:
  login:
    executor: per-vu-iterations
    vus: 2
    iterations: 3
    steps:
      - name: page
        url: /app/login
        checks:
          status_in: [200]
        extract:
          - type: dom
            selector: 'input[name=\"csrf\"]'
            attribute: value
            as: csrf
      - name: post
        url: /app/login
        form:
          csrf: '{{csrf}}'
          username: user{{vu}}
          password: secret
";

#[test]
fn a_good_file_compiles() {
    let loaded = parse("test.yaml", GOOD, std::env::temp_dir()).unwrap();
    let suite = compile(&loaded, &Options::default()).unwrap();
    assert_eq!(suite.steps, ["page", "post"]);
    assert_eq!(suite.variables, ["csrf"]);
    assert_eq!(suite.checks, [(0, "status_in [200]".to_string())]);
    assert_eq!(suite.scenarios[0].steps[1].method, "POST");
}

#[test]
fn unknown_field() {
    let e = error_of(&GOOD.replace("        checks:", "        chekcs:"));
    assert!(e.starts_with("test.yaml:11:"), "{e}");
    assert!(e.contains("unknown field `chekcs`"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn bad_template_variable() {
    let e = error_of(&GOOD.replace("'{{csrf}}'", "'{{crsf}}'"));
    assert!(e.starts_with("test.yaml:21:"), "{e}");
    assert!(e.contains("scenarios.login.steps[1].form.csrf"), "{e}");
    assert!(e.contains("unknown variable 'crsf'"), "{e}");
}

#[test]
fn a_variable_before_the_step_that_sets_it() {
    let e = error_of(&GOOD.replace(
        "url: /app/login\n        checks",
        "url: /app/login?t={{csrf}}\n        checks",
    ));
    assert!(e.contains("scenarios.login.steps[0].url"), "{e}");
    assert!(e.contains("unknown variable 'csrf'"), "{e}");
}

#[test]
fn bad_selector() {
    let e = error_of(&GOOD.replace("'input[name=\"csrf\"]'", "'input[name='"));
    assert!(e.starts_with("test.yaml:15:"), "{e}");
    assert!(
        e.contains("steps[0].extract[0].selector: not a CSS selector"),
        "{e}"
    );
}

#[test]
fn bad_json_path() {
    let e = error_of(&GOOD.replace(
        "          status_in: [200]",
        "          json_path_exists: ['$.a[']",
    ));
    assert!(e.starts_with("test.yaml:12:"), "{e}");
    assert!(e.contains("checks.json_path_exists"), "{e}");
    assert!(e.contains("RFC 9535"), "{e}");
}

#[test]
fn bad_executor_option() {
    let e = error_of(&GOOD.replace("    vus: 2", "    rate: 2"));
    assert!(e.starts_with("test.yaml:6:"), "{e}");
    assert!(
        e.contains("'rate' is not an option of per-vu-iterations"),
        "{e}"
    );
}

#[test]
fn not_yaml() {
    let e = error_of("scenarios: [unclosed\n");
    assert!(e.starts_with("test.yaml:"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn an_unknown_key_over_several_lines_is_one_line() {
    // A double-quoted key may span lines, and keeps a line end where an
    // empty line folds; the error names it on one line.
    let e = error_of("{\"scen\n\n  arios\": 1}\n");
    assert!(e.starts_with("test.yaml:1:"), "{e}");
    assert!(e.contains("unknown field"), "{e}");
    assert!(!e.contains(['\n', '\r']), "{e}");
}
