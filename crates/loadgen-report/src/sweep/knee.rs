//! The knee: the highest open-model rate at which every service-level
//! objective holds, found by bisection. The lowest rate is probed first
//! (if it fails, no rate in the range does), then the highest (if it
//! passes, the knee is at least there), then the middle of the highest
//! passing and the lowest failing rate, until they are closer than the
//! resolution.

/// A rate probed, and whether every objective held there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    pub rate: f64,
    pub passed: bool,
}

/// What the search found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Knee {
    /// The highest passing rate, with the lowest failing one above it.
    Between { passed: f64, failed: f64 },
    /// Even the lowest rate failed.
    BelowRange { low: f64 },
    /// Even the highest rate passed.
    AboveRange { high: f64 },
}

#[derive(Clone, Debug)]
pub struct KneeSearch {
    low: f64,
    high: f64,
    /// Stop when the failing rate is within this share of the passing one.
    resolution: f64,
    probes: Vec<Probe>,
}

impl KneeSearch {
    /// `low` < `high`; `resolution` a share (0.02: within 2%).
    pub fn new(low: f64, high: f64, resolution: f64) -> KneeSearch {
        KneeSearch {
            low,
            high,
            resolution,
            probes: Vec::new(),
        }
    }

    pub fn probes(&self) -> &[Probe] {
        &self.probes
    }

    pub fn record(&mut self, rate: f64, passed: bool) {
        self.probes.push(Probe { rate, passed });
    }

    fn highest_passed(&self) -> Option<f64> {
        self.probes
            .iter()
            .filter(|p| p.passed)
            .map(|p| p.rate)
            .reduce(f64::max)
    }

    fn lowest_failed(&self) -> Option<f64> {
        self.probes
            .iter()
            .filter(|p| !p.passed)
            .map(|p| p.rate)
            .reduce(f64::min)
    }

    /// The next rate to probe; `None` once the knee is found.
    pub fn next(&self) -> Option<f64> {
        match (self.highest_passed(), self.lowest_failed()) {
            (None, None) => Some(self.low),
            (None, Some(_)) => None,
            (Some(_), None) if self.probes.len() == 1 => Some(self.high),
            (Some(_), None) => None,
            (Some(passed), Some(failed)) => {
                let close = failed - passed <= (passed * self.resolution).max(1.0);
                (!close).then_some((passed + failed) / 2.0)
            }
        }
    }

    /// What the probes so far say.
    pub fn knee(&self) -> Knee {
        match (self.highest_passed(), self.lowest_failed()) {
            (Some(passed), Some(failed)) => Knee::Between { passed, failed },
            (Some(_), None) => Knee::AboveRange { high: self.high },
            _ => Knee::BelowRange { low: self.low },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that meets the objectives up to `capacity`.
    fn search(capacity: f64, low: f64, high: f64) -> KneeSearch {
        let mut s = KneeSearch::new(low, high, 0.02);
        let mut probes = 0;
        while let Some(rate) = s.next() {
            s.record(rate, rate <= capacity);
            probes += 1;
            assert!(probes < 40, "the search ends");
        }
        s
    }

    #[test]
    fn bisection_closes_in_on_the_capacity() {
        let s = search(500.0, 100.0, 2000.0);
        let Knee::Between { passed, failed } = s.knee() else {
            panic!("{:?}", s.knee());
        };
        assert!(passed <= 500.0 && failed > 500.0);
        assert!(failed - passed <= passed * 0.02);
        assert_eq!(
            s.probes()[..2],
            [
                Probe {
                    rate: 100.0,
                    passed: true
                },
                Probe {
                    rate: 2000.0,
                    passed: false
                }
            ]
        );
    }

    #[test]
    fn the_range_can_miss_the_knee() {
        assert_eq!(
            search(50.0, 100.0, 2000.0).knee(),
            Knee::BelowRange { low: 100.0 }
        );
        assert_eq!(
            search(5000.0, 100.0, 2000.0).knee(),
            Knee::AboveRange { high: 2000.0 }
        );
        assert_eq!(search(5000.0, 100.0, 2000.0).probes().len(), 2);
    }
}
