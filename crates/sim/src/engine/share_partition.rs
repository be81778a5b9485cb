//! A share-partition on the broker (model.md §11; Kafka's `SharePartition`, KIP-932): the
//! records in flight between the share-partition start offset and the end of what was ever
//! acquired, each available, acquired by a member under a lock, or ended (acknowledged,
//! rejected or archived); delivery counts; and the crash counts of §11, kept as records
//! change state. Memory grows with the in-flight window, which
//! `group.share.partition.max.record.locks` caps.

use super::cx::Cx;
use super::queue::{Event, Phase};
use crate::output::{MarkKind, MemberId, Output, PartitionId, Sink};
use crate::scenario::Scenario;
use std::collections::{BTreeMap, VecDeque};

/// How a member acknowledges a record (`AcknowledgeType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AckKind {
    /// Processed: the record ends.
    Accept,
    /// Offer it again (or archive it at the delivery count limit).
    Release,
    /// Unprocessable: the record ends, never delivered again.
    Reject,
    /// Still being processed: the acquisition lock starts over (KIP-1222, Kafka 4.2+).
    Renew,
}

/// An acknowledgement of one record: it names the offset, not a delivery (`ShareAcknowledge`;
/// the broker applies it to the member's hold, [`SharePartition::acknowledge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ack {
    pub(crate) partition: PartitionId,
    pub(crate) offset: u64,
    pub(crate) kind: AckKind,
}

/// Acknowledgements in flight, by request (they land one `commit_latency_ms` after they
/// are sent, with a poll or a commit).
#[derive(Clone, Default)]
pub(crate) struct AckRequests {
    /// (sender, its share session when it sent, the acknowledgements).
    pub(super) list: Vec<(MemberId, u32, Vec<Ack>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Available,
    /// Locked to `member` for its `delivery`-th delivery.
    Acquired {
        member: MemberId,
    },
    Ended,
}

#[derive(Clone, Copy, Debug)]
struct InFlight {
    state: State,
    deliveries: u32,
    /// A run of the record has completed.
    has_run: bool,
    /// While acquired: when its lock expires (set by [`SharePartition::lock`]; a RENEW moves it
    /// on).
    lock_until_us: u64,
}

/// One share-partition.
#[derive(Clone)]
pub(crate) struct SharePartition {
    partition: PartitionId,
    /// The share-partition start offset: every record below it has ended.
    start: u64,
    /// Records `start..start + window.len()`; above that, records never acquired.
    window: VecDeque<InFlight>,
    /// Records whose run completed and which have not ended (§11: a crash delivers them again).
    duplicated: u32,
    /// Records that ended without a completed run.
    lost: u32,
    /// Which those are: a run completing later (a member finishing a record it held when
    /// it was acknowledged) takes it off. A map (offset to itself), not a `BTreeSet`: the
    /// pages then link one copy of the B-tree's code, the frontier's `BTreeMap<u64, u64>`,
    /// not a second one for the set.
    ended_unrun: BTreeMap<u64, u64>,
}

impl SharePartition {
    /// `partition`'s share-partition, starting at `start` (`share.auto.offset.reset`).
    pub(crate) fn new(partition: PartitionId, start: u64) -> Self {
        SharePartition {
            partition,
            start,
            window: VecDeque::new(),
            duplicated: 0,
            lost: 0,
            ended_unrun: BTreeMap::new(),
        }
    }

    /// Reports the start offset and the window's end (at t = 0).
    pub(crate) fn report<S: Sink>(&self, cx: &mut Cx<S>) {
        let partition = self.partition;
        cx.emit(Output::Committed { partition, offset: Some(self.start) });
        cx.emit(Output::Position { partition, position: Some(self.end()) });
    }

    fn end(&self) -> u64 {
        self.start + self.window.len() as u64
    }

    /// Whether a poll could acquire a record at `now_us`.
    pub(crate) fn has_available(&self, s: &Scenario, now_us: u64) -> bool {
        self.window.iter().any(|r| r.state == State::Available)
            || (self.end() < s.log_end_at(now_us)
                && (self.window.len() as u32) < s.share_partition_max_record_locks)
    }

