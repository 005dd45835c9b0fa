//! The scenario file as written: every field, with where it stands in the
//! file ([`Spanned`]) wherever a later check may have to point at it.
//! Unknown fields are refused. Executor options keep k6's names
//! (`startTime`, `preAllocatedVUs`, ...); the rest follows loadgen-rs's
//! step format (`status_in`, `follow_redirects`, ...).

use marked_yaml::Spanned;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

pub use super::field_schemas::Scalar;
use super::field_schemas::{CookieLife, ExecutorName, ExtractorKind, FeederOrder, ProtocolName};

/// A text with its place in the file.
pub type Text = Spanned<String>;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "loadgen scenario file")]
pub struct File {
    /// What every step starts from.
    #[serde(default)]
    pub defaults: Defaults,
    /// Variables `{{env.NAME}}` with their default values; `--env NAME=VALUE` overrides them.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Scalar>")]
    pub env: Entries<Text, Text>,
    /// Feeders: rows of test data read from CSV or JSON files, `{{NAME.COLUMN}}`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Feeder>")]
    pub data: Entries<Text, Feeder>,
    /// One or more scenarios, by name; they run at the same time, each from its `startTime`.
    #[schemars(with = "BTreeMap<String, Scenario>")]
    pub scenarios: Entries<Text, Scenario>,
    /// k6's thresholds: metric (with an optional `{step:NAME}` selector) to expressions like `p(95)<300`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Vec<String>>")]
    pub thresholds: Entries<Text, Vec<Text>>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Relative step URLs resolve against it, e.g. `https://127.0.0.1:8443`.
    #[schemars(with = "Option<String>")]
    pub base_url: Option<Text>,
    /// `h1`, `h2` or `h3`: the protocol of every connection. Without it, TLS
    /// connections negotiate `h2` or `http/1.1` by ALPN and cleartext ones speak HTTP/1.1.
    #[schemars(with = "Option<ProtocolName>")]
    pub protocol: Option<Text>,
    /// ALPN protocols to offer, most preferred first (instead of `protocol`).
    #[schemars(with = "Option<Vec<String>>")]
    pub alpn: Option<Vec<Text>>,
    /// Skip certificate verification.
    #[serde(default)]
    pub insecure: bool,
    /// PEM file of certificate authorities to trust besides the system's.
    #[schemars(with = "Option<String>")]
    pub ca_file: Option<Text>,
    /// Headers every request sends (a step's own replace them by name).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Scalar>")]
    pub headers: Entries<Text, Text>,
    /// How long a request may take, from its send to its last byte (default 60s).
    #[schemars(with = "Option<String>")]
    pub timeout: Option<Text>,
    /// How long a connection may take to establish (default 10s).
    #[schemars(with = "Option<String>")]
    pub connect_timeout: Option<Text>,
    /// Keep a cookie jar per virtual user (default true).
    pub cookies: Option<bool>,
    /// `never` (default: the jar lives as long as the virtual user) or `iteration`.
    #[schemars(with = "Option<CookieLife>")]
    pub clear_cookies: Option<Text>,
    /// Redirects to follow at most (default 10); `0` or `false` follows none.
    #[schemars(with = "Option<Scalar>")]
    pub follow_redirects: Option<Text>,
    /// Pause after each step: `1s`, or a random pause in a range, `1s..3s`.
    #[schemars(with = "Option<String>")]
    pub think_time: Option<Text>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Feeder {
    /// A `.csv` file with a header row, or a `.json` file holding an array
    /// of objects; relative to the scenario file.
    #[schemars(with = "String")]
    pub file: Text,
    /// `round_robin` (default: rows in turn across all virtual users),
    /// `random`, or `per_vu` (virtual user N always takes row N).
    #[schemars(with = "Option<FeederOrder>")]
    pub order: Option<Text>,
}

/// A scenario: an executor (k6's names and options) and its steps.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// `shared-iterations`, `per-vu-iterations`, `constant-vus`,
    /// `ramping-vus`, `constant-arrival-rate` or `ramping-arrival-rate`.
    #[schemars(with = "ExecutorName")]
    pub executor: Text,
    #[schemars(with = "Option<u64>")]
    pub vus: Option<Spanned<u64>>,
    #[schemars(with = "Option<u64>")]
    pub iterations: Option<Spanned<u64>>,
    #[schemars(with = "Option<String>")]
    pub duration: Option<Text>,
    #[serde(rename = "maxDuration")]
    #[schemars(with = "Option<String>")]
    pub max_duration: Option<Text>,
    #[serde(rename = "startVUs")]
    #[schemars(with = "Option<u64>")]
    pub start_vus: Option<Spanned<u64>>,
    pub stages: Option<Vec<Stage>>,
    #[serde(rename = "gracefulRampDown")]
    #[schemars(with = "Option<String>")]
    pub graceful_ramp_down: Option<Text>,
    #[schemars(with = "Option<f64>")]
    pub rate: Option<Spanned<f64>>,
    #[serde(rename = "startRate")]
    #[schemars(with = "Option<f64>")]
    pub start_rate: Option<Spanned<f64>>,
    #[serde(rename = "timeUnit")]
    #[schemars(with = "Option<String>")]
    pub time_unit: Option<Text>,
    #[serde(rename = "preAllocatedVUs")]
    #[schemars(with = "Option<u64>")]
    pub pre_allocated_vus: Option<Spanned<u64>>,
    #[serde(rename = "maxVUs")]
    #[schemars(with = "Option<u64>")]
    pub max_vus: Option<Spanned<u64>>,
    #[serde(rename = "startTime")]
    #[schemars(with = "Option<String>")]
    pub start_time: Option<Text>,
    #[serde(rename = "gracefulStop")]
    #[schemars(with = "Option<String>")]
    pub graceful_stop: Option<Text>,
    #[schemars(with = "Vec<Step>")]
    pub steps: Spanned<Vec<Step>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    #[schemars(with = "String")]
    pub duration: Text,
    #[schemars(with = "f64")]
    pub target: Spanned<f64>,
}

