//! `loadgen grpc`: a unary gRPC method called under load. The flags name
//! the call and its message (JSON through the method's descriptors, or a
//! message already encoded); the rest is the benchmark's own flags, and
//! the run is an ordinary plan whose requests are that call (`PlanInput::grpc`).

use crate::cli::{BenchArgs, GrpcCall};
use crate::grpc_messages::{MessageTemplate, PerCallMessages};
use clap::Args;
use loadgen_core::protocols::per_call::{BodyMaker, Call};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Args, Debug)]
#[command(mut_arg("data", |arg| arg
    .value_name("JSON")
    .help("The request message as JSON (proto3's JSON mapping), as ghz's -d; default {}; {{vu}}, {{iteration}}, {{uuid}}, ... in it make a message per call")))]
#[command(mut_arg("uris", |arg| arg
    .help("The server: http://HOST:PORT (h2c) or https://HOST:PORT (TLS; --h3 for HTTP/3)")))]
#[command(mut_arg("method", |arg| arg.hide(true)))]
pub struct GrpcArgs {
    /// The method to call: package.Service/Method.
    #[arg(long, value_name = "SERVICE/METHOD")]
    pub call: String,

    /// Compile the method's descriptors from these .proto files.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["protoset", "reflect"])]
    pub proto: Vec<PathBuf>,

    /// Where --proto files find their imports, as protoc's -I (default: each file's directory).
    #[arg(
        short = 'I',
        long = "import-path",
        value_name = "DIR",
        requires = "proto"
    )]
    pub import_paths: Vec<PathBuf>,

    /// Read the descriptors from a FileDescriptorSet (protoc --include_imports --descriptor_set_out).
    #[arg(long, value_name = "FILE", conflicts_with = "reflect")]
    pub protoset: Option<PathBuf>,

    /// Ask the server for the descriptors (gRPC server reflection, v1 then v1alpha).
    #[arg(long)]
    pub reflect: bool,

    /// The request message as JSON, from a file.
    #[arg(long = "data-file", value_name = "FILE", conflicts_with = "data")]
    pub data_file: Option<PathBuf>,

    /// The request message already encoded (protobuf binary, not framed); needs no descriptors.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["data", "data_file"])]
    pub binary: Option<PathBuf>,

    #[command(flatten)]
    pub bench: BenchArgs,
}

pub fn main(args: &GrpcArgs) -> ExitCode {
    match args.resolve() {
        Ok(bench) => crate::bench::main(&bench),
        Err(message) => crate::fail(2, &message),
    }
}

impl GrpcArgs {
    /// The benchmark's flags with the call in them.
    fn resolve(&self) -> Result<BenchArgs, String> {
        if self.bench.method.is_some() {
            return Err("--method: a gRPC call is always a POST".into());
        }
        let mut bench = self.bench.clone();
        // `-d` is the message's JSON here, not h2load's body file.
        let json = bench.data.take().map(|text| text.into_os_string());
        let path = method_path(&self.call)?;
        let (body, per_call) = match &self.binary {
            Some(file) => {
                if self.has_descriptors() {
                    self.method(&bench)?;
                }
                let message = std::fs::read(file)
                    .map_err(|e| format!("--binary: cannot read '{}': {e}", file.display()))?;
                (loadgen_grpc::frame(&message), None)
            }
            None => {
                let (flag, text) = match (&json, &self.data_file) {
                    (Some(text), _) => ("--data", text.to_string_lossy().into_owned()),
                    (None, Some(file)) => (
                        "--data-file",
                        std::fs::read_to_string(file).map_err(|e| {
                            format!("--data-file: cannot read '{}': {e}", file.display())
                        })?,
                    ),
                    (None, None) => ("--data", "{}".to_string()),
                };
                if !self.has_descriptors() {
                    return Err(format!(
                        "{flag}: a JSON message needs the method's descriptors: \
                         give --proto FILE, --protoset FILE or --reflect (or an encoded message with --binary)"
                    ));
                }
                let method = self.method(&bench)?;
                // The library names `--data`; the message may have come from a file.
                let named = |e: String| e.replacen("--data:", &format!("{flag}:"), 1);
                match MessageTemplate::parse(&text, &method, flag)? {
                    None => {
                        let message = loadgen_grpc::encode_json(&method, &text).map_err(named)?;
                        (loadgen_grpc::frame(&message), None)
                    }
                    Some(template) => {
                        if !bench.workers.is_empty() {
                            return Err(format!(
                                "{flag}: per-call values ({{{{...}}}}) are not sent to --workers; \
                                 run without --workers or with a fixed message"
                            ));
                        }
                        // The first call's message, made now, shows the
                        // template fits the message before any run.
                        let mut first = Vec::new();
                        let call = Call {
                            client: 0,
                            iteration: 0,
                        };
                        template.make(call, &mut first).map_err(named)?;
                        (first, Some(PerCallMessages(Arc::new(template))))
                    }
                }
            }
        };
        bench.grpc_call = Some(GrpcCall {
            path,
            body,
            per_call,
        });
        Ok(bench)
    }

