//! A share-partition on the broker (model.md §11; Kafka's `SharePartition`, KIP-932): the
//! records in flight between the share-partition start offset and the end of what was ever
//! acquired, each available, acquired by a member under a lock, or ended (acknowledged,
//! rejected or archived); delivery counts; and the crash counts of §11, kept as records
//! change state. Memory grows with the in-flight window, which
//! `group.share.partition.max.record.locks` caps.

use super::cx::Cx;
use super::queue::{Event, Phase};
use crate::output::{MarkKind, MemberId, Output, PartitionId, Sink};
use crate::scenario::{Scenario, ShareAcquireMode};
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
    /// The broker's in-flight batch holding the record, `first..end` (model.md §11.2): what one
    /// fetch's new records were cut into (`SharePartition.createBatches`); throttling works on it.
    batch: (u64, u64),
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

    /// `ShareFetch` (model.md §11.2; Kafka 4.3.1 `SharePartition.acquire`): `member` acquires
    /// available records lowest offsets first, in-flight batch by in-flight batch, then new
    /// records up to the log end and the lock cap; `max` (`max.poll.records`) bounds a
    /// `record_limit` fetch, while `batch_optimized` takes whole in-flight and producer
    /// batches past it. Each record taken is locked for `group.share.record.lock.duration.ms`
    /// and counts a delivery. Returns the offsets acquired.
    pub(crate) fn acquire<S: Sink>(&mut self, cx: &mut Cx<S>, member: MemberId, max: u32) -> Vec<u64> {
        let s = cx.s;
        let log_end = s.log_end_at(cx.now_us);
        let record_limit = s.share_acquire_mode == ShareAcquireMode::RecordLimit;
        // `lastOffsetAndMaxRecordsToAcquire`: min(max, cap − in flight) while the window has
        // room; a full window still gives back up to `max` records offered again.
        let cap = u64::from(s.share_partition_max_record_locks);
        let room = cap.saturating_sub(self.window.len() as u64);
        let max = if room > 0 { u64::from(max).min(room) } else { u64::from(max) };
        // The log read it acquires from (model.md §11.2): from the first available offset.
        let from = self
            .window
            .iter()
            .position(|r| r.state == State::Available)
            .map_or(self.end(), |i| self.start + i as u64);
        let read_end = self.read_end(s, from, log_end, max);
        let mut taken: Vec<(u64, u32)> = Vec::new();
        // Delivery throttling (`shouldThrottleRecordsDelivery`, Kafka 4.2 and later): an
        // in-flight batch with an available record delivered at least max(2, ⌈limit / 2⌉)
        // times is acquired alone (a fetch that has taken something stops before it), and only
        // partly (`acquireSubsetBatchRecords`).
        let throttle = s.share_delivery_count_limit.div_ceil(2).max(2);
        let limit = s.share_delivery_count_limit;
        let mut throttled = false;
        let start = self.start;
        let mut i = 0;
        let read_in_window = (read_end.saturating_sub(start) as usize).min(self.window.len());
        while i < read_in_window && (taken.len() as u64) < max {
            let (first, end) = self.window[i].batch;
            let last = ((end.max(start + i as u64 + 1) - start) as usize).min(read_in_window);
            let offset = start + i as u64;
            if self.window.range(i..last).any(|r| r.state == State::Available && r.deliveries >= throttle) {
                if !taken.is_empty() {
                    throttled = true;
                    break;
                }
                let cap = if record_limit { max } else { u64::MAX };
                let batch = self.window.range_mut(i..last);
                if Self::acquire_throttled(
                    batch,
                    offset,
                    member,
                    end - first,
                    throttle,
                    limit,
                    cap,
                    &mut taken,
                ) {
                    throttled = true;
                    break;
                }
            } else {
                // Not throttled: every available record of the in-flight batch (a whole
                // available batch is acquired as one), `record_limit` stopping at `max`.
                for (j, record) in self.window.range_mut(i..last).enumerate() {
                    if record_limit && taken.len() as u64 == max {
                        break;
                    }
                    if record.state == State::Available {
                        record.state = State::Acquired { member };
                        record.deliveries += 1;
                        taken.push((offset + j as u64, record.deliveries));
                    }
                }
            }
            i = last;
        }
        // New records (`acquireNewBatchRecords`), none with a full window: `m` = min(max, cap −
        // in flight) − taken, up to the end of the producer batch holding the m-th
        // (`lastOffsetFromBatchWithRequestOffset`).
        let first_new = self.end();
        let m = if room > 0 { max.saturating_sub(taken.len() as u64) } else { 0 };
        let m = m.min(log_end.min(read_end).saturating_sub(first_new));
        if !throttled && m > 0 {
            let last_new = s.producer_batch_end(first_new + m - 1).min(log_end);
            // `createBatches`: `record_limit` makes one in-flight batch of it and acquires its
            // first m records (the rest stay available); `batch_optimized` acquires them all,
            // cut at producer batches once `max.poll.records` (the request's batch size) are in.
            let mut batch_first = first_new;
            let mut cuts = Vec::new();
            if !record_limit && last_new - first_new > max {
                let mut b = first_new;
                while b < last_new {
                    if b - batch_first >= max {
                        cuts.push((batch_first, b));
                        batch_first = b;
                    }
                    b = s.producer_batch_end(b);
                }
            }
            cuts.push((batch_first, last_new));
            for (first, end) in cuts {
                for offset in first..end {
                    let acquired = !record_limit || offset < first_new + m;
                    self.window.push_back(InFlight {
                        state: if acquired { State::Acquired { member } } else { State::Available },
                        deliveries: u32::from(acquired),
                        has_run: false,
                        batch: (first, end),
                        lock_until_us: 0,
                    });
                    if acquired {
                        taken.push((offset, 1));
                    }
                }
            }
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

    /// The end of the log read a `ShareFetch` makes from `from` (model.md §11.2; Apache Kafka
    /// 4.3.1 `DelayedShareFetch.readFromLog` → `ReplicaManager.readFromLog`): whole producer
    /// batches of `record_size_bytes` records while they fit this partition's equal share of
    /// `fetch.max.bytes` (`PartitionMaxBytesStrategy` UNIFORM), the first one whatever its size
    /// (`minOneMessage`), never past the log end. The read stops once it holds more than the
    /// fetch can acquire (the window from `from` and `max` new records), so its length follows
    /// the records acquired, not the budget.
    fn read_end(&self, s: &Scenario, from: u64, log_end: u64, max: u64) -> u64 {
        let budget = s.fetch_max_bytes / u64::from(s.partitions.max(1));
        let enough = self.end().max(from) + max;
        let mut end = s.producer_batch_end(from).min(log_end).max(from);
        let mut bytes = (end - from) * s.record_size_bytes;
        while end < log_end && end < enough {
            let next = s.producer_batch_end(end).min(log_end);
            let more = (next - end) * s.record_size_bytes;
            if bytes + more > budget {
                break;
            }
            bytes += more;
            end = next;
        }
        end
    }

    /// A throttled in-flight batch (model.md §11.2): `member` acquires from `batch` — the
    /// window's records of an in-flight batch of `size` records, from offset `first` on, one
    /// of them delivered at least `throttle` times — as Kafka 4.3.1's
    /// `SharePartition.acquireSubsetBatchRecords` does: its available records in order, up to
    /// max(1, size >> (d − throttle + 1)) of them, d the deliveries of the first that reached
    /// the threshold, and at most `cap` (`record_limit`'s `max.poll.records`); with a delivery
    /// count `limit` above 2, a record on its last delivery goes alone (the fetch stops before
    /// it once it has taken one, and after it). Returns whether it took anything.
    #[allow(clippy::too_many_arguments)]
    fn acquire_throttled<'a>(
        batch: impl Iterator<Item = &'a mut InFlight>,
        first: u64,
        member: MemberId,
        size: u64,
        throttle: u32,
        limit: u32,
        cap: u64,
        taken: &mut Vec<(u64, u32)>,
    ) -> bool {
        let mut halved: Option<u64> = None;
        let mut count = 0u64;
        for (j, record) in batch.enumerate() {
            if record.state != State::Available {
                continue;
            }
            let d = record.deliveries;
            if limit > 2 && d == limit - 1 && count > 0 {
                break;
            }
            if d >= throttle && halved.is_none() {
                halved = Some((size >> (d - throttle + 1).min(63)).max(1));
            }
            record.state = State::Acquired { member };
            record.deliveries += 1;
            taken.push((first + j as u64, record.deliveries));
            count += 1;
            if (limit > 2 && record.deliveries == limit) || count == cap || halved == Some(count) {
                break;
            }
        }
        count > 0
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
