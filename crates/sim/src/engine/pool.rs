//! The worker pool (model.md §4, §12): which record each thread runs next. The member
//! drives it — hands batches off, and tells it when a thread's record is done — and
//! schedules the records it hands back.
//!
//! * `ordering: batch` (§4): a free thread takes the oldest waiting batch and runs its
//!   records in order; two batches of one partition may run at once.
//! * `partition`, `key`, `unordered` (§12, the Confluent Parallel Consumer's
//!   `ProcessingOrder`): threads take one record at a time. A *lane* is what must run in
//!   order — a partition, or a key of a partition (records are keyed offset mod `keys`) —
//!   and a free thread takes the oldest waiting record whose lane has none running
//!   (`unordered`: the oldest waiting record). Memory grows with the batches in flight:
//!   a lane's waiting records are kept as strided ranges, never one by one.

use crate::output::PartitionId;
use crate::scenario::{Ordering, Scenario};
use std::collections::VecDeque;

/// A record a thread runs, with what its completion reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Work {
    pub(super) partition: PartitionId,
    pub(super) offset: u64,
    /// The partition's handover count when the record was polled (model.md §10.7).
    pub(super) handed_over: u32,
    /// Failed attempts so far (model.md §12, `on_error: retry`).
    pub(super) failed_attempts: u32,
    /// The hand-off the record came in.
    batch: u32,
}

/// Records `next, next + stride, …` below `end` of one hand-off.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    partition: PartitionId,
    next: u64,
    end: u64,
    stride: u64,
    handed_over: u32,
    batch: u32,
}

impl Waiting {
    /// Takes the first record; returns it and whether any are left.
    fn take(&mut self) -> (Work, bool) {
        let work = Work {
            partition: self.partition,
            offset: self.next,
            handed_over: self.handed_over,
            failed_attempts: 0,
            batch: self.batch,
        };
        self.next += self.stride;
        (work, self.next < self.end)
    }
}

/// A partition, or a key of a partition: records that run one at a time, in order.
type LaneId = (PartitionId, u64);

#[derive(Clone, Default)]
struct Lane {
    waiting: VecDeque<Waiting>,
    running: bool,
}

/// One thread: the record it runs, and for `ordering: batch` the rest of its batch.
#[derive(Clone, Copy, Default)]
struct Thread {
    work: Option<Work>,
    rest: Option<Waiting>,
}

/// The pool of one member.
#[derive(Clone)]
pub(super) struct Pool {
    ordering: Ordering,
    keys: u64,
    threads: Vec<Thread>,
    /// `batch`, `unordered`: waiting hand-offs, oldest first.
    queue: VecDeque<Waiting>,
    /// `partition`, `key`: the lanes with records waiting or running, sorted by their id (a
    /// `Vec` rather than a `BTreeMap`, for its code's size; see [`Pool::lane`]).
    lanes: Vec<(LaneId, Lane)>,
    /// Lanes with records waiting and none running, by their oldest record: sorted, the
    /// first at the end (a `Vec` rather than a `BTreeSet`: the same order in a fraction of
    /// the code; see [`make_ready`]).
    ready: Vec<(u32, u64, LaneId)>,
    /// Hand-offs not yet fully done: (hand-off number, records not done).
    in_flight: VecDeque<(u32, u64)>,
    next_batch: u32,
}

/// Puts a lane into `ready` (sorted from the last to the first, so the first is popped off
/// the end) at its place, unless it is there: what `BTreeSet::insert` did.
fn make_ready(ready: &mut Vec<(u32, u64, LaneId)>, lane: (u32, u64, LaneId)) {
    if let Err(i) = ready.binary_search_by(|x| lane.cmp(x)) {
        ready.insert(i, lane);
    }
}

impl Pool {
    /// The pool of `scenario` (no threads without `worker_pool`).
    pub(super) fn new(s: &Scenario) -> Self {
        let threads = if s.worker_pool { s.pool_threads as usize } else { 0 };
        Pool {
            ordering: s.ordering,
            keys: s.keys as u64,
            threads: vec![Thread::default(); threads],
            queue: VecDeque::new(),
            lanes: Vec::new(),
            ready: Vec::new(),
            in_flight: VecDeque::new(),
            next_batch: 0,
        }
    }

    /// Hand-offs submitted and not yet fully done.
    pub(super) fn in_flight(&self) -> u32 {
        self.in_flight.len() as u32
    }

