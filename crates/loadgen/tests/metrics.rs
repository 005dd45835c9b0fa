//! `--metrics-push` and `--metrics-listen` against a real Prometheus
//! (remote write, and a scrape of `/metrics`) and a receiver that decodes
//! OTLP with the official `opentelemetry-proto` package: the totals the
//! run's metrics end with are the JSON report's, exactly, and the
//! quantiles read from the buckets fall in the bucket of the report's.

mod common;
#[path = "metrics/prometheus.rs"]
mod prometheus;

use common::*;
use loadgen_metrics::buckets::bounds_us;
use prometheus::Prometheus;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

const CLASSES: [&str; 5] = ["1xx", "2xx", "3xx", "4xx", "5xx"];
const KINDS: [&str; 6] = ["connect", "tls", "timeout", "protocol", "reset", "other"];

/// A run whose responses are 200, 404 and 503, and whose every fourth
/// request times out.
fn mixed_run(target: &TestTarget, extra: &[&str]) -> Value {
    mixed_run_of(target, &["-n", "400"], extra)
}

/// [`mixed_run`] for a count (`-n`) or a time (`-D`).
fn mixed_run_of(target: &TestTarget, length: &[&str], extra: &[&str]) -> Value {
    let mut args = length.to_vec();
    args.extend(["-c", "8", "-t", "2", "--request-timeout", "300ms"]);
    args.extend_from_slice(extra);
    let uris = [
        target.http("/"),
        target.http("/?status=404"),
        target.http("/?status=503"),
        target.http("/?delay=5s"),
    ];
    args.extend(uris.iter().map(String::as_str));
    let (report, output) = run_json(&args);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    report
}

/// The report's responses by class and errors by kind, as the metrics
/// name them.
fn report_totals(report: &Value) -> (BTreeMap<String, f64>, BTreeMap<String, f64>) {
    let classes = CLASSES
        .iter()
        .map(|c| {
            (
                c.to_string(),
                num(report, &format!("/status_codes/{c}")) as f64,
            )
        })
        .collect();
    let kinds = KINDS
        .iter()
        .map(|k| (k.to_string(), num(report, &format!("/errors/{k}")) as f64))
        .collect();
    (classes, kinds)
}

/// `quantile` (seconds), read from the buckets, lies in the bucket that
/// holds the report's figure `report_us`. HDR reports the highest value
/// of its own bucket (0.1% wide), which may sit just above a bound the
/// value was counted under: the bucket below is then allowed too.
fn assert_same_bucket(quantile: f64, report_us: u64, what: &str) {
    let bucket_of = |us: f64| bounds_us().partition_point(|b| (*b as f64) < us);
    let low = bucket_of(report_us as f64 * 0.999);
    let high = bucket_of(report_us as f64);
    let lower = if low == 0 {
        0.0
    } else {
        bounds_us()[low - 1] as f64 / 1e6
    };
    let upper = bounds_us()
        .get(high)
        .map_or(f64::INFINITY, |b| *b as f64 / 1e6);
    assert!(
        lower * (1.0 - 1e-9) <= quantile && quantile <= upper * (1.0 + 1e-9),
        "{what}: {quantile}s from the buckets, {report_us}µs in the report: not in ({lower}, {upper}]"
    );
}

/// Requests, statuses, errors and the request-time quantiles of `report`
/// as Prometheus has them under `selector`.
fn assert_prometheus_has_the_report(
    prometheus: &Prometheus,
    report: &Value,
    selector: &str,
    over: &str,
) {
    let (classes, kinds) = report_totals(report);
    let latest = |metric: &str| format!("last_over_time({metric}{{{selector}}}[{over}])");
    let mut requests = prometheus.by(&latest("loadgen_requests_total"), "status_class");
    assert_eq!(requests.remove("other"), Some(0.0), "{requests:?}");
    assert_eq!(requests, classes, "{report:#}");
    assert_eq!(
        prometheus.by(&latest("loadgen_errors_total"), "kind"),
        kinds,
        "{report:#}"
    );
    assert_prometheus_has_the_reports_traffic(prometheus, report, selector, over);
    let responses = num(report, "/requests/succeeded") + num(report, "/requests/failed_status");
    let count =
        format!("loadgen_request_duration_seconds_count{{{selector},latency=\"corrected\"}}");
    assert_eq!(
        prometheus.value(&format!("last_over_time({count}[{over}])")),
        responses as f64
    );
    for (latency, stats) in [("corrected", "request_time"), ("raw", "request_time_raw")] {
        for (q, field) in [(0.5, "p50_us"), (0.99, "p99_us")] {
            let promql = format!(
                "histogram_quantile({q}, last_over_time(loadgen_request_duration_seconds_bucket{{{selector},latency=\"{latency}\"}}[{over}]))"
            );
            assert_same_bucket(
                prometheus.value(&promql),
                num(report, &format!("/{stats}/{field}")),
                &promql,
            );
        }
    }
}

