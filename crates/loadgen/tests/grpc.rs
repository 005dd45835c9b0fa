//! `loadgen grpc`: unary calls against a server nobody here wrote (Python's
//! grpcio, tests/grpc/greeter_server.py, with server reflection) and
//! against the built-in target's echo service, over h2c, HTTP/2 over TLS
//! and HTTP/3; descriptors from --proto, --protoset and --reflect; calls
//! counted by gRPC status; usage errors. No timing is asserted.

mod common;

use common::*;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;

const CALL: &str = "loadgen.test.Greeter/SayHello";

fn proto_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/grpc"))
}

/// greeter_server.py; its directory holds the Python stubs and
/// `greeter.protoset`.
struct Greeter {
    server: PythonServer,
    dir: TempDir,
}

impl Greeter {
    fn start() -> Greeter {
        let dir = TempDir::new("grpc-greeter");
        let server = PythonServer::start(
            &proto_dir().join("greeter_server.py"),
            &[path_str(&proto_dir()), path_str(dir.path())],
        );
        Greeter { server, dir }
    }

    fn uri(&self) -> String {
        format!("http://127.0.0.1:{}", self.server.port)
    }

    fn protoset(&self) -> PathBuf {
        self.dir.path().join("greeter.protoset")
    }
}

/// `loadgen grpc --json -q ARGS`: the report and the output.
fn grpc(args: &[&str]) -> (Value, Output) {
    run_json_of(&["grpc"], args)
}

fn grpc_ok(args: &[&str]) -> Value {
    let (report, output) = grpc(args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "loadgen grpc {} should exit 0\n{}",
        args.join(" "),
        describe(&output)
    );
    report
}

/// `n` calls, all answered OK.
fn assert_all_ok_calls(report: &Value, n: u64) {
    for (pointer, expected) in [
        ("/requests/total", n),
        ("/requests/done", n),
        ("/requests/succeeded", n),
        ("/requests/failed", 0),
        ("/requests/errored", 0),
        ("/status_codes/by_code/200", n),
        ("/request_time/count", n),
        ("/grpc/statuses/OK", n),
    ] {
        assert_num(report, pointer, expected);
    }
}

#[test]
fn python_server_with_reflection_answers_every_call() {
    let server = Greeter::start();
    let report = grpc_ok(&[
        "--call",
        CALL,
        "--reflect",
        "-d",
        r#"{"name": "loadgen", "sentAt": "2026-11-26T00:00:00Z"}"#,
        "-n",
        "1000",
        "-c",
        "4",
        "-m",
        "10",
        &server.uri(),
    ]);
    assert_all_ok_calls(&report, 1000);
    assert_protocol(&report, "h2c");
    assert_eq!(
        field(&report, "/grpc/statuses").as_object().unwrap().len(),
        1
    );
}

