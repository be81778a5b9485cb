//! A set of done offsets kept as "everything below the frontier, and ranges above it": the
//! durable frontier of a partition (model.md §2) and what a member has handled of a
//! partition it holds (§12). Memory grows with the gaps, never with offset values or with
//! the number of offsets done.

use std::collections::BTreeMap;

/// Every offset below `frontier` is done, and so are the ranges in `above`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Frontier {
    frontier: u64,
    /// Done ranges above the frontier, start → end (exclusive): disjoint, never touching
    /// each other or the frontier.
    above: BTreeMap<u64, u64>,
}

impl Frontier {
    /// Nothing done from `offset` on.
    pub(crate) fn starting_at(offset: u64) -> Self {
        Frontier { frontier: offset, above: BTreeMap::new() }
    }

    /// Everything below `offset` done, nothing above (a loop that handles records in order).
    #[inline(always)]
    pub(crate) fn restart_at(&mut self, offset: u64) {
        self.frontier = offset;
        if !self.above.is_empty() {
            self.above.clear();
        }
    }

    /// The lowest offset not done.
    pub(crate) fn frontier(&self) -> u64 {
        self.frontier
    }

    /// The highest offset done + 1, or the frontier when nothing above it is done.
    pub(crate) fn highest_end(&self) -> u64 {
        self.above.last_key_value().map_or(self.frontier, |(_, &end)| end)
    }

    /// Marks `offset` done (again, or below the frontier: no change); returns the frontier.
    #[inline(always)]
    pub(crate) fn done(&mut self, offset: u64) -> u64 {
        if offset == self.frontier {
            self.frontier += 1;
            if !self.above.is_empty() {
                if let Some(entry) = self.above.first_entry() {
                    if *entry.key() == self.frontier {
                        self.frontier = entry.remove();
                    }
                }
            }
        } else if offset > self.frontier {
            self.insert_above(offset);
        }
        self.frontier
    }

    fn insert_above(&mut self, offset: u64) {
        let left = self.above.range(..=offset).next_back().map(|(&start, &end)| (start, end));
        if left.is_some_and(|(_, end)| offset < end) {
            return;
        }
        let right_end = self.above.remove(&(offset + 1));
        match (left, right_end) {
            (Some((start, end)), right) if end == offset => {
                self.above.insert(start, right.unwrap_or(offset + 1));
            }
            (_, right) => {
                self.above.insert(offset, right.unwrap_or(offset + 1));
            }
        }
    }

    /// The number of ranges kept above the frontier.
    #[cfg(test)]
    pub(crate) fn ranges(&self) -> usize {
        self.above.len()
    }

    /// Whether the ranges above are disjoint, apart, and above the frontier.
    #[cfg(debug_assertions)]
    pub(crate) fn well_formed(&self) -> bool {
        let mut floor = self.frontier;
        self.above.iter().all(|(&start, &end)| {
            let ok = start > floor && end > start;
            floor = end;
            ok
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frontier_waits_for_the_lowest_offset_not_done() {
        let mut f = Frontier::starting_at(0);
        assert_eq!(f.done(1), 0);
        assert_eq!(f.done(2), 0);
        assert_eq!(f.highest_end(), 3);
        assert_eq!(f.done(0), 3);
        assert_eq!(f.done(1), 3, "a second run");
        assert_eq!(f.ranges(), 0);
    }

    #[test]
    fn ranges_merge_on_both_sides() {
        let mut f = Frontier::starting_at(10);
        for o in [20, 22, 21, 30, 12] {
            f.done(o);
        }
        assert_eq!(f.above.iter().map(|(&s, &e)| (s, e)).collect::<Vec<_>>(), [(12, 13), (20, 23), (30, 31)]);
        assert_eq!(f.highest_end(), 31);
        f.done(10);
        f.done(11);
        assert_eq!(f.frontier(), 13);
    }

    #[test]
    fn a_permanent_gap_keeps_one_range_however_many_offsets_follow() {
        let mut f = Frontier::starting_at(0);
        for o in 1..100_000 {
            f.done(o);
        }
        assert_eq!((f.frontier(), f.ranges(), f.highest_end()), (0, 1, 100_000));
    }

    #[test]
    fn matches_a_plain_set_on_random_orders() {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        for seed in 0..50u64 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut offsets: Vec<u64> = (0..60).chain(0..20).collect();
            for i in (1..offsets.len()).rev() {
                offsets.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
            }
            let mut f = Frontier::starting_at(0);
            let mut set = std::collections::BTreeSet::new();
            for o in offsets {
                f.done(o);
                set.insert(o);
                let expected = (0..).find(|o| !set.contains(o)).unwrap();
                assert_eq!(f.frontier(), expected);
                assert_eq!(f.highest_end(), set.last().unwrap() + 1);
                assert!(f.well_formed());
            }
        }
    }
}
