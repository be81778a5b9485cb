//! What the members of a group share: the group coordinator (committed offsets per
//! partition, generation, offset expiry), the partitions (their durable frontier), the
//! commit requests with their fates, and the seeded per-record durations.
//!
//! Memory here grows with events, never with offset values: a partition remembers only the
//! completed offsets above its durable frontier.

use super::queue::Phase;
use super::{Cx, Event, Sink};
use crate::output::{CommitId, MemberId, Output, PartitionId};
use crate::scenario::{Jitter, OffsetReset, Scenario, US_PER_MS};
use crate::timeline::MarkKind;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use std::ops::Range;

/// Everything the members share.
pub(crate) struct World {
    pub(crate) coordinator: Coordinator,
    pub(crate) partitions: Vec<Partition>,
    pub(crate) commits: Commits,
    pub(crate) durations: Durations,
}

impl World {
    /// A group of `partitions` partitions at t = 0, committed offsets at the log start.
    pub(crate) fn new(s: &Scenario, partitions: usize) -> Self {
        World {
            coordinator: Coordinator {
                committed: vec![None; partitions],
                generation: 0,
                members: 0,
                empty_since_us: None,
            },
            partitions: (0..partitions)
                .map(|_| Partition { frontier: s.log_start_offset, above: BTreeSet::new() })
                .collect(),
            commits: Commits {
                list: Vec::new(),
                offsets: Vec::new(),
                requests_sent: 0,
                failure_rng: ChaCha8Rng::seed_from_u64(s.seed.wrapping_add(1)),
            },
            durations: Durations::new(s, partitions),
        }
    }

    /// Reports the initial lines: the committed offset (a script's new group has none,
    /// model.md §8.11; a steady loop's group starts at the log start, §1) and the durable
    /// frontier (offsets below the log start count as done).
    pub(crate) fn start<S: Sink>(&mut self, cx: &mut Cx<S>) {
        let committed = if cx.s.script.is_some() { None } else { Some(cx.s.log_start_offset) };
        for p in 0..self.partitions.len() {
            let partition = p as PartitionId;
            self.coordinator.committed[p] = committed;
            cx.emit(Output::Committed { partition, offset: committed });
            cx.emit(Output::DurableFrontier { partition, offset: self.partitions[p].frontier });
        }
    }

    /// A record run of `offset` on `partition` completed: its side effect landed.
    pub(crate) fn complete_run<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        member: MemberId,
        partition: PartitionId,
        offset: u64,
    ) {
        let durable_frontier = self.partitions[partition as usize].complete(offset);
        cx.emit(Output::RunCompleted { member, partition, offset, durable_frontier });
    }

    /// The offset a consumer starts from in `partition`: the committed offset, or where
    /// `auto.offset.reset` resolves now when the group has none (model.md §8.9).
    pub(crate) fn start_offset(&self, s: &Scenario, now_us: u64, partition: PartitionId) -> u64 {
        match self.coordinator.committed[partition as usize] {
            Some(offset) => offset,
            None => reset_offset(s, now_us),
        }
    }

    #[cfg(debug_assertions)]
    pub(crate) fn check_invariants(&self) {
        for p in &self.partitions {
            debug_assert!(
                p.above.first().is_none_or(|&o| o > p.frontier),
                "completed offsets above the frontier"
            );
        }
    }
}

/// Where `auto.offset.reset` resolves at `now_us` (model.md §8.9): the log start
/// (`earliest`) or the log end then (`latest`).
pub(crate) fn reset_offset(s: &Scenario, now_us: u64) -> u64 {
    match s.auto_offset_reset {
        OffsetReset::Earliest => s.log_start_offset,
        OffsetReset::Latest => s.log_end_at(now_us),
    }
}

/// The group coordinator: committed offsets, the generation, and whether the group is empty.
pub(crate) struct Coordinator {
    /// Committed offset per partition; `None`: the group has none.
    committed: Vec<Option<u64>>,
    /// Bumped when a member is evicted: commits of an older generation are rejected.
    generation: u32,
    /// Members in the group.
    members: u32,
    /// Since when the group has had no member (model.md §8.9: retention counts from then).
    empty_since_us: Option<u64>,
}

impl Coordinator {
    pub(crate) fn committed(&self, partition: PartitionId) -> Option<u64> {
        self.committed[partition as usize]
    }

    pub(crate) fn generation(&self) -> u32 {
        self.generation
    }

    /// Stores a committed offset (an OffsetCommit landed).
    pub(crate) fn store<S: Sink>(&mut self, cx: &mut Cx<S>, partition: PartitionId, offset: u64) {
        self.committed[partition as usize] = Some(offset);
        cx.emit(Output::Committed { partition, offset: Some(offset) });
    }

    /// model.md §8.7: a member is evicted; commits of its generation will be rejected.
    pub(crate) fn evict(&mut self) {
        self.generation += 1;
    }