/// The protocol, bytes, connections, and late and unsent requests of
/// `report` as Prometheus has them under `selector`.
fn assert_prometheus_has_the_reports_traffic(
    prometheus: &Prometheus,
    report: &Value,
    selector: &str,
    over: &str,
) {
    let latest = |metric: &str| format!("last_over_time({metric}{{{selector}}}[{over}])");
    // One protocol, the report's, on every request and error series.
    let protocol = if report.get("grpc").is_some() {
        "grpc"
    } else {
        field(report, "/application_protocol").as_str().unwrap()
    };
    for family in ["loadgen_requests_total", "loadgen_errors_total"] {
        let protocols = prometheus.by(
            &format!("count by (protocol) ({})", latest(family)),
            "protocol",
        );
        assert_eq!(
            protocols.keys().collect::<Vec<_>>(),
            [protocol],
            "{family}: {protocols:?}"
        );
    }
    let bytes = prometheus.by(&latest("loadgen_bytes_total"), "direction");
    let expected = BTreeMap::from([
        ("received".to_string(), num(report, "/bytes/total") as f64),
        ("sent".to_string(), num(report, "/bytes/sent") as f64),
    ]);
    assert_eq!(bytes, expected, "{report:#}");
    assert!(expected["received"] > 0.0 && expected["sent"] > 0.0);
    for (metric, pointer) in [
        ("loadgen_requests_started_late_total", "/started_late"),
        ("loadgen_requests_unsent_total", "/requests/unsent_at_end"),
    ] {
        assert_eq!(
            prometheus.value(&latest(metric)),
            num(report, pointer) as f64,
            "{metric}"
        );
    }
    // Open connections, never more than the clients': those still open
    // at the end of a timed run, none once a count is done.
    // A scenario's virtual users have a connection each (one origin).
    let clients = report
        .pointer("/scenario/vus_max")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .max(num(report, "/config/clients")) as f64;
    let most = prometheus.value(&format!(
        "max_over_time(loadgen_connections{{{selector}}}[{over}])"
    ));
    assert!(most <= clients, "{most} of {clients}");
    let last = prometheus.value(&latest("loadgen_connections"));
    match field(report, "/config/mode").as_str() {
        Some("requests") => assert_eq!(last, 0.0),
        Some("duration") => assert!((1.0..=clients).contains(&last), "{last} of {clients}"),
        _ => {}
    }
}

#[test]
fn remote_write_ends_with_the_reports_totals() {
    let target = TestTarget::start();
    let prometheus = Prometheus::start(None);
    let push = format!("prometheus-rw={}", prometheus.remote_write_url());
    let report = mixed_run(
        &target,
        &["--metrics-push", &push, "--metrics-tag", "run=plain"],
    );
    assert!(num(&report, "/errors/timeout") > 0, "{report:#}");
    assert!(num(&report, "/status_codes/5xx") > 0, "{report:#}");
    assert_prometheus_has_the_report(&prometheus, &report, "run=\"plain\"", "1h");
}

#[test]
fn a_timed_run_ends_with_the_reports_totals() {
    // Requests still in flight when -D ends are in neither the report's
    // totals nor the metrics: both count what ended.
    let target = TestTarget::start();
    let prometheus = Prometheus::start(None);
    let push = format!("prometheus-rw={}", prometheus.remote_write_url());
    let report = mixed_run_of(
        &target,
        &["-D", "3s"],
        &["--metrics-push", &push, "--metrics-tag", "run=timed"],
    );
    assert!(num(&report, "/errors/timeout") > 0, "{report:#}");
    assert_prometheus_has_the_report(&prometheus, &report, "run=\"timed\"", "1h");
}

