//! `loadgen grpc`: a unary gRPC method called under load. The flags name
//! the call and its message (JSON through the method's descriptors, or a
//! message already encoded); the rest is the benchmark's own flags, and
//! the run is an ordinary plan whose requests are that call (`PlanInput::grpc`).

pub mod messages;

use crate::args::bench::{BenchArgs, GrpcCall, PerCallMessages};
use crate::failure::fail;
use clap::Args;
use loadgen_core::protocols::per_call::{BodyMaker, Call};
use loadgen_grpc::method_path;
use messages::MessageTemplate;
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
        Ok(bench) => super::bench::main(&bench),
        Err(message) => fail(2, &message),
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
                        if !bench.split.workers.is_empty() {
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
