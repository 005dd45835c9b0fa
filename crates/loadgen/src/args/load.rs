//! Flags that shape the load over time: h2load's `--rps`, `-r`,
//! `--rate-period` and `--timing-script-file`, and the open model
//! (`--rate`), ramps and stages. h2load's `-r/--rate` paces new
//! connections; here it is `-r/--connection-rate`, since `--rate` is the
//! request rate of the open model.

use clap::Args;
use loadgen_core::duration::{parse_duration, HumanDuration};
use loadgen_core::plan::{defaults, ConnectionRate, Load, Mode, Pacing};
use loadgen_core::profile::{parse_stages, Profile, Stage};
use std::time::Duration;

#[derive(Args, Debug, Clone, Default)]
pub struct LoadArgs {
    /// Open model: start R requests per second in total at fixed intended times, whatever the
    /// server does; latency counts from the intended start (coordinated-omission correction).
    #[arg(long, value_name = "R")]
    pub rate: Option<f64>,

    /// Each client starts at most R requests per second (h2load's --rps).
    #[arg(long, value_name = "R", conflicts_with = "rate")]
    pub rps: Option<f64>,

    /// Raise the rate (with --rate) or the number of active clients linearly from 0 over DURATION.
    #[arg(long = "ramp-up-time", value_name = "DURATION", value_parser = parse_duration)]
    pub ramp_up_time: Option<Duration>,

    /// DURATION:TARGET steps, e.g. 30s:1000,1m:5000,30s:0: the request rate with --rate
    /// (starting from --rate), else the number of active clients (starting from 0).
    #[arg(long, value_name = "STAGES", conflicts_with = "ramp_up_time")]
    pub stages: Option<String>,

    /// h2load's -r: open at most N new connections per --rate-period until -c are open.
    #[arg(
        short = 'r',
        long = "connection-rate",
        value_name = "N",
        conflicts_with = "duration"
    )]
    pub connection_rate: Option<usize>,

    /// The period of -r.
    #[arg(long = "rate-period", value_name = "DURATION", default_value_t = HumanDuration(defaults::CONNECTION_RATE_PERIOD))]
    pub rate_period: HumanDuration,

    /// h2load's timing script: lines of 'OFFSET_MS<TAB>URI'; every client sends request k at
    /// OFFSET k from the start. Replaces the URIs; -n (per client) takes the first N lines.
    #[arg(long = "timing-script-file", value_name = "PATH", conflicts_with_all = ["rps", "rate", "input_file"])]
    pub timing_script_file: Option<String>,
}

/// What the load flags decide beyond the `Load` itself.
pub struct LoadPlan {
    pub load: Load,
    pub mode: Mode,
    pub clients: usize,
    /// URIs from the timing script, replacing the command line's.
    pub uris: Option<Vec<String>>,
}

impl LoadArgs {
    /// `requests` is `-n` if given; `mode` is what -n/-D alone would mean.
    pub fn to_load(
        &self,
        requests: Option<u64>,
        mode: Mode,
        clients: usize,
    ) -> Result<LoadPlan, String> {
        let connection_rate = self.connection_rate.map(|per_period| ConnectionRate {
            per_period,
            period: self.rate_period.0,
        });
        let timed = matches!(mode, Mode::Duration { .. });
        // The only plan error this can be is the stages', named as the flag.
        let stages: Option<Vec<Stage>> = self
            .stages
            .as_deref()
            .map(parse_stages)
            .transpose()
            .map_err(|e| format!("--stages: {}", e.message))?;
        let mut plan = LoadPlan {
            load: Load {
                pacing: Pacing::Closed,
                active_clients: None,
                connection_rate,
            },
            mode,
            clients,
            uris: None,
        };
        if let Some(path) = &self.timing_script_file {
            let (offsets, uris) = read_timing_script(path)?;
            let per_client = requests.map_or(offsets.len() as u64, |n| n.min(offsets.len() as u64));
            let offsets = offsets[..per_client as usize].to_vec();
            plan.uris = Some(uris[..per_client as usize].to_vec());
            if !timed {
                plan.mode = Mode::Requests(per_client * clients as u64);
            }
            plan.load.pacing = Pacing::Script { offsets };
            return Ok(plan);
        }
        if let Some(rps) = self.rps {
            plan.load.pacing = Pacing::PerClientRate { rps };
        }
        match self.rate {
            Some(rate) => {
                if !(rate.is_finite() && rate >= 0.0) {
                    return Err("--rate: expected a rate of 0 or more requests per second".into());
                }
                let profile = match (&stages, self.ramp_up_time) {
                    (Some(stages), _) => Profile::stages(rate, stages),
                    (None, Some(ramp)) => Profile::ramp(rate, ramp),
                    (None, None) => Profile::constant(rate),
                };
                if requests.is_none() && !timed && profile.end().is_none() {
                    return Err(
                        "--rate: say how long to run with -D, or how many requests with -n".into(),
                    );
                }
                // -n or -D bound the run; the stages bound it only without them.
                self.bound_by_profile(&mut plan, &profile, timed || requests.is_some());
                plan.load.pacing = Pacing::Open { profile };
            }
            None => {
                let curve = match (&stages, self.ramp_up_time) {
                    (Some(stages), _) => Some(Profile::stages(0.0, stages)),
                    (None, Some(ramp)) => Some(Profile::ramp(clients as f64, ramp)),
                    (None, None) => None,
                };
                if let Some(curve) = curve {
                    plan.clients = clients.max(curve.peak().ceil() as usize);
                    self.bound_by_profile(&mut plan, &curve, timed || requests.is_some());
                    plan.load.active_clients = Some(curve);
                }
            }
        }
        Ok(plan)
    }

