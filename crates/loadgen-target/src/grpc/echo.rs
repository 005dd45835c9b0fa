//! `loadgen.echo.v1.Echo/Echo`: answers what it is sent, or fails the call
//! with the status the request names, so load tests can make calls fail.

use bytes::Bytes;
use prost::Message;

use super::status::{Status, INTERNAL, INVALID_ARGUMENT};

/// See proto/echo.proto.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct EchoRequest {
    #[prost(string, tag = "1")]
    pub(crate) message: String,
    #[prost(bytes = "bytes", tag = "2")]
    pub(crate) payload: Bytes,
    #[prost(uint32, tag = "3")]
    pub(crate) status: u32,
    #[prost(string, tag = "4")]
    pub(crate) status_message: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct EchoReply {
    #[prost(string, tag = "1")]
    pub(crate) message: String,
    #[prost(bytes = "bytes", tag = "2")]
    pub(crate) payload: Bytes,
}

/// The unary call: exactly one request message, one reply.
pub(crate) fn call(messages: Vec<Bytes>) -> Result<Vec<Bytes>, Status> {
    let [message] = <[Bytes; 1]>::try_from(messages).map_err(|messages| {
        Status::new(
            INTERNAL,
            format!("a unary call takes one message, not {}", messages.len()),
        )
    })?;
    let request = EchoRequest::decode(message)
        .map_err(|err| Status::new(INVALID_ARGUMENT, format!("malformed EchoRequest: {err}")))?;
    if request.status != 0 {
        return Err(Status::new(request.status, request.status_message));
    }
    let reply = EchoReply {
        message: request.message,
        payload: request.payload,
    };
    Ok(vec![reply.encode_to_vec().into()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(status: u32, status_message: &str) -> Vec<Bytes> {
        let request = EchoRequest {
            message: "hi".into(),
            payload: Bytes::from_static(b"\0\x01\x02"),
            status,
            status_message: status_message.into(),
        };
        vec![request.encode_to_vec().into()]
    }

    #[test]
    fn echoes_message_and_payload() {
        let replies = call(request(0, "ignored")).unwrap();
        let reply = EchoReply::decode(replies[0].clone()).unwrap();
        assert_eq!(reply.message, "hi");
        assert_eq!(&reply.payload[..], b"\0\x01\x02");
    }

    #[test]
    fn fails_with_the_status_asked_for() {
        assert_eq!(
            call(request(14, "down")).unwrap_err(),
            Status::new(14, "down")
        );
        assert_eq!(call(request(99, "odd")).unwrap_err().code, INTERNAL);
    }

    #[test]
    fn malformed_or_missing_requests_are_refused() {
        let garbage = vec![Bytes::from_static(b"\x0a\x05ab")];
        assert_eq!(call(garbage).unwrap_err().code, INVALID_ARGUMENT);
        assert_eq!(call(Vec::new()).unwrap_err().code, INTERNAL);
        let two = [request(0, ""), request(0, "")].concat();
        assert_eq!(call(two).unwrap_err().code, INTERNAL);
    }
}
