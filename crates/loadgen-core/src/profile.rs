//! Load over time as a piecewise-linear curve: the arrival rate of the open
//! model (`--rate`, `--ramp-up-time`, `--stages`) or the number of active
//! clients of the closed model. The open model needs the inverse of the
//! curve's integral: the time at which the k-th request is due.

use crate::duration::parse_duration;
use crate::plan_error::{PlanError, PlanField};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One `--stages` step: move linearly to `target` over `duration`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stage {
    pub duration: Duration,
    pub target: f64,
}

/// Parses stages written as `30s:1000,1m:5000,30s:0`.
pub fn parse_stages(text: &str) -> Result<Vec<Stage>, PlanError> {
    let bad = |why: String| PlanError::new(PlanField::Stages, why);
    let stages = text
        .split(',')
        .map(|step| {
            let (duration, target) = step
                .trim()
                .split_once(':')
                .ok_or_else(|| bad(format!("'{step}' is not DURATION:TARGET, as in 30s:1000")))?;
            let duration = parse_duration(duration).map_err(bad)?;
            let target: f64 = target
                .trim()
                .parse()
                .ok()
                .filter(|t: &f64| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| bad(format!("'{target}' is not a target (a number, 0 or more)")))?;
            Ok(Stage { duration, target })
        })
        .collect::<Result<Vec<_>, PlanError>>()?;
    if stages.iter().all(|s| s.duration.is_zero()) {
        return Err(bad("the stages last no time at all".into()));
    }
    Ok(stages)
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct Segment {
    start: f64,
    /// `f64::INFINITY` for a last segment that holds its level forever;
    /// `null` in JSON, which has no infinity.
    #[serde(deserialize_with = "forever_if_null")]
    length: f64,
    from: f64,
    to: f64,
    /// The integral of the curve up to `start`.
    area_before: f64,
}

/// Reads back the `null` that JSON writes for an infinite length.
fn forever_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
}

impl Segment {
    fn slope(&self) -> f64 {
        if self.length.is_finite() && self.length > 0.0 {
            (self.to - self.from) / self.length
        } else {
            0.0
        }
    }
}

/// One straight piece of a [`Profile`]: from `from` at `start_s` to `to`
/// after `duration_s` (`None`: it holds `from` for the rest of the run).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfilePiece {
    pub start_s: f64,
    pub duration_s: Option<f64>,
    pub from: f64,
    pub to: f64,
}

/// A curve over seconds since the start of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    segments: Vec<Segment>,
}

impl Profile {
    /// `level` from the start, forever.
    pub fn constant(level: f64) -> Profile {
        Profile::from_points(level, &[], true)
    }

    /// From 0 to `level` over `ramp`, then `level` forever.
    pub fn ramp(level: f64, ramp: Duration) -> Profile {
        Profile::from_points(
            0.0,
            &[Stage {
                duration: ramp,
                target: level,
            }],
            true,
        )
    }

    /// From `start` through each stage; ends with the last stage.
    pub fn stages(start: f64, stages: &[Stage]) -> Profile {
        Profile::from_points(start, stages, false)
    }

    fn from_points(start: f64, stages: &[Stage], hold: bool) -> Profile {
        let mut segments = Vec::with_capacity(stages.len() + 1);
        let (mut t, mut level, mut area) = (0.0, start, 0.0);
        for stage in stages {
            let length = stage.duration.as_secs_f64();
            segments.push(Segment {
                start: t,
                length,
                from: level,
                to: stage.target,
                area_before: area,
            });
            area += (level + stage.target) / 2.0 * length;
            t += length;
            level = stage.target;
        }
        if hold {
            segments.push(Segment {
                start: t,
                length: f64::INFINITY,
                from: level,
                to: level,
                area_before: area,
            });
        }
        Profile { segments }
    }

    /// When the curve ends; `None` if it holds forever.
    pub fn end(&self) -> Option<f64> {
        let last = self.segments.last()?;
        last.length.is_finite().then_some(last.start + last.length)
    }

    /// The highest level anywhere on the curve.
    pub fn peak(&self) -> f64 {
        self.segments
            .iter()
            .map(|s| s.from.max(s.to))
            .fold(0.0, f64::max)
    }

    pub fn level_at(&self, t: f64) -> f64 {
        match self.segment_at(t) {
            Some(s) => s.from + s.slope() * (t - s.start),
            None => 0.0,
        }
    }

    /// The integral from 0 to `t`: how many requests are due by then.
    pub fn area_until(&self, t: f64) -> f64 {
        let Some(s) = self.segment_at(t) else {
            return self
                .segments
                .last()
                .map_or(0.0, |s| s.area_before + (s.from + s.to) / 2.0 * s.length);
        };
        let x = (t - s.start).max(0.0);
        s.area_before + s.from * x + s.slope() * x * x / 2.0
    }

    /// The first time at which the integral reaches `area`; `None` if never.
    pub fn time_of_area(&self, area: f64) -> Option<f64> {
        for s in &self.segments {
            let need = area - s.area_before;
            let (a, b) = (s.from, s.slope());
            // Solve a·x + b·x²/2 = need; this form is stable for either sign of b.
            let discriminant = a * a + 2.0 * b * need;
            let x = if need <= 0.0 {
                0.0
            } else if discriminant < 0.0 {
                f64::INFINITY
            } else {
                let denominator = a + discriminant.sqrt();
                if denominator > 0.0 {
                    2.0 * need / denominator
                } else {
                    f64::INFINITY
                }
            };
            if x <= s.length {
                return Some(s.start + x);
            }
        }
        None
    }

