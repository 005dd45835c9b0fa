//! The virtual user's cookie jar sends a cookie only where RFC 6265 says:
//! to its host (any port, not another name for the same address), under
//! its path, and never once expired. A Secure cookie goes over TLS only,
//! but loopback counts as secure, as in browsers (`render.rs`'s unit tests
//! hold the rule away from loopback).

mod common;

use common::{run_text, Served};

#[test]
fn cookies_go_only_where_rfc_6265_sends_them() {
    let target = Served::start();
    let port = target.target.clear_addr().unwrap().port();
    let text = format!(
        r#"
defaults:
  base_url: {http}
  insecure: true
  clear_cookies: iteration
scenarios:
  jar:
    executor: per-vu-iterations
    vus: 2
    iterations: 3
    steps:
      - name: every iteration starts with an empty jar
        url: /cookies/a
        checks:
          json_path_equals: {{'$.cookies': {{}}}}
      - {{name: set under a path, url: '/cookies/set?name=p&value=1&path=/cookies/a'}}
      - {{name: set with the default path, url: '/cookies/set?name=d&value=2'}}
      - {{name: set secure over TLS, url: '{https}/cookies/set?name=s&value=3&secure&path=/'}}
      - {{name: set and expire, url: '/cookies/set?name=e&value=4&path=/&max-age=0'}}
      - {{name: set everywhere, url: '/cookies/set?name=h&value=5&path=/&httponly'}}
      - name: under the path
        url: /cookies/a/x
        checks:
          json_path_equals: {{'$.cookies': {{p: '1', d: '2', s: '3', h: '5'}}}}
      - name: beside the path
        url: /cookies/b
        checks:
          json_path_equals: {{'$.cookies': {{d: '2', s: '3', h: '5'}}}}
      - name: outside both paths
        url: /echo
        checks:
          regex_match: ['"cookie":\["(s=3; h=5|h=5; s=3)"\]']
      - name: same host over TLS, another port
        url: '{https}/cookies/a'
        checks:
          json_path_equals: {{'$.cookies': {{p: '1', d: '2', s: '3', h: '5'}}}}
      - name: another name for the host
        url: 'http://localhost:{port}/cookies/a'
        checks:
          json_path_equals: {{'$.cookies': {{}}}}
      - name: jar off for the step
        url: /cookies/a
        cookies: false
        checks:
          json_path_equals: {{'$.cookies': {{}}}}
"#,
        http = target.http(),
        https = target.https(),
    );
    let report = run_text(&text);
    let scenario = report.scenario.as_ref().unwrap();
    assert_eq!(scenario.iterations.completed, 6, "{scenario:#?}");
    assert_eq!(scenario.checks.len(), 7);
    for check in &scenario.checks {
        assert_eq!((check.passes, check.fails), (6, 0), "{check:?}");
    }
    assert_eq!(report.requests.succeeded, 12 * 6, "{report:#?}");
}
