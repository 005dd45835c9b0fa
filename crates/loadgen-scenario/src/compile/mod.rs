//! From the file as written ([`crate::file::model`]) to the [`Suite`] that
//! runs: every check the file allows in advance happens here, and each
//! error names the file, line, column and field.

mod names;
mod step;
mod step_checks;

use crate::duration;
use crate::error::{Blame, ScenarioError};
use crate::executor::spec::{self, Overrides, DEFAULT_GRACE};
use crate::feeder::{Feeder, Order};
use crate::file::model::Text;
use crate::file::Loaded;
use crate::suite::{ConnectionSettings, ScenarioSpec, Suite, ThinkTime};
use crate::template::Template;
use loadgen_core::plan::{Cleartext, TlsOptions};
use loadgen_core::segment::Stripe;
use names::Names;
use std::time::Duration;

/// k6's default request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Redirects followed at most unless the file says otherwise (k6's `maxRedirects`).
pub const DEFAULT_REDIRECTS: u32 = 10;

/// What the command line adds to the file.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--env NAME=VALUE`, over the file's `env:` defaults.
    pub env: Vec<(String, String)>,
    pub overrides: Overrides,
}

/// The defaults every step starts from.
pub(crate) struct StepDefaults {
    pub base: Option<url::Url>,
    pub headers: Vec<(String, Template)>,
    pub timeout: Duration,
    pub cookies: bool,
    pub follow_redirects: u32,
    pub think_time: ThinkTime,
}