/// One request (and the redirects it follows), its checks and extractors.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Required: per-step metrics, checks and thresholds are keyed by it.
    #[schemars(with = "String")]
    pub name: Text,
    /// Default `GET`, or `POST` when the step has a body.
    #[schemars(with = "Option<String>")]
    pub method: Option<Text>,
    /// Absolute, or relative to `defaults.base_url`; `{{templates}}` allowed.
    #[schemars(with = "String")]
    pub url: Text,
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Scalar>")]
    pub headers: Entries<Text, Text>,
    /// A request body as text (`{{templates}}` allowed).
    #[schemars(with = "Option<String>")]
    pub body: Option<Text>,
    /// A file sent as the body, relative to the scenario file (`{{templates}}` in it allowed).
    #[schemars(with = "Option<String>")]
    pub body_file: Option<Text>,
    /// Form fields sent as `application/x-www-form-urlencoded`.
    #[schemars(with = "Option<BTreeMap<String, Scalar>>")]
    pub form: Option<Entries<Text, Text>>,
    /// Any JSON value sent as `application/json`; `{{templates}}` in its strings.
    /// Read from the file as written (numbers stay numbers), not through this field.
    #[serde(rename = "json")]
    #[schemars(rename = "json", with = "Option<serde_json::Value>")]
    pub json_at: Option<Spanned<serde::de::IgnoredAny>>,
    /// As `defaults.think_time`.
    #[schemars(with = "Option<String>")]
    pub think_time: Option<Text>,
    #[schemars(with = "Option<String>")]
    pub timeout: Option<Text>,
    /// As `defaults.follow_redirects`.
    #[schemars(with = "Option<Scalar>")]
    pub follow_redirects: Option<Text>,
    /// Use the virtual user's cookie jar for this step (default: `defaults.cookies`).
    pub cookies: Option<bool>,
    #[serde(default)]
    pub checks: Checks,
    /// A failed check ends the iteration (counted as aborted).
    #[serde(default)]
    pub abort_on_failure: bool,
    #[serde(default)]
    pub extract: Vec<Extractor>,
}

/// loadgen-rs's eight checks; each holds for every value it lists.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Checks {
    #[schemars(with = "Option<Vec<u16>>")]
    pub status_in: Option<Spanned<Vec<u16>>>,
    #[schemars(with = "Option<Vec<String>>")]
    pub body_includes: Option<Vec<Text>>,
    #[schemars(with = "Option<Vec<String>>")]
    pub header_exists: Option<Vec<Text>>,
    #[schemars(with = "Option<BTreeMap<String, Scalar>>")]
    pub header_equals: Option<Entries<Text, Text>>,
    #[schemars(with = "Option<BTreeMap<String, Scalar>>")]
    pub header_includes: Option<Entries<Text, Text>>,
    /// RFC 9535 JSON paths, e.g. `$.user.id`.
    #[schemars(with = "Option<Vec<String>>")]
    pub json_path_exists: Option<Vec<Text>>,
    /// RFC 9535 JSON path to the value it must equal (compared as JSON: `42` is a number).
    #[serde(rename = "json_path_equals")]
    #[schemars(
        rename = "json_path_equals",
        with = "Option<BTreeMap<String, serde_json::Value>>"
    )]
    pub json_path_equals_at: Option<Spanned<serde::de::IgnoredAny>>,
    #[schemars(with = "Option<Vec<String>>")]
    pub regex_match: Option<Vec<Text>>,
}

/// Takes a value from a response into a variable of the virtual user:
/// `type` is `json` (`path`), `header` (`name`), `regex` (`pattern`,
/// `group`) or `dom` (`selector`, `attribute`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Extractor {
    #[serde(rename = "type")]
    #[schemars(rename = "type", with = "ExtractorKind")]
    pub kind: Text,
    /// The variable it sets, used as `{{NAME}}` in later steps.
    #[serde(rename = "as")]
    #[schemars(rename = "as", with = "String")]
    pub into: Text,
    /// `json`: an RFC 9535 JSON path into the body, e.g. `$.token`; its first match.
    #[schemars(with = "Option<String>")]
    pub path: Option<Text>,
    /// `header`: the response header's name.
    #[schemars(with = "Option<String>")]
    pub name: Option<Text>,
    /// `regex`: a regular expression on the body.
    #[schemars(with = "Option<String>")]
    pub pattern: Option<Text>,
    /// `regex`: the capture group to take (default 1; 0 is the whole match).
    #[schemars(with = "Option<usize>")]
    pub group: Option<Spanned<usize>>,
    /// `dom`: a CSS selector into the HTML body; its first element.
    #[schemars(with = "Option<String>")]
    pub selector: Option<Text>,
    /// `dom`: the attribute to take; without it, the element's text.
    #[schemars(with = "Option<String>")]
    pub attribute: Option<Text>,
}

/// A mapping in the order the file writes it (scenarios run, and are
/// reported, in that order).
#[derive(Debug)]
pub struct Entries<K, V>(pub Vec<(K, V)>);

impl<K, V> Default for Entries<K, V> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for Entries<K, V> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> serde::de::Visitor<'de> for Visit<K, V> {
            type Value = Entries<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(Visit(PhantomData))
    }
}
