//! The timed event queue: one key orders every event — time, then phase (model.md §8.1 and
//! §10.4), then member (polls and heartbeats of one instant run in member order), then
//! scheduling order — packed into a `u128` so the heap compares one integer.
//!
//! Each member's application loop is one thread, so it has at most one pending event of
//! its own; that event is kept in a slot beside the heap (the common case — a record
//! done, then the next poll — never touches the heap).

use crate::output::{event_key, CommitId, EventKey, MemberId, PartitionId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An event in the queue. Events of a member's earlier life (`incarnation`) are ignored.
/// Without the `group` feature the group's events are never scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "group"), allow(dead_code))]
pub(crate) enum Event {
    /// A record's processing ends. `worker` is the pool thread; `None`: the loop ran it
    /// itself and resumes.
    RecordDone {
        member: MemberId,
        partition: PartitionId,
        offset: u64,
        worker: Option<u32>,
        incarnation: u32,
    },
    /// The response to commit request `commit` arrives (the commit lands, or fails).
    CommitResponse { commit: CommitId, fails: bool },
    /// A failed synchronous commit is sent again after its backoff.
    CommitRetry { commit: CommitId },
    /// The member's loop resumes (if still in the same life).
    LoopWake { member: MemberId, incarnation: u32 },
    /// model.md §8.2: the member's background auto-commit timer fires.
    BackgroundAutoCommit { member: MemberId },
    /// model.md §8.7: the member has not polled for `max.poll.interval.ms`, unless it polled since.
    PollIntervalCheck { member: MemberId },
    /// model.md §8.6: the application calls `close()`.
    Close { member: MemberId },
    /// model.md §8.9: the consumer starts again after its downtime.
    Restart { member: MemberId },
    /// model.md §8.9: the group has been empty for `offsets.retention.minutes` since
    /// `empty_since_us`: its committed offsets are deleted (unless a member came back).
    OffsetsExpire { empty_since_us: u64 },
    /// model.md §10.4: a member's heartbeat (`seq` tells schedules apart).
    Heartbeat { member: MemberId, seq: u32 },
    /// model.md §10.3: the coordinator checks a member's session.
    SessionCheck { member: MemberId, incarnation: u32 },
    /// model.md §10.5: the rebalance timeout of join round `round`.
    RebalanceTimeout { round: u32 },
    /// KIP-134: the initial rebalance delay of round `round` ended.
    InitialDelayOver { round: u32 },
    /// A member's JoinGroup lands (`first`: a new dynamic member's, answered MEMBER_ID_REQUIRED).
    JoinLands { member: MemberId, process: u32, first: bool },
    /// A member's SyncGroup lands.
    SyncLands { member: MemberId, process: u32 },
    /// librdkafka: a rejoin held back by its one JoinGroup a second goes out (model.md §10.5;
    /// `seq` as the heartbeats').
    RdkJoin { member: MemberId, seq: u32 },
    /// Event `index` of `group_events` reaches `member` (a deploy reaches each in turn).
    Group { index: u16, member: MemberId },
    /// A member's hang ends.
    HangEnds { member: MemberId },
    /// model.md §11: a share consumer's acknowledgement request `request` lands.
    AcksLand { member: MemberId, request: u32 },
    /// model.md §11: the lock of the `delivery`-th delivery of `offset` of `partition` expires.
    LockExpires { partition: PartitionId, offset: u64, delivery: u32 },
    /// model.md §11.3: a share consumer's poll loop renews the locks of its `batch`-th batch
    /// (a timer: [`Phase::Background`], beside the loop's own pending event).
    ShareRenew { member: MemberId, batch: u32 },
}

/// Order of simultaneous events: lower runs first (model.md §8.1, §10.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// `close()`, a restart, the coordinator's own events: they see only what happened
    /// before this instant.
    Lifecycle = 0,
    /// A pool record completes, a commit response arrives (in send order).
    Completion = 1,
    /// The application's loop, in member order: a record it ran completes, then it may `poll()`.
    Loop = 2,
    /// Background timers in member order: the auto-commit timer of §8.2, the poll-interval check of §8.7.
    Background = 3,
}

/// A scheduled event and its ordering key.
#[derive(Clone, Copy, Debug)]
struct Queued {
    key: u128,
    event: Event,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// Bits of the key below the member: the scheduling sequence number.
const SEQ_BITS: u32 = 40;

/// The queue: a heap of events plus one slot per member for its loop's own next event.
#[derive(Clone)]
pub(crate) struct EventQueue {
    heap: BinaryHeap<Reverse<Queued>>,
    /// A tournament over the members' pending loop events' keys (`u128::MAX`: none): the
    /// leaves are `loop_keys[width + member]`, each inner node `i` holds the smaller of
    /// `2i` and `2i + 1`, so the earliest is `loop_keys[1]` and a change costs log₂ of the
    /// members (256 members: 8 steps, where a scan compared 256 keys per event).
    loop_keys: Vec<u128>,
    /// Leaves of the tournament: the member count rounded up to a power of two.
    width: usize,
    loop_events: Vec<Event>,
    seq: u64,
}

impl EventQueue {
    pub(crate) fn new(members: usize) -> Self {
        let width = members.max(1).next_power_of_two();
        EventQueue {
            heap: BinaryHeap::new(),
            loop_keys: vec![u128::MAX; 2 * width],
            width,
            loop_events: vec![Event::OffsetsExpire { empty_since_us: 0 }; members],
            seq: 0,
        }
    }

