//! What of a scenario one worker thread runs. A machine first takes its
//! execution segment's stripe of every stream of whole things (virtual
//! users by rank, arrivals of the arrival-rate executors by index; the
//! whole run when it is not split), then its threads deal that part among
//! themselves: the machine's m-th user or arrival to thread m mod T.
//! Iterations of `shared-iterations` follow the users. Every split is of
//! whole numbers whose parts add up to the whole, across machines and
//! threads alike, and every rank and index keeps its run-wide value, so
//! the machines' parts together are the single machine's run.

use loadgen_core::segment::Stripe;

/// One thread's part.
#[derive(Clone, Copy, Debug)]
pub struct Share<'s> {
    pub thread: usize,
    pub threads: usize,
    /// The machine's segment of the run.
    pub stripe: &'s Stripe,
}

impl<'s> Share<'s> {
    /// How many of `total` users, iterations or arrivals the machine has.
    pub fn machine_part(self, total: u64) -> u64 {
        self.stripe.count_below(total)
    }

    /// The run-wide ranks (from 0) of the `total` virtual users this thread runs.
    pub fn ranks(self, total: u64) -> impl Iterator<Item = u64> + 's {
        let stripe = self.stripe;
        (self.thread as u64..self.machine_part(total))
            .step_by(self.threads)
            .map(move |m| stripe.nth(m))
    }

    /// How many of `total` users or allocations are this thread's.
    pub fn part(self, total: u64) -> u64 {
        let here = self.machine_part(total);
        let threads = self.threads as u64;
        here / threads + u64::from((self.thread as u64) < here % threads)
    }

    /// The iterations of `shared-iterations` this thread's users share:
    /// `iterations` dealt to the `vus` ranks as evenly as whole numbers
    /// allow (the first ranks one more), then summed over the thread's ranks.
    pub fn iterations(self, iterations: u64, vus: u64) -> u64 {
        let (each, extra) = (iterations / vus, iterations % vus);
        self.ranks(vus).map(|r| each + u64::from(r < extra)).sum()
    }

    /// The run-wide index of this thread's `local`-th arrival (from 0).
    pub fn arrival(self, local: u64) -> u64 {
        self.stripe
            .nth(local * self.threads as u64 + self.thread as u64)
    }

    /// The run-wide number (from 1) of this thread's `local`-th virtual
    /// user of an arrival-rate executor: users are numbered as arrivals are.
    pub fn arrival_vu_id(self, local: u64) -> u64 {
        self.arrival(local) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadgen_core::segment::ExecutionSegment;

    /// The stripes of a run split `machines` ways.
    fn stripes(machines: u64) -> Vec<Stripe> {
        (0..machines)
            .map(|i| {
                ExecutionSegment::shard(i, machines)
                    .unwrap()
                    .stripe()
                    .unwrap()
            })
            .collect()
    }

    /// Every (machine, thread) share of a run on `machines` machines of `threads` threads.
    fn shares(stripes: &[Stripe], threads: usize) -> Vec<Share<'_>> {
        stripes
            .iter()
            .flat_map(|stripe| {
                (0..threads).map(move |thread| Share {
                    thread,
                    threads,
                    stripe,
                })
            })
            .collect()
    }

    #[test]
    fn parts_add_up_across_machines_and_threads() {
        for machines in 1..4 {
            let stripes = stripes(machines);
            for threads in 1..4 {
                let shares = shares(&stripes, threads);
                for total in [0, 1, 5, 7, 100] {
                    assert_eq!(shares.iter().map(|s| s.part(total)).sum::<u64>(), total);
                    for s in &shares {
                        assert_eq!(s.part(total), s.ranks(total).count() as u64);
                    }
                    for vus in 1..6 {
                        let iterations = total + vus;
                        let sum: u64 = shares.iter().map(|s| s.iterations(iterations, vus)).sum();
                        assert_eq!(sum, iterations, "{machines}x{threads}: {vus} vus");
                    }
                }
            }
        }
    }

    #[test]
    fn every_rank_and_arrival_has_one_owner() {
        let stripes = stripes(3);
        let shares = shares(&stripes, 2);
        let mut ranks: Vec<u64> = shares.iter().flat_map(|s| s.ranks(10)).collect();
        ranks.sort_unstable();
        assert_eq!(ranks, (0..10).collect::<Vec<_>>());
        let mut arrivals: Vec<u64> = shares
            .iter()
            .flat_map(|s| (0..5).map(move |local| s.arrival(local)))
            .collect();
        arrivals.sort_unstable();
        assert_eq!(arrivals, (0..30).collect::<Vec<_>>());
    }

    #[test]
    fn a_whole_run_deals_to_threads_as_before() {
        let whole = Stripe::whole();
        let share = Share {
            thread: 1,
            threads: 3,
            stripe: &whole,
        };
        assert_eq!(share.ranks(8).collect::<Vec<_>>(), [1, 4, 7]);
        assert_eq!((share.arrival(0), share.arrival(2)), (1, 7));
        assert_eq!(share.arrival_vu_id(0), 2);
    }
}
