//! A scenario file made ready to run: every template parsed, every name
//! resolved, every selector, JSON path and pattern compiled, every number
//! checked. Nothing in it can fail for a reason the file could have told
//! in advance.

use crate::check::Check;
use crate::executor::ExecutorSpec;
use crate::extract::Extract;
use crate::feeder::Feeder;
use crate::template::Template;
use loadgen_core::plan::{Cleartext, TlsOptions};
use loadgen_core::request::Wants;
use loadgen_core::segment::{ExecutionSegment, Stripe};
use std::time::Duration;

pub struct Suite {
    /// The file's name, as reports and errors show it.
    pub name: String,
    pub connection: ConnectionSettings,
    pub scenarios: Vec<ScenarioSpec>,
    /// Every step name, in the file's order: a step's metrics slot is its index here.
    pub steps: Vec<String>,
    /// Every check: its step slot and its name; its counters' slot is its index here.
    pub checks: Vec<(usize, String)>,
    /// Every variable an extractor sets; its slot in a virtual user is its index here.
    pub variables: Vec<String>,
    pub feeders: Vec<Feeder>,
    /// k6 thresholds as written: metric with its selector, and its expressions.
    pub thresholds: Vec<(String, Vec<String>)>,
    /// A virtual user's cookies are cleared at the start of each iteration.
    pub clear_cookies_each_iteration: bool,
    /// The part of the run this machine makes ([`Suite::split`]); `None`: all of it.
    pub segment: Option<ExecutionSegment>,
    /// What of every stream (users, arrivals, round-robin rows) the segment owns.
    pub stripe: Stripe,
}

/// How connections are made, for every origin the steps reach.
#[derive(Clone, Debug)]
pub struct ConnectionSettings {
    pub alpn: Vec<String>,
    pub cleartext: Cleartext,
    pub tls: TlsOptions,
    pub connect_timeout: Duration,
}

pub struct ScenarioSpec {
    pub name: String,
    pub executor: ExecutorSpec,
    /// When it starts, from the start of the run.
    pub start_time: Duration,
    /// How long iterations still running at its end may go on.
    pub graceful_stop: Duration,
    pub steps: Vec<StepSpec>,
}

pub struct StepSpec {
    pub name: String,
    /// Its metrics slot ([`Suite::steps`]).
    pub slot: usize,
    pub method: String,
    pub url: UrlSpec,
    /// Lowercase names; the defaults' and the step's, the step's winning.
    pub headers: Vec<(String, Template)>,
    pub body: BodySpec,
    pub timeout: Duration,
    pub think_time: ThinkTime,
    /// Redirects to follow at most; 0 follows none.
    pub follow_redirects: u32,
    pub cookies: bool,
    /// Each check with its counters' slot ([`Suite::checks`]).
    pub checks: Vec<(usize, Check)>,
    pub abort_on_failure: bool,
    /// Each extractor with the variable slot it sets ([`Suite::variables`]).
    pub extract: Vec<(usize, Extract)>,
    /// What of the response the step reads.
    pub wants: Wants,
    /// Checks or extractors read headers: keep them all. Otherwise only
    /// those the cookie jar and redirects read are kept.
    pub all_headers: bool,
    /// The request made once, when it reads no value ([`crate::render::prepare`]).
    pub prepared: Option<std::sync::Arc<loadgen_core::request::Request>>,
}

/// A URL known in advance, or made from a template at each send.
pub enum UrlSpec {
    Fixed(url::Url),
    /// Rendered, then resolved against the base URL.
    Templated {
        template: Template,
        base: Option<url::Url>,
    },
}

pub enum BodySpec {
    None,
    /// Sent as it renders; `content_type` unless a header names one.
    Text {
        template: Template,
        content_type: Option<&'static str>,
    },
    Form(Vec<(String, Template)>),
    Json(JsonTemplate),
}

/// A JSON value whose strings may hold templates.
pub enum JsonTemplate {
    Fixed(serde_json::Value),
    String(Template),
    Array(Vec<JsonTemplate>),
    Object(Vec<(String, JsonTemplate)>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThinkTime {
    None,
    Fixed(Duration),
    Between(Duration, Duration),
}

impl ThinkTime {
    pub fn pick(self) -> Duration {
        match self {
            ThinkTime::None => Duration::ZERO,
            ThinkTime::Fixed(d) => d,
            ThinkTime::Between(min, max) => crate::random::between(min, max),
        }
    }
}