    /// The first time at or after `t` when the level exceeds `threshold`; `None` if never.
    pub fn time_above(&self, threshold: f64, t: f64) -> Option<f64> {
        if self.level_at(t) > threshold {
            return Some(t);
        }
        for s in self.segments.iter().filter(|s| s.start + s.length > t) {
            if s.to > threshold && s.to > s.from {
                let x = (threshold - s.from) / s.slope();
                let at = (s.start + x.max(0.0)).max(t);
                // Just past the crossing, so the level is strictly above.
                return Some(at + 1e-9);
            }
            if s.from > threshold && s.start >= t {
                return Some(s.start);
            }
        }
        None
    }

    /// The first time at or after `t` when the level is at or below `threshold`.
    pub fn time_at_or_below(&self, threshold: f64, t: f64) -> Option<f64> {
        if self.level_at(t) <= threshold {
            return Some(t);
        }
        for s in self.segments.iter().filter(|s| s.start + s.length > t) {
            if s.to <= threshold && s.to < s.from {
                let x = (threshold - s.from) / s.slope();
                return Some((s.start + x).max(t));
            }
        }
        self.end()
    }

    /// The curve's pieces in time order, as a report shows them.
    pub fn pieces(&self) -> Vec<ProfilePiece> {
        self.segments
            .iter()
            .map(|s| ProfilePiece {
                start_s: s.start,
                duration_s: s.length.is_finite().then_some(s.length),
                from: s.from,
                to: s.to,
            })
            .collect()
    }

    /// The segment covering `t`; `None` past the end of a finite curve.
    fn segment_at(&self, t: f64) -> Option<&Segment> {
        self.segments.iter().find(|s| t < s.start + s.length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn profiles_that_hold_forever_round_trip_through_json() {
        let held = Profile::ramp(200.0, Duration::from_secs(2));
        let json = serde_json::to_string(&held).unwrap();
        assert!(json.contains("null"), "{json}");
        let back: Profile = serde_json::from_str(&json).unwrap();
        assert_eq!(back, held);
        assert_eq!(back.end(), None);
        let constant = Profile::constant(5.0);
        let back: Profile =
            serde_json::from_str(&serde_json::to_string(&constant).unwrap()).unwrap();
        assert_eq!(back, constant);
    }

    #[test]
    fn stages_parse() {
        let stages = parse_stages("30s:1000, 1m:5000,500ms:0").unwrap();
        assert_eq!(stages.len(), 3);
        assert_eq!(
            stages[1],
            Stage {
                duration: Duration::from_secs(60),
                target: 5000.0
            }
        );
        for bad in ["", "30s", "x:1", "1s:-1", "1s:abc", "0s:5"] {
            assert!(parse_stages(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn constant_rate_inverse() {
        let p = Profile::constant(1000.0);
        assert!(close(p.area_until(2.0), 2000.0));
        assert!(close(p.time_of_area(1500.0).unwrap(), 1.5));
        assert_eq!(p.end(), None);
    }

    #[test]
    fn ramp_then_hold() {
        let p = Profile::ramp(100.0, Duration::from_secs(10));
        assert!(close(p.level_at(5.0), 50.0));
        // Area under the ramp: 100 * 10 / 2 = 500.
        assert!(close(p.area_until(10.0), 500.0));
        assert!(close(p.time_of_area(500.0).unwrap(), 10.0));
        // x²·10/2 = 125 → x = 5.
        assert!(close(p.time_of_area(125.0).unwrap(), 5.0));
        assert!(close(p.time_of_area(600.0).unwrap(), 11.0));
    }

    #[test]
    fn stages_up_and_down_and_end() {
        let stages = parse_stages("10s:100,10s:100,10s:0").unwrap();
        let p = Profile::stages(0.0, &stages);
        assert_eq!(p.end(), Some(30.0));
        assert!(close(p.area_until(30.0), 500.0 + 1000.0 + 500.0));
        // On the way down: area in the last segment is 100x - 5x² = 375 → x = 5.
        assert!(close(p.time_of_area(1500.0 + 375.0).unwrap(), 25.0));
        assert_eq!(p.time_of_area(2000.5), None);
        assert!(close(p.peak(), 100.0));
    }

    #[test]
    fn inverse_agrees_with_integral() {
        let stages = parse_stages("3s:50,2s:400,4s:20,1s:20").unwrap();
        let p = Profile::stages(10.0, &stages);
        for k in 0..1000 {
            let area = k as f64 * 0.93;
            if let Some(t) = p.time_of_area(area) {
                assert!(close(p.area_until(t), area), "k={k} t={t}");
            }
        }
    }

    #[test]
    fn client_activation_times() {
        // Clients follow 0 → 10 over 10 s: client 3 joins once the level passes 3.
        let p = Profile::ramp(10.0, Duration::from_secs(10));
        assert!(close(p.time_above(3.0, 0.0).unwrap(), 3.0));
        let down = Profile::stages(10.0, &parse_stages("10s:0").unwrap());
        assert!(close(down.time_at_or_below(4.0, 0.0).unwrap(), 6.0));
        assert_eq!(down.time_above(4.0, 7.0), None);
    }
}
