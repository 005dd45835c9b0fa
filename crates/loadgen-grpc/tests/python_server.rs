//! Against a gRPC server nobody here wrote: grpcio's Python server with its
//! reflection service (v1alpha only, as grpcio-reflection 1.85 serves),
//! stubs and protoset made by grpcio-tools' protoc at test time.

use loadgen_core::plan::{Mode, PlanInput, TlsOptions};
use loadgen_grpc::{encode_json, find_method, frame, from_proto, from_protoset, reflect};
use loadgen_test_peers::{python, PythonServer};
use std::path::{Path, PathBuf};
use std::process::Command;

fn protos() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/protos")
}

/// A directory of its own for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("loadgen-grpc-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// grpcio-tools' protoc: the Python stubs and a protoset with the imports.
fn protoc(out: &Path) -> PathBuf {
    let protoset = out.join("echo.protoset");
    let output = Command::new(python())
        .args(["-m", "grpc_tools.protoc", "-I"])
        .arg(protos())
        .arg(format!("--python_out={}", out.display()))
        .arg(format!("--grpc_python_out={}", out.display()))
        .arg("--include_imports")
        .arg(format!("--descriptor_set_out={}", protoset.display()))
        .args(["echo.proto", "common.proto"])
        .output()
        .expect("run grpc_tools.protoc");
    assert!(
        output.status.success(),
        "grpc_tools.protoc: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    protoset
}

/// The Python server on 127.0.0.1, stopped when dropped.
struct Server {
    python: PythonServer,
    tls: bool,
    _scratch: Scratch,
}

impl Server {
    fn start(name: &str) -> Server {
        Server::start_with(name, false)
    }

    /// With `tls`, over TLS with a self-signed certificate.
    fn start_with(name: &str, tls: bool) -> Server {
        let scratch = Scratch::new(name);
        protoc(&scratch.0);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/echo_server.py");
        let mut args = vec![scratch.0.display().to_string()];
        if tls {
            let generated =
                rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
            let (cert, key) = (scratch.0.join("cert.pem"), scratch.0.join("key.pem"));
            std::fs::write(&cert, generated.cert.pem()).unwrap();
            std::fs::write(&key, generated.signing_key.serialize_pem()).unwrap();
            args.extend([cert.display().to_string(), key.display().to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Server {
            python: PythonServer::start(&script, &args),
            tls,
            _scratch: scratch,
        }
    }

    fn plan(&self) -> PlanInput {
        let scheme = if self.tls { "https" } else { "http" };
        PlanInput {
            uris: vec![format!("{scheme}://127.0.0.1:{}/", self.python.port)],
            grpc: true,
            tls: TlsOptions {
                insecure: true,
                ..TlsOptions::default()
            },
            ..PlanInput::default()
        }
    }
}

const DATA: &str = r#"{"text": "hi", "count": 2, "tags": [{"key": "a", "value": "b"}],
    "at": "2026-01-01T00:00:00Z", "level": "LEVEL_LOW"}"#;

#[test]
fn reflection_finds_the_service_and_its_imports() {
    let server = Server::start("reflect");
    let pool = reflect(&server.plan(), "loadgen.echo.v1.Echo").expect("reflection");
    for file in [
        "echo.proto",
        "common.proto",
        "google/protobuf/timestamp.proto",
    ] {
        assert!(pool.get_file_by_name(file).is_some(), "{file}");
    }
    let method = find_method(&pool, "loadgen.echo.v1.Echo/Say").unwrap();
    let from_reflection = encode_json(&method, DATA).unwrap();
    let compiled = from_proto(&[protos().join("echo.proto")], &[]).unwrap();
    let from_file = encode_json(
        &find_method(&compiled, "loadgen.echo.v1.Echo/Say").unwrap(),
        DATA,
    )
    .unwrap();
    assert_eq!(from_reflection, from_file);
    let err = find_method(&pool, "loadgen.echo.v1.Echo/Chat").unwrap_err();
    assert!(err.contains("bidirectional streaming"), "{err}");
}

#[test]
fn reflection_works_over_tls_with_the_plans_headers() {
    let server = Server::start_with("tls", true);
    let mut input = server.plan();
    // -H headers travel with the reflection call; the server ignores this one.
    input.headers = vec![("x-loadgen-test".into(), "1".into())];
    let pool = reflect(&input, "loadgen.echo.v1.Echo").expect("reflection over TLS");
    assert!(find_method(&pool, "loadgen.echo.v1.Echo/Say").is_ok());
}

#[test]
fn a_symbol_the_server_lacks_is_not_found() {
    let server = Server::start("not-found");
    let err = reflect(&server.plan(), "x.Y").unwrap_err();
    assert_eq!(
        err,
        "--reflect: the server has no service 'x.Y' (NOT_FOUND)"
    );
}

#[test]
fn protocs_protoset_loads_and_its_body_is_a_call_the_server_takes() {
    let server = Server::start("protoset");
    let pool = from_protoset(&server._scratch.0.join("echo.protoset")).expect("protoset");
    let method = find_method(&pool, "loadgen.echo.v1.Echo.Say").unwrap();
    let body = frame(&encode_json(&method, DATA).unwrap());
    // The body as the front end will send it: three calls through the engine.
    let mut input = server.plan();
    input.uris = vec![format!(
        "http://127.0.0.1:{}/loadgen.echo.v1.Echo/Say",
        server.python.port
    )];
    input.mode = Mode::Requests(3);
    input.headers = vec![
        ("content-type".into(), "application/grpc".into()),
        ("te".into(), "trailers".into()),
    ];
    input.body = Some(body);
    let plan = input.build().unwrap();
    let result = loadgen_core::run(&plan, None).unwrap();
    let grpc = result.recorder.grpc.expect("gRPC counts");
    assert_eq!(grpc.statuses.get(&0), Some(&3), "{:?}", grpc.statuses);
}

#[test]
fn an_unreachable_server_is_one_line() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let input = PlanInput {
        uris: vec![format!("http://127.0.0.1:{port}/")],
        grpc: true,
        ..PlanInput::default()
    };
    let err = reflect(&input, "a.B").unwrap_err();
    assert!(err.starts_with("--reflect: "), "{err}");
    assert!(!err.contains('\n'), "{err}");
}
