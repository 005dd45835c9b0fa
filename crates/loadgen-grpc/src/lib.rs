//! From descriptors and JSON to a gRPC request body, for `loadgen grpc`:
//! the descriptors come from .proto files ([`from_proto`]), a protoset
//! ([`from_protoset`]) or the server's reflection service ([`reflect`]);
//! [`find_method`] picks the unary method of `--call`, [`encode_json`]
//! turns `--data` into its input message and [`frame`] makes that the
//! body of one call.
//!
//! Errors are one line each, starting with the flag they are about, so
//! that the front end can print them as they are.

mod call;
mod framing;
mod json;
mod method;
mod proto;
mod protoset;
mod reflection;

pub use call::{add_call_headers, call_uri, method_path};
pub use framing::frame;
pub use json::encode_json;
pub use method::{find_method, service_of};
pub use prost_reflect::{DescriptorPool, MethodDescriptor};
pub use proto::from_proto;
pub use protoset::from_protoset;
pub use reflection::reflect;

/// Error text from libraries that may span lines, made one line.
pub(crate) fn one_line(text: &str) -> String {
    text.split('\n')
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}