#[test]
fn a_scrape_of_metrics_listen_ends_with_the_reports_totals() {
    let target = TestTarget::start();
    let address = format!("127.0.0.1:{}", free_ports(1)[0]);
    let prometheus = Prometheus::start(Some(&address));
    let report = mixed_run(
        &target,
        &["--metrics-listen", &address, "--metrics-linger", "60s"],
    );
    // The final values were served before loadgen exited; Prometheus
    // stores a scrape once it has read it.
    let expected =
        (num(&report, "/requests/succeeded") + num(&report, "/requests/failed_status")) as f64;
    let total = "sum(last_over_time(loadgen_requests_total{job=\"loadgen\"}[1h]))";
    let waited = Instant::now();
    while waited.elapsed() < Duration::from_secs(30)
        && prometheus.query(total).first().map(|(_, v)| *v) != Some(expected)
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_prometheus_has_the_report(&prometheus, &report, "job=\"loadgen\"", "1h");
}

/// Runs the scenario `file` with `args`, pushing to `prometheus` under
/// `run`; returns the JSON report.
fn scenario_run(prometheus: &Prometheus, file: &Path, args: &[&str], run: &str) -> Value {
    let push = format!("prometheus-rw={}", prometheus.remote_write_url());
    let tag = format!("run={run}");
    let mut cmd = loadgen();
    cmd.arg("run").arg(file).args(args).arg("--json").args([
        "--metrics-push",
        &push,
        "--metrics-tag",
        &tag,
    ]);
    let output = run_bounded(cmd, RUN_LIMIT);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    serde_json::from_slice(&output.stdout).expect("a JSON report")
}

/// Each step's ends and latencies, each check's results and the dropped
/// iterations of a scenario `report`, as Prometheus has them for `run`.
fn assert_prometheus_has_the_scenario(prometheus: &Prometheus, report: &Value, run: &str) {
    let selector = format!("run=\"{run}\"");
    let steps = field(report, "/scenario/steps").as_array().expect("steps");
    assert!(!steps.is_empty());
    let counts = prometheus.by(
        &format!("loadgen_step_duration_seconds_count{{{selector},latency=\"corrected\"}}"),
        "step",
    );
    let scenarios: Vec<&str> = field(report, "/scenario/scenarios")
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    for step in steps {
        let name = step["name"].as_str().unwrap();
        let requests = step["duration"]["count"]
            .as_u64()
            .unwrap_or_else(|| panic!("a step's count: {step:#}"));
        assert_eq!(
            counts.get(name),
            Some(&(requests as f64)),
            "{name}: {counts:?}\n{step:#}"
        );
        let of_step = format!("{selector},step=\"{name}\"");
        // A step nothing ended in has no quantile to agree on.
        let latencies = if requests > 0 {
            [("corrected", "duration"), ("raw", "duration_raw")].as_slice()
        } else {
            &[]
        };
        for (latency, stats) in latencies {
            for (q, percentile) in [(0.5, "p50_us"), (0.99, "p99_us")] {
                let promql = format!(
                    "histogram_quantile({q}, loadgen_step_duration_seconds_bucket{{{of_step},latency=\"{latency}\"}})"
                );
                assert_same_bucket(
                    prometheus.value(&promql),
                    step[stats][percentile].as_u64().unwrap(),
                    &promql,
                );
            }
        }
        let mut classes = prometheus.by(
            &format!("loadgen_step_requests_total{{{of_step}}}"),
            "status_class",
        );
        assert_eq!(classes.remove("other"), Some(0.0));
        let (expected, kinds) = report_totals(step);
        assert_eq!(classes, expected, "{name}: {step:#}");
        assert_eq!(
            prometheus.by(&format!("loadgen_step_errors_total{{{of_step}}}"), "kind"),
            kinds,
            "{name}"
        );
        // The step's scenario names it.
        let named = prometheus.by(
            &format!("count by (scenario) (loadgen_step_requests_total{{{of_step}}})"),
            "scenario",
        );
        assert_eq!(named.keys().collect::<Vec<_>>(), scenarios, "{name}");
    }
    let checks = field(report, "/scenario/checks")
        .as_array()
        .expect("checks");
    assert!(!checks.is_empty());
    for check in checks {
        let (step, name) = (
            check["step"].as_str().unwrap(),
            check["name"].as_str().unwrap(),
        );
        let results = prometheus.by(
            &format!(
                "loadgen_checks_total{{{selector},step=\"{step}\",check=\"{}\"}}",
                name.replace('\\', "\\\\").replace('"', "\\\"")
            ),
            "result",
        );
        let expected = BTreeMap::from([
            ("fail".to_string(), check["fails"].as_u64().unwrap() as f64),
            ("pass".to_string(), check["passes"].as_u64().unwrap() as f64),
        ]);
        assert_eq!(results, expected, "{check:#}");
    }
    assert_eq!(
        prometheus.value(&format!("loadgen_dropped_iterations_total{{{selector}}}")),
        num(report, "/scenario/iterations/dropped") as f64
    );
}

