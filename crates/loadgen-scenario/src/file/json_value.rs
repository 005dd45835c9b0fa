//! A parsed YAML node as the JSON value it was written as. The YAML
//! reader keeps every scalar as text; a plain (unquoted) one is typed here
//! by YAML 1.2's core schema: `null`, `~` and nothing are null, `true` and
//! `false` booleans, integers and decimals numbers; a quoted one is always
//! a string.

use marked_yaml::Node;
use serde_json::{Map, Number, Value};

pub fn of(node: &Node) -> Value {
    match node {
        Node::Scalar(scalar) => {
            let text = scalar.as_str();
            if !scalar.may_coerce() {
                return Value::String(text.to_string());
            }
            match text {
                "" | "~" | "null" | "Null" | "NULL" => Value::Null,
                "true" | "True" | "TRUE" => Value::Bool(true),
                "false" | "False" | "FALSE" => Value::Bool(false),
                _ => number(text).unwrap_or_else(|| Value::String(text.to_string())),
            }
        }
        Node::Sequence(items) => Value::Array(items.iter().map(of).collect()),
        Node::Mapping(entries) => Value::Object(
            entries
                .iter()
                .map(|(key, value)| (key.as_str().to_string(), of(value)))
                .collect::<Map<_, _>>(),
        ),
    }
}

fn number(text: &str) -> Option<Value> {
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::Number(i.into()));
    }
    if let Ok(u) = text.parse::<u64>() {
        return Some(Value::Number(u.into()));
    }
    // Only what reads as a decimal number: not `inf`, `nan` or `1e`.
    let decimal = text
        .trim_start_matches(['-', '+'])
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'));
    if decimal {
        if let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64) {
            return Some(Value::Number(n));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_plain_scalars_and_keeps_quoted_ones() {
        let root = marked_yaml::parse_yaml_with_options(
            0,
            "v: {n: 42, f: 1.5, t: true, z: null, s: '42', w: word, l: [1, \"x\"]}\n",
            super::super::loader_options(),
        )
        .unwrap();
        let value = of(root.as_mapping().unwrap().get_node("v").unwrap());
        assert_eq!(
            value,
            serde_json::json!({"n": 42, "f": 1.5, "t": true, "z": null, "s": "42", "w": "word", "l": [1, "x"]})
        );
    }

    #[test]
    fn reads_json_text() {
        let root = marked_yaml::parse_yaml_with_options(
            0,
            r#"{"a": {"b": [1, 2.5, "three", false]}}"#,
            super::super::loader_options(),
        )
        .unwrap();
        assert_eq!(
            of(&root),
            serde_json::json!({"a": {"b": [1, 2.5, "three", false]}})
        );
    }
}
