//! The schemas of fields the reader takes as text but an editor should
//! know more of: a scalar taken as its text, and the few words some
//! fields take. The [`model`](super::model) names them for its fields.

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use std::borrow::Cow;

/// A value the file may write as a string, a number or a boolean, which
/// the reader takes as its text (`x-count: 5` sends `5`).
pub struct Scalar;

impl JsonSchema for Scalar {
    fn schema_name() -> Cow<'static, str> {
        "Scalar".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A string, or a number or boolean taken as its text.",
            "type": ["string", "number", "boolean"]
        })
    }
}

/// A text field that takes one of a few words: the schema lists them, so
/// that an editor offers them; the reader checks them with a located error.
macro_rules! one_of {
    ($name:ident, $description:literal, [$($word:literal),+ $(,)?]) => {
        pub struct $name;

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "description": $description,
                    "type": "string",
                    "enum": [$($word),+]
                })
            }
        }
    };
}

one_of!(
    ExecutorName,
    "k6's executor names.",
    [
        "shared-iterations",
        "per-vu-iterations",
        "constant-vus",
        "ramping-vus",
        "constant-arrival-rate",
        "ramping-arrival-rate",
    ]
);
one_of!(
    ExtractorKind,
    "Where the value is taken from.",
    ["json", "header", "regex", "dom"]
);

/// `h1`, `h2`, `h3`, or `{{env.NAME}}` naming one, so that one file runs
/// over each protocol in turn.
pub struct ProtocolName;

impl JsonSchema for ProtocolName {
    fn schema_name() -> Cow<'static, str> {
        "ProtocolName".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The protocol of every connection: h1, h2, h3, or {{env.NAME}} naming one.",
            "type": "string",
            "anyOf": [
                {"enum": ["h1", "h2", "h3"]},
                {"pattern": r"^\{\{\s*env\.[A-Za-z_][A-Za-z0-9_]*\s*\}\}$"}
            ]
        })
    }
}
one_of!(
    CookieLife,
    "When the jar is emptied.",
    ["never", "iteration"]
);
one_of!(
    FeederOrder,
    "Which row a virtual user reads.",
    ["round_robin", "random", "per_vu"]
);
