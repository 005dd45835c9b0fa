//! Where the files a scenario names (feeders, `body_file`) come from: the
//! disk, relative to the scenario file, or a set of contents that travelled
//! with it ([`super::Bundle`]). A worker compiles a scenario from the
//! latter and so never opens a path its caller chose.

use std::collections::BTreeMap;
use std::path::PathBuf;

pub enum Files {
    /// Relative paths are under this directory (the scenario file's).
    Dir(PathBuf),
    /// Each file by the path as the scenario writes it.
    Given(BTreeMap<String, String>),
}

impl Files {
    /// The contents of the file the scenario names `written`; the error
    /// says which file and why.
    pub fn read(&self, written: &str) -> Result<Vec<u8>, String> {
        match self {
            Files::Dir(dir) => {
                let full = dir.join(written);
                std::fs::read(&full).map_err(|e| format!("cannot read {}: {e}", full.display()))
            }
            Files::Given(given) => given
                .get(written)
                .map(|text| text.clone().into_bytes())
                .ok_or_else(|| format!("{written} was not sent with the scenario")),
        }
    }

    /// How errors name the file `written`.
    pub fn shown(&self, written: &str) -> String {
        match self {
            Files::Dir(dir) => dir.join(written).display().to_string(),
            Files::Given(_) => written.to_string(),
        }
    }
}
