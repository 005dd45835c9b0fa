//! What of a scenario one worker thread runs. Virtual users are dealt to
//! threads by rank (rank r to thread r mod T), iterations of
//! `shared-iterations` follow the users, arrivals of the arrival-rate
//! executors are dealt by index (arrival k to thread k mod T). Whole
//! numbers split so that the threads' parts add up to the whole.

/// One thread's part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    pub thread: usize,
    pub threads: usize,
}

impl Share {
    /// The ranks (from 0) of the `total` virtual users this thread runs.
    pub fn ranks(self, total: u64) -> impl Iterator<Item = u64> {
        (self.thread as u64..total).step_by(self.threads)
    }

    /// How many of `total` users, iterations or allocations are this thread's.
    pub fn part(self, total: u64) -> u64 {
        self.ranks(total).count() as u64
    }

    /// The iterations of `shared-iterations` this thread's users share:
    /// `iterations` dealt to the `vus` ranks as evenly as whole numbers
    /// allow, then summed over the thread's ranks.
    pub fn iterations(self, iterations: u64, vus: u64) -> u64 {
        let (each, extra) = (iterations / vus, iterations % vus);
        self.ranks(vus).map(|r| each + u64::from(r < extra)).sum()
    }

    /// Whether arrival `index` (from 0) is this thread's.
    pub fn owns_arrival(self, index: u64) -> bool {
        index % self.threads as u64 == self.thread as u64
    }

    /// The run-wide number (from 1) of this thread's `local`-th virtual
    /// user of an arrival-rate executor.
    pub fn arrival_vu_id(self, local: u64) -> u64 {
        local * self.threads as u64 + self.thread as u64 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_add_up() {
        for threads in 1..5 {
            let shares: Vec<Share> = (0..threads)
                .map(|thread| Share { thread, threads })
                .collect();
            for total in [0, 1, 5, 7, 100] {
                assert_eq!(shares.iter().map(|s| s.part(total)).sum::<u64>(), total);
                for vus in 1..6 {
                    assert_eq!(
                        shares
                            .iter()
                            .map(|s| s.iterations(total + vus, vus))
                            .sum::<u64>(),
                        total + vus
                    );
                }
            }
        }
    }
}
