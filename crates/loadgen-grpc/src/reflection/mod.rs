//! `--reflect`: the descriptors from the server's reflection service
//! (`grpc/reflection/v1/reflection.proto`), asked for over the same
//! connection settings the run uses.

mod client;
mod messages;

use crate::framing;
use client::{Caller, EngineCaller, Reply};
use loadgen_core::grpc::{status_name, OK};
use loadgen_core::plan::PlanInput;
use messages::{
    ErrorResponse, FileHeader, FileSet, MessageRequest, MessageResponse, ServerReflectionRequest,
    ServerReflectionResponse,
};
use prost::Message;
use prost_reflect::DescriptorPool;
use std::collections::{BTreeMap, BTreeSet};

const V1: &str = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";
/// What servers offered before v1, and all that some (grpcio's Python
/// reflection among them) still offer.
const V1ALPHA: &str = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";
const UNIMPLEMENTED: u16 = 12;
const NOT_FOUND: i32 = 5;
/// All descriptors of one reflection, added up.
const MAX_DESCRIPTORS: usize = 16 << 20;
/// Calls to complete the imports; each one must bring a file not seen
/// before, so this is only reached by a server that keeps adding imports.
const MAX_ROUNDS: usize = 64;

/// The descriptors of the file that defines `symbol` (the service of
/// `--call`, see [`crate::service_of`]) and of every file it imports, from
/// the server `plan` calls. `plan` is the run's plan: its first URI's
/// origin, TLS options, `-H` headers and protocol are used, the rest is
/// replaced for one call. Blocks for up to a few times ten seconds.
pub fn reflect(plan: &PlanInput, symbol: &str) -> Result<DescriptorPool, String> {
    reflect_with(&mut EngineCaller::new(plan)?, symbol)
}

fn reflect_with(caller: &mut impl Caller, symbol: &str) -> Result<DescriptorPool, String> {
    let first = [MessageRequest::FileContainingSymbol(symbol.to_owned())];
    // A server without v1 answers UNIMPLEMENTED (or 404, which gRPC reads
    // as UNIMPLEMENTED): then it may still have v1alpha.
    let mut path = V1;
    let mut reply = caller.call(V1, body(&first))?;
    if reply.grpc_status == UNIMPLEMENTED {
        path = V1ALPHA;
        reply = caller.call(V1ALPHA, body(&first))?;
    }
    let mut files = Files::default();
    files.take(reply, &first)?;
    if files.by_name.is_empty() {
        return Err(format!(
            "--reflect: the server sent no descriptors for '{symbol}'"
        ));
    }
    // Servers usually send the imports along, but need not.
    let mut asked = BTreeSet::new();
    for _ in 0..MAX_ROUNDS {
        let missing = files.missing();
        if missing.is_empty() {
            return files.pool();
        }
        if let Some((name, importer)) = missing.iter().find(|(name, _)| asked.contains(name)) {
            return Err(format!(
                "--reflect: the server did not send '{name}', which '{importer}' imports"
            ));
        }
        let requests: Vec<MessageRequest> = missing
            .into_iter()
            .map(|(name, _)| {
                asked.insert(name.clone());
                MessageRequest::FileByFilename(name)
            })
            .collect();
        let reply = caller.call(path, body(&requests))?;
        files.take(reply, &requests)?;
    }
    Err(format!(
        "--reflect: the imports of '{symbol}' did not end after {MAX_ROUNDS} calls"
    ))
}

/// The request messages of one call on the bidirectional stream, framed.
fn body(requests: &[MessageRequest]) -> Vec<u8> {
    let mut body = Vec::new();
    for request in requests {
        let message = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(request.clone()),
        };
        body.extend(framing::frame(&message.encode_to_vec()));
    }
    body
}

/// The files received so far, by name.
#[derive(Default)]
struct Files {
    by_name: BTreeMap<String, (FileHeader, Vec<u8>)>,
    bytes: usize,
}