#[test]
fn a_scenario_run_pushes_each_step_and_check() {
    let target = TestTarget::start();
    let prometheus = Prometheus::start(None);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/login-logout.yaml");
    let base = format!("BASE_URL={}", target.http(""));
    let report = scenario_run(
        &prometheus,
        &file,
        &["--env", &base, "--vus", "2", "--iterations", "20"],
        "scenario",
    );
    let (classes, _) = report_totals(&report);
    let mut requests = prometheus.by("loadgen_requests_total{run=\"scenario\"}", "status_class");
    requests.remove("other");
    assert_eq!(requests, classes);
    assert_prometheus_has_the_scenario(&prometheus, &report, "scenario");
    let bytes = prometheus.by("loadgen_bytes_total{run=\"scenario\"}", "direction");
    assert_eq!(bytes["received"], num(&report, "/bytes/total") as f64);
    assert_eq!(bytes["sent"], num(&report, "/bytes/sent") as f64);
}

#[test]
fn an_arrival_rate_scenario_pushes_its_virtual_users_and_dropped_iterations() {
    // Two virtual users at most, each busy 100 ms an iteration, cannot
    // start 100 iterations a second: most are dropped.
    let target = TestTarget::start();
    let prometheus = Prometheus::start(None);
    let dir = TempDir::new("metrics-arrival");
    let file = dir.write(
        "arrival.yaml",
        format!(
            r#"
scenarios:
  arrivals:
    executor: constant-arrival-rate
    rate: 100
    duration: 2s
    preAllocatedVUs: 1
    maxVUs: 2
    steps:
      - name: slow
        url: {}
        checks:
          status_in: [200]
"#,
            target.http("/?delay=100ms")
        ),
    );
    let report = scenario_run(&prometheus, &file, &[], "arrival");
    assert!(
        num(&report, "/scenario/iterations/dropped") > 0,
        "{report:#}"
    );
    assert_prometheus_has_the_scenario(&prometheus, &report, "arrival");
    let most = prometheus.value("max_over_time(loadgen_vus{run=\"arrival\"}[1h])");
    let vus_max = num(&report, "/scenario/vus_max") as f64;
    assert!((1.0..=vus_max).contains(&most), "{most} of {vus_max}");
    assert_prometheus_has_the_reports_traffic(&prometheus, &report, "run=\"arrival\"", "1h");
}

