//! `--data`: JSON in protobuf's JSON mapping, encoded as the method's
//! input message.

use prost::Message;
use prost_reflect::{DeserializeOptions, DynamicMessage, MethodDescriptor};

/// The input message of `method` from `json`, encoded. Unknown fields are
/// refused: a misspelt field would otherwise be dropped in silence and
/// every call would send something else than meant.
pub fn encode_json(method: &MethodDescriptor, json: &str) -> Result<Vec<u8>, String> {
    let input = method.input();
    let options = DeserializeOptions::new().deny_unknown_fields(true);
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let mut track = serde_path_to_error::Track::new();
    let parsed = DynamicMessage::deserialize_with_options(
        input.clone(),
        serde_path_to_error::Deserializer::new(&mut deserializer, &mut track),
        &options,
    )
    .and_then(|message| deserializer.end().map(|()| message));
    match parsed {
        Ok(message) => Ok(message.encode_to_vec()),
        Err(error) => {
            let path = track.path().to_string();
            // serde_path_to_error writes "." for the top level and "?" for
            // a place the JSON broke off before naming.
            let path = path.trim_end_matches(".?");
            let place = if path.is_empty() || path == "." || path == "?" {
                String::new()
            } else {
                format!("field '{path}' of ")
            };
            Err(format!(
                "--data: {place}{}: {}",
                input.full_name(),
                crate::one_line(&error.to_string())
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::find_method;
    use crate::proto::tests::test_pool;
    use prost_reflect::Value;

    fn say() -> MethodDescriptor {
        find_method(&test_pool(), "loadgen.echo.v1.Echo/Say").unwrap()
    }

    #[test]
    fn a_good_message_round_trips() {
        let method = say();
        let json = r#"{
            "text": "hello",
            "count": 3,
            "tags": [{"key": "k", "value": "v"}],
            "at": "2026-01-02T03:04:05Z",
            "level": "LEVEL_HIGH",
            "payload": "AAEC"
        }"#;
        let bytes = encode_json(&method, json).unwrap();
        let message = DynamicMessage::decode(method.input(), bytes.as_slice()).unwrap();
        assert_eq!(
            message.get_field_by_name("text").unwrap().as_str(),
            Some("hello")
        );
        assert_eq!(
            message.get_field_by_name("count").unwrap().as_i32(),
            Some(3)
        );
        assert_eq!(
            message.get_field_by_name("level").unwrap().as_enum_number(),
            Some(2)
        );
        assert_eq!(
            *message.get_field_by_name("payload").unwrap(),
            Value::Bytes(bytes::Bytes::from_static(&[0, 1, 2]))
        );
        let tags = message.get_field_by_name("tags").unwrap();
        let tag = tags.as_list().unwrap()[0].as_message().unwrap().clone();
        assert_eq!(tag.get_field_by_name("value").unwrap().as_str(), Some("v"));
        let at = message.get_field_by_name("at").unwrap();
        let seconds = at
            .as_message()
            .unwrap()
            .get_field_by_name("seconds")
            .unwrap();
        assert_eq!(seconds.as_i64(), Some(1_767_323_045));
        // The proto field name works as well as the JSON name, and an empty
        // object is the empty message.
        assert!(encode_json(&method, "{}").unwrap().is_empty());
    }

    #[test]
    fn what_does_not_fit_is_one_line_naming_the_field() {
        let method = say();
        let err = encode_json(&method, r#"{"text": "a", "colour": 1}"#).unwrap_err();
        assert!(
            err.starts_with("--data: ") && err.contains("loadgen.echo.v1.EchoRequest"),
            "{err}"
        );
        assert!(err.contains("colour"), "{err}");
        let err = encode_json(&method, r#"{"count": "many"}"#).unwrap_err();
        assert!(
            err.starts_with("--data: field 'count' of loadgen.echo.v1.EchoRequest: invalid"),
            "{err}"
        );
        let err = encode_json(&method, r#"{"tags": [{"key": "k", "#).unwrap_err();
        assert!(
            err.starts_with("--data: field 'tags[0]' of loadgen.echo.v1.EchoRequest: EOF"),
            "{err}"
        );
        let err = encode_json(&method, r#"{"tags": [{"key": 5}]}"#).unwrap_err();
        assert!(
            err.starts_with("--data: field 'tags[0].key' of loadgen.echo.v1.EchoRequest: "),
            "{err}"
        );
        for broken in [
            r#"{"text": "a""#,
            "not json",
            r#"{"text": "a"} trailing"#,
            "",
        ] {
            let err = encode_json(&method, broken).unwrap_err();
            assert!(
                err.starts_with("--data: loadgen.echo.v1.EchoRequest: "),
                "{err}"
            );
            assert!(err.contains("line 1 column"), "{broken}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }
}