    /// The number of threads.
    pub(super) fn threads(&self) -> u32 {
        self.threads.len() as u32
    }

    /// The record `thread` runs.
    pub(super) fn work(&self, thread: u32) -> Option<Work> {
        self.threads[thread as usize].work
    }

    /// `thread`'s record failed once more; returns the failed attempts so far.
    pub(super) fn failed_attempt(&mut self, thread: u32) -> u32 {
        let work = self.threads[thread as usize].work.as_mut().expect("a failure on a busy thread");
        work.failed_attempts += 1;
        work.failed_attempts
    }

    /// Hands off records `from..to` of `partition` (polled at handover count `handed_over`).
    pub(super) fn submit(&mut self, partition: PartitionId, from: u64, to: u64, handed_over: u32) {
        let batch = self.next_batch;
        self.next_batch = self.next_batch.wrapping_add(1);
        self.in_flight.push_back((batch, to - from));
        let waiting = Waiting { partition, next: from, end: to, stride: 1, handed_over, batch };
        match self.ordering {
            Ordering::Batch | Ordering::Unordered => self.queue.push_back(waiting),
            Ordering::Partition => self.wait_in_lane((partition, 0), waiting),
            Ordering::Key => {
                for first in from..to.min(from + self.keys) {
                    let lane = (partition, first % self.keys);
                    self.wait_in_lane(lane, Waiting { next: first, stride: self.keys, ..waiting });
                }
            }
        }
    }

    /// The place of lane `id` in `lanes`, which has it.
    fn lane(&self, id: LaneId) -> usize {
        self.lanes.binary_search_by_key(&id, |l| l.0).expect("the lane exists")
    }

    fn wait_in_lane(&mut self, id: LaneId, waiting: Waiting) {
        let i = self.lanes.binary_search_by_key(&id, |l| l.0).unwrap_or_else(|i| {
            self.lanes.insert(i, (id, Lane::default()));
            i
        });
        let lane = &mut self.lanes[i].1;
        if lane.waiting.is_empty() && !lane.running {
            make_ready(&mut self.ready, (waiting.batch, waiting.next, id));
        }
        lane.waiting.push_back(waiting);
    }