    /// A member joins (or rejoins after its downtime).
    pub(crate) fn member_joined(&mut self) {
        self.members += 1;
        self.empty_since_us = None;
    }

    /// A member left (its `close()` returned). When the group is left empty, its offsets
    /// expire after `offsets.retention.minutes` (model.md §8.9; Kafka KIP-211).
    pub(crate) fn member_left<S: Sink>(&mut self, cx: &mut Cx<S>) {
        self.members -= 1;
        if self.members == 0 {
            self.empty_since_us = Some(cx.now_us);
            let retention_us = cx.s.offsets_retention_minutes.saturating_mul(60_000 * US_PER_MS);
            if let Some(at_us) = cx.now_us.checked_add(retention_us) {
                cx.schedule(at_us, Phase::Lifecycle, 0, Event::OffsetsExpire { empty_since_us: cx.now_us });
            }
        }
    }
}

impl World {
    /// model.md §8.9: the group stayed empty for the retention period: its committed offsets
    /// are deleted. Ignored when a member came back since `empty_since_us`.
    pub(crate) fn expire_offsets<S: Sink>(&mut self, cx: &mut Cx<S>, empty_since_us: u64) {
        if self.coordinator.empty_since_us != Some(empty_since_us) {
            return;
        }
        for p in 0..self.coordinator.committed.len() {
            let partition = p as PartitionId;
            if self.coordinator.committed[p].take().is_some() {
                cx.emit(Output::Committed { partition, offset: None });
                cx.emit(Output::Mark { member: 0, partition, kind: MarkKind::OffsetsExpired });
            }
        }
    }
}

/// One partition's record completions: the durable frontier and the completed offsets above
/// it (only those: memory grows with completions out of order, never with offset values).
pub(crate) struct Partition {
    frontier: u64,
    above: BTreeSet<u64>,
}

impl Partition {
    /// The lowest offset with no completed run.
    pub(crate) fn durable_frontier(&self) -> u64 {
        self.frontier
    }

    /// Records a completed run of `offset`; returns the durable frontier after it.
    #[inline(always)]
    fn complete(&mut self, offset: u64) -> u64 {
        if offset == self.frontier {
            self.frontier += 1;
            while self.above.first() == Some(&self.frontier) {
                self.above.pop_first();
                self.frontier += 1;
            }
        } else if offset > self.frontier {
            self.above.insert(offset);
        }
        self.frontier
    }
}

/// Who sent a commit, which decides what happens when it fails (model.md §8.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CommitKind {
    /// `commitSync`: the loop waits; retried with backoff until `default.api.timeout.ms`.
    Sync,
    /// `commitAsync`: not retried by the client; its callback runs at the next `poll()`,
    /// `commitAsync()` or `commitSync()`.
    Async,
    /// Java's poll-driven auto-commit: a failure's callback reschedules the timer
    /// `retry.backoff.ms` after the poll that runs it.
    AutoInPoll,
    /// A background timer's commit (§8.2, §8.3): the next tick tries again.
    AutoBackground,
    /// `close()`'s synchronous commit: retried as `Sync`.
    Close,
    /// `sendOffsetsToTransaction` + `commitTransaction` of records `from..to` of `partition`.
    Transaction { partition: PartitionId, from: u64, to: u64 },
}

impl CommitKind {
    pub(crate) fn blocks_loop(self) -> bool {
        matches!(self, CommitKind::Sync | CommitKind::Transaction { .. })
    }
    pub(crate) fn retried(self) -> bool {
        matches!(self, CommitKind::Sync | CommitKind::Close | CommitKind::Transaction { .. })
    }
}

/// One commit the application or client asked for, with its retry state.
#[derive(Clone, Debug)]
pub(crate) struct Commit {
    pub(crate) member: MemberId,
    pub(crate) kind: CommitKind,
    /// Its (partition, offset) pairs, an index range into [`Commits::offsets`].
    offsets: Range<u32>,
    pub(crate) first_sent_us: u64,
    pub(crate) next_backoff_us: u64,
    /// The group generation it was sent in: a commit from an evicted generation is rejected.
    pub(crate) generation: u32,
}

/// Every commit request, and the injected failures (model.md §8.8).
pub(crate) struct Commits {
    list: Vec<Commit>,
    /// The (partition, offset) pairs of every commit, back to back (one allocation for all).
    offsets: Vec<(PartitionId, u64)>,
    /// OffsetCommit requests sent so far, retries included: the numbering of `commit_failures`.
    requests_sent: u64,
    failure_rng: ChaCha8Rng,
}

