//! `grpc.reflection.v1[alpha].ServerReflection/ServerReflectionInfo`: lets
//! clients such as grpcurl discover the echo service. The call is a
//! bidirectional stream: one response per request, in order.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use prost::Message;

use super::descriptor;
use super::framing;
use super::status::{Status, INVALID_ARGUMENT, NOT_FOUND};

/// The services answered: the current name and the older one that many
/// clients still ask for.
pub(crate) const SERVICES: [&str; 2] = [
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
];
pub(crate) const METHOD: &str = "ServerReflectionInfo";

// The messages of grpc/reflection/v1/reflection.proto (v1alpha has the
// same wire format), as far as this server uses them.

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ServerReflectionRequest {
    #[prost(string, tag = "1")]
    pub(crate) host: String,
    #[prost(oneof = "MessageRequest", tags = "3, 4, 5, 6, 7")]
    pub(crate) message_request: Option<MessageRequest>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub(crate) enum MessageRequest {
    #[prost(string, tag = "3")]
    FileByFilename(String),
    #[prost(string, tag = "4")]
    FileContainingSymbol(String),
    #[prost(message, tag = "5")]
    FileContainingExtension(ExtensionRequest),
    #[prost(string, tag = "6")]
    AllExtensionNumbersOfType(String),
    #[prost(string, tag = "7")]
    ListServices(String),
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ExtensionRequest {
    #[prost(string, tag = "1")]
    pub(crate) containing_type: String,
    #[prost(int32, tag = "2")]
    pub(crate) extension_number: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ServerReflectionResponse {
    #[prost(string, tag = "1")]
    pub(crate) valid_host: String,
    #[prost(message, optional, tag = "2")]
    pub(crate) original_request: Option<ServerReflectionRequest>,
    #[prost(oneof = "MessageResponse", tags = "4, 5, 6, 7")]
    pub(crate) message_response: Option<MessageResponse>,
}

// Named after the proto's oneof fields, like generated code would be.
#[allow(clippy::enum_variant_names)]
#[derive(Clone, PartialEq, prost::Oneof)]
pub(crate) enum MessageResponse {
    #[prost(message, tag = "4")]
    FileDescriptorResponse(FileDescriptorResponse),
    #[prost(message, tag = "5")]
    AllExtensionNumbersResponse(ExtensionNumberResponse),
    #[prost(message, tag = "6")]
    ListServicesResponse(ListServiceResponse),
    #[prost(message, tag = "7")]
    ErrorResponse(ErrorResponse),
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct FileDescriptorResponse {
    #[prost(bytes = "bytes", repeated, tag = "1")]
    pub(crate) file_descriptor_proto: Vec<Bytes>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ExtensionNumberResponse {
    #[prost(string, tag = "1")]
    pub(crate) base_type_name: String,
    #[prost(int32, repeated, tag = "2")]
    pub(crate) extension_number: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ListServiceResponse {
    #[prost(message, repeated, tag = "1")]
    pub(crate) service: Vec<ServiceResponse>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ServiceResponse {
    #[prost(string, tag = "1")]
    pub(crate) name: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ErrorResponse {
    #[prost(int32, tag = "1")]
    pub(crate) error_code: i32,
    #[prost(string, tag = "2")]
    pub(crate) error_message: String,
}

/// One call's request stream, answered request by request as its body
/// arrives, so clients that wait for each answer before asking the next
/// question (grpcurl) are served as well as those that half-close first.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// The start of a request whose end has not arrived yet.
    pending: BytesMut,
}

impl Session {
    /// Takes the next piece of the request body; returns the framed
    /// responses to the requests it completed (nothing when none).
    pub(crate) fn push(&mut self, data: impl Buf) -> Result<Bytes, Status> {
        self.pending.put(data);
        let mut responses = Vec::new();
        while let Some(message) = framing::take(&mut self.pending)? {
            responses.push(respond(message)?);
        }
        Ok(match responses.is_empty() {
            true => Bytes::new(),
            false => framing::frame(&responses),
        })
    }

    /// Checks that the body did not end inside a request.
    pub(crate) fn end(&self) -> Result<(), Status> {
        framing::end(&self.pending)
    }
}

fn respond(message: Bytes) -> Result<Bytes, Status> {
    let request = ServerReflectionRequest::decode(message).map_err(|err| {
        Status::new(
            INVALID_ARGUMENT,
            format!("malformed ServerReflectionRequest: {err}"),
        )
    })?;
    Ok(answer(request).encode_to_vec().into())
}

fn answer(request: ServerReflectionRequest) -> ServerReflectionResponse {
    let response = match &request.message_request {
        Some(MessageRequest::ListServices(_)) => list_services(),
        Some(MessageRequest::FileByFilename(name)) => match descriptor::by_name(name) {
            Some(file) => file_response(file),
            None => error(NOT_FOUND, format!("no file {name:?}")),
        },
        Some(MessageRequest::FileContainingSymbol(symbol)) => {
            match descriptor::containing(symbol) {
                Some(file) => file_response(file),
                None => error(NOT_FOUND, format!("no symbol {symbol:?}")),
            }
        }
        // proto3 messages have no extensions: known types have none.
        Some(MessageRequest::AllExtensionNumbersOfType(name)) => {
            let known = descriptor::files()
                .iter()
                .any(|file| file.messages.iter().any(|m| m == name));
            if known {
                MessageResponse::AllExtensionNumbersResponse(ExtensionNumberResponse {
                    base_type_name: name.clone(),
                    extension_number: Vec::new(),
                })
            } else {
                error(NOT_FOUND, format!("no message type {name:?}"))
            }
        }
        Some(MessageRequest::FileContainingExtension(ext)) => error(
            NOT_FOUND,
            format!(
                "no extension {} of {:?}",
                ext.extension_number, ext.containing_type
            ),
        ),
        None => error(INVALID_ARGUMENT, "empty request".to_string()),
    };
    ServerReflectionResponse {
        valid_host: request.host.clone(),
        original_request: Some(request),
        message_response: Some(response),
    }
}

fn list_services() -> MessageResponse {
    let echo = descriptor::files()
        .iter()
        .flat_map(|file| file.services.iter().map(String::as_str));
    let service = echo
        .chain(SERVICES)
        .map(|name| ServiceResponse {
            name: name.to_string(),
        })
        .collect();
    MessageResponse::ListServicesResponse(ListServiceResponse { service })
}

fn file_response(file: &descriptor::File) -> MessageResponse {
    MessageResponse::FileDescriptorResponse(FileDescriptorResponse {
        file_descriptor_proto: vec![file.encoded.clone()],
    })
}

fn error(code: u32, message: String) -> MessageResponse {
    MessageResponse::ErrorResponse(ErrorResponse {
        error_code: code as i32,
        error_message: message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `requests` in one stream, its body in small pieces.
    fn ask(requests: &[MessageRequest]) -> Vec<MessageResponse> {
        let messages: Vec<Bytes> = requests
            .iter()
            .map(|r| {
                let request = ServerReflectionRequest {
                    host: "localhost".into(),
                    message_request: Some(r.clone()),
                };
                request.encode_to_vec().into()
            })
            .collect();
        let mut session = Session::default();
        let mut answered = BytesMut::new();
        for piece in framing::frame(&messages).chunks(7) {
            answered.extend_from_slice(&session.push(piece).unwrap());
        }
        session.end().unwrap();
        framing::split(answered.freeze())
            .unwrap()
            .into_iter()
            .zip(requests)
            .map(|(bytes, request)| {
                let response = ServerReflectionResponse::decode(bytes).unwrap();
                assert_eq!(response.valid_host, "localhost");
                let original = response.original_request.unwrap();
                assert_eq!(original.message_request.as_ref(), Some(request));
                response.message_response.unwrap()
            })
            .collect()
    }

    fn error_code(response: &MessageResponse) -> i32 {
        match response {
            MessageResponse::ErrorResponse(e) => e.error_code,
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn lists_the_services() {
        let [MessageResponse::ListServicesResponse(list)] =
            &ask(&[MessageRequest::ListServices(String::new())])[..]
        else {
            panic!("not a list");
        };
        let names: Vec<_> = list.service.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "loadgen.echo.v1.Echo",
                "grpc.reflection.v1.ServerReflection",
                "grpc.reflection.v1alpha.ServerReflection"
            ]
        );
    }

    #[test]
    fn finds_the_file_by_symbol_and_by_name_in_one_stream() {
        let responses = ask(&[
            MessageRequest::FileContainingSymbol("loadgen.echo.v1.Echo.Echo".into()),
            MessageRequest::FileByFilename("echo.proto".into()),
            MessageRequest::FileContainingSymbol("loadgen.echo.v1.Missing".into()),
            MessageRequest::FileByFilename("missing.proto".into()),
        ]);
        let echo = descriptor::by_name("echo.proto").unwrap();
        for response in &responses[..2] {
            let MessageResponse::FileDescriptorResponse(files) = response else {
                panic!("not a file: {response:?}");
            };
            assert_eq!(
                files.file_descriptor_proto,
                std::slice::from_ref(&echo.encoded)
            );
        }
        assert_eq!(error_code(&responses[2]), NOT_FOUND as i32);
        assert_eq!(error_code(&responses[3]), NOT_FOUND as i32);
    }

    #[test]
    fn extensions_exist_for_no_type() {
        let responses = ask(&[
            MessageRequest::AllExtensionNumbersOfType("loadgen.echo.v1.EchoRequest".into()),
            MessageRequest::AllExtensionNumbersOfType("loadgen.echo.v1.Nope".into()),
            MessageRequest::FileContainingExtension(ExtensionRequest {
                containing_type: "loadgen.echo.v1.EchoRequest".into(),
                extension_number: 100,
            }),
        ]);
        let MessageResponse::AllExtensionNumbersResponse(numbers) = &responses[0] else {
            panic!("not extension numbers: {:?}", responses[0]);
        };
        assert!(numbers.extension_number.is_empty());
        assert_eq!(error_code(&responses[1]), NOT_FOUND as i32);
        assert_eq!(error_code(&responses[2]), NOT_FOUND as i32);
    }

    #[test]
    fn answers_each_request_as_it_arrives() {
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let framed = framing::frame(&[request.encode_to_vec().into()]);
        let mut session = Session::default();
        assert!(session.push(&framed[..3]).unwrap().is_empty());
        assert!(session.end().is_err());
        assert_eq!(
            framing::split(session.push(&framed[3..]).unwrap())
                .unwrap()
                .len(),
            1
        );
        assert!(session.end().is_ok());
    }

    #[test]
    fn a_malformed_request_fails_the_call() {
        let mut session = Session::default();
        let status = session.push(&b"\0\0\0\0\x03\x0a\x09x"[..]).unwrap_err();
        assert_eq!(status.code, INVALID_ARGUMENT);
    }
}