    fn has_descriptors(&self) -> bool {
        !self.proto.is_empty() || self.protoset.is_some() || self.reflect
    }

    /// The method's descriptor, from wherever the flags say.
    fn method(&self, bench: &BenchArgs) -> Result<loadgen_grpc::MethodDescriptor, String> {
        // The library's errors name their flag.
        let pool = if let Some(file) = &self.protoset {
            loadgen_grpc::from_protoset(file)?
        } else if self.reflect {
            let server = bench.to_plan_input()?;
            loadgen_grpc::reflect(&server, loadgen_grpc::service_of(&self.call)?)?
        } else {
            loadgen_grpc::from_proto(&self.proto, &self.import_paths)?
        };
        loadgen_grpc::find_method(&pool, &self.call)
    }
}

/// `/package.Service/Method` from `package.Service/Method` (or its dotted form).
fn method_path(call: &str) -> Result<String, String> {
    let (service, method) = match call.trim_start_matches('/').split_once('/') {
        Some(parts) => parts,
        None => call
            .rsplit_once('.')
            .ok_or_else(|| format!("--call: '{call}' is not of the form package.Service/Method"))?,
    };
    let name = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    };
    if !name(service) || !name(method) || method.contains('.') {
        return Err(format!(
            "--call: '{call}' is not of the form package.Service/Method"
        ));
    }
    Ok(format!("/{service}/{method}"))
}

/// The request URI of a call to the server at `server` (scheme, host and
/// port; the path comes from --call).
pub fn call_uri(server: &str, path: &str) -> Result<String, String> {
    let rest = server.find("://").map_or(0, |i| i + 3);
    let origin_end = server[rest..].find('/').map_or(server.len(), |i| rest + i);
    if !matches!(&server[origin_end..], "" | "/") {
        return Err(format!(
            "'{server}': give the server's URI without a path (scheme://host:port); the path comes from --call"
        ));
    }
    Ok(format!("{}{path}", &server[..origin_end]))
}

/// What every gRPC request carries besides `-H`'s metadata (which may
/// replace them).
pub fn add_call_headers(headers: &mut Vec<(String, String)>) {
    for (name, value) in [("content-type", "application/grpc"), ("te", "trailers")] {
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
            headers.insert(0, (name.to_string(), value.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_become_paths() {
        assert_eq!(method_path("pkg.Echo/Echo").unwrap(), "/pkg.Echo/Echo");
        assert_eq!(method_path("/pkg.Echo/Echo").unwrap(), "/pkg.Echo/Echo");
        assert_eq!(method_path("pkg.Echo.Echo").unwrap(), "/pkg.Echo/Echo");
        for bad in ["Echo", "pkg.Echo/", "pkg.Echo/a.b", "pkg Echo/Echo", ""] {
            assert!(method_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_server_uri_takes_the_calls_path() {
        let path = "/pkg.Echo/Echo";
        assert_eq!(
            call_uri("http://127.0.0.1:50051", path).unwrap(),
            "http://127.0.0.1:50051/pkg.Echo/Echo"
        );
        assert_eq!(
            call_uri("https://h:1/", path).unwrap(),
            "https://h:1/pkg.Echo/Echo"
        );
        assert!(call_uri("http://h:1/other", path).is_err());
    }

    #[test]
    fn metadata_may_replace_the_call_headers() {
        let mut headers = vec![(
            "Content-Type".to_string(),
            "application/grpc+proto".to_string(),
        )];
        add_call_headers(&mut headers);
        assert_eq!(
            headers,
            [
                ("te".to_string(), "trailers".to_string()),
                (
                    "Content-Type".to_string(),
                    "application/grpc+proto".to_string()
                )
            ]
        );
    }
}