    /// `ShareFetch`: `member` acquires up to `max` available records, lowest offsets first,
    /// extending the window up to the log end and the lock cap; each is locked for
    /// `group.share.record.lock.duration.ms` and counts a delivery. Returns the offsets
    /// acquired.
    pub(crate) fn acquire<S: Sink>(&mut self, cx: &mut Cx<S>, member: MemberId, max: u32) -> Vec<u64> {
        let s = cx.s;
        let log_end = s.log_end_at(cx.now_us);
        let mut taken = Vec::new();
        // model.md §11.2, Kafka's delivery throttling (`SharePartition.acquire`,
        // `shouldThrottleRecordsDelivery`): a record already delivered at least
        // max(2, ⌈limit / 2⌉) times is delivered alone — a poll that has taken something stops
        // before it, and one that takes it takes nothing else.
        let throttle = s.share_delivery_count_limit.div_ceil(2).max(2);
        let mut throttled = false;
        for (i, record) in self.window.iter_mut().enumerate() {
            if taken.len() as u32 == max {
                break;
            }
            if record.state == State::Available {
                if record.deliveries >= throttle {
                    throttled = true;
                    if !taken.is_empty() {
                        break;
                    }
                }
                record.state = State::Acquired { member };
                record.deliveries += 1;
                taken.push((self.start + i as u64, record.deliveries));
                if throttled {
                    break;
                }
            }
        }
        while !throttled
            && (taken.len() as u32) < max
            && self.end() < log_end
            && (self.window.len() as u32) < s.share_partition_max_record_locks
        {
            let offset = self.end();
            self.window.push_back(InFlight {
                state: State::Acquired { member },
                deliveries: 1,
                has_run: false,
                lock_until_us: 0,
            });
            taken.push((offset, 1));
        }
        for &(offset, delivery) in &taken {
            cx.emit(Output::Mark {
                member,
                partition: self.partition,
                kind: MarkKind::ShareAcquired { offset, delivery },
            });
            self.lock(cx, member, offset, delivery);
        }
        if !taken.is_empty() {
            cx.emit(Output::Position { partition: self.partition, position: Some(self.end()) });
        }
        taken.into_iter().map(|(offset, _)| offset).collect()
    }

    /// `member`'s lock on `delivery` of `offset` runs `group.share.record.lock.duration.ms` from
    /// now (an acquisition, or a RENEW starting it over): its expiry is scheduled.
    fn lock<S: Sink>(&mut self, cx: &mut Cx<S>, member: MemberId, offset: u64, delivery: u32) {
        let lock_until = cx.now_us + cx.s.share_record_lock_duration_us;
        if let Some(record) = self.get(offset) {
            record.lock_until_us = lock_until;
        }
        let event = Event::LockExpires { partition: self.partition, offset, delivery };
        cx.schedule(lock_until, Phase::Lifecycle, member, event);
    }

    fn get(&mut self, offset: u64) -> Option<&mut InFlight> {
        let i = offset.checked_sub(self.start)?;
        self.window.get_mut(i as usize)
    }

    /// A run of `offset` completed.
    pub(crate) fn run_completed<S: Sink>(&mut self, cx: &mut Cx<S>, offset: u64) {
        if self.ended_unrun.remove(&offset).is_some() {
            self.lost -= 1;
            self.report_counts(cx);
        }
        let Some(record) = self.get(offset) else { return };
        if record.state != State::Ended && !record.has_run {
            record.has_run = true;
            self.duplicated += 1;
            self.report_counts(cx);
        } else {
            record.has_run = true;
        }
    }

