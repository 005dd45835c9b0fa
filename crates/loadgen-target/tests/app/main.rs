//! The scenario app over every protocol the target serves: the login flow,
//! the token API, redirects, echo and cookies, and the body bound.

mod api;
mod client;
mod cookies;
mod echo;
mod login;
mod redirects;

use loadgen_target::{Target, TargetConfig};

fn start() -> Target {
    Target::start(TargetConfig {
        threads: 2,
        ..TargetConfig::default()
    })
    .unwrap()
}

/// The text between `before` and the next `after` in `text`.
fn between<'a>(text: &'a str, before: &str, after: &str) -> &'a str {
    let start = text
        .find(before)
        .unwrap_or_else(|| panic!("no {before:?} in {text}"))
        + before.len();
    let len = text[start..]
        .find(after)
        .unwrap_or_else(|| panic!("no {after:?} after {before:?} in {text}"));
    &text[start..start + len]
}

fn is_hex_id(text: &str) -> bool {
    text.len() == 32 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
