//! What the members of a group share: the group coordinator (committed offsets per
//! partition, generation, offset expiry), the partitions (their durable frontier), the
//! commit requests with their fates, and the seeded per-record durations.
//!
//! Memory here grows with events, never with offset values: a partition remembers only the
//! gaps in its completed offsets above its durable frontier.

use super::coordinator::Coordinator;
use super::cx::Cx;
use super::frontier::Frontier;
#[cfg(feature = "group")]
use super::share_partition::{AckRequests, SharePartition};
use crate::output::{CommitId, EventKey, MemberId, Output, PartitionId, Sink};
#[cfg(feature = "group")]
use crate::scenario::OffsetReset;
use crate::scenario::{Jitter, Scenario, US_PER_MS};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::ops::Range;

/// Everything the members share.
#[derive(Clone)]
pub(crate) struct World {
    pub(crate) coordinator: Coordinator,
    pub(crate) partitions: Vec<Partition>,
    pub(crate) commits: Commits,
    pub(crate) durations: Durations,
    pub(crate) failures: Failures,
    /// The engine's batches (see [`Batches`]).
    pub(crate) batches: Batches,
    /// A share group's share-partitions (model.md §11); empty for a consumer group.
    #[cfg(feature = "group")]
    pub(crate) share: Vec<SharePartition>,
    /// A share group's acknowledgements in flight.
    #[cfg(feature = "group")]
    pub(crate) ack_requests: AckRequests,
}

impl World {
    /// A group of `partitions` partitions at t = 0, committed offsets at the log start.
    pub(crate) fn new(s: &Scenario, partitions: usize) -> Self {
        World {
            coordinator: Coordinator::new(partitions),
            partitions: (0..partitions)
                .map(|_| Partition { done: Frontier::starting_at(s.log_start_offset), handovers: 0 })
                .collect(),
            commits: Commits {
                list: Vec::new(),
                offsets: Vec::new(),
                settled_pairs: 0,
                first_kept: 0,
                resolved: Vec::new(),
                requests_sent: 0,
                failure_rng: ChaCha8Rng::seed_from_u64(s.seed.wrapping_add(1)),
            },
            durations: Durations::new(s, partitions),
            failures: Failures::new(s),
            batches: Batches {
                enabled: false,
                owner: vec![None; partitions],
                pending: 0,
                reserved: 0,
                budget: 0,
                settled: 0,
                settled_all: false,
            },
            #[cfg(feature = "group")]
            share: if s.share_group() {
                let start = match s.share_auto_offset_reset {
                    OffsetReset::Earliest => s.log_start_offset,
                    OffsetReset::Latest => s.log_end_at(0),
                };
                (0..partitions).map(|p| SharePartition::new(p as PartitionId, start)).collect()
            } else {
                Vec::new()
            },
            #[cfg(feature = "group")]
            ack_requests: AckRequests::default(),
        }
    }

    /// Reports the initial lines: the committed offset (a script's or a `new_group`'s group
    /// has none, model.md §8.11, §1; otherwise the group starts at the log start) and the
    /// durable frontier (offsets below the log start count as done).
    pub(crate) fn start<S: Sink>(&mut self, cx: &mut Cx<S>) {
        let new_group = cx.s.script.is_some() || cx.s.new_group;
        let committed = if new_group { None } else { Some(cx.s.log_start_offset) };
        self.coordinator.set_committed(cx, committed);
        for (p, partition) in self.partitions.iter().enumerate() {
            cx.emit(Output::DurableFrontier {
                partition: p as PartitionId,
                offset: partition.durable_frontier(),
            });
        }
        // A share group's lines: the start offset instead of the committed one (§11).
        #[cfg(feature = "group")]
        for share in &self.share {
            share.report(cx);
        }
    }

    /// A record run of `offset` on `partition` completed: its side effect landed.
    /// `handed_over` is the partition's handover count when the record was polled.
    #[inline(always)]
    pub(crate) fn complete_run<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        member: MemberId,
        partition: PartitionId,
        offset: u64,
        handed_over: u32,
    ) {
        let output = self.run_completed(member, partition, offset, handed_over);
        cx.emit(output);
    }

    /// The output of a completed run of `offset`, whose side effect lands now: the partition's
    /// durable frontier moves, and a run polled before the partition's last handover is late.
    #[inline(always)]
    fn run_completed(
        &mut self,
        member: MemberId,
        partition: PartitionId,
        offset: u64,
        handed_over: u32,
    ) -> Output {
        let p = &mut self.partitions[partition as usize];
        let durable_frontier = p.done.done(offset);
        let late = handed_over != p.handovers;
        Output::RunCompleted { member, partition, late, offset, durable_frontier }
    }

    /// [`World::complete_run`] for a run of the engine's batch settled now: it happened at
    /// `at_us`, in the member's loop event of key `key`, the batch's runs `every_us` apart.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn complete_settled_run<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        (at_us, key, every_us): (u64, EventKey, u64),
        member: MemberId,
        partition: PartitionId,
        offset: u64,
        handed_over: u32,
    ) {
        let output = self.run_completed(member, partition, offset, handed_over);
        cx.emit_settled(at_us, key, every_us, output);
    }

    /// The offset a consumer starts from in `partition`: the committed offset, or where
    /// `auto.offset.reset` resolves now when the group has none or it is below the log
    /// start (model.md §8.9).
    pub(crate) fn start_offset(&self, s: &Scenario, now_us: u64, partition: PartitionId) -> u64 {
        s.restart_offset(self.coordinator.committed(partition), now_us)
    }

    #[cfg(debug_assertions)]
    pub(crate) fn check_invariants(&self) {
        for p in &self.partitions {
            debug_assert!(p.done.well_formed(), "completed ranges above the frontier");
        }
        #[cfg(feature = "group")]
        for share in &self.share {
            share.check_invariants();
        }
    }
}

