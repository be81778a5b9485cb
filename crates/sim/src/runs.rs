//! Whether each offset of one partition has run (k(o) > 0, model.md §5: what lost and
//! duplicated turn on; the counts themselves are the profile's), stored only for offsets that
//! were handed out and have not all run: contiguous segments, one per stretch of polls, from
//! `run_below` on (every offset below it has run, and runs are never taken back). Offsets
//! below the log start count as run once; offsets never handed out as never run. Memory
//! therefore grows with the records handed out and not yet run, never with offset values: a
//! consumer that skips to a log end of 10^12 costs one more segment, and a day of a steady
//! group (issue 28's S-C: 27.6 million records) a few thousand offsets per partition.

/// A stretch of handed-out offsets `start..start + counts.len()`: whether each has run.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Segment {
    start: u64,
    counts: Vec<bool>,
}

impl Segment {
    fn end(&self) -> u64 {
        self.start + self.counts.len() as u64
    }
}

/// Which offsets of one partition have run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RunCounts {
    /// Offsets below this (the log start) count as run once.
    floor: u64,
    /// Ascending, disjoint and not adjacent.
    segments: Vec<Segment>,
    /// Every offset of `floor..run_below` has run at least once (runs are never taken back,
    /// so it only grows): range counts below it are arithmetic, and only the rest is
    /// counted offset by offset (a handover counts from the log start).
    run_below: u64,
}

/// How the offsets of a range split by their run counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RangeCounts {
    /// Offsets never run.
    pub(crate) never_run: u64,
    /// Offsets run at least once.
    pub(crate) run: u64,
}

/// Offsets below `run_below` a segment holds before it forgets them.
const FORGET_AT: usize = 4096;

impl RunCounts {
    pub(crate) fn new(log_start_offset: u64, reserve: usize) -> Self {
        RunCounts {
            floor: log_start_offset,
            segments: vec![Segment { start: log_start_offset, counts: Vec::with_capacity(reserve) }],
            run_below: log_start_offset,
        }
    }

    /// Offsets `from..to` were handed out: make room for them (not run), but for those below
    /// `run_below`, which have run.
    pub(crate) fn hand_out(&mut self, from: u64, to: u64) {
        let from = from.max(self.floor).max(self.run_below);
        if from >= to {
            return;
        }
        // The segment that holds or ends at `from`, or a new one in its place.
        let i = self.segments.partition_point(|s| s.end() < from);
        if self.segments.get(i).is_none_or(|s| s.start > from) {
            self.segments.insert(i, Segment { start: from, counts: Vec::new() });
        }
        // Grow it to `to`, swallowing the segments it meets.
        while self.segments[i].end() < to {
            let next_start = self.segments.get(i + 1).map_or(u64::MAX, |s| s.start);
            let grow_to = to.min(next_start);
            let len = (grow_to - self.segments[i].start) as usize;
            self.segments[i].counts.resize(len, false);
            if grow_to == next_start {
                let next = self.segments.remove(i + 1);
                self.segments[i].counts.extend(next.counts);
            }
        }
    }

    fn slot(&mut self, offset: u64) -> Option<&mut bool> {
        let last = self.segments.len() - 1;
        let i = if self.segments[last].start <= offset {
            last
        } else {
            self.segments.partition_point(|s| s.end() <= offset)
        };
        let seg = self.segments.get_mut(i)?;
        if offset < seg.start {
            return None;
        }
        seg.counts.get_mut((offset - seg.start) as usize)
    }

    /// One more run of `offset`, which must have been handed out; returns whether it had run
    /// before (k > 0).
    #[inline]
    pub(crate) fn increment(&mut self, offset: u64) -> bool {
        if offset < self.run_below {
            return true;
        }
        let slot = self.slot(offset).expect("a completed offset was handed out");
        let earlier = std::mem::replace(slot, true);
        if offset == self.run_below {
            self.advance_run_below();
        }
        earlier
    }

    /// Moves `run_below` past the offsets that have run, within the segment that holds it,
    /// and forgets what lies below it once that is most of the segment (amortized: each
    /// offset is moved at most once or twice).
    fn advance_run_below(&mut self) {
        let at = self.run_below;
        let i = self.segments.partition_point(|s| s.end() <= at);
        let Some(seg) = self.segments.get_mut(i).filter(|s| s.start <= at) else { return };
        let done = seg.counts[(at - seg.start) as usize..].iter().take_while(|&&k| k).count();
        self.run_below = at + done as u64;
        let below = (self.run_below - seg.start) as usize;
        if below >= FORGET_AT && 2 * below >= seg.counts.len() {
            seg.counts.drain(..below);
            seg.start = self.run_below;
        }
        // Segments wholly below it hold nothing to know.
        if i > 0 {
            self.segments.drain(..i);
        }
    }

    /// How the offsets of `low..high` split between never run and run.
    pub(crate) fn range_counts(&self, low: u64, high: u64) -> RangeCounts {
        let mut counts = RangeCounts::default();
        if low >= high {
            return counts;
        }
        // Below the floor: run once.
        let below = high.min(self.floor).saturating_sub(low);
        counts.run += below;
        let low = low.max(self.floor);
        // Below `run_below` every offset has run.
        let known = high.min(self.run_below).saturating_sub(low);
        counts.run += known;
        let below = below + known;
        let low = low + known;
        if low >= high {
            return counts;
        }
        let first = self.segments.partition_point(|s| s.end() <= low);
        for seg in &self.segments[first..] {
            if seg.start >= high {
                break;
            }
            let (a, b) = (low.max(seg.start), high.min(seg.end()));
            let run =
                seg.counts[(a - seg.start) as usize..(b - seg.start) as usize].iter().filter(|&&k| k).count();
            counts.run += run as u64;
        }
        counts.never_run += high.saturating_sub(low) - (counts.run - below);
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_outs_grow_and_merge_segments() {
        let mut r = RunCounts::new(0, 0);
        r.hand_out(0, 5);
        r.hand_out(5, 10);
        assert_eq!(r.segments.len(), 1);
        r.hand_out(3, 8); // a rewind re-hands out what is already there
        assert_eq!(r.segments.len(), 1);
        assert_eq!(r.segments[0].end(), 10);
        r.hand_out(1_000_000_000_000, 1_000_000_000_005); // a skip to a far log end
        assert_eq!(r.segments.len(), 2);
        r.hand_out(20, 30);
        r.hand_out(10, 25); // fills the gap and swallows 20..30
        assert_eq!(r.segments.len(), 2);
        assert_eq!((r.segments[0].start, r.segments[0].end()), (0, 30));
        assert!(!r.increment(1_000_000_000_004));
        assert!(!r.increment(7));
        assert!(r.increment(7));
        assert!(r.increment(7));
        assert_eq!(r.range_counts(500, 501), RangeCounts { never_run: 1, run: 0 });
    }

    #[test]
    fn range_counts_are_arithmetic_over_gaps() {
        let mut r = RunCounts::new(10, 0);
        r.hand_out(10, 20);
        for o in 10..15 {
            r.increment(o);
        }
        assert_eq!(
            r.range_counts(0, 1_000_000_000_000),
            RangeCounts { run: 15, never_run: 1_000_000_000_000 - 15 }
        );
        assert_eq!(r.range_counts(12, 18), RangeCounts { run: 3, never_run: 3 });
        assert_eq!(
            r.range_counts(3, 4),
            RangeCounts { run: 1, never_run: 0 },
            "below the log start: done once"
        );
    }
}
