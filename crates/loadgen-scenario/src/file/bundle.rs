//! A scenario file with the contents of every file it names, read on one
//! machine to be compiled on another: a distributed run's controller reads
//! them, its workers compile from them and read nothing from their own
//! disks for a caller.

use super::{parse_with, read, read_text, Files, Loaded};
use crate::error::ScenarioError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    /// The scenario file's name, as its errors show it.
    pub name: String,
    /// Its text, YAML or JSON.
    pub text: String,
    /// Each file it names (feeders, `body_file`), by the path as written
    /// in it, with its contents (UTF-8 text, as the scenario reads them).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

impl Bundle {
    /// Reads the scenario file at `path` and every file it names.
    pub fn read(path: &Path) -> Result<Bundle, ScenarioError> {
        let loaded = read(path)?;
        let (name, text) = read_text(path)?;
        let mut files = BTreeMap::new();
        for (written, field, span) in loaded.named_files() {
            if files.contains_key(&written) {
                continue;
            }
            let bytes = loaded
                .files
                .read(&written)
                .map_err(|why| loaded.blame.at(span, &field, why))?;
            let contents = String::from_utf8(bytes).map_err(|_| {
                let shown = loaded.files.shown(&written);
                loaded
                    .blame
                    .at(span, &field, format!("{shown} is not UTF-8 text"))
            })?;
            files.insert(written, contents);
        }
        Ok(Bundle { name, text, files })
    }

    /// Parses the scenario; the files it names come from the bundle only.
    pub fn load(&self) -> Result<Loaded, ScenarioError> {
        parse_with(&self.name, &self.text, Files::Given(self.files.clone()))
    }

    /// Its size in bytes: text and files.
    pub fn size(&self) -> usize {
        self.text.len()
            + self
                .files
                .iter()
                .map(|(k, v)| k.len() + v.len())
                .sum::<usize>()
    }
}
