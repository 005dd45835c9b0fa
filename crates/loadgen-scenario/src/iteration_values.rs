//! The values a template reads during one of a virtual user's iterations:
//! its built-ins (`__VU`, `__ITER`, the scenario's name), its feeders'
//! current rows and the variables its extractors set.

use crate::feeder::Feeder;
use crate::template::{write_builtin, Source, Values};

/// The values a template reads during one of a virtual user's iterations.
pub struct IterationValues<'v> {
    pub vu: u64,
    pub iteration: u64,
    pub scenario: &'v str,
    pub variables: &'v [Option<String>],
    pub rows: &'v [usize],
    pub feeders: &'v [Feeder],
}

impl Values for IterationValues<'_> {
    fn write(&mut self, source: &Source, out: &mut String) -> Result<(), String> {
        match source {
            Source::Builtin(builtin) => {
                write_builtin(*builtin, self.vu, self.iteration, self.scenario, out);
                Ok(())
            }
            Source::Feeder { feeder, column } => {
                let feeder_data = &self.feeders[*feeder];
                out.push_str(&feeder_data.rows[self.rows[*feeder]][*column]);
                Ok(())
            }
            Source::Extracted { slot, name } => match &self.variables[*slot] {
                Some(value) => {
                    out.push_str(value);
                    Ok(())
                }
                None => Err(format!(
                    "variable '{name}' has no value: the step that extracts it found nothing"
                )),
            },
        }
    }
}