#[test]
fn otlp_pushes_decode_to_the_reports_totals() {
    let target = TestTarget::start();
    let dir = TempDir::new("otlp");
    let received = dir.path().join("received.jsonl");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/metrics/otlp_receiver.py");
    let receiver = PythonServer::start(&script, &[path_str(&received)]);
    let push = format!("otlp=http://127.0.0.1:{}/v1/metrics", receiver.port);
    let report = mixed_run(
        &target,
        &[
            "--metrics-push",
            &push,
            "--metrics-header",
            "Authorization: Bearer s3cret",
            "--metrics-tag",
            "run=otlp",
        ],
    );
    let text = std::fs::read_to_string(&received).expect("the receiver wrote what it got");
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    // Every fourth request waits out its 300 ms timeout: the run lasts
    // seconds, each pushed as it closes, and the final push after them.
    assert!(lines.len() >= 2, "{text}");
    let ok_of = |line: &Value| -> u64 {
        let metrics = line["request"]["resource_metrics"][0]["scope_metrics"][0]["metrics"]
            .as_array()
            .unwrap();
        let requests = metrics
            .iter()
            .find(|m| m["name"] == "loadgen_requests")
            .unwrap();
        requests["sum"]["data_points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["attributes"][0]["value"]["string_value"] == "2xx")
            .and_then(|p| p.get("as_int"))
            .map_or(0, |v| v.as_str().unwrap().parse().unwrap())
    };
    let oks: Vec<u64> = lines.iter().map(ok_of).collect();
    assert!(oks.windows(2).all(|w| w[0] <= w[1]), "cumulative: {oks:?}");
    let last = lines.last().expect("at least the final push");
    assert_eq!(last["path"], "/v1/metrics");
    assert_eq!(last["headers"]["authorization"], "Bearer s3cret");
    assert_eq!(last["headers"]["content-type"], "application/x-protobuf");
    let resource = &last["request"]["resource_metrics"][0];
    let attributes: BTreeMap<&str, &str> = resource["resource"]["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kv| {
            (
                kv["key"].as_str().unwrap(),
                kv["value"]["string_value"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        attributes,
        BTreeMap::from([("service.name", "loadgen"), ("run", "otlp")])
    );
    let metrics = resource["scope_metrics"][0]["metrics"].as_array().unwrap();
    let metric = |name: &str| {
        metrics
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {metrics:#?}"))
    };
    let attribute = |point: &Value, key: &str| -> String {
        point["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|kv| kv["key"] == key)
            .map(|kv| kv["value"]["string_value"].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let number = |v: &Value| -> f64 {
        v.as_str()
            .map_or_else(|| v.as_f64().unwrap_or(0.0), |s| s.parse().unwrap())
    };
    let sum = |name: &str, key: &str| -> BTreeMap<String, f64> {
        let sum = &metric(name)["sum"];
        assert_eq!(
            sum["aggregation_temporality"],
            "AGGREGATION_TEMPORALITY_CUMULATIVE"
        );
        assert_eq!(sum["is_monotonic"], true);
        sum["data_points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (attribute(p, key), p.get("as_int").map_or(0.0, number)))
            .collect()
    };
    let (classes, kinds) = report_totals(&report);
    let mut requests = sum("loadgen_requests", "status_class");
    requests.remove("other");
    assert_eq!(requests, classes);
    assert_eq!(sum("loadgen_errors", "kind"), kinds);
    assert_eq!(
        sum("loadgen_bytes", "direction"),
        BTreeMap::from([
            ("received".to_string(), num(&report, "/bytes/total") as f64),
            ("sent".to_string(), num(&report, "/bytes/sent") as f64),
        ])
    );
    let protocol = field(&report, "/application_protocol").as_str().unwrap();
    for name in ["loadgen_requests", "loadgen_errors"] {
        let points = metric(name)["sum"]["data_points"].as_array().unwrap();
        assert!(
            points.iter().all(|p| attribute(p, "protocol") == protocol),
            "{name}: {points:#?}"
        );
    }
    // A gauge, at 0 once every request of the count is done.
    let connections = metric("loadgen_connections")["gauge"]["data_points"]
        .as_array()
        .expect("a gauge's points");
    assert_eq!(connections.len(), 1);
    assert_eq!(connections[0].get("as_int").map_or(0.0, number), 0.0);

    let histogram = &metric("loadgen_request_duration_seconds")["histogram"];
    for (latency, stats) in [("corrected", "request_time"), ("raw", "request_time_raw")] {
        let point = histogram["data_points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| attribute(p, "latency") == latency)
            .expect("a point per latency");
        let count = number(&point["count"]) as u64;
        assert_eq!(count, num(&report, &format!("/{stats}/count")));
        let counts: Vec<u64> = point["bucket_counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| number(c) as u64)
            .collect();
        let bounds: Vec<f64> = point["explicit_bounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(number)
            .collect();
        assert_eq!(counts.len(), bounds.len() + 1);
        assert_eq!(counts.iter().sum::<u64>(), count);
        for (q, field) in [(0.5, "p50_us"), (0.99, "p99_us")] {
            // The bucket that holds the quantile's rank, as Prometheus
            // finds it; its upper bound stands for it.
            let rank = (q * count as f64).ceil() as u64;
            let mut seen = 0;
            let bucket = counts
                .iter()
                .position(|n| {
                    seen += n;
                    seen >= rank
                })
                .unwrap();
            assert_same_bucket(
                bounds[bucket],
                num(&report, &format!("/{stats}/{field}")),
                field,
            );
        }
    }
}

#[test]
fn a_push_nobody_receives_is_counted_and_the_report_stays_whole() {
    let target = TestTarget::start();
    let push = format!(
        "prometheus-rw=http://127.0.0.1:{}/api/v1/write",
        closed_port()
    );
    let (report, output) = run_json(&[
        "-n",
        "200",
        "-c",
        "4",
        "--metrics-push",
        &push,
        "--metrics-linger",
        "1s",
        &target.http("/"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    assert_all_ok(&report, 200, BODY_LEN);
    let said = stderr(&output);
    assert!(said.contains("--metrics-push"), "{said}");
    assert!(
        said.contains("the final values did not get through"),
        "{said}"
    );
    assert!(said.contains("cannot connect"), "{said}");
}

#[test]
fn a_distributed_run_pushes_the_merged_view() {
    let target = TestTarget::start();
    let prometheus = Prometheus::start(None);
    let dir = TempDir::new("metrics-workers");
    let token = dir.write("token", "metrics-test-token-0123456789abcdef\n");
    let workers = [Worker::start(&token), Worker::start(&token)];
    let urls: Vec<&str> = workers.iter().map(|w| w.url.as_str()).collect();
    let push = format!("prometheus-rw={}", prometheus.remote_write_url());
    let workers_flag = urls.join(",");
    let report = mixed_run(
        &target,
        &[
            "--workers",
            &workers_flag,
            "--token-file",
            path_str(&token),
            "--metrics-push",
            &push,
            "--metrics-tag",
            "run=distributed",
        ],
    );
    assert_eq!(field(&report, "/workers").as_array().map(Vec::len), Some(2));
    // One series per class for the whole run, not one per worker.
    let series =
        prometheus.query("loadgen_requests_total{run=\"distributed\",status_class=\"2xx\"}");
    assert_eq!(series.len(), 1, "{series:?}");
    assert_prometheus_has_the_report(&prometheus, &report, "run=\"distributed\"", "1h");
}

#[test]
fn a_distributed_scenario_pushes_each_step_and_check_merged() {
    let target = TestTarget::start();
    let prometheus = Prometheus::start(None);
    let dir = TempDir::new("metrics-workers-scenario");
    let token = dir.write("token", "metrics-test-token-0123456789abcdef\n");
    let workers = [Worker::start(&token), Worker::start(&token)];
    let urls: Vec<&str> = workers.iter().map(|w| w.url.as_str()).collect();
    let workers_flag = urls.join(",");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/login-logout.yaml");
    let base = format!("BASE_URL={}", target.http(""));
    let report = scenario_run(
        &prometheus,
        &file,
        &[
            "--env",
            &base,
            "--vus",
            "4",
            "--iterations",
            "20",
            "--workers",
            &workers_flag,
            "--token-file",
            path_str(&token),
        ],
        "distributed-scenario",
    );
    assert_eq!(field(&report, "/workers").as_array().map(Vec::len), Some(2));
    // Both workers ran iterations: the series add up both.
    for worker in field(&report, "/workers").as_array().unwrap() {
        assert!(num(worker, "/iterations/completed") > 0, "{worker:#}");
    }
    // One series per step and class for the whole run, not one per worker.
    let series = prometheus.query(
        "loadgen_step_requests_total{run=\"distributed-scenario\",step=\"log in\",status_class=\"2xx\"}",
    );
    assert_eq!(series.len(), 1, "{series:?}");
    assert_prometheus_has_the_scenario(&prometheus, &report, "distributed-scenario");
}

#[test]
fn grpc_calls_are_pushed_as_the_run_counts_them() {
    let target = TestTarget::start();
    let prometheus = Prometheus::start(None);
    let push = format!("prometheus-rw={}", prometheus.remote_write_url());
    let (report, output) = run_json_of(
        &["grpc"],
        &[
            "--call",
            "loadgen.echo.v1.Echo/Echo",
            "--proto",
            loadgen_target::ECHO_PROTO_PATH,
            "-d",
            r#"{"message": "x", "status": 14}"#,
            "-n",
            "300",
            "-c",
            "3",
            "--metrics-push",
            &push,
            "--metrics-tag",
            "run=grpc",
            &target.http(""),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    assert_num(&report, "/grpc/statuses/UNAVAILABLE", 300);
    assert_prometheus_has_the_report(&prometheus, &report, "run=\"grpc\"", "1h");
}
