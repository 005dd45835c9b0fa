//! Scenario files made from what a user already has: a browser's HAR
//! recording (`har`) or a curl command line (`curl`). Both are read into a
//! [`Flow`] of steps, values the server handed out are turned into
//! extractors and templates (`correlate`), and the flow is written as a
//! scenario file (`write`).

mod assets;
mod correlate;
mod curl;
mod flow;
mod har;
mod headers;
mod write;

pub use flow::{Body, Flow, Step};

/// What a conversion keeps beyond the default.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Keep images, stylesheets, scripts, fonts and media as steps.
    pub include_assets: bool,
    /// Keep the browser's `User-Agent` header.
    pub keep_user_agent: bool,
}

/// Why a recording or command line could not be converted: one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError(pub String);

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConvertError {}

/// A HAR 1.2 recording (Chromium's, Firefox's, Playwright's) as a scenario file.
pub fn from_har(text: &str, options: Options) -> Result<String, ConvertError> {
    let mut flow = har::read(text, options)?;
    correlate::correlate(&mut flow);
    Ok(write::scenario(&flow))
}

/// A curl command line (`curl -X POST -H ... -d ... URL`) as a one-step scenario file.
pub fn from_curl(text: &str, options: Options) -> Result<String, ConvertError> {
    let flow = curl::read(text, options)?;
    Ok(write::scenario(&flow))
}
