//! The compiled echo.proto (see build.rs) and what reflection looks up in
//! it: its file by name and the file that defines a symbol.

use std::sync::OnceLock;

use bytes::Bytes;
use prost::Message;
use prost_types::{DescriptorProto, FileDescriptorSet};

/// The encoded `google.protobuf.FileDescriptorSet` of proto/echo.proto.
pub(crate) const ECHO_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/echo_descriptor_set.bin"));

/// One file of the set.
#[derive(Debug)]
pub(crate) struct File {
    pub(crate) name: String,
    /// The encoded `FileDescriptorProto`, as reflection sends it.
    pub(crate) encoded: Bytes,
    /// Full names of its messages, enums, services and methods.
    symbols: Vec<String>,
    pub(crate) services: Vec<String>,
    pub(crate) messages: Vec<String>,
}

/// The files of [`ECHO_DESCRIPTOR_SET`], indexed once.
pub(crate) fn files() -> &'static [File] {
    static FILES: OnceLock<Vec<File>> = OnceLock::new();
    FILES.get_or_init(|| {
        let set = FileDescriptorSet::decode(ECHO_DESCRIPTOR_SET)
            .expect("build.rs wrote a valid descriptor set");
        set.file.iter().map(index).collect()
    })
}

pub(crate) fn by_name(name: &str) -> Option<&'static File> {
    files().iter().find(|file| file.name == name)
}

pub(crate) fn containing(symbol: &str) -> Option<&'static File> {
    files()
        .iter()
        .find(|file| file.symbols.iter().any(|s| s == symbol))
}

fn index(file: &prost_types::FileDescriptorProto) -> File {
    let prefix = match file.package() {
        "" => String::new(),
        package => format!("{package}."),
    };
    let mut messages = Vec::new();
    for message in &file.message_type {
        nested(&prefix, message, &mut messages);
    }
    let mut symbols = messages.clone();
    for enumeration in &file.enum_type {
        symbols.push(format!("{prefix}{}", enumeration.name()));
    }
    let mut services = Vec::new();
    for service in &file.service {
        let name = format!("{prefix}{}", service.name());
        for method in &service.method {
            symbols.push(format!("{name}.{}", method.name()));
        }
        symbols.push(name.clone());
        services.push(name);
    }
    File {
        name: file.name().to_string(),
        encoded: file.encode_to_vec().into(),
        symbols,
        services,
        messages,
    }
}

/// Pushes the full names of `message` and of the messages and enums
/// declared inside it.
fn nested(prefix: &str, message: &DescriptorProto, names: &mut Vec<String>) {
    let name = format!("{prefix}{}", message.name());
    let inner = format!("{name}.");
    for child in &message.nested_type {
        nested(&inner, child, names);
    }
    for enumeration in &message.enum_type {
        names.push(format!("{inner}{}", enumeration.name()));
    }
    names.push(name);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_echo_file_and_its_symbols() {
        let file = by_name("echo.proto").unwrap();
        assert_eq!(file.services, ["loadgen.echo.v1.Echo"]);
        for symbol in [
            "loadgen.echo.v1.Echo",
            "loadgen.echo.v1.Echo.Echo",
            "loadgen.echo.v1.EchoRequest",
            "loadgen.echo.v1.EchoReply",
        ] {
            assert_eq!(containing(symbol).unwrap().name, "echo.proto", "{symbol}");
        }
        assert!(containing("loadgen.echo.v1").is_none());
        assert!(containing("loadgen.echo.v1.Nope").is_none());
        let proto = prost_types::FileDescriptorProto::decode(file.encoded.clone()).unwrap();
        assert_eq!(proto.package(), "loadgen.echo.v1");
        let method = &proto.service[0].method[0];
        assert_eq!(method.input_type(), ".loadgen.echo.v1.EchoRequest");
        assert_eq!(method.output_type(), ".loadgen.echo.v1.EchoReply");
    }
}