/// The engine's batches (model.md §8.1): in the fast path, the records of a poll after the
/// one completing now are one loop event, at the last one; each is settled — completed as
/// its own event would have completed it — when something can observe its member or its
/// partition (see `Engine::settle_for`).
#[derive(Clone)]
pub(crate) struct Batches {
    /// Whether members may open batches (not in the reference engine, nor without ramps).
    pub(crate) enabled: bool,
    /// The member whose batch on each partition has unsettled records.
    pub(crate) owner: Vec<Option<MemberId>>,
    /// How many batches have unsettled records.
    pub(crate) pending: usize,
    /// Records of the batches not yet settled.
    pub(crate) reserved: u64,
    /// The engine's event budget as the event being handled began.
    pub(crate) budget: u64,
    /// Records settled since the engine last counted them against its budget.
    pub(crate) settled: u64,
    /// Every batch was settled in the event being handled (its members may batch again).
    pub(crate) settled_all: bool,
}

impl Batches {
    /// Whether a batch of `records` may open on `partition`: no other batch there, and the
    /// budget far enough from its end that every record would have been counted in time
    /// (`Engine::settle_for` settles every batch before it comes that close).
    pub(crate) fn may_open(&self, partition: PartitionId, records: u64) -> bool {
        cfg!(feature = "compact-runs")
            && self.enabled
            && self.owner[partition as usize].is_none()
            && self.budget > self.reserved + records + BUDGET_MARGIN
    }
}

/// How close to the end of the event budget the batches are all settled.
pub(crate) const BUDGET_MARGIN: u64 = 8;

/// One partition's record completions: the durable frontier and the completed ranges above
/// it (memory grows with the gaps, never with offset values).
#[derive(Clone)]
pub(crate) struct Partition {
    done: Frontier,
    /// How often a member took the partition (model.md §10.7): records polled before the
    /// latest handover complete "late".
    pub(crate) handovers: u32,
}

