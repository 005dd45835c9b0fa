//! Whether reports are parts of one test, and the configuration of their
//! union. Parts of one test load the same URIs with the same method,
//! protocol, mode, load model and streams per connection; anything else is
//! refused unless forced, since the sum would describe no test at all.
//!
//! The union has the clients, threads, requests (`-n`) and open-model rates
//! of all the parts added up, and of each per-connection or per-client bound
//! (`-m`, `--rps`) and of each duration (`-D`, warm-up) the largest. Forced
//! merges list each distinct URI once, and join distinct methods, modes and
//! load models with `,` (`GET,POST`).

use super::counts::Adder;
use super::{MergeError, Source};
use loadgen_core::profile::ProfilePiece;
use loadgen_core::report::RunConfig;

/// Refuses the first difference between reports, unless `force`.
pub fn check_same_test(sources: &[Source], force: bool) -> Result<(), MergeError> {
    if force {
        return Ok(());
    }
    let identities: Vec<_> = sources.iter().map(identity).collect();
    for field in 0..FIELDS {
        // Each value is compared with the first report that has one.
        let mut first: Option<(&Source, &String)> = None;
        for (source, identity) in sources.iter().zip(&identities) {
            let (name, value) = &identity[field];
            // A report whose connections all failed negotiated no protocol:
            // it is a failed part of the test, not another test.
            let Some(value) = value else {
                continue;
            };
            match first {
                None => first = Some((source, value)),
                Some((first, first_value)) if first_value != value => {
                    return Err(MergeError::Mismatch {
                        field: name,
                        first: first.name.clone(),
                        first_value: first_value.clone(),
                        other: source.name.clone(),
                        other_value: value.clone(),
                    })
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

const FIELDS: usize = 6;

/// What makes a report part of one test, as shown in the refusal.
fn identity(source: &Source) -> [(&'static str, Option<String>); FIELDS] {
    let r = &source.report;
    let c = &r.config;
    [
        ("URIs", Some(c.uris.join(" "))),
        ("method", Some(c.method.clone())),
        ("protocol", r.application_protocol.clone()),
        ("mode", Some(c.mode.clone())),
        ("load model", Some(c.load_model.clone())),
        ("-m", Some(c.max_concurrent_streams.to_string())),
    ]
}

pub fn union(configs: &[&RunConfig], adder: &mut Adder) -> RunConfig {
    let mut uris: Vec<String> = Vec::new();
    for uri in configs.iter().flat_map(|c| &c.uris) {
        if !uris.contains(uri) {
            uris.push(uri.clone());
        }
    }
    RunConfig {
        uris,
        method: distinct(configs.iter().map(|c| c.method.as_str())),
        clients: adder.total_usize("config.clients", configs.iter().map(|c| c.clients)),
        threads: adder.total_usize("config.threads", configs.iter().map(|c| c.threads)),
        max_concurrent_streams: configs
            .iter()
            .map(|c| c.max_concurrent_streams)
            .max()
            .unwrap_or(1),
        mode: distinct(configs.iter().map(|c| c.mode.as_str())),
        requests: sum_of_present(configs.iter().map(|c| c.requests), adder),
        duration_s: largest_present(configs.iter().map(|c| c.duration_s)),
        warm_up_s: largest_present(configs.iter().map(|c| c.warm_up_s)),
        load_model: distinct(configs.iter().map(|c| c.load_model.as_str())),
        rate_per_s: configs
            .iter()
            .filter_map(|c| c.rate_per_s)
            .reduce(|a, b| a + b),
        rps_per_client: largest_present(configs.iter().map(|c| c.rps_per_client)),
        wake_coalescing_us: configs.iter().filter_map(|c| c.wake_coalescing_us).max(),
        // The segments the merged reports ran, in their order.
        segment: {
            let parts: Vec<&str> = configs
                .iter()
                .filter_map(|c| c.segment.as_deref())
                .collect();
            (!parts.is_empty()).then(|| parts.join(","))
        },
        load_profile: load_profile(configs),
    }
}

/// The open model's rates add up when the reports' curves change at the
/// same times (the parts of one split run), and so do scenario runs'
/// curves (each machine runs the whole file, its virtual users or arrivals
/// on top of the others'); a curve of active clients is the whole run's in
/// every part, so the first report's stands.
fn load_profile(configs: &[&RunConfig]) -> Vec<ProfilePiece> {
    let Some(first) = configs.first() else {
        return Vec::new();
    };
    let same_times = configs.iter().all(|c| {
        c.load_profile.len() == first.load_profile.len()
            && c.load_profile
                .iter()
                .zip(&first.load_profile)
                .all(|(a, b)| a.start_s == b.start_s && a.duration_s == b.duration_s)
    });
    let adding = ["open", "scenario"]
        .iter()
        .any(|model| configs.iter().all(|c| c.load_model == *model));
    if !(same_times && adding) {
        return first.load_profile.clone();
    }
    let mut sum = first.load_profile.clone();
    for config in &configs[1..] {
        for (total, piece) in sum.iter_mut().zip(&config.load_profile) {
            total.from += piece.from;
            total.to += piece.to;
        }
    }
    sum
}

/// The protocols the reports negotiated, each once, `,`-joined; `None`
/// when none made a connection.
pub fn protocols<'a>(protocols: impl Iterator<Item = Option<&'a String>>) -> Option<String> {
    let named: Vec<&str> = protocols.flatten().map(String::as_str).collect();
    (!named.is_empty()).then(|| distinct(named.into_iter()))
}

/// Each distinct value once, in first-seen order, joined with `,`.
fn distinct<'a>(values: impl Iterator<Item = &'a str>) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for value in values {
        if !seen.contains(&value) {
            seen.push(value);
        }
    }
    seen.join(",")
}

fn sum_of_present(values: impl Iterator<Item = Option<u64>>, adder: &mut Adder) -> Option<u64> {
    let present: Vec<u64> = values.flatten().collect();
    (!present.is_empty()).then(|| adder.total("config.requests", present.into_iter()))
}

fn largest_present(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    values.flatten().reduce(f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::profile::{parse_stages, Profile};
    use loadgen_core::Report;

    fn config(load_model: &str, start: f64, stages: &str) -> RunConfig {
        let text = include_str!("../../tests/data/report.json");
        let report: Report = serde_json::from_str(text).unwrap();
        let mut config = report.config;
        config.load_model = load_model.to_string();
        config.load_profile = Profile::stages(start, &parse_stages(stages).unwrap()).pieces();
        config
    }

    fn levels(pieces: &[ProfilePiece]) -> Vec<(f64, f64)> {
        pieces.iter().map(|p| (p.from, p.to)).collect()
    }

    #[test]
    fn rates_and_scenario_curves_add_up_and_client_curves_do_not() {
        for model in ["open", "scenario"] {
            let (a, b) = (
                config(model, 10.0, "1s:30,1s:30"),
                config(model, 5.0, "1s:5,1s:0"),
            );
            assert_eq!(
                levels(&load_profile(&[&a, &b])),
                [(15.0, 35.0), (35.0, 30.0)],
                "{model}"
            );
        }
        let (a, b) = (config("closed", 0.0, "1s:8"), config("closed", 0.0, "1s:8"));
        assert_eq!(levels(&load_profile(&[&a, &b])), [(0.0, 8.0)]);
        // Curves that change at other times are not one curve: the first stands.
        let (a, b) = (config("open", 10.0, "1s:30"), config("open", 10.0, "2s:30"));
        assert_eq!(levels(&load_profile(&[&a, &b])), [(10.0, 30.0)]);
    }
}
