use super::*;
use serde_json::json;

fn document(thresholds: Value, scenario: Option<Value>, succeeded: u64) -> Value {
    let mut document = json!({
        "loadgen_version": "0.1.0",
        "started_at": "2026-11-22T02:34:36.123Z",
        "elapsed_s": 2.5,
        "config": {"uris": ["http://127.0.0.1:8080/"]},
        "requests": {
            "total": 10, "started": 10, "done": 10, "succeeded": succeeded,
            "failed": 10 - succeeded, "errored": 10 - succeeded, "timeout": 0,
            "failed_status": 0, "errored_not_started": 0, "unsent_at_end": 0
        },
        "thresholds": thresholds,
    });
    if let Some(scenario) = scenario {
        document["scenario"] = scenario;
    }
    document
}

fn xml(document: &Value) -> String {
    render(document, "ci-runner").unwrap()
}

#[test]
fn a_case_per_threshold_with_the_observed_value_of_a_failed_one() {
    let thresholds = json!([
        {"expression": "errors<1%", "passed": true, "actual": "0.00%", "value": 0.0, "unit": "%"},
        {"expression": "p99<1ms", "passed": false, "actual": "3.20ms", "value": 3200.0, "unit": "us"},
        {"expression": "grpc_unavailable<1", "passed": false,
         "actual": "not available: the report has no grpc statuses (not a gRPC run)",
         "value": null, "unit": "count"},
    ]);
    let xml = xml(&document(thresholds, None, 10));
    assert!(xml.contains(
        "hostname=\"ci-runner\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\"2.500\""
    ));
    assert!(xml.contains("timestamp=\"2026-11-22T02:34:36\""));
    assert!(xml.contains("<testcase classname=\"thresholds\" name=\"errors&lt;1%\" time=\"0\"/>"));
    assert!(xml.contains(
        "<failure type=\"threshold\" message=\"observed 3.20ms\">p99&lt;1ms not met: observed 3.20ms (3200 us)</failure>"
    ));
    assert!(
        xml.contains("<error type=\"threshold\" message=\"grpc_unavailable&lt;1: not available")
    );
    assert!(xml.contains("<system-out>errors&lt;1%  pass  (0.00%)\n"));
    assert!(!xml.contains("name=\"responses\""), "{xml}");
}

#[test]
fn a_case_per_check_classed_by_its_step() {
    let scenario = json!({"checks": [
        {"step": "login page", "name": "status_in [200]", "passes": 4, "fails": 0},
        {"step": "log in", "name": "body_includes \"Welcome, user1<\"", "passes": 1, "fails": 3},
        {"step": "log out", "name": "status_in [302]", "passes": 0, "fails": 0},
    ]});
    let xml = xml(&document(json!([]), Some(scenario), 10));
    assert!(xml.contains("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""));
    assert!(xml.contains(
        "<testcase classname=\"checks.login page\" name=\"status_in [200]\" time=\"0\"/>"
    ));
    assert!(xml.contains(
        "<testcase classname=\"checks.log in\" name=\"body_includes &quot;Welcome, user1&lt;&quot;\""
    ));
    assert!(xml.contains("<failure type=\"check\" message=\"3 of 4 failed\">"));
    assert!(xml.contains("1 passed, 3 failed (25.00% passed)</failure>"));
    assert!(xml.contains("<skipped message=\"never evaluated"));
}

#[test]
fn without_criteria_the_run_is_one_case_failed_when_nothing_answered() {
    let answered = xml(&document(json!([]), None, 10));
    assert!(answered.contains("tests=\"1\" failures=\"0\""));
    assert!(answered.contains("<testcase classname=\"run\" name=\"responses\" time=\"0\"/>"));
    let unanswered = xml(&document(json!([]), None, 0));
    assert!(unanswered.contains("tests=\"1\" failures=\"1\""));
    assert!(unanswered.contains("message=\"no request got a response (10 started, 10 errored)\""));
}

#[test]
fn text_xml_cannot_carry_is_replaced() {
    assert_eq!(attribute("a\"b\n\u{1}<"), "a&quot;b&#10;\u{FFFD}&lt;");
    assert_eq!(text("a\n&b\u{0}"), "a\n&amp;b\u{FFFD}");
}

#[test]
fn a_document_without_a_report_is_refused() {
    let err = render(&json!({"thresholds": []}), "h").unwrap_err();
    assert!(
        err.starts_with("the report lacks what JUnit needs: "),
        "{err}"
    );
}