    /// An acknowledgement from `member` of `offset` lands. It names no delivery: the broker
    /// applies it when `member` holds the record, whichever delivery that is
    /// (`SharePartition.acknowledge` checks the state and the member id; model.md §11.3), and
    /// returns false — refused — when it does not (its lock expired, the member left).
    pub(crate) fn acknowledge<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        member: MemberId,
        offset: u64,
        kind: AckKind,
    ) -> bool {
        let Some(delivery) =
            self.get(offset).filter(|r| r.state == State::Acquired { member }).map(|r| r.deliveries)
        else {
            return false;
        };
        let mark = match kind {
            AckKind::Accept => MarkKind::ShareAccepted { offset },
            AckKind::Reject => MarkKind::ShareRejected { offset },
            AckKind::Release => MarkKind::ShareReleased { offset },
            AckKind::Renew => MarkKind::ShareRenewed { offset },
        };
        cx.emit(Output::Mark { member, partition: self.partition, kind: mark });
        match kind {
            AckKind::Release => self.release(cx, member, offset),
            AckKind::Accept | AckKind::Reject => self.end_record(cx, offset),
            AckKind::Renew => self.lock(cx, member, offset, delivery),
        }
        true
    }

    /// The lock of `delivery` of `offset` expired: if still acquired by it and not renewed
    /// since, it is released.
    pub(crate) fn lock_expired<S: Sink>(&mut self, cx: &mut Cx<S>, offset: u64, delivery: u32) {
        let Some(record) = self.get(offset) else { return };
        let due = cx.now_us >= record.lock_until_us;
        if let (State::Acquired { member }, true) = (record.state, record.deliveries == delivery && due) {
            cx.emit(Output::Mark {
                member,
                partition: self.partition,
                kind: MarkKind::ShareLockExpired { offset },
            });
            self.release(cx, member, offset);
        }
    }

    /// `member` left (a crash closes its share session; a `close()` ends it): every record
    /// it holds is released at once.
    pub(crate) fn member_left<S: Sink>(&mut self, cx: &mut Cx<S>, member: MemberId) {
        let held: Vec<u64> = (0..self.window.len())
            .filter(|&i| self.window[i].state == State::Acquired { member })
            .map(|i| self.start + i as u64)
            .collect();
        for offset in held {
            cx.emit(Output::Mark {
                member,
                partition: self.partition,
                kind: MarkKind::ShareReleased { offset },
            });
            self.release(cx, member, offset);
        }
    }

    /// Offers `offset` again — or archives it at `group.share.delivery.count.limit`.
    fn release<S: Sink>(&mut self, cx: &mut Cx<S>, member: MemberId, offset: u64) {
        let limit = cx.s.share_delivery_count_limit;
        let record = self.get(offset).expect("a held record is in the window");
        if record.deliveries >= limit {
            cx.emit(Output::Mark {
                member,
                partition: self.partition,
                kind: MarkKind::ShareArchived { offset },
            });
            self.end_record(cx, offset);
        } else {
            record.state = State::Available;
        }
    }

    /// `offset` ends (accepted, rejected, archived): the counts, and the start offset moves
    /// past every ended record at the front.
    fn end_record<S: Sink>(&mut self, cx: &mut Cx<S>, offset: u64) {
        let record = self.get(offset).expect("an ending record is in the window");
        record.state = State::Ended;
        if record.has_run {
            self.duplicated -= 1;
        } else {
            self.lost += 1;
            self.ended_unrun.insert(offset, offset);
        }
        self.report_counts(cx);
        let before = self.start;
        while self.window.front().is_some_and(|r| r.state == State::Ended) {
            self.window.pop_front();
            self.start += 1;
        }
        if self.start != before {
            cx.emit(Output::Committed { partition: self.partition, offset: Some(self.start) });
        }
    }

    fn report_counts<S: Sink>(&self, cx: &mut Cx<S>) {
        cx.emit(Output::ShareCounts {
            partition: self.partition,
            duplicated: self.duplicated,
            lost: self.lost,
        });
    }

    /// The window agrees with its counts (debug builds only).
    #[cfg(debug_assertions)]
    pub(crate) fn check_invariants(&self) {
        let duplicated = self.window.iter().filter(|r| r.has_run && r.state != State::Ended).count() as u32;
        debug_assert_eq!(duplicated, self.duplicated, "records run and not ended");
        debug_assert!(
            self.window.front().is_none_or(|r| r.state != State::Ended),
            "the start offset moved on"
        );
    }
}