impl Commits {
    /// Files a new commit of `offsets`; returns its id.
    pub(crate) fn open(
        &mut self,
        member: MemberId,
        kind: CommitKind,
        offsets: impl IntoIterator<Item = (PartitionId, u64)>,
        now_us: u64,
        first_backoff_us: u64,
        generation: u32,
    ) -> CommitId {
        let start = self.offsets.len() as u32;
        self.offsets.extend(offsets);
        let id = self.list.len() as CommitId;
        self.list.push(Commit {
            member,
            kind,
            offsets: start..self.offsets.len() as u32,
            first_sent_us: now_us,
            next_backoff_us: first_backoff_us,
            generation,
        });
        id
    }

    pub(crate) fn get(&self, id: CommitId) -> &Commit {
        &self.list[id as usize]
    }

    pub(crate) fn get_mut(&mut self, id: CommitId) -> &mut Commit {
        &mut self.list[id as usize]
    }

    /// The (partition, offset) pairs commit `id` carries.
    pub(crate) fn offsets(&self, id: CommitId) -> &[(PartitionId, u64)] {
        let range = &self.list[id as usize].offsets;
        &self.offsets[range.start as usize..range.end as usize]
    }

    /// Numbers one more request and decides whether it fails: by its number in send order
    /// (`commit_failures`) or the seeded probability (model.md §8.8, §8.12).
    pub(crate) fn next_request_fails(&mut self, s: &Scenario) -> bool {
        self.requests_sent += 1;
        let mut fails = s.commit_failures.contains(&self.requests_sent);
        if s.commit_failure_per_mille > 0 {
            let u = self.failure_rng.next_u64();
            fails |= (u as u128 * 1_000) >> 64 < s.commit_failure_per_mille as u128;
        }
        fails
    }
}

/// Per-record processing times (model.md §8.12): `record_processing_ms`, or under jitter
/// one draw per offset from `ChaCha8Rng::seed_from_u64(seed)`, the offset-th `next_u64` of
/// the partition's stream. The generator seeks to the offset (ChaCha is a counter-mode
/// cipher), so a record run again takes the same time and nothing is stored per offset.
pub(crate) struct Durations {
    streams: Vec<(ChaCha8Rng, u64)>,
}

impl Durations {
    fn new(s: &Scenario, partitions: usize) -> Self {
        let streams = match s.record_processing_jitter {
            Jitter::None => Vec::new(),
            _ => (0..partitions)
                .map(|p| {
                    let mut rng = ChaCha8Rng::seed_from_u64(s.seed);
                    rng.set_stream(p as u64);
                    (rng, 0)
                })
                .collect(),
        };
        Durations { streams }
    }

    /// How long processing `offset` of `partition` takes, µs (at least 1).
    #[inline(always)]
    pub(crate) fn of(&mut self, s: &Scenario, partition: PartitionId, offset: u64) -> u64 {
        if self.streams.is_empty() {
            return s.record_processing_us;
        }
        self.draw(s, partition, offset)
    }

    fn draw(&mut self, s: &Scenario, partition: PartitionId, offset: u64) -> u64 {
        let p = s.record_processing_us;
        let (rng, next) = &mut self.streams[partition as usize];
        if *next != offset {
            rng.set_word_pos(offset as u128 * 2);
        }
        *next = offset + 1;
        let u = rng.next_u64();
        let us = match s.record_processing_jitter {
            Jitter::None => p,
            Jitter::Uniform => {
                let pct = s.record_processing_jitter_pct;
                let low = p * (100 - pct) / 100;
                let width = 2 * p * pct / 100 + 1;
                low + ((u as u128 * width as u128) >> 64) as u64
            }
            Jitter::Exponential => {
                let x = -(p as f64) * libm::log(1.0 - u as f64 / 18_446_744_073_709_551_616.0);
                // u/2^64 rounds to 1.0 only for the top 2^10 draws: cap at 600 s.
                if x.is_finite() {
                    libm::round(x).min(600_000.0 * US_PER_MS as f64) as u64
                } else {
                    600_000 * US_PER_MS
                }
            }
        };
        us.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeking_the_generator_gives_the_sequential_draws() {
        let mut sequential = ChaCha8Rng::seed_from_u64(7);
        let draws: Vec<u64> = (0..300).map(|_| sequential.next_u64()).collect();
        let mut seeking = ChaCha8Rng::seed_from_u64(7);
        seeking.set_stream(0);
        for offset in [5u64, 6, 299, 0, 130, 131, 64, 63] {
            seeking.set_word_pos(offset as u128 * 2);
            assert_eq!(seeking.next_u64(), draws[offset as usize], "offset {offset}");
        }
    }

    #[test]
    fn the_frontier_waits_for_the_lowest_unfinished_offset() {
        let mut p = Partition { frontier: 0, above: BTreeSet::new() };
        assert_eq!(p.complete(1), 0);
        assert_eq!(p.complete(2), 0);
        assert_eq!(p.complete(0), 3);
        assert_eq!(p.complete(1), 3, "a second run");
        assert!(p.above.is_empty());
    }
}