impl Partition {
    /// The lowest offset with no completed run.
    pub(crate) fn durable_frontier(&self) -> u64 {
        self.done.frontier()
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
    /// `onJoinPrepare`'s asynchronous commit of every position, which the join waits for
    /// (model.md §10.5); not retried.
    JoinPrepare,
    /// A `commitSync()` that a pending `wakeup()` interrupted (model.md §10.3): sent, then
    /// the call threw; nobody waits for it or retries it, and `close()` waits for it.
    Woken,
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
    /// The sender's process life: a response reaching a later life is dropped.
    pub(crate) process: u32,
    pub(crate) kind: CommitKind,
    /// Its (partition, offset) pairs, an index range into [`Commits::offsets`].
    offsets: Range<u32>,
    pub(crate) first_sent_us: u64,
    pub(crate) next_backoff_us: u64,
    /// The group generation it was sent in: a commit from an evicted generation is rejected.
    pub(crate) generation: u32,
}

/// Settled commits' pairs [`Commits::offsets`] holds before it forgets them.
const FORGET_PAIRS: usize = 1 << 16;

/// Every commit request, and the injected failures (model.md §8.8).
#[derive(Clone)]
pub(crate) struct Commits {
    list: Vec<Commit>,
    /// The (partition, offset) pairs of every commit that may still be read, back to back
    /// (one allocation for all); a settled commit's are forgotten ([`Commits::resolve`]).
    offsets: Vec<(PartitionId, u64)>,
    /// Pairs in `offsets` of settled commits, which nothing reads again.
    settled_pairs: usize,
    /// The first commit whose pairs `offsets` may hold: those before it were forgotten.
    first_kept: usize,
    /// Whether each commit is settled (landed or given up), by id.
    resolved: Vec<bool>,
    /// OffsetCommit requests sent so far, retries included: the numbering of `commit_failures`.
    requests_sent: u64,
    failure_rng: ChaCha8Rng,
}

impl Commits {
    /// Files a new commit of `offsets`; returns its id.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn open(
        &mut self,
        member: MemberId,
        process: u32,
        kind: CommitKind,
        offsets: impl IntoIterator<Item = (PartitionId, u64)>,
        now_us: u64,
        first_backoff_us: u64,
        generation: u32,
    ) -> CommitId {
        let start = self.offsets.len() as u32;
        self.offsets.extend(offsets);
        let id = self.list.len() as CommitId;
        self.resolved.push(false);
        self.list.push(Commit {
            member,
            process,
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

    /// The last commit opened.
    #[cfg_attr(not(feature = "group"), allow(dead_code))]
    pub(crate) fn last_id(&self) -> CommitId {
        self.list.len() as CommitId - 1
    }

    /// Commit `id` is settled. Its (partition, offset) pairs are not read again — but for a
    /// `commitAsync`'s, which its callback may send again (`retry_async_in_callback`) — so
    /// once such pairs are most of `offsets`, the pairs still read are moved together and the
    /// rest forgotten: a day of a group's auto-commits (issue 28's S-C: 17.7 million pairs)
    /// keeps only those in flight.
    pub(crate) fn resolve(&mut self, id: CommitId) {
        self.resolved[id as usize] = true;
        let commit = &self.list[id as usize];
        if commit.kind != CommitKind::Async {
            self.settled_pairs += commit.offsets.len();
        }
        if self.settled_pairs >= FORGET_PAIRS && 2 * self.settled_pairs >= self.offsets.len() {
            self.forget_settled_pairs();
        }
    }

    /// Keeps in `offsets` only the pairs of commits not settled (and of `commitAsync`s).
    #[cold]
    fn forget_settled_pairs(&mut self) {
        let mut kept = Vec::with_capacity(self.offsets.len() - self.settled_pairs);
        let mut first_kept = self.list.len();
        for (i, (commit, &resolved)) in
            self.list.iter_mut().zip(&self.resolved).enumerate().skip(self.first_kept)
        {
            let range = commit.offsets.start as usize..commit.offsets.end as usize;
            let start = kept.len() as u32;
            if !resolved || commit.kind == CommitKind::Async {
                first_kept = first_kept.min(i);
                kept.extend_from_slice(&self.offsets[range]);
            }
            commit.offsets = start..kept.len() as u32;
        }
        self.offsets = kept;
        self.settled_pairs = 0;
        self.first_kept = first_kept;
    }

    /// Whether commit `id` is settled.
    #[cfg_attr(not(feature = "group"), allow(dead_code))]
    pub(crate) fn is_resolved(&self, id: CommitId) -> bool {
        self.resolved[id as usize]
    }

    pub(crate) fn get_mut(&mut self, id: CommitId) -> &mut Commit {
        &mut self.list[id as usize]
    }

    /// The (partition, offset) pairs commit `id` carries.
    pub(crate) fn offsets(&self, id: CommitId) -> &[(PartitionId, u64)] {
        let commit = &self.list[id as usize];
        debug_assert!(
            !self.resolved[id as usize] || commit.kind == CommitKind::Async,
            "a settled commit's pairs are not read again"
        );
        let range = &commit.offsets;
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
#[derive(Clone)]
pub(crate) struct Durations {
    streams: Vec<(ChaCha8Rng, u64)>,
    /// Every record takes `record_processing_ms` (no jitter, no durations by offset).
    constant: bool,
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
        let constant = streams.is_empty() && s.record_processing_by_offset_us.0.is_empty();
        Durations { streams, constant }
    }

    /// Whether every record takes `record_processing_ms`.
    pub(crate) fn constant(&self) -> bool {
        self.constant
    }

    /// How long processing `offset` of `partition` takes, µs (at least 1).
    #[inline(always)]
    pub(crate) fn of(&mut self, s: &Scenario, partition: PartitionId, offset: u64) -> u64 {
        if self.constant {
            return s.record_processing_us;
        }
        if let Some(&us) = s.record_processing_by_offset_us.0.get(&offset) {
            return us;
        }
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

/// Which processing attempts throw (model.md §12): every attempt at an offset listed in
/// `record_failures` (in any partition), and under `record_failure_probability` one draw per
/// attempt, in the order attempts end, from `ChaCha8Rng::seed_from_u64(seed + 2)`.
#[derive(Clone)]
pub(crate) struct Failures {
    /// `record_failures`, sorted.
    listed: Vec<u64>,
    rng: ChaCha8Rng,
}

impl Failures {
    fn new(s: &Scenario) -> Self {
        let listed = crate::keys::ascending_unique(s.record_failures.iter().copied());
        Failures { listed, rng: ChaCha8Rng::seed_from_u64(s.seed.wrapping_add(2)) }
    }

    /// Whether the attempt at `offset` ending now throws.
    #[inline(always)]
    pub(crate) fn attempt_fails(&mut self, s: &Scenario, offset: u64) -> bool {
        let listed = !self.listed.is_empty() && self.listed.binary_search(&offset).is_ok();
        if s.record_failure_per_mille == 0 {
            return listed;
        }
        let u = self.rng.next_u64();
        listed || (u as u128 * 1_000) >> 64 < s.record_failure_per_mille as u128
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
}
