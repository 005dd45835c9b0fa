//! Execution segments, as k6 defines them: a run split between machines by
//! parts of [0, 1]. `1/4:2/4` is the second quarter; the segments of one
//! run form a sequence (`0,1/4,2/4,3/4,1`) that every machine is given, so
//! that they all cut the same way.
//!
//! A segment owns a share of every stream of whole things a run has
//! (clients, the open model's arrivals): a pattern of one cycle, the
//! sequence's common denominator long, deals each position to the segment
//! that is furthest behind its share (ties to the first). Counted over any
//! prefix, the segments' parts add up to the whole exactly, each within one
//! of its share, and a segment's positions are spread evenly rather than
//! bunched (the open model's arrivals interleave across machines instead
//! of all machines sending at once).

use crate::plan_error::{PlanError, PlanField};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The longest cycle a sequence may have: its common denominator.
pub const MAX_CYCLE: u64 = 1 << 20;

/// A fraction of [0, 1], kept exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fraction {
    pub numerator: u64,
    pub denominator: u64,
}

impl Fraction {
    pub const ZERO: Fraction = Fraction {
        numerator: 0,
        denominator: 1,
    };
    pub const ONE: Fraction = Fraction {
        numerator: 1,
        denominator: 1,
    };

    /// Reads `1/4`, `25%`, `0.25`, `0` or `1`, as k6 does.
    pub fn parse(text: &str) -> Result<Fraction, String> {
        let text = text.trim();
        let bad = || format!("'{text}' is not a fraction of 1 like 1/4, 25% or 0.25");
        let (numerator, denominator) = if let Some((n, d)) = text.split_once('/') {
            let n: u64 = n.trim().parse().map_err(|_| bad())?;
            let d: u64 = d.trim().parse().map_err(|_| bad())?;
            (n, d)
        } else if let Some(percent) = text.strip_suffix('%') {
            decimal(percent.trim())
                .map(|(n, d)| (n, d * 100))
                .ok_or_else(bad)?
        } else {
            decimal(text).ok_or_else(bad)?
        };
        if denominator == 0 || numerator > denominator {
            return Err(bad());
        }
        Ok(Fraction::new(numerator, denominator))
    }

    fn new(numerator: u64, denominator: u64) -> Fraction {
        let divisor = gcd(numerator, denominator).max(1);
        Fraction {
            numerator: numerator / divisor,
            denominator: denominator / divisor,
        }
    }

    fn less_than(self, other: Fraction) -> bool {
        u128::from(self.numerator) * u128::from(other.denominator)
            < u128::from(other.numerator) * u128::from(self.denominator)
    }
}

impl fmt::Display for Fraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.denominator {
            1 => write!(f, "{}", self.numerator),
            d => write!(f, "{}/{d}", self.numerator),
        }
    }
}

/// `0.25` as 25/100, exactly; up to 9 decimals.
fn decimal(text: &str) -> Option<(u64, u64)> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if (whole.is_empty() && fraction.is_empty()) || fraction.len() > 9 {
        return None;
    }
    let digits = |s: &str| s.is_empty() || s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) {
        return None;
    }
    let scale = 10u64.pow(fraction.len() as u32);
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let fraction: u64 = if fraction.is_empty() {
        0
    } else {
        fraction.parse().ok()?
    };
    Some((whole.checked_mul(scale)?.checked_add(fraction)?, scale))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The part of a run one machine makes, and the sequence of all parts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionSegment {
    pub from: Fraction,
    pub to: Fraction,
    /// Every cut of the run, `0` to `1`; `None`: this segment's own cuts
    /// (`0, from, to, 1`), as k6 does without `--execution-segment-sequence`.
    pub sequence: Option<Vec<Fraction>>,
}

impl ExecutionSegment {
    /// Reads `FROM:TO` (`1/4:2/4`, `25%:50%`, `0:1/3`).
    pub fn parse(text: &str) -> Result<ExecutionSegment, String> {
        let (from, to) = text
            .split_once(':')
            .ok_or_else(|| format!("'{text}' is not FROM:TO, as in 1/4:2/4"))?;
        Ok(ExecutionSegment {
            from: Fraction::parse(from)?,
            to: Fraction::parse(to)?,
            sequence: None,
        })
    }

    /// Segment `index` (from 0) of `count` equal ones, as Kubernetes' Indexed
    /// Jobs number their pods.
    pub fn shard(index: u64, count: u64) -> Result<ExecutionSegment, String> {
        if count == 0 || index >= count {
            return Err(format!(
                "shard {index}/{count}: the index must be below the count, from 0"
            ));
        }
        Ok(ExecutionSegment {
            from: Fraction::new(index, count),
            to: Fraction::new(index + 1, count),
            sequence: Some((0..=count).map(|i| Fraction::new(i, count)).collect()),
        })
    }