#[test]
fn descriptors_from_proto_and_protoset() {
    let server = Greeter::start();
    let proto = proto_dir().join("greeter.proto");
    let report = grpc_ok(&[
        "--call",
        CALL,
        "--proto",
        path_str(&proto),
        "-d",
        r#"{"name": "proto"}"#,
        "-n",
        "200",
        "-c",
        "2",
        &server.uri(),
    ]);
    assert_all_ok_calls(&report, 200);
    let protoset = server.protoset();
    let dir = TempDir::new("grpc-data");
    let data = dir.write("message.json", r#"{"name": "protoset"}"#);
    let report = grpc_ok(&[
        "--call",
        CALL,
        "--protoset",
        path_str(&protoset),
        "--data-file",
        path_str(&data),
        "-n",
        "200",
        "-c",
        "2",
        &server.uri(),
    ]);
    assert_all_ok_calls(&report, 200);
}

#[test]
fn an_encoded_message_needs_no_descriptors() {
    let server = Greeter::start();
    let dir = TempDir::new("grpc-binary");
    // HelloRequest { name: "x" }: field 1, length-delimited, one byte.
    let message = dir.write("message.bin", [0x0a, 0x01, b'x']);
    let report = grpc_ok(&[
        "--call",
        CALL,
        "--binary",
        path_str(&message),
        "-n",
        "100",
        &server.uri(),
    ]);
    assert_all_ok_calls(&report, 100);
}

#[test]
fn failed_calls_are_counted_by_status_name() {
    let server = Greeter::start();
    let proto = proto_dir().join("greeter.proto");
    let proto = path_str(&proto);
    // The server fails every 4th call of its life with UNAVAILABLE (14).
    let (report, output) = grpc(&[
        "--call",
        CALL,
        "--proto",
        proto,
        "-d",
        r#"{"failEvery": 4, "failCode": 14}"#,
        "-n",
        "100",
        "-c",
        "4",
        "-m",
        "10",
        "--threshold",
        "grpc_unavailable<10%",
        &server.uri(),
    ]);
    assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
    for (pointer, expected) in [
        ("/requests/done", 100),
        ("/requests/succeeded", 75),
        ("/requests/failed", 25),
        ("/requests/errored", 0),
        ("/status_codes/by_code/200", 100),
        ("/grpc/statuses/OK", 75),
        ("/grpc/statuses/UNAVAILABLE", 25),
    ] {
        assert_num(&report, pointer, expected);
    }
    // Calls 101 to 200 of the server's life: every 5th is INVALID_ARGUMENT.
    let report = grpc(&[
        "--call",
        CALL,
        "--proto",
        proto,
        "-d",
        r#"{"failEvery": 5, "failCode": 3}"#,
        "-n",
        "100",
        "-c",
        "2",
        &server.uri(),
    ])
    .0;
    assert_num(&report, "/grpc/statuses/OK", 80);
    assert_num(&report, "/grpc/statuses/INVALID_ARGUMENT", 20);
    assert_num(&report, "/requests/failed", 20);
}

#[test]
fn text_output_names_the_statuses() {
    let server = Greeter::start();
    let proto = proto_dir().join("greeter.proto");
    let output = run(&[
        "grpc",
        "--call",
        CALL,
        "--proto",
        path_str(&proto),
        "-d",
        r#"{"failEvery": 2, "failCode": 14}"#,
        "-n",
        "10",
        &server.uri(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let text = stdout(&output);
    assert!(
        text.contains("grpc status: 5 OK, 5 UNAVAILABLE"),
        "{}",
        describe(&output)
    );
    assert!(
        text.contains("5 succeeded, 5 failed"),
        "{}",
        describe(&output)
    );
    // One client, one call at a time: the server's second call is the first to fail.
    assert!(
        text.contains("grpc message: first UNAVAILABLE: call 2 fails on purpose"),
        "{}",
        describe(&output)
    );
}

#[test]
fn bad_descriptors_and_messages_are_one_line_and_exit_2() {
    let dir = TempDir::new("grpc-bad");
    let garbage = dir.write("bad.protoset", b"\xff\xff not a descriptor set");
    let broken = dir.write("broken.proto", "syntax = \"proto3\";\nmessage {\n");
    let proto = proto_dir().join("greeter.proto");
    let proto = path_str(&proto);
    let uri = "http://127.0.0.1:9";
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (
            vec!["--call", CALL, "--protoset", path_str(&garbage), uri],
            &["--protoset"],
        ),
        (
            vec!["--call", CALL, "--proto", path_str(&broken), uri],
            &["broken.proto"],
        ),
        (
            vec![
                "--call",
                CALL,
                "--proto",
                proto,
                "-d",
                r#"{"nope": 1}"#,
                uri,
            ],
            &["nope"],
        ),
        (
            vec![
                "--call",
                CALL,
                "--proto",
                proto,
                "-d",
                r#"{"name": 7}"#,
                uri,
            ],
            &["name"],
        ),
        (
            vec!["--call", CALL, "--proto", proto, "-d", "{", uri],
            &["--data"],
        ),
        (
            vec!["--call", "loadgen.test.Greeter/Nope", "--proto", proto, uri],
            &["Nope"],
        ),
        (vec!["--call", CALL, "-d", "{}", uri], &["--proto"]),
        (
            vec!["--call", CALL, "--binary", proto, "--method", "GET", uri],
            &["POST"],
        ),
        (
            vec!["--call", "Greeter", "--binary", proto, uri],
            &["--call"],
        ),
        (
            vec!["--call", CALL, "--binary", proto, "http://127.0.0.1:9/x"],
            &["without a path"],
        ),
        (
            vec!["--call", CALL, "--binary", proto, "-p", "http/1.1", uri],
            &["h2c"],
        ),
    ];
    for (args, mentions) in cases {
        let mut full = vec!["grpc"];
        full.extend(args);
        let output = run(&full);
        assert_error(&output, 2, mentions);
    }
}

// ---------------------------------------------------------------------------
// Against the built-in target's echo service
// ---------------------------------------------------------------------------

const ECHO: &str = "loadgen.echo.v1.Echo/Echo";

#[test]
fn built_in_target_over_h2c_tls_and_http3() {
    let t = TestTarget::start();
    let proto = loadgen_target::ECHO_PROTO_PATH;
    let clear = t.http("");
    let tls = t.https("");
    let runs: [(&str, Vec<&str>, &str); 3] = [
        ("h2c", vec!["--reflect"], &clear),
        ("h2", vec!["--proto", proto, "-k"], &tls),
        ("h3", vec!["--proto", proto, "-k", "--h3"], &tls),
    ];
    for (protocol, flags, uri) in runs {
        let before = t.stats();
        let mut args = vec!["--call", ECHO, "-d", r#"{"message": "hello"}"#];
        args.extend(flags);
        args.extend(["-n", "1000", "-c", "4", "-m", "10", uri]);
        let report = grpc_ok(&args);
        assert_all_ok_calls(&report, 1000);
        assert_protocol(&report, protocol);
        let served = stats_delta(before, t.stats());
        // --reflect's call is one more request.
        let reflection = u64::from(protocol == "h2c");
        assert_eq!(served.total, 1000 + reflection, "{protocol}: {served:?}");
        // EchoReply { message: "hello" }: 7 bytes, framed: 12 per call.
        assert_num(&report, "/bytes/data", 12 * 1000);
    }
}

#[test]
fn built_in_target_fails_calls_on_demand() {
    let t = TestTarget::start();
    let clear = t.http("");
    let tls = t.https("");
    let runs: [(&str, &[&str], &str); 2] = [("h2c", &[], &clear), ("h3", &["-k", "--h3"], &tls)];
    for (protocol, flags, uri) in runs {
        let mut args = vec![
            "--call",
            ECHO,
            "--proto",
            loadgen_target::ECHO_PROTO_PATH,
            "-d",
            r#"{"message": "x", "status": 14, "statusMessage": "down for a test, 100%"}"#,
            "-n",
            "200",
            "-c",
            "2",
            "-m",
            "4",
            "--threshold",
            "grpc_ok>=99%",
        ];
        args.extend(flags);
        args.push(uri);
        let (report, output) = grpc(&args);
        assert_eq!(output.status.code(), Some(99), "{}", describe(&output));
        assert_protocol(&report, protocol);
        assert_num(&report, "/grpc/statuses/UNAVAILABLE", 200);
        assert_num(&report, "/requests/failed", 200);
        assert_num(&report, "/requests/errored", 0);
        assert!(report.pointer("/grpc/statuses/OK").is_none(), "{report:#}");
        assert_eq!(
            text(&report, "/grpc/first_messages/UNAVAILABLE"),
            "down for a test, 100%",
            "{protocol}"
        );
    }
}

#[test]
fn templated_messages_differ_per_call() {
    let server = Greeter::start();
    let uri = server.uri();
    let call = |message: &str| {
        let args = [
            "--call",
            CALL,
            "--reflect",
            "-d",
            message,
            "-n",
            "1000",
            "-c",
            "4",
            "-m",
            "10",
            &uri,
        ];
        let (report, output) = grpc(&args);
        assert_no_panic(&output);
        report
    };
    // The server fails a name it has seen: every call carries its own.
    let report = call(r#"{"name": "client {{vu}} call {{iteration}}", "uniqueNames": true}"#);
    assert_all_ok_calls(&report, 1000);
    let report = call(r#"{"name": "{{uuid}}", "uniqueNames": true}"#);
    assert_all_ok_calls(&report, 1000);
    // The same fixed name, as a control: only its first call is new.
    let report = call(r#"{"name": "always the same", "uniqueNames": true}"#);
    assert_num(&report, "/grpc/statuses/OK", 1);
    assert_num(&report, "/grpc/statuses/ALREADY_EXISTS", 999);
}

#[test]
fn templated_values_reach_the_built_in_target() {
    let t = TestTarget::start();
    // Each client's calls ask for its own number as their status: two
    // clients, 1 (CANCELLED) and 2 (UNKNOWN), 50 calls each.
    let (report, output) = grpc(&[
        "--call",
        ECHO,
        "--proto",
        loadgen_target::ECHO_PROTO_PATH,
        "-d",
        r#"{"message": "{{iteration}}", "status": "{{vu}}"}"#,
        "-n",
        "100",
        "-c",
        "2",
        &t.http(""),
    ]);
    assert_no_panic(&output);
    assert_num(&report, "/grpc/statuses/CANCELLED", 50);
    assert_num(&report, "/grpc/statuses/UNKNOWN", 50);
    assert_num(&report, "/requests/failed", 100);
    assert_eq!(t.stats().total, 100);
}

#[test]
fn templates_that_cannot_make_a_message_are_one_line() {
    let proto = loadgen_target::ECHO_PROTO_PATH;
    let uri = "http://127.0.0.1:1";
    for (data, mentions) in [
        (
            r#"{"message": "{{nope}}"}"#,
            "'{{nope}}' is not a per-call value",
        ),
        (r#"{"message": "{{scenario}}"}"#, "is not a per-call value"),
        // A UUID in a number field breaks the very first message.
        (r#"{"status": "{{uuid}}"}"#, "field 'status'"),
        (r#"{"message": "{{iteration"}"#, "without its"),
    ] {
        let output = run(&["grpc", "--call", ECHO, "--proto", proto, "-d", data, uri]);
        assert_error(&output, 2, &["--data", mentions]);
    }
    let output = run(&[
        "grpc",
        "--call",
        ECHO,
        "--proto",
        proto,
        "-d",
        r#"{"message": "{{uuid}}"}"#,
        "--workers",
        "127.0.0.1:1",
        "--token-file",
        "/nonexistent/token",
        uri,
    ]);
    assert_error(&output, 2, &["--workers"]);
}

#[test]
fn reports_of_grpc_runs_merge_by_status() {
    let t = TestTarget::start();
    let dir = TempDir::new("grpc-merge");
    let mut files = Vec::new();
    for (i, status) in [0, 3].into_iter().enumerate() {
        let file = dir.path().join(format!("part{i}.json"));
        let data = format!(r#"{{"message": "x", "status": {status}}}"#);
        let output = run(&[
            "grpc",
            "-q",
            "--call",
            ECHO,
            "--proto",
            loadgen_target::ECHO_PROTO_PATH,
            "-d",
            &data,
            "-n",
            "300",
            "-o",
            path_str(&file),
            &t.http(""),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
        files.push(file);
    }
    let merged = dir.path().join("merged.json");
    let output = run(&[
        "merge",
        "-o",
        path_str(&merged),
        path_str(&files[0]),
        path_str(&files[1]),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let report: Value = serde_json::from_slice(&std::fs::read(&merged).unwrap()).unwrap();
    assert_num(&report, "/grpc/statuses/OK", 300);
    assert_num(&report, "/grpc/statuses/INVALID_ARGUMENT", 300);
    assert_num(&report, "/requests/succeeded", 300);
    assert_num(&report, "/requests/failed", 300);
}
