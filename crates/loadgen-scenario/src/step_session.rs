//! One step at a time, for a caller that drives its own sequence (the C
//! ABI's step sessions, and the SDKs over it): each step is a scenario
//! file's step, compiled and sent exactly as `loadgen run` sends it
//! (templates, form and JSON bodies, the cookie jar, redirects, checks,
//! extractors), and its response comes back whole. The session keeps its
//! cookie jar from one step to the next; each step opens its own
//! connections, as a new virtual user would.

use crate::compile::{compile, Options};
use crate::file::parse;
use crate::thread::ThreadContext;
use crate::vu::{StepOutcome, Vu};
use cookie_store::CookieStore;
use loadgen_core::request::Wants;
use serde_json::{json, Map, Value};
use std::time::Instant;
use tokio::runtime::Runtime;

/// A caller's sequence of steps, sharing one cookie jar.
pub struct StepSession {
    /// The scenario file's `defaults` every step starts from.
    defaults: Value,
    jar: CookieStore,
    runtime: Runtime,
}

/// What one step gave: the response (or the error that ended it), its
/// checks' verdicts and the values its extractors found.
#[derive(Clone, Debug)]
pub struct StepReply {
    pub outcome: StepOutcome,
    /// The first error's message, when the step met one.
    pub message: Option<String>,
    /// Each check by name, and whether it held.
    pub checks: Vec<(String, bool)>,
    /// Each extracted variable by name, and its value if one was found.
    pub extracted: Vec<(String, Option<String>)>,
}

impl StepSession {
    /// A session whose steps start from `defaults`, the `defaults` object
    /// of a scenario file (`base_url`, `protocol`, `insecure`, `headers`,
    /// `follow_redirects`, ...).
    pub fn new(defaults: Value) -> Result<StepSession, String> {
        if !(defaults.is_object() || defaults.is_null()) {
            return Err(
                "the session's configuration must be a JSON object (a scenario file's `defaults`)"
                    .into(),
            );
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the session's runtime: {e}"))?;
        let session = StepSession {
            defaults,
            jar: CookieStore::new(),
            runtime,
        };
        // A bad configuration is told now, not at the first step (with an
        // https URL, which every protocol may take, when no base URL is set).
        let probe = match session.defaults.get("base_url") {
            Some(_) => "/",
            None => "https://127.0.0.1/",
        };
        session.compile(&json!({ "url": probe }))?;
        Ok(session)
    }

    /// Sends `step` (a scenario file's step, as JSON) and waits for its
    /// response, following redirects as the step asks.
    pub fn execute(&mut self, step: &Value) -> Result<StepReply, String> {
        let mut suite = self.compile(step)?;
        let spec = &mut suite.scenarios[0].steps[0];
        // The caller reads the whole response, whatever the step checks.
        spec.wants = Wants {
            headers: true,
            body: true,
        };
        spec.all_headers = true;
        let suite = suite;
        let context = ThreadContext::new(0, 1, &suite, None);
        let jar = &mut self.jar;
        let (outcome, variables) = self.runtime.block_on(async {
            let mut vu = Vu::new(1, 0, &context);
            vu.keep_responses = true;
            vu.swap_jar(jar);
            vu.iterate(Instant::now(), false).await;
            vu.swap_jar(jar);
            let outcome = vu.last.take();
            let variables = std::mem::take(&mut vu.variables);
            vu.finish().await;
            (outcome, variables)
        });
        let message = first_error(&context);
        let outcome = outcome.ok_or_else(|| {
            message
                .clone()
                .unwrap_or_else(|| "the step sent no request".into())
        })?;
        let counts = context.metrics.borrow().checks.clone();
        let checks = suite
            .checks
            .iter()
            .zip(counts)
            .map(|((_, name), (passes, _))| (name.clone(), passes > 0))
            .collect();
        let extracted = suite.variables.iter().cloned().zip(variables).collect();
        Ok(StepReply {
            outcome,
            message,
            checks,
            extracted,
        })
    }

    /// Forgets every cookie.
    pub fn reset(&mut self) {
        self.jar.clear();
    }

    /// `step` as the one step of a one-iteration scenario under the session's defaults.
    fn compile(&self, step: &Value) -> Result<crate::suite::Suite, String> {
        if !step.is_object() {
            return Err("a step must be a JSON object (a scenario file's step)".into());
        }
        let mut step = step.clone();
        if let Value::Object(map) = &mut step {
            map.entry("name").or_insert_with(|| json!("step"));
        }
        let defaults = match &self.defaults {
            Value::Null => Value::Object(Map::new()),
            other => other.clone(),
        };
        let file = json!({
            "defaults": defaults,
            "scenarios": {"session": {
                "executor": "per-vu-iterations",
                "vus": 1,
                "iterations": 1,
                "steps": [step],
            }},
        });
        let loaded =
            parse("step", &file.to_string(), std::env::temp_dir()).map_err(|e| e.to_string())?;
        compile(&loaded, &Options::default()).map_err(|e| e.to_string())
    }
}

/// The first error message the step's user met, in its step or its connections.
fn first_error(context: &ThreadContext<'_>) -> Option<String> {
    let metrics = context.metrics.borrow();
    let recorder = context.recorder.borrow();
    let first = [&metrics.steps[0].recorder, &*recorder]
        .into_iter()
        .flat_map(|r| r.first_error.iter())
        .find_map(|m| m.clone());
    first
}

impl StepReply {
    /// The reply as the C ABI gives it: `status`, `headers` (lowercase
    /// names, in order), `body` (text; invalid UTF-8 replaced), `url`,
    /// `redirects`, `duration_us`, `checks` and `extracted`; or `error`
    /// (the error kind, as reports name it) when no response came.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        match &self.outcome {
            StepOutcome::Response {
                status,
                headers,
                body,
                url,
                redirects,
                took,
            } => {
                map.insert("status".into(), json!(status));
                let headers: Vec<Value> = headers.iter().map(|(n, v)| json!([n, v])).collect();
                map.insert("headers".into(), Value::Array(headers));
                map.insert("body".into(), json!(String::from_utf8_lossy(body)));
                map.insert("url".into(), json!(url));
                map.insert("redirects".into(), json!(redirects));
                map.insert("duration_us".into(), json!(took.as_micros() as u64));
            }
            StepOutcome::Failed(kind) => {
                map.insert("error".into(), json!(kind.name()));
                map.insert("message".into(), json!(self.message));
            }
        }
        let checks: Map<String, Value> = self
            .checks
            .iter()
            .map(|(name, held)| (name.clone(), json!(held)))
            .collect();
        map.insert("checks".into(), Value::Object(checks));
        let extracted: Map<String, Value> = self
            .extracted
            .iter()
            .map(|(name, value)| (name.clone(), json!(value)))
            .collect();
        map.insert("extracted".into(), Value::Object(extracted));
        Value::Object(map)
    }
}