    /// Reads `0,1/4,1/2,3/4,1`.
    pub fn parse_sequence(text: &str) -> Result<Vec<Fraction>, String> {
        text.split(',').map(Fraction::parse).collect()
    }

    /// The stripe this segment owns of every stream; checks the segment
    /// and its sequence.
    pub fn stripe(&self) -> Result<Stripe, PlanError> {
        let bad = |why: String| PlanError::new(PlanField::ExecutionSegment, why);
        if !self.from.less_than(self.to) {
            return Err(bad(format!(
                "{}:{} is empty: FROM must be below TO",
                self.from, self.to
            )));
        }
        let points = match &self.sequence {
            Some(points) => points.clone(),
            None => {
                let mut points = vec![Fraction::ZERO, self.from, self.to, Fraction::ONE];
                points.dedup();
                points
            }
        };
        let sorted = points.windows(2).all(|w| w[0].less_than(w[1]));
        if points.first() != Some(&Fraction::ZERO)
            || points.last() != Some(&Fraction::ONE)
            || !sorted
        {
            return Err(PlanError::new(
                PlanField::ExecutionSegmentSequence,
                "the sequence must rise from 0 to 1, as in 0,1/4,1/2,3/4,1",
            ));
        }
        let own = points
            .windows(2)
            .position(|w| w[0] == self.from && w[1] == self.to)
            .ok_or_else(|| {
                PlanError::new(
                    PlanField::ExecutionSegmentSequence,
                    format!(
                        "{}:{} is not one of the sequence's segments",
                        self.from, self.to
                    ),
                )
            })?;
        let mut cycle: u64 = 1;
        for point in &points {
            cycle = cycle / gcd(cycle, point.denominator) * point.denominator;
            if cycle > MAX_CYCLE {
                return Err(PlanError::new(
                    PlanField::ExecutionSegmentSequence,
                    format!(
                        "the fractions' common denominator is above {MAX_CYCLE}; use simpler fractions"
                    ),
                ));
            }
        }
        let slots: Vec<u64> = points
            .windows(2)
            .map(|w| {
                let at = |f: Fraction| f.numerator * (cycle / f.denominator);
                at(w[1]) - at(w[0])
            })
            .collect();
        Ok(Stripe::deal(&slots, own, cycle))
    }
}

impl fmt::Display for ExecutionSegment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.from, self.to)
    }
}

/// Which positions of any stream a segment owns: those whose place in a
/// repeating cycle is one of `owned`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stripe {
    cycle: u64,
    /// The owned places within a cycle, rising.
    owned: Vec<u64>,
}

impl Stripe {
    /// The stripe of a run that is not split: every position.
    pub fn whole() -> Stripe {
        Stripe {
            cycle: 1,
            owned: vec![0],
        }
    }

    pub fn is_whole(&self) -> bool {
        self.cycle == self.owned.len() as u64
    }

    /// Deals a cycle's places to segments with `slots[i]` places each:
    /// each place to the segment furthest behind its share (ties to the
    /// first), which spreads every segment's places evenly.
    fn deal(slots: &[u64], own: usize, cycle: u64) -> Stripe {
        let mut given = vec![0u64; slots.len()];
        let mut owned = Vec::with_capacity(slots[own] as usize);
        for place in 0..cycle {
            // Segment i's lag after `place + 1` places: its share of them
            // minus what it has, scaled by `cycle` to stay in integers.
            let behind = |i: usize| {
                i128::from((place + 1) * slots[i]) - i128::from(given[i]) * i128::from(cycle)
            };
            let chosen = (0..slots.len())
                .filter(|&i| given[i] < slots[i])
                .max_by(|&a, &b| behind(a).cmp(&behind(b)).then(b.cmp(&a)))
                .expect("a cycle has as many places as the segments' slots");
            given[chosen] += 1;
            if chosen == own {
                owned.push(place);
            }
        }
        Stripe { cycle, owned }
    }

    /// The part of every stream this stripe owns, as a number.
    pub fn fraction(&self) -> f64 {
        self.owned.len() as f64 / self.cycle as f64
    }

    /// How many of the positions `0..n` this stripe owns.
    pub fn count_below(&self, n: u64) -> u64 {
        let per_cycle = self.owned.len() as u64;
        let rest = n % self.cycle;
        (n / self.cycle) * per_cycle + self.owned.partition_point(|&p| p < rest) as u64
    }