    /// Sets member `slot`'s loop key and replays its matches up the tree, as far as a
    /// winner changes.
    #[inline]
    fn set_loop_key(&mut self, slot: usize, key: u128) {
        let keys = &mut self.loop_keys[..];
        let mut i = self.width + slot;
        keys[i] = key;
        while i > 1 {
            let winner = keys[i].min(keys[i ^ 1]);
            i /= 2;
            if keys[i] == winner {
                break; // the matches above see the same winner
            }
            keys[i] = winner;
        }
    }

    /// Schedules `event`. `member` orders events of one phase and instant (member order);
    /// a [`Phase::Loop`] event replaces the member's pending loop event, which must belong
    /// to an earlier life of the loop (the caller checks).
    #[inline]
    pub(crate) fn schedule(&mut self, at_us: u64, phase: Phase, member: u16, event: Event) {
        self.seq += 1;
        debug_assert!(self.seq < 1 << SEQ_BITS, "the event bound keeps seq far below 2^40");
        let key =
            (at_us as u128) << 64 | (phase as u128) << 56 | (member as u128) << SEQ_BITS | self.seq as u128;
        if phase == Phase::Loop {
            self.set_loop_key(member as usize, key);
            self.loop_events[member as usize] = event;
        } else {
            self.heap.push(Reverse(Queued { key, event }));
        }
    }

    /// The member's pending loop event, if any (for the invariants of debug builds).
    #[cfg(debug_assertions)]
    pub(crate) fn loop_event(&self, member: u16) -> Option<Event> {
        (self.loop_keys[self.width + member as usize] != u128::MAX).then(|| self.loop_events[member as usize])
    }

    /// The member's pending loop event and its instant, if any.
    #[inline]
    pub(crate) fn loop_pending(&self, member: u16) -> Option<(u64, Event)> {
        let key = self.loop_keys[self.width + member as usize];
        (key != u128::MAX).then(|| ((key >> 64) as u64, self.loop_events[member as usize]))
    }

    /// Removes and returns the next event, its instant and its key among the events of the
    /// instant ([`EventKey`]) if it comes before `stop_before_us`.
    #[inline(always)]
    pub(crate) fn pop_before(&mut self, stop_before_us: u64) -> Option<(u64, Event, EventKey)> {
        let heap_key = self.heap.peek().map_or(u128::MAX, |Reverse(q)| q.key);
        // Keys are unique (the sequence number), so one of the two is strictly smaller.
        let loop_key = self.loop_keys[1];
        let best = heap_key.min(loop_key);
        if best >= (stop_before_us as u128) << 64 {
            return None;
        }
        let at_us = (best >> 64) as u64;
        if loop_key < heap_key {
            // A loop event's key names its member, whose leaf holds it.
            let slot = (loop_key >> SEQ_BITS) as u16 as usize;
            debug_assert_eq!(self.loop_keys[self.width + slot], loop_key);
            self.set_loop_key(slot, u128::MAX);
            return Some((at_us, self.loop_events[slot], event_key(Phase::Loop as u8, slot as MemberId)));
        }
        let key = event_key((best >> 56) as u8, (best >> SEQ_BITS) as u16);
        self.heap.pop().map(|Reverse(q)| (at_us, q.event, key))
    }

    /// The instant of the next event, if any.
    #[cfg(feature = "group")]
    pub(crate) fn next_at(&self) -> Option<u64> {
        let key = self.heap.peek().map_or(u128::MAX, |Reverse(q)| q.key).min(self.loop_keys[1]);
        (key != u128::MAX).then_some((key >> 64) as u64)
    }

    /// Moves every queued event for which `at_us` gives an instant to that instant, keeping
    /// its phase, member and sequence number: the queue is then the one a run that had
    /// scheduled it there from the start would hold (the sweep, model.md §10.7). Heap
    /// events only (a loop's own event is never moved).
    #[cfg(feature = "group")]
    pub(crate) fn retime(&mut self, at_us: impl Fn(&Event) -> Option<u64>) {
        let mut events = std::mem::take(&mut self.heap).into_vec();
        for Reverse(q) in &mut events {
            if let Some(at) = at_us(&q.event) {
                q.key = (at as u128) << 64 | (q.key & u128::from(u64::MAX));
            }
        }
        self.heap = BinaryHeap::from(events);
    }

    /// Drops every event (a scripted crash: nothing further happens).
    pub(crate) fn clear(&mut self) {
        self.heap.clear();
        self.loop_keys.fill(u128::MAX);
    }
}
