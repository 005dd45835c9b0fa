//! gRPC status codes and the `grpc-message` encoding.

use std::fmt::Write as _;

pub(crate) const OK: u32 = 0;
pub(crate) const INVALID_ARGUMENT: u32 = 3;
pub(crate) const NOT_FOUND: u32 = 5;
pub(crate) const RESOURCE_EXHAUSTED: u32 = 8;
pub(crate) const UNIMPLEMENTED: u32 = 12;
pub(crate) const INTERNAL: u32 = 13;
/// The highest code gRPC defines (UNAUTHENTICATED).
const LAST: u32 = 16;

/// How a call failed: a non-zero code and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Status {
    pub(crate) code: u32,
    pub(crate) message: String,
}

impl Status {
    /// A status with `code`, where a number gRPC does not define becomes
    /// INTERNAL: clients map unknown codes each their own way.
    pub(crate) fn new(code: u32, message: impl Into<String>) -> Status {
        Status {
            code: if code <= LAST { code } else { INTERNAL },
            message: message.into(),
        }
    }

    /// The `grpc-message` value: percent-encoded UTF-8, as the gRPC over
    /// HTTP/2 spec asks for everything outside printable ASCII and `%`.
    pub(crate) fn encoded_message(&self) -> String {
        let mut out = String::with_capacity(self.message.len());
        for &byte in self.message.as_bytes() {
            if (0x20..=0x7e).contains(&byte) && byte != b'%' {
                out.push(byte as char);
            } else {
                let _ = write!(out, "%{byte:02X}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_percent_encoded() {
        let status = Status::new(14, "down 100% — retry\n");
        assert_eq!(status.encoded_message(), "down 100%25 %E2%80%94 retry%0A");
        assert_eq!(
            Status::new(14, "plain text").encoded_message(),
            "plain text"
        );
    }

    #[test]
    fn undefined_codes_become_internal() {
        assert_eq!(Status::new(16, "").code, 16);
        assert_eq!(Status::new(17, "").code, INTERNAL);
        assert_eq!(Status::new(u32::MAX, "").code, INTERNAL);
    }
}