impl Files {
    /// What one call brought, or why it brought nothing usable.
    fn take(&mut self, reply: Reply, requests: &[MessageRequest]) -> Result<(), String> {
        if reply.grpc_status == UNIMPLEMENTED {
            return Err("--reflect: the server does not offer reflection (UNIMPLEMENTED)".into());
        }
        if reply.grpc_status != OK {
            let detail = reply
                .grpc_message
                .filter(|m| !m.is_empty())
                .map(|m| format!(": {}", crate::one_line(&m)))
                .unwrap_or_default();
            return Err(format!(
                "--reflect: the reflection call ended with {}{detail}",
                status_name(reply.grpc_status)
            ));
        }
        let messages = framing::messages(&reply.body).map_err(|e| format!("--reflect: {e}"))?;
        for (i, message) in messages.into_iter().enumerate() {
            let response = ServerReflectionResponse::decode(message).map_err(|e| {
                format!("--reflect: the server's answer is not a reflection response: {e}")
            })?;
            match response.message_response {
                Some(MessageResponse::FileDescriptorResponse(files)) => {
                    for file in files.file_descriptor_proto {
                        self.add(file)?;
                    }
                }
                Some(MessageResponse::ErrorResponse(error)) => {
                    // Responses come in the order of the requests; the
                    // server may also say which one it answers.
                    let request = response
                        .original_request
                        .and_then(|r| r.message_request)
                        .or_else(|| requests.get(i).cloned());
                    return Err(refused(request, &error));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn add(&mut self, file: Vec<u8>) -> Result<(), String> {
        let header = FileHeader::decode(file.as_slice()).map_err(|e| {
            format!("--reflect: the server sent a file descriptor that does not decode: {e}")
        })?;
        if self.by_name.contains_key(&header.name) {
            return Ok(());
        }
        self.bytes += file.len();
        if self.bytes > MAX_DESCRIPTORS {
            return Err(format!(
                "--reflect: the server sent more than {} MiB of descriptors",
                MAX_DESCRIPTORS >> 20
            ));
        }
        self.by_name.insert(header.name.clone(), (header, file));
        Ok(())
    }

    /// Imported files not received yet, each with a file that imports it.
    fn missing(&self) -> Vec<(String, String)> {
        let mut missing: BTreeMap<String, String> = BTreeMap::new();
        for (name, (header, _)) in &self.by_name {
            for dependency in &header.dependency {
                if !self.by_name.contains_key(dependency) {
                    missing
                        .entry(dependency.clone())
                        .or_insert_with(|| name.clone());
                }
            }
        }
        missing.into_iter().collect()
    }

    fn pool(self) -> Result<DescriptorPool, String> {
        let set = FileSet {
            file: self.by_name.into_values().map(|(_, file)| file).collect(),
        };
        DescriptorPool::decode(set.encode_to_vec().as_slice()).map_err(|e| {
            format!(
                "--reflect: the server's descriptors do not fit together: {}",
                crate::one_line(&e.to_string())
            )
        })
    }
}

/// An `error_response`, as one line about what was asked for.
fn refused(request: Option<MessageRequest>, error: &ErrorResponse) -> String {
    let code = u16::try_from(error.error_code)
        .map(status_name)
        .unwrap_or_else(|_| error.error_code.to_string());
    let what = match request {
        Some(MessageRequest::FileContainingSymbol(symbol)) => format!("service '{symbol}'"),
        Some(MessageRequest::FileByFilename(file)) => format!("file '{file}'"),
        _ => "answer to what was asked".to_owned(),
    };
    if error.error_code == NOT_FOUND {
        format!("--reflect: the server has no {what} ({code})")
    } else if error.error_message.is_empty() {
        format!("--reflect: asking for the {what} failed ({code})")
    } else {
        format!(
            "--reflect: asking for the {what} failed ({code}: {})",
            crate::one_line(&error.error_message)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::find_method;
    use crate::proto::tests::test_pool;
    use prost_reflect::FileDescriptor;

    /// A reflection service answering from a pool, as servers do or may.
    struct Fake {
        pool: DescriptorPool,
        /// Serves v1 too (else only v1alpha, as grpcio's Python does).
        v1: bool,
        /// Sends a file's imports along with it (most servers do).
        imports_along: bool,
        /// Files it will not send.
        withheld: Vec<&'static str>,
        /// Each call: its path and what was asked.
        calls: Vec<(String, Vec<MessageRequest>)>,
    }

    impl Fake {
        fn new() -> Fake {
            Fake {
                pool: test_pool(),
                v1: false,
                imports_along: false,
                withheld: Vec::new(),
                calls: Vec::new(),
            }
        }

        fn file_response(&self, file: &FileDescriptor) -> MessageResponse {
            let mut files = vec![file.clone()];
            if self.imports_along {
                let mut i = 0;
                while i < files.len() {
                    let dependencies: Vec<_> = files[i].dependencies().collect();
                    for dependency in dependencies {
                        if !files.iter().any(|f| f.name() == dependency.name()) {
                            files.push(dependency);
                        }
                    }
                    i += 1;
                }
            }
            MessageResponse::FileDescriptorResponse(messages::FileDescriptorResponse {
                file_descriptor_proto: files
                    .iter()
                    .filter(|f| !self.withheld.contains(&f.name()))
                    .map(|f| f.encode_to_vec())
                    .collect(),
            })
        }
    }

    fn not_found(what: &str) -> MessageResponse {
        MessageResponse::ErrorResponse(ErrorResponse {
            error_code: NOT_FOUND,
            error_message: format!("{what} not found"),
        })
    }

    impl Caller for Fake {
        fn call(&mut self, path: &str, body: Vec<u8>) -> Result<Reply, String> {
            let requests: Vec<MessageRequest> = framing::messages(&body)
                .unwrap()
                .into_iter()
                .map(|m| {
                    ServerReflectionRequest::decode(m)
                        .unwrap()
                        .message_request
                        .unwrap()
                })
                .collect();
            self.calls.push((path.to_owned(), requests.clone()));
            if path != V1ALPHA && !(path == V1 && self.v1) {
                return Ok(Reply {
                    grpc_status: UNIMPLEMENTED,
                    ..Reply::default()
                });
            }
            let mut reply = Vec::new();
            for request in requests {
                let answer = match &request {
                    MessageRequest::FileContainingSymbol(symbol) => {
                        match self.pool.get_service_by_name(symbol) {
                            Some(service) => self.file_response(&service.parent_file()),
                            None => not_found(symbol),
                        }
                    }
                    MessageRequest::FileByFilename(name) => {
                        match self.pool.get_file_by_name(name) {
                            Some(file) if !self.withheld.contains(&name.as_str()) => {
                                self.file_response(&file)
                            }
                            _ => not_found(name),
                        }
                    }
                    _ => unreachable!(),
                };
                let response = ServerReflectionResponse {
                    valid_host: String::new(),
                    original_request: Some(ServerReflectionRequest {
                        host: String::new(),
                        message_request: Some(request),
                    }),
                    message_response: Some(answer),
                };
                reply.extend(framing::frame(&response.encode_to_vec()));
            }
            Ok(Reply {
                grpc_status: OK,
                grpc_message: None,
                body: reply,
            })
        }
    }

    fn paths(fake: &Fake) -> Vec<&str> {
        fake.calls.iter().map(|(path, _)| path.as_str()).collect()
    }

    #[test]
    fn v1alpha_is_asked_when_v1_is_unimplemented_and_imports_are_fetched() {
        let mut fake = Fake::new();
        let pool = reflect_with(&mut fake, "loadgen.echo.v1.Echo").unwrap();
        assert_eq!(paths(&fake), [V1, V1ALPHA, V1ALPHA]);
        // Both imports in one call, as two messages on the stream.
        assert_eq!(
            fake.calls[2].1,
            [
                MessageRequest::FileByFilename("common.proto".into()),
                MessageRequest::FileByFilename("google/protobuf/timestamp.proto".into()),
            ]
        );
        let method = find_method(&pool, "loadgen.echo.v1.Echo/Say").unwrap();
        let bytes = crate::encode_json(&method, r#"{"at": "2026-01-01T00:00:00Z"}"#).unwrap();
        assert!(!bytes.is_empty());
    }

    #[test]
    fn v1_is_used_when_served_and_imports_sent_along_need_no_more_calls() {
        let mut fake = Fake {
            v1: true,
            imports_along: true,
            ..Fake::new()
        };
        let pool = reflect_with(&mut fake, "loadgen.echo.v1.Echo").unwrap();
        assert_eq!(paths(&fake), [V1]);
        assert!(pool.get_message_by_name("loadgen.common.v1.Tag").is_some());
    }

    #[test]
    fn refusals_are_one_line() {
        let mut fake = Fake::new();
        let err = reflect_with(&mut fake, "x.Y").unwrap_err();
        assert_eq!(
            err,
            "--reflect: the server has no service 'x.Y' (NOT_FOUND)"
        );

        let mut fake = Fake {
            withheld: vec!["common.proto"],
            ..Fake::new()
        };
        let err = reflect_with(&mut fake, "loadgen.echo.v1.Echo").unwrap_err();
        assert_eq!(
            err,
            "--reflect: the server has no file 'common.proto' (NOT_FOUND)"
        );

        let err = refused(
            Some(MessageRequest::FileContainingSymbol("a.B".into())),
            &ErrorResponse {
                error_code: 13,
                error_message: "broken\nbadly".into(),
            },
        );
        assert_eq!(
            err,
            "--reflect: asking for the service 'a.B' failed (INTERNAL: broken; badly)"
        );
    }

    /// A server with neither version, and one whose call fails outright.
    struct Refusing(u16, Option<&'static str>);

    impl Caller for Refusing {
        fn call(&mut self, _path: &str, _body: Vec<u8>) -> Result<Reply, String> {
            Ok(Reply {
                grpc_status: self.0,
                grpc_message: self.1.map(str::to_owned),
                body: Vec::new(),
            })
        }
    }

    #[test]
    fn statuses_other_than_ok_are_one_line() {
        let err = reflect_with(&mut Refusing(UNIMPLEMENTED, None), "a.B").unwrap_err();
        assert_eq!(
            err,
            "--reflect: the server does not offer reflection (UNIMPLEMENTED)"
        );
        let err = reflect_with(&mut Refusing(16, Some("no token")), "a.B").unwrap_err();
        assert_eq!(
            err,
            "--reflect: the reflection call ended with UNAUTHENTICATED: no token"
        );
        let err = reflect_with(&mut Refusing(OK, None), "a.B").unwrap_err();
        assert_eq!(err, "--reflect: the server sent no descriptors for 'a.B'");
    }
}