pub fn compile(loaded: &Loaded, options: &Options) -> Result<Suite, ScenarioError> {
    let blame = &loaded.blame;
    let file = &loaded.file;
    let mut names = Names::new(blame.clone());
    for (name, value) in &file.env.0 {
        names.define_env(name, value.as_str().to_string())?;
    }
    for (name, value) in &options.env {
        names.override_env(name, value);
    }
    let mut feeders = Vec::new();
    for (name, feeder) in &file.data.0 {
        let field = format!("data.{}", name.as_str());
        let order = match &feeder.order {
            Some(text) => Order::parse(text)
                .map_err(|why| blame.at(text.span(), format!("{field}.order"), why))?,
            None => Order::RoundRobin,
        };
        let written = feeder.file.as_str();
        let at = |why| blame.at(feeder.file.span(), format!("{field}.file"), why);
        let bytes = loaded.files.read(written).map_err(at)?;
        let read = Feeder::parse(
            name.as_str().to_string(),
            written,
            &loaded.files.shown(written),
            &bytes,
            order,
        )
        .map_err(at)?;
        names.define_feeder(name, feeders.len(), &read.columns)?;
        feeders.push(read);
    }

    let defaults = &file.defaults;
    let protocol = match &defaults.protocol {
        Some(text) => Some((fixed(&names, text, "defaults.protocol")?, text.span())),
        None => None,
    };
    let connection = connection_settings(defaults, protocol, blame)?;
    let base = match &defaults.base_url {
        Some(text) => {
            let fixed = fixed(&names, text, "defaults.base_url")?;
            let url = url::Url::parse(&fixed).map_err(|e| {
                blame.at(text.span(), "defaults.base_url", format!("not a URL: {e}"))
            })?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(blame.at(
                    text.span(),
                    "defaults.base_url",
                    "must be an http:// or https:// URL",
                ));
            }
            Some(url)
        }
        None => None,
    };
    let mut headers = Vec::new();
    for (name, value) in &defaults.headers.0 {
        let field = format!("defaults.headers.{}", name.as_str());
        let template = names.template(value, &field, &[])?;
        headers.push((header_name(name, &field, blame)?, template));
    }
    let step_defaults = StepDefaults {
        base,
        headers,
        timeout: positive_duration(defaults.timeout.as_ref(), "defaults.timeout", blame)?
            .unwrap_or(DEFAULT_TIMEOUT),
        cookies: defaults.cookies.unwrap_or(true),
        follow_redirects: match &defaults.follow_redirects {
            Some(text) => redirects(text, "defaults.follow_redirects", blame)?,
            None => DEFAULT_REDIRECTS,
        },
        think_time: match &defaults.think_time {
            Some(text) => think_time(text, "defaults.think_time", blame)?,
            None => ThinkTime::None,
        },
    };
    let clear_cookies_each_iteration = match &defaults.clear_cookies {
        None => false,
        Some(text) => match text.as_str() {
            "never" => false,
            "iteration" => true,
            other => {
                return Err(blame.at(
                    text.span(),
                    "defaults.clear_cookies",
                    format!("'{other}' is not a choice: use never or iteration"),
                ))
            }
        },
    };

    if file.scenarios.0.is_empty() {
        return Err(ScenarioError::of_file(
            &blame.file,
            "'scenarios' has no scenario",
        ));
    }
    let mut scenarios = Vec::new();
    let mut steps = Vec::new();
    let mut checks = Vec::new();
    for (name, scenario) in &file.scenarios.0 {
        let field = format!("scenarios.{}", name.as_str());
        let executor = if options.overrides.any() {
            options.overrides.executor()
        } else {
            spec::parse(scenario, &field, blame)?
        };
        let start_time = match &scenario.start_time {
            Some(text) => duration::parse(text)
                .map_err(|why| blame.at(text.span(), format!("{field}.startTime"), why))?,
            None => Duration::ZERO,
        };
        let graceful_stop = match &scenario.graceful_stop {
            Some(text) => duration::parse(text)
                .map_err(|why| blame.at(text.span(), format!("{field}.gracefulStop"), why))?,
            None => DEFAULT_GRACE,
        };
        if scenario.steps.is_empty() {
            return Err(blame.at(
                scenario.steps.span(),
                format!("{field}.steps"),
                "a scenario needs at least one step",
            ));
        }
        let compiled = step::compile_steps(
            loaded,
            name.as_str(),
            &scenario.steps,
            &field,
            &step_defaults,
            &mut names,
            &mut steps,
            &mut checks,
        )?;
        scenarios.push(ScenarioSpec {
            name: name.as_str().to_string(),
            executor,
            start_time,
            graceful_stop,
            steps: compiled,
        });
    }
    let mut thresholds = Vec::new();
    for (metric, expressions) in &file.thresholds.0 {
        for (i, expression) in expressions.iter().enumerate() {
            loadgen_report::k6_threshold::parse(metric, expression).map_err(|why| {
                blame.at(
                    expression.span(),
                    format!("thresholds.{}[{i}]", metric.as_str()),
                    why,
                )
            })?;
        }
        thresholds.push((
            metric.as_str().to_string(),
            expressions.iter().map(|e| e.as_str().to_string()).collect(),
        ));
    }
    Ok(Suite {
        name: blame.file.clone(),
        connection,
        scenarios,
        steps,
        checks,
        variables: names.variables(),
        feeders,
        thresholds,
        clear_cookies_each_iteration,
        segment: None,
        stripe: Stripe::whole(),
    })
}

/// A setting resolved once for the run: only `{{env.NAME}}` may vary it.
fn fixed(names: &Names, text: &Text, field: &str) -> Result<String, ScenarioError> {
    let template = names.template(text, field, &[])?;
    template.as_fixed().map(str::to_string).ok_or_else(|| {
        names.blame().at(
            text.span(),
            field,
            format!("only {{{{env.NAME}}}} may vary '{field}': it is resolved once"),
        )
    })
}