    /// Stages end the run by themselves when -D does not say otherwise.
    fn bound_by_profile(&self, plan: &mut LoadPlan, profile: &Profile, bounded: bool) {
        if let (Some(end), false) = (profile.end(), bounded) {
            if self.stages.is_some() {
                plan.mode = Mode::Duration {
                    duration: Duration::from_secs_f64(end),
                    warm_up: Duration::ZERO,
                };
            }
        }
    }
}

fn read_timing_script(path: &str) -> Result<(Vec<Duration>, Vec<String>), String> {
    let text = if path == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(path)
    }
    .map_err(|e| format!("--timing-script-file: cannot read '{path}': {e}"))?;
    let mut offsets = Vec::new();
    let mut uris = Vec::new();
    for (number, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = || {
            format!(
                "--timing-script-file: line {} is not 'OFFSET_MS<TAB>URI'",
                number + 1
            )
        };
        let (offset, uri) = line.split_once('\t').ok_or_else(bad)?;
        let millis: f64 = offset.trim().parse().map_err(|_| bad())?;
        if !(millis.is_finite() && millis >= 0.0) {
            return Err(bad());
        }
        offsets.push(Duration::from_secs_f64(millis / 1000.0));
        uris.push(uri.trim().to_string());
    }
    if offsets.is_empty() {
        return Err(format!("--timing-script-file: '{path}' has no lines"));
    }
    Ok((offsets, uris))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(args: LoadArgs, requests: Option<u64>, mode: Mode) -> Result<LoadPlan, String> {
        args.to_load(requests, mode, 10)
    }

    #[test]
    fn rate_needs_a_bound() {
        let args = LoadArgs {
            rate: Some(100.0),
            ..LoadArgs::default()
        };
        assert!(load(args.clone(), None, Mode::Requests(1)).is_err());
        let plan = load(args, Some(500), Mode::Requests(500)).unwrap();
        assert!(matches!(plan.load.pacing, Pacing::Open { .. }));
        assert_eq!(plan.mode, Mode::Requests(500));
    }

    #[test]
    fn rate_stages_set_the_duration() {
        let args = LoadArgs {
            rate: Some(0.0),
            stages: Some("2s:100,3s:100".into()),
            ..LoadArgs::default()
        };
        let plan = load(args, None, Mode::Requests(1)).unwrap();
        assert_eq!(
            plan.mode,
            Mode::Duration {
                duration: Duration::from_secs(5),
                warm_up: Duration::ZERO
            }
        );
    }

    #[test]
    fn client_stages_raise_the_client_count() {
        let args = LoadArgs {
            stages: Some("1s:25,1s:0".into()),
            ..LoadArgs::default()
        };
        let plan = load(args, None, Mode::Requests(1)).unwrap();
        assert_eq!(plan.clients, 25);
        assert!(plan.load.active_clients.is_some());
    }

    #[test]
    fn timing_script_lines() {
        let dir = std::env::temp_dir().join(format!("loadgen-script-{}", std::process::id()));
        std::fs::write(&dir, "0\thttp://a/x\n1.5\t/y\n\n2000\t/z\n").unwrap();
        let args = LoadArgs {
            timing_script_file: Some(dir.display().to_string()),
            ..LoadArgs::default()
        };
        let plan = load(args.clone(), Some(2), Mode::Requests(2)).unwrap();
        assert_eq!(
            plan.uris.as_deref(),
            Some(&["http://a/x".to_string(), "/y".to_string()][..])
        );
        assert_eq!(plan.mode, Mode::Requests(20));
        let Pacing::Script { offsets } = &plan.load.pacing else {
            panic!()
        };
        assert_eq!(offsets[1], Duration::from_micros(1500));
        std::fs::write(&dir, "x\t/y\n").unwrap();
        assert!(load(args, None, Mode::Requests(1)).is_err());
        let _ = std::fs::remove_file(&dir);
    }
}