    /// The position of the stripe's `m`-th owned one (from 0).
    pub fn nth(&self, m: u64) -> u64 {
        let per_cycle = self.owned.len() as u64;
        (m / per_cycle) * self.cycle + self.owned[(m % per_cycle) as usize]
    }

    /// Whether position `position` is this stripe's.
    pub fn owns(&self, position: u64) -> bool {
        self.owned.binary_search(&(position % self.cycle)).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quarters() -> Vec<Stripe> {
        (0..4)
            .map(|i| ExecutionSegment::shard(i, 4).unwrap().stripe().unwrap())
            .collect()
    }

    #[test]
    fn fractions_as_k6_writes_them() {
        assert_eq!(Fraction::parse("1/4").unwrap(), Fraction::new(1, 4));
        assert_eq!(Fraction::parse("25%").unwrap(), Fraction::new(1, 4));
        assert_eq!(Fraction::parse("0.25").unwrap(), Fraction::new(1, 4));
        assert_eq!(Fraction::parse("2/4").unwrap(), Fraction::new(1, 2));
        assert_eq!(Fraction::parse("1").unwrap(), Fraction::ONE);
        assert_eq!(Fraction::parse("33.5%").unwrap(), Fraction::new(67, 200));
        for bad in ["", "5/4", "1/0", "x", "-1/4", "120%", "0.1234567891"] {
            assert!(Fraction::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parts_add_up_to_the_whole_for_any_count() {
        let stripes = quarters();
        for n in [0, 1, 3, 4, 7, 10, 99, 1000, 1001] {
            let parts: Vec<u64> = stripes.iter().map(|s| s.count_below(n)).collect();
            assert_eq!(parts.iter().sum::<u64>(), n, "{n}: {parts:?}");
            for part in &parts {
                assert!(part.abs_diff(n / 4) <= 1, "{n}: {parts:?}");
            }
        }
    }

    #[test]
    fn every_position_has_exactly_one_owner() {
        let sequence = ExecutionSegment::parse_sequence("0,1/3,1/2,1").unwrap();
        let stripes: Vec<Stripe> = sequence
            .windows(2)
            .map(|w| {
                ExecutionSegment {
                    from: w[0],
                    to: w[1],
                    sequence: Some(sequence.clone()),
                }
                .stripe()
                .unwrap()
            })
            .collect();
        for position in 0..60 {
            let owners = stripes.iter().filter(|s| s.owns(position)).count();
            assert_eq!(owners, 1, "position {position}");
        }
        // 1/3, 1/6 and 1/2 of every 6 positions.
        let counts: Vec<u64> = stripes.iter().map(|s| s.count_below(60)).collect();
        assert_eq!(counts, [20, 10, 30]);
        // nth and count_below agree.
        for stripe in &stripes {
            for m in 0..20 {
                let position = stripe.nth(m);
                assert!(stripe.owns(position));
                assert_eq!(stripe.count_below(position), m);
            }
        }
    }

    #[test]
    fn positions_interleave_rather_than_bunch() {
        let stripes = quarters();
        let owners: Vec<usize> = (0..8)
            .map(|p| stripes.iter().position(|s| s.owns(p)).unwrap())
            .collect();
        assert_eq!(owners, [0, 1, 2, 3, 0, 1, 2, 3]);
    }

    #[test]
    fn a_segment_without_a_sequence_cuts_at_its_own_ends() {
        let stripe = ExecutionSegment::parse("1/4:3/4")
            .unwrap()
            .stripe()
            .unwrap();
        assert_eq!(stripe.count_below(100), 50);
        let whole = ExecutionSegment::parse("0:1").unwrap().stripe().unwrap();
        assert!(whole.is_whole());
        assert!(ExecutionSegment::parse("1/2:1/4")
            .unwrap()
            .stripe()
            .is_err());
        let wrong_sequence = ExecutionSegment {
            sequence: Some(ExecutionSegment::parse_sequence("0,1/3,1").unwrap()),
            ..ExecutionSegment::parse("0:1/4").unwrap()
        };
        assert!(wrong_sequence.stripe().is_err());
    }

    #[test]
    fn shards_number_from_zero() {
        assert!(ExecutionSegment::shard(4, 4).is_err());
        assert!(ExecutionSegment::shard(0, 0).is_err());
        let first = ExecutionSegment::shard(0, 3).unwrap();
        assert_eq!(first.to_string(), "0:1/3");
    }
}