    /// Idle threads, lowest first.
    #[cfg(test)]
    fn idle_threads(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.threads.len() as u32).filter(|&t| self.threads[t as usize].work.is_none())
    }

    /// An idle `thread` takes its next record, if any waits.
    pub(super) fn take(&mut self, thread: u32) -> Option<Work> {
        let t = thread as usize;
        debug_assert!(self.threads[t].work.is_none(), "a busy thread takes no record");
        let work = match self.ordering {
            Ordering::Batch => {
                let mut rest = self.threads[t].rest.take().or_else(|| self.queue.pop_front())?;
                let (work, more) = rest.take();
                self.threads[t].rest = more.then_some(rest);
                work
            }
            Ordering::Unordered => {
                let front = self.queue.front_mut()?;
                let (work, more) = front.take();
                if !more {
                    self.queue.pop_front();
                }
                work
            }
            Ordering::Partition | Ordering::Key => {
                let (_, _, id) = self.ready.pop()?;
                let i = self.lane(id); // a ready lane exists
                let lane = &mut self.lanes[i].1;
                let front = lane.waiting.front_mut().expect("a ready lane has records waiting");
                let (work, more) = front.take();
                if !more {
                    lane.waiting.pop_front();
                }
                lane.running = true;
                work
            }
        };
        self.threads[t].work = Some(work);
        Some(work)
    }

    /// `thread`'s record is done (completed or given up). Returns whether its hand-off is
    /// now done; the thread is idle.
    pub(super) fn finish(&mut self, thread: u32) -> bool {
        let work = self.threads[thread as usize].work.take().expect("a record finished on a busy thread");
        if matches!(self.ordering, Ordering::Partition | Ordering::Key) {
            let id =
                (work.partition, if self.ordering == Ordering::Key { work.offset % self.keys } else { 0 });
            let i = self.lane(id); // a running lane exists
            let lane = &mut self.lanes[i].1;
            lane.running = false;
            match lane.waiting.front() {
                Some(next) => {
                    make_ready(&mut self.ready, (next.batch, next.next, id));
                }
                None => {
                    self.lanes.remove(i);
                }
            }
        }
        let i = self.in_flight.iter().position(|&(b, _)| b == work.batch).expect("its hand-off is in flight");
        self.in_flight[i].1 -= 1;
        if self.in_flight[i].1 == 0 {
            self.in_flight.remove(i);
            return true;
        }
        false
    }

    /// Nothing queued or running goes on (the process died, or `close()` without draining).
    pub(super) fn clear(&mut self) {
        self.threads.iter_mut().for_each(|t| *t = Thread::default());
        self.queue.clear();
        self.lanes.clear();
        self.ready.clear();
        self.in_flight.clear();
    }

    /// The pool's bookkeeping agrees with itself (debug builds only).
    #[cfg(debug_assertions)]
    pub(super) fn check_invariants(&self) {
        let running = self.threads.iter().filter(|t| t.work.is_some()).count();
        let running_lanes = self.lanes.iter().filter(|l| l.1.running).count();
        if matches!(self.ordering, Ordering::Partition | Ordering::Key) {
            debug_assert_eq!(running, running_lanes, "one running record per running lane");
        }
        debug_assert!(self.in_flight.len() >= self.queue.len(), "every waiting hand-off is in flight");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(ordering: Ordering, threads: u32, keys: u32) -> Pool {
        let s = Scenario { worker_pool: true, pool_threads: threads, ordering, keys, ..Scenario::default() };
        Pool::new(&s)
    }

    /// Runs every record to the end, each thread finishing in turn; returns (thread, offset)
    /// in start order.
    fn drain(p: &mut Pool) -> Vec<(u32, u64)> {
        let mut started = Vec::new();
        loop {
            let idle: Vec<u32> = p.idle_threads().collect();
            for t in idle {
                if let Some(w) = p.take(t) {
                    started.push((t, w.offset));
                }
            }
            let Some(busy) = (0..p.threads()).find(|&t| p.work(t).is_some()) else { break };
            p.finish(busy);
        }
        started
    }

    #[test]
    fn batch_ordering_keeps_a_batch_on_one_thread() {
        let mut p = pool(Ordering::Batch, 2, 16);
        p.submit(0, 0, 3, 0);
        p.submit(0, 3, 5, 0);
        let started = drain(&mut p);
        assert_eq!(started, [(0, 0), (1, 3), (0, 1), (0, 2), (1, 4)]);
        assert_eq!(p.in_flight(), 0);
    }

    #[test]
    fn partition_ordering_runs_one_record_of_a_partition_at_a_time() {
        let mut p = pool(Ordering::Partition, 3, 16);
        p.submit(0, 0, 2, 0);
        p.submit(1, 10, 12, 0);
        assert_eq!(p.take(0).map(|w| w.offset), Some(0));
        assert_eq!(p.take(1).map(|w| w.offset), Some(10));
        assert_eq!(p.take(2), None, "both partitions are running");
        assert!(!p.finish(0));
        assert_eq!(p.take(2).map(|w| w.offset), Some(1));
    }

    #[test]
    fn key_ordering_runs_keys_in_parallel_and_each_key_in_order() {
        let mut p = pool(Ordering::Key, 4, 2);
        p.submit(0, 0, 6, 0);
        let started = drain(&mut p);
        // Keys 0 (0, 2, 4) and 1 (1, 3, 5): two at a time, each in offset order.
        assert_eq!(started.iter().map(|&(_, o)| o).collect::<Vec<_>>(), [0, 1, 2, 4, 3, 5]);
        assert!(p.lanes.is_empty() && p.ready.is_empty());
    }

    #[test]
    fn unordered_uses_every_thread() {
        let mut p = pool(Ordering::Unordered, 3, 16);
        p.submit(0, 0, 5, 0);
        let taken: Vec<_> = (0..3).filter_map(|t| p.take(t)).map(|w| w.offset).collect();
        assert_eq!(taken, [0, 1, 2]);
        assert!(!p.finish(1));
        assert_eq!(p.take(1).map(|w| w.offset), Some(3));
    }

    #[test]
    fn a_hand_off_is_done_when_its_last_record_is() {
        let mut p = pool(Ordering::Unordered, 2, 16);
        p.submit(0, 0, 2, 0);
        p.take(0);
        p.take(1);
        assert!(!p.finish(1));
        assert!(p.finish(0));
        assert_eq!(p.in_flight(), 0);
    }
}
