//! `{{name}}` templates in URLs, headers and bodies. A template is parsed
//! once, when the scenario file is read, and every name in it is resolved
//! then to where its value will come from: a built-in, an `--env`
//! variable (fixed for the run, so written in as text), a feeder column or
//! a variable an earlier step extracts. A name that is none of these is an
//! error in the file, not a surprise in the middle of a run.

use std::fmt::Write as _;

/// Values every iteration has without asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// The virtual user's number, from 1 (k6's `__VU`).
    Vu,
    /// The virtual user's iteration, from 0 (k6's `__ITER`).
    Iteration,
    /// The scenario's name.
    Scenario,
    /// A random UUID (version 4), new at each use.
    Uuid,
    /// A random integer from 0 to 2^31 - 1, new at each use.
    RandomInt,
    /// Seconds since the Unix epoch.
    Timestamp,
    /// Milliseconds since the Unix epoch.
    TimestampMs,
}

impl Builtin {
    pub const ALL: [(&'static str, Builtin); 7] = [
        ("vu", Builtin::Vu),
        ("iteration", Builtin::Iteration),
        ("scenario", Builtin::Scenario),
        ("uuid", Builtin::Uuid),
        ("random_int", Builtin::RandomInt),
        ("timestamp", Builtin::Timestamp),
        ("timestamp_ms", Builtin::TimestampMs),
    ];

    pub fn named(name: &str) -> Option<Builtin> {
        Builtin::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| *b)
    }
}

/// Where a name's value comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Builtin(Builtin),
    /// Column `column` of the row the virtual user took from feeder `feeder`.
    Feeder {
        feeder: usize,
        column: usize,
    },
    /// Variable slot `slot` of the virtual user, set by an extractor.
    Extracted {
        slot: usize,
        name: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(String),
    Value(Source),
}

/// A parsed template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

/// Resolves a name to its source, or says why it cannot; `Ok(Err(text))`
/// for names whose value is fixed text (environment variables).
pub type Resolve<'a> = dyn FnMut(&str) -> Result<Resolved, String> + 'a;

pub enum Resolved {
    Fixed(String),
    Source(Source),
}

/// What a template reads while it renders.
pub trait Values {
    /// Appends the value of `source` to `out`; `Err` names a variable that has no value yet.
    fn write(&mut self, source: &Source, out: &mut String) -> Result<(), String>;
}

impl Template {
    /// Parses `text`; every `{{ name }}` goes through `resolve`.
    pub fn parse(text: &str, resolve: &mut Resolve<'_>) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        let mut literal = String::new();
        while let Some(open) = rest.find("{{") {
            literal.push_str(&rest[..open]);
            let after = &rest[open + 2..];
            let close = after
                .find("}}")
                .ok_or_else(|| format!("'{{{{' without its '}}}}' in '{text}'"))?;
            let name = after[..close].trim();
            if !is_name(name) {
                return Err(format!(
                    "'{{{{{}}}}}' is not a variable: names are letters, digits, '_', '-' and '.'",
                    &after[..close]
                ));
            }
            match resolve(name)? {
                Resolved::Fixed(value) => literal.push_str(&value),
                Resolved::Source(source) => {
                    if !literal.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut literal)));
                    }
                    parts.push(Part::Value(source));
                }
            }
            rest = &after[close + 2..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        Ok(Template { parts })
    }

    /// A template of fixed text.
    pub fn fixed(text: &str) -> Template {
        Template {
            parts: if text.is_empty() {
                Vec::new()
            } else {
                vec![Part::Text(text.to_string())]
            },
        }
    }

    /// The text, if it needs no value at all.
    pub fn as_fixed(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [] => Some(""),
            [Part::Text(text)] => Some(text),
            _ => None,
        }
    }

    /// Renders into `out` (appending).
    pub fn render_into(&self, values: &mut dyn Values, out: &mut String) -> Result<(), String> {
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Value(source) => values.write(source, out)?,
            }
        }
        Ok(())
    }

    pub fn render(&self, values: &mut dyn Values) -> Result<String, String> {
        let mut out = String::new();
        self.render_into(values, &mut out)?;
        Ok(out)
    }

    /// The extracted variables it reads.
    pub fn extracted(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Value(Source::Extracted { name, .. }) => Some(name.as_str()),
            _ => None,
        })
    }
}

fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Writes a built-in's value.
pub fn write_builtin(builtin: Builtin, vu: u64, iteration: u64, scenario: &str, out: &mut String) {
    match builtin {
        Builtin::Vu => {
            let _ = write!(out, "{vu}");
        }
        Builtin::Iteration => {
            let _ = write!(out, "{iteration}");
        }
        Builtin::Scenario => out.push_str(scenario),
        Builtin::Uuid => {
            let _ = write!(out, "{}", uuid::Uuid::new_v4());
        }
        Builtin::RandomInt => {
            let _ = write!(out, "{}", crate::random::below(1 << 31));
        }
        Builtin::Timestamp | Builtin::TimestampMs => {
            let since = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            let _ = if builtin == Builtin::Timestamp {
                write!(out, "{}", since.as_secs())
            } else {
                write!(out, "{}", since.as_millis())
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(name: &str) -> Result<Resolved, String> {
        match name {
            "env.HOST" => Ok(Resolved::Fixed("example.com".into())),
            "token" => Ok(Resolved::Source(Source::Extracted {
                slot: 0,
                name: "token".into(),
            })),
            "vu" => Ok(Resolved::Source(Source::Builtin(Builtin::Vu))),
            other => Err(format!("unknown variable '{other}'")),
        }
    }

    struct Fixed;
    impl Values for Fixed {
        fn write(&mut self, source: &Source, out: &mut String) -> Result<(), String> {
            match source {
                Source::Extracted { .. } => out.push_str("T0K"),
                Source::Builtin(Builtin::Vu) => out.push('7'),
                _ => return Err("no value".into()),
            }
            Ok(())
        }
    }

    #[test]
    fn parses_and_renders() {
        let t =
            Template::parse("https://{{env.HOST}}/u/{{ vu }}?t={{token}}", &mut resolve).unwrap();
        assert_eq!(
            t.render(&mut Fixed).unwrap(),
            "https://example.com/u/7?t=T0K"
        );
        assert_eq!(t.extracted().collect::<Vec<_>>(), ["token"]);
        let fixed = Template::parse("a {{env.HOST}} b", &mut resolve).unwrap();
        assert_eq!(fixed.as_fixed(), Some("a example.com b"));
    }

    #[test]
    fn refuses_unknown_and_malformed_names() {
        let unknown = Template::parse("/{{nope}}", &mut resolve).unwrap_err();
        assert!(unknown.contains("unknown variable 'nope'"), "{unknown}");
        let open = Template::parse("/{{vu", &mut resolve).unwrap_err();
        assert!(open.contains("without its"), "{open}");
        let bad = Template::parse("/{{a b}}", &mut resolve).unwrap_err();
        assert!(bad.contains("not a variable"), "{bad}");
    }
}
