//! Per-call gRPC messages: a `-d` JSON with `{{...}}` values (the
//! scenarios' built-ins) is rendered, encoded through the method's
//! descriptors and framed for each call, as ghz's `{{.RequestNumber}}`
//! and friends are.

use loadgen_core::protocols::per_call::{BodyMaker, Call};
use loadgen_grpc::MethodDescriptor;
use loadgen_scenario::template::{write_builtin, Builtin, Resolved, Source, Template, Values};

/// The values a message template may use (all the scenarios' built-ins
/// but the scenario's name).
const NAMES: &str = "vu, iteration, uuid, random_int, timestamp, timestamp_ms";

/// A message template and the method whose input it encodes to.
pub struct MessageTemplate {
    template: Template,
    method: MethodDescriptor,
}

impl MessageTemplate {
    /// The template in `json`, or `None` when it has no `{{...}}` (every
    /// call then carries the same message, encoded once). `flag` names
    /// where the text came from in errors.
    pub fn parse(
        json: &str,
        method: &MethodDescriptor,
        flag: &str,
    ) -> Result<Option<MessageTemplate>, String> {
        if !json.contains("{{") {
            return Ok(None);
        }
        let template = Template::parse(json, &mut |name| match Builtin::named(name) {
            Some(builtin) if builtin != Builtin::Scenario => {
                Ok(Resolved::Source(Source::Builtin(builtin)))
            }
            _ => Err(format!(
                "'{{{{{name}}}}}' is not a per-call value; use {NAMES}"
            )),
        })
        .map_err(|e| format!("{flag}: {e}"))?;
        Ok(Some(MessageTemplate {
            template,
            method: method.clone(),
        }))
    }
}

impl BodyMaker for MessageTemplate {
    fn make(&self, call: Call, out: &mut Vec<u8>) -> Result<(), String> {
        let json = self.template.render(&mut CallValues(call))?;
        let message = loadgen_grpc::encode_json(&self.method, &json)?;
        out.extend_from_slice(&loadgen_grpc::frame(&message));
        Ok(())
    }
}

/// A call's values: its client (as `vu`, from 1) and its number on it.
struct CallValues(Call);

impl Values for CallValues {
    fn write(&mut self, source: &Source, out: &mut String) -> Result<(), String> {
        let Source::Builtin(builtin) = source else {
            unreachable!("message templates resolve built-ins only")
        };
        let Call { client, iteration } = self.0;
        write_builtin(*builtin, client as u64 + 1, iteration, "", out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method() -> MethodDescriptor {
        let pool = loadgen_grpc::DescriptorPool::decode(loadgen_target::ECHO_DESCRIPTOR_SET)
            .expect("the target's descriptors");
        loadgen_grpc::find_method(&pool, "loadgen.echo.v1.Echo/Echo").expect("its method")
    }

    fn made(template: &MessageTemplate, client: usize, iteration: u64) -> Vec<u8> {
        let mut out = Vec::new();
        template.make(Call { client, iteration }, &mut out).unwrap();
        out
    }

    #[test]
    fn each_call_gets_its_own_message() {
        let json = r#"{"message": "vu {{vu}} call {{ iteration }}"}"#;
        let template = MessageTemplate::parse(json, &method(), "--data")
            .unwrap()
            .expect("a template");
        let expected = |text: &str| {
            let message = loadgen_grpc::encode_json(&method(), text).unwrap();
            loadgen_grpc::frame(&message)
        };
        assert_eq!(
            made(&template, 0, 0),
            expected(r#"{"message": "vu 1 call 0"}"#)
        );
        assert_eq!(
            made(&template, 2, 41),
            expected(r#"{"message": "vu 3 call 41"}"#)
        );
        let uuid = MessageTemplate::parse(r#"{"message": "{{uuid}}"}"#, &method(), "--data")
            .unwrap()
            .unwrap();
        assert_ne!(made(&uuid, 0, 0), made(&uuid, 0, 0));
    }

    #[test]
    fn fixed_json_is_no_template_and_unknown_names_are_refused() {
        assert!(
            MessageTemplate::parse(r#"{"message": "hi"}"#, &method(), "--data")
                .unwrap()
                .is_none()
        );
        for bad in [
            r#"{"message": "{{scenario}}"}"#,
            r#"{"message": "{{name}}"}"#,
        ] {
            let error = MessageTemplate::parse(bad, &method(), "--data-file")
                .err()
                .expect("refused");
            assert!(error.starts_with("--data-file: "), "{error}");
            assert!(error.contains("iteration"), "{error}");
        }
    }

    #[test]
    fn a_value_that_breaks_the_message_fails_its_call() {
        // `status` is a number: a UUID there does not encode.
        let template = MessageTemplate::parse(r#"{"status": "{{uuid}}"}"#, &method(), "--data")
            .unwrap()
            .unwrap();
        let mut out = Vec::new();
        assert!(template
            .make(
                Call {
                    client: 0,
                    iteration: 0
                },
                &mut out
            )
            .is_err());
    }
}