fn connection_settings(
    defaults: &crate::file::model::Defaults,
    protocol: Option<(String, &marked_yaml::Span)>,
    blame: &Blame,
) -> Result<ConnectionSettings, ScenarioError> {
    let (alpn, cleartext) = match (protocol, &defaults.alpn) {
        (Some((_, at)), Some(_)) => {
            return Err(blame.at(
                at,
                "defaults.protocol",
                "give 'protocol' or 'alpn', not both",
            ))
        }
        (Some((p, at)), None) => match p.as_str() {
            "h1" => (vec!["http/1.1".to_string()], Cleartext::Http1),
            "h2" => (vec!["h2".to_string()], Cleartext::H2c),
            "h3" => (vec!["h3".to_string()], Cleartext::Http1),
            other => {
                return Err(blame.at(
                    at,
                    "defaults.protocol",
                    format!("'{other}' is not a protocol: use h1, h2 or h3"),
                ))
            }
        },
        (None, Some(list)) => {
            let names: Vec<String> = list.iter().map(|t| t.as_str().to_string()).collect();
            for (i, name) in list.iter().enumerate() {
                if !matches!(name.as_str(), "h3" | "h2" | "http/1.1") {
                    return Err(blame.at(
                        name.span(),
                        format!("defaults.alpn[{i}]"),
                        format!(
                            "'{}' is not a protocol loadgen speaks: use h3, h2 or http/1.1",
                            name.as_str()
                        ),
                    ));
                }
            }
            (names, Cleartext::Http1)
        }
        (None, None) => (
            vec!["h2".to_string(), "http/1.1".to_string()],
            Cleartext::Http1,
        ),
    };
    let connect_timeout = positive_duration(
        defaults.connect_timeout.as_ref(),
        "defaults.connect_timeout",
        blame,
    )?
    .unwrap_or(DEFAULT_CONNECT_TIMEOUT);
    Ok(ConnectionSettings {
        alpn,
        cleartext,
        tls: TlsOptions {
            insecure: defaults.insecure,
            ca_file: defaults.ca_file.as_ref().map(|t| t.as_str().into()),
            ..TlsOptions::default()
        },
        connect_timeout,
    })
}

/// A header name as sent: valid, lowercase.
pub(crate) fn header_name(
    name: &Text,
    field: &str,
    blame: &Blame,
) -> Result<String, ScenarioError> {
    let lower = name.as_str().to_ascii_lowercase();
    if http_name_ok(&lower) {
        Ok(lower)
    } else {
        Err(blame.at(
            name.span(),
            field,
            format!("'{}' is not a valid header name", name.as_str()),
        ))
    }
}

fn http_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

pub(crate) fn positive_duration(
    text: Option<&Text>,
    field: &str,
    blame: &Blame,
) -> Result<Option<Duration>, ScenarioError> {
    let Some(text) = text else { return Ok(None) };
    let parsed = duration::parse(text).map_err(|why| blame.at(text.span(), field, why))?;
    if parsed.is_zero() {
        return Err(blame.at(text.span(), field, "must be more than 0"));
    }
    Ok(Some(parsed))
}

pub(crate) fn redirects(text: &Text, field: &str, blame: &Blame) -> Result<u32, ScenarioError> {
    match text.as_str() {
        "false" => Ok(0),
        "true" => Ok(DEFAULT_REDIRECTS),
        number => number.parse().map_err(|_| {
            blame.at(
                text.span(),
                field,
                format!("'{number}' is not a number of redirects or false"),
            )
        }),
    }
}

pub(crate) fn think_time(
    text: &Text,
    field: &str,
    blame: &Blame,
) -> Result<ThinkTime, ScenarioError> {
    let parse = |part: &str| duration::parse(part).map_err(|why| blame.at(text.span(), field, why));
    match text.split_once("..") {
        Some((min, max)) => {
            let (min, max) = (parse(min)?, parse(max)?);
            if max < min {
                return Err(blame.at(text.span(), field, "the range's end comes before its start"));
            }
            Ok(ThinkTime::Between(min, max))
        }
        None => Ok(match parse(text)? {
            d if d.is_zero() => ThinkTime::None,
            d => ThinkTime::Fixed(d),
        }),
    }
}
