//! One consumer process: the application's loop (model.md §3) or script (§8.11), its worker
//! pool (§4), the client's auto-commit timers and commit callbacks (§8.2, §8.8), and its
//! lifecycle — close, eviction, downtime and restart (§8.6, §8.7, §8.9).
//!
//! The loop is a small state machine ([`Pc`], its program counter between events): each
//! state does one step and either goes straight on or waits for an event.
//!
//! The member's side of the consumer group (model.md §10) is here too, below the loop:
//! heartbeats, the classic join and sync rounds with `onJoinPrepare` /
//! `onPartitionsRevoked` / `onJoinComplete` (Java `ConsumerCoordinator`,
//! `AbstractCoordinator`), the consumer protocol's reconciliation at heartbeats (KIP-848,
//! `ConsumerMembershipManager`, `CommitRequestManager`), and what happens to the process:
//! crash, hang, shutdown, restart, a new member joining. One type, one file: the loop and
//! the group client call each other at every turn.
//!
//! Without the `group` feature (the one-consumer page's build) validation refuses every
//! group scenario and [`crate::Scenario::group_mode`] is always false, so no member ever has
//! a [`GroupClient`]: the stand-ins at the end of the file do, at each entry point the loop
//! calls, what the group side does for a member without one — nothing (the consumer page's
//! build, `cargo clippy -p offset-window-sim --no-default-features`, says when one is missing).

#[cfg(feature = "group")]
use super::coordinator::SyncAnswer;
use super::cx::Cx;
use super::frontier::Frontier;
use super::pool::Pool;
use super::queue::{Event, Phase};
#[cfg(feature = "group")]
use super::rdk_wakes::RdkWakes;
use super::world::{CommitKind, World};
#[cfg(feature = "group")]
use crate::events::{describe, GroupEventKind, ShutdownMode};
#[cfg(feature = "group")]
use crate::keys::{format_millis, ScenarioError};
use crate::output::{
    event_key, CommitFailure, CommitId, EventKey, MarkKind, MemberId, MemberStatus, Output, PartitionId, Sink,
};
use crate::scenario::{
    AckCheck, Client, CommitValue, IsolationLevel, OnError, OnRevoke, PoolCommit, Scenario, ScriptStep,
    Strategy,
};

/// librdkafka's `session.timeout.ms` default (45 s), which `group.protocol=consumer` does not let
/// the application change: it bounds how long a refused commit is sent again (model.md §10.6).
#[cfg(feature = "group")]
const RDK_SESSION_TIMEOUT_US: u64 = 45_000_000;

/// Records `next..end - 1` of the batch `from..end` the loop is running in the fast path,
/// the first done at `next_at_us` and each `every_us` after the one before, not yet
/// completed: the loop's event waits at the batch's last record (`end - 1`, completed as
/// usual), and these are settled when something can observe the member or the partition
/// ([`Member::settle`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Batch {
    partition: PartitionId,
    from: u64,
    end: u64,
    next: u64,
    next_at_us: u64,
    every_us: u64,
    handed_over: u32,
}

/// Where the application's loop is between events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pc {
    /// About to `poll()`.
    Poll,
    /// Synchronous loop: about to process record `next` of the batch `from..end`.
    Process { partition: PartitionId, from: u64, next: u64, end: u64 },
    /// Synchronous loop: record `offset` of the batch `from..end` just finished.
    AfterRecord { partition: PartitionId, from: u64, offset: u64, end: u64 },
    /// The batch `from..to` is done (synchronous) or handed off (pool): commit as the
    /// strategy says.
    AfterBatch { partition: PartitionId, from: u64, to: u64 },
    /// Pool + `commit_sync_record`: commit `next + 1`, one blocking commit per handed-off record.
    CommitHandedOff { partition: PartitionId, next: u64, end: u64 },
    /// Pool full: the loop waits for a batch to finish.
    WaitingForRoom,
    /// Waiting for a blocking commit's outcome; then continue at `resume_pc`.
    Blocked,
    /// `on_revoke: drain`: `onPartitionsRevoked` waits until the pool has nothing in flight,
    /// or until `until_us`, then commits; then continue at `resume_pc` (model.md §10.5).
    Draining { until_us: u64 },
    /// `on_error: retry_batch` in a group (model.md §12.3): Spring's error handler between two
    /// deliveries of the batch `from..end`, the consumer paused; its next `poll(Duration.ZERO)`
    /// is at `poll_us`, and the listener gets the batch again at `resume_us`.
    RetryBackOff { partition: PartitionId, from: u64, end: u64, poll_us: u64, resume_us: u64 },
    /// Script: about to run step `step`.
    Script { step: usize },
    /// Script: processing (`left` more records after the one in progress), then step `step + 1`.
    ScriptProcess { step: usize, left: u64 },
    /// Script: waiting for the last step's commits to land before running step `step`.
    ScriptAwaitCommits { step: usize },
    /// The application stopped (closed, crashed, or closing).
    Stopped,
}

impl Pc {
    /// The partition of the batch the loop is in, if it is in one.
    fn batch_partition(self) -> Option<PartitionId> {
        match self {
            Pc::Process { partition, .. }
            | Pc::AfterRecord { partition, .. }
            | Pc::AfterBatch { partition, .. }
            | Pc::CommitHandedOff { partition, .. }
            | Pc::RetryBackOff { partition, .. } => Some(partition),
            _ => None,
        }
    }
}

/// Where the process is in its lifecycle.
#[derive(Clone, Copy, Debug, Eq)]
pub(super) enum Life {
    Running,
    /// `close()` called: waiting for the pool to drain (if asked) and for commits to land;
    /// `revoked`: a group member's `onPartitionsRevoked` has run (model.md §10.3).
    Closing {
        commit_sent: bool,
        revoked: bool,
    },
    /// `close()` returned, or the process died.
    Down,
}

impl PartialEq for Life {
    /// Inlined: the loop compares its life on every record.
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Life::Running, Life::Running) | (Life::Down, Life::Down) => true,
            (Life::Closing { commit_sent: a, revoked: b }, Life::Closing { commit_sent: c, revoked: d }) => {
                a == c && b == d
            }
            _ => false,
        }
    }
}

/// What a step of the loop leaves: go straight on, or wait for an event.
pub(super) enum Flow {
    Next,
    Wait,
}

/// A partition assigned to the member, with the consumer's position there.
#[derive(Clone, Debug)]
pub(super) struct Assigned {
    pub(super) partition: PartitionId,
    /// Next offset `poll()` hands out (`SubscriptionState.position`); `None` before the
    /// first poll of a new group resolves it.
    position: Option<u64>,
    /// What the application has handled (processed, or given up on) since it took the
    /// partition: in a loop, everything below the next offset it processes — what it
    /// stores with librdkafka's `rd_kafka_offsets_store` (model.md §8.3); in a pool, the
    /// records done out of order, whose frontier and highest offset `pool_commit` reads (§12).
    done: Frontier,
    /// The error handler stopped the partition (`on_error: stop`, model.md §12): `poll()`
    /// never takes records from it again.
    stopped: bool,
    /// A KIP-848 reconciliation revokes it (model.md §10.6): paused, still assigned until the
    /// next `poll()` runs `onPartitionsRevoked` (`SubscriptionState.markPendingRevocation`).
    revoking: bool,
    /// kafka-clients 4.3: added by a reconciliation inside a `poll()`; its position is looked
    /// up only in the next `poll()`, which finds none of its records buffered (model.md §10.6).
    awaiting_position: bool,
    /// The position the member started the partition from (`None` until a new group's
    /// first poll resolves it): librdkafka has stored no offset while its stored offset
    /// would still be this one (model.md §8.2).
    taken_at: Option<u64>,
    /// `librdkafka_before_1_9` (model.md §8.14): the offset stored while the member last held
    /// the partition, or stored for it after it was revoked — assign() did not reset it before
    /// librdkafka PR #3774; the member's commits carry it until it stores anew.
    stale_store: Option<u64>,
}

impl Assigned {
    /// Whether a poll could take records of it: not stopped, below `log_end` (a position
    /// not yet resolved counts, §8.9).
    fn has_records(&self, log_end: u64) -> bool {
        !self.stopped
            && !self.revoking
            && !self.awaiting_position
            && self.position.is_none_or(|p| p < log_end)
    }

    /// `partition` at `position`, nothing handled yet.
    fn at(partition: PartitionId, position: Option<u64>) -> Self {
        Assigned {
            partition,
            position,
            done: Frontier::starting_at(position.unwrap_or(0)),
            stopped: false,
            revoking: false,
            awaiting_position: false,
            taken_at: position,
            stale_store: None,
        }
    }
}

/// A script's progress (model.md §8.11).
#[derive(Clone)]
struct Script {
    /// The step running, whose reading is taken when it ends.
    step: Option<usize>,
    /// The commits the running step sent that are still in flight: the next step waits
    /// for them, so a step's reading sees its own commits landed.
    unresolved: Vec<CommitId>,
}

/// One consumer process and its client.
#[derive(Clone)]
pub(crate) struct Member {
    pub(super) id: MemberId,
    pub(super) strategy: Strategy,
    pub(super) life: Life,
    /// Counts the application's lives: bumped when `close()` drops the work in progress and
    /// at each restart, so events of an earlier life are ignored.
    pub(super) incarnation: u32,
    /// The process as the coordinator knows it: bumped at each (re)start and when a dynamic
    /// member rejoins with a new member id.
    pub(super) process: u32,
    pub(super) pc: Pc,
    resume_pc: Pc,
    pub(super) assigned: Vec<Assigned>,
    /// The assigned partition whose fetched chunk the member hands out (model.md §10.1).
    pub(super) turn: usize,
    /// Records left of that chunk; `None` when no chunk is in hand (after an assignment the
    /// next `poll()` starts at `turn` itself).
    pub(super) chunk_left: Option<u64>,
    /// Java: the chunk in hand ran out exactly at the end of a full poll, so the fetch buffer
    /// still holds it (model.md §10.6): `CompletedFetch.fetchRecords` stops at
    /// `max.poll.records` without reading past the last record, and only a read past it drains
    /// the fetch. `FetchBuffer.bufferedPartitions` counts it, so no prefetch goes out, and
    /// `FetchBuffer.isEmpty` does not: the next poll finds nothing buffered and fetches.
    chunk_held: bool,
    /// The partitions whose fetched chunks wait behind the one in hand (model.md §10.1): a
    /// fetch goes out only when the buffer is drained (`AbstractFetch` fetches nothing from a
    /// broker that still has buffered partitions) and brings every partition with records.
    fetch_queue: Vec<PartitionId>,
    /// The partitions an eager round took from a Java member, which it fetched before: they
    /// stay first in its fetch session, so the next assignment hands them out first when
    /// they come back (model.md §10.1).
    fetched_before: Vec<PartitionId>,
    /// After an eager round gave a Java member back partitions it fetched before: its fetch
    /// session's order — those first, in their order, then the new ones (model.md §10.1). The
    /// poll turn passes from one partition's chunk to the next in this order; empty: in
    /// partition order.
    fetch_order: Vec<PartitionId>,
    pub(super) auto_commit_deadline_us: u64,
    records_since_commit: u64,
    /// Failed async commits whose callbacks have not run yet (model.md §8.8).
    pub(super) callbacks: Vec<CommitId>,
    /// Whether the member belongs to the group's current generation (model.md §8.7).
    pub(super) in_group: bool,
    last_poll_us: u64,
    poll_check_pending: bool,
    pub(super) blocked_since_us: Option<u64>,
    pub(super) commits_in_flight: u32,
    /// Failed synchronous commits waiting for their retry.
    pub(super) retries_pending: u32,
    pub(super) pool: Pool,
    /// The handover count of the partition of the batch the loop holds (model.md §10.7).
    batch_handed_over: u32,
    /// The loop's record just threw (model.md §12); the next step hands it to `on_error`.
    record_failed: bool,
    /// `on_error: retry`: failed attempts at the loop's record so far.
    failed_attempts: u32,
    /// `on_error: seek_to_failed`: the record that failed last and its deliveries so far
    /// (Spring `FailedRecordTracker`).
    failed_record: Option<(PartitionId, u64, u32)>,
    /// `on_error: retry_batch`: deliveries of the loop's batch so far that threw (Spring
    /// `ErrorHandlingUtils.retryBatch`'s attempts).
    batch_deliveries: u32,
    /// With `ack_on_error: false`: records of the loop's batch given up on since the last
    /// one processed, which a commit after them does not cover.
    unacked_tail: u64,
    /// Spring `AckMode.TIME`: when the member last committed, µs.
    last_ack_commit_us: u64,
    /// Records of the open transaction given up on: its commit makes the others visible.
    skipped_in_transaction: Vec<u64>,
    script: Option<Script>,
    /// `close()`'s own commit, while it is the one `onPartitionsRevoked` waits for.
    close_commit: Option<CommitId>,
    /// The consumer-group client (model.md §10); `None` for the one-consumer model.
    pub(super) group: Option<GroupClient>,
    /// The background auto-commit timer runs (model.md §8.2; it keeps its schedule across
    /// restarts).
    background_timer: bool,
    /// When the live chain of the background timer fires next, µs: a chain that fires at any
    /// other instant was replaced (sarama restarts its ticker with each session) and stops.
    background_due_us: u64,
    /// franz-go's head per partition: the position before the latest poll (model.md §8.14).
    heads: Vec<(PartitionId, u64)>,
    /// kafka-clients 4.3: this `poll()` submitted an `AsyncPollEvent` ([`Member::submit_poll_event`]).
    poll_event: bool,
    /// `librdkafka_before_1_9` (model.md §8.14): per partition the member gave up, what it
    /// had stored there, moved on by the records its pool still completes after the revocation
    /// (`rd_kafka_offsets_store` for an unassigned partition was accepted before 1.9.0).
    old_stores: Vec<(PartitionId, Frontier)>,
    /// `commit_revoked_partitions` (model.md §10.5): the partitions the member gave up, as
    /// the application's offsets still hold them — moved on by the pool's records that
    /// complete there later.
    revoked_kept: Vec<Assigned>,
    /// `librdkafka_before_1_9`: the last offset of each partition the member's own commits
    /// landed (`rktp_committed_offset`, moved by `rd_kafka_cgrp_update_committed_offsets`).
    own_committed: Vec<(PartitionId, u64)>,
    /// Whether a record finishing mid-batch may go straight to the next one (see
    /// [`Member::record_done`]): one synchronous consumer, no script, no failures, and a
    /// strategy that does nothing between records.
    pub(super) fast_path: bool,
    /// The fast path's records after the one last completed, as one loop event (the
    /// engine's batch, see [`Batch`]).
    batch: Option<Batch>,
    /// librdkafka (model.md §10.4): a cooperative rebalance paused the partitions while the
    /// application was busy, and the fetcher, idle, sees them resumed only then: no records
    /// before this instant.
    fetch_idle_until_us: u64,
}

impl Member {
    /// The one consumer of model.md §§1–9 at t = 0, about to make its first `poll()` (or
    /// run its script's first step), holding partition 0. A steady loop's position starts
    /// at the committed offset; a script's new group has none until its first poll.
    pub(crate) fn start<S: Sink>(cx: &mut Cx<S>, world: &mut World, id: MemberId) -> Member {
        let s = cx.s;
        let partition: PartitionId = 0;
        let position = world.coordinator.committed(partition);
        let mut member = Member::new(s, id, Life::Running);
        member.pc = if s.script.is_some() { Pc::Script { step: 0 } } else { Pc::Poll };
        member.assigned = vec![Assigned::at(partition, position)];
        world.coordinator.single_member_present(0);
        cx.emit(Output::Position { partition, position });
        member.begin(cx);
        if let Some(close_at_us) = s.close_at_us {
            cx.schedule(close_at_us, Phase::Lifecycle, id, Event::Close { member: id });
        }
        member
    }

    /// A group member at t = 0 (model.md §10): present with `partitions` (the group exists
    /// at t = 0 with no round trips), or, with `None`, a member a `join` event starts later.
    pub(crate) fn start_in_group_at_zero<S: Sink>(
        cx: &mut Cx<S>,
        world: &World,
        id: MemberId,
        partitions: Option<&[PartitionId]>,
    ) -> Member {
        let s = cx.s;
        let Some(partitions) = partitions else {
            let mut member = Member::new(s, id, Life::Down);
            member.pc = Pc::Stopped;
            member.in_group = false;
            cx.emit(Output::MemberStatus { member: id, status: MemberStatus::Down });
            return member;
        };
        let mut member = Member::new(s, id, Life::Running);
        member.pc = Pc::Poll;
        for &partition in partitions {
            let position = world.start_offset(s, 0, partition);
            member.add_partition(cx, partition, position);
            cx.emit(Output::Handover { partition, to: id });
        }
        cx.emit(Output::MemberStatus {
            member: id,
            status: if partitions.is_empty() { MemberStatus::Idle } else { MemberStatus::Active },
        });
        member.start_heartbeats_at_zero(cx);
        member.begin(cx);
        member
    }

    fn new(s: &Scenario, id: MemberId, life: Life) -> Member {
        Member {
            id,
            strategy: s.effective_strategy(),
            life,
            incarnation: 0,
            process: 0,
            pc: Pc::Poll,
            resume_pc: Pc::Poll,
            assigned: Vec::new(),
            turn: 0,
            chunk_left: None,
            chunk_held: false,
            fetch_queue: Vec::new(),
            fetched_before: Vec::new(),
            fetch_order: Vec::new(),
            auto_commit_deadline_us: s.auto_commit_interval_us,
            records_since_commit: 0,
            callbacks: Vec::new(),
            in_group: true,
            last_poll_us: 0,
            poll_check_pending: false,
            blocked_since_us: None,
            commits_in_flight: 0,
            retries_pending: 0,
            pool: Pool::new(s),
            batch_handed_over: 0,
            record_failed: false,
            failed_attempts: 0,
            failed_record: None,
            batch_deliveries: 0,
            unacked_tail: 0,
            last_ack_commit_us: 0,
            skipped_in_transaction: Vec::new(),
            script: s.script.as_ref().map(|_| Script { step: None, unresolved: Vec::new() }),
            close_commit: None,
            group: s.group_mode().then(|| GroupClient::new(s)),
            background_timer: false,
            background_due_us: 0,
            heads: Vec::new(),
            poll_event: true,
            old_stores: Vec::new(),
            revoked_kept: Vec::new(),
            own_committed: Vec::new(),
            fetch_idle_until_us: 0,
            batch: None,
            // A kafkajs group member may stop a batch after any record (model.md §10.5).
            fast_path: (!s.group_mode() || s.client != Client::Kafkajs)
                && s.script.is_none()
                && !s.worker_pool
                && !s.record_failures_possible()
                && matches!(
                    s.effective_strategy(),
                    Strategy::AutoCommit
                        | Strategy::AutoCommitBackground
                        | Strategy::StoreOffsetsAfterProcessing
                        | Strategy::CommitSyncBatch
                        | Strategy::CommitAsyncBatch
                ),
        }
    }

    /// Schedules the first loop step and the auto-commit timers of a consumer starting at t = 0,
    /// which was created `consumer_created_before_start_ms` and got its partitions
    /// `assigned_before_start_ms` earlier (model.md §8.2, §10.4): the Java clients' timers count
    /// from the assignment, librdkafka's from the consumer's creation.
    fn begin<S: Sink>(&mut self, cx: &mut Cx<S>) {
        let id = self.id;
        cx.schedule(
            cx.now_us,
            Phase::Loop,
            id,
            Event::LoopWake { member: id, incarnation: self.incarnation },
        );
        let s = cx.s;
        let running_us =
            if Self::pre_fix(s) { s.assigned_before_start_us } else { s.created_before_start_us };
        self.start_background_timer_after(cx, running_us);
        self.auto_commit_deadline_us = s.auto_commit_interval_us.saturating_sub(s.assigned_before_start_us);
    }

    /// Whether this member's strategy runs the background auto-commit timer (§8.2, §8.3).
    fn background_auto_commit_runs(&self) -> bool {
        matches!(self.strategy, Strategy::AutoCommitBackground | Strategy::StoreOffsetsAfterProcessing)
    }

    /// Starts the background auto-commit timer (§8.2, §8.3), unless it runs already.
    pub(super) fn start_background_timer<S: Sink>(&mut self, cx: &mut Cx<S>) {
        self.start_background_timer_after(cx, 0);
    }

    /// Starts the background auto-commit timer as if it had run for `running_us` already.
    fn start_background_timer_after<S: Sink>(&mut self, cx: &mut Cx<S>, running_us: u64) {
        if self.background_auto_commit_runs() && !self.background_timer {
            self.background_timer = true;
            self.auto_commit_deadline_us = cx.now_us + cx.s.auto_commit_interval_us;
            let every_us = Self::background_check_interval_us(cx.s);
            let at_us = cx.now_us + every_us - running_us % every_us;
            let phase = Self::background_phase(cx.s);
            self.background_due_us = at_us;
            cx.schedule(at_us, phase, self.id, Event::BackgroundAutoCommit { member: self.id });
        }
    }

    /// sarama (model.md §8.14): each session creates its own offset manager, whose ticker
    /// starts then (`newConsumerGroupSession` → `newOffsetManagerFromClient` → `mainLoop`),
    /// and the session's release stops the old one (`offsetManager.Close`).
    fn restart_session_ticker<S: Sink>(&mut self, cx: &mut Cx<S>) {
        if cx.s.client != Client::Sarama || self.strategy != Strategy::StoreOffsetsAfterProcessing {
            return;
        }
        self.background_timer = true;
        self.background_due_us = cx.now_us + cx.s.auto_commit_interval_us;
        let phase = Self::background_phase(cx.s);
        cx.schedule(self.background_due_us, phase, self.id, Event::BackgroundAutoCommit { member: self.id });
    }

    /// Takes `partition` with its position (the stored offset starts there).
    pub(super) fn add_partition<S: Sink>(&mut self, cx: &mut Cx<S>, partition: PartitionId, position: u64) {
        self.assigned.retain(|a| a.partition != partition);
        self.revoked_kept.retain(|a| a.partition != partition);
        let mut taken = Assigned::at(partition, Some(position));
        // librdkafka before 1.9.0: assign() keeps what was stored before (model.md §8.14);
        // 2.x resets the store (`rd_kafka_assignment_add`).
        if let Some(i) = self.old_stores.iter().position(|(p, _)| *p == partition) {
            let (_, old) = self.old_stores.swap_remove(i);
            taken.stale_store = Some(old.frontier());
        }
        self.assigned.push(taken);
        super::sort::by_key(&mut self.assigned, |a| a.partition);
        cx.emit(Output::Position { partition, position: Some(position) });
    }

    /// Gives up `partition`; returns whether the member held it.
    pub(super) fn remove_partition(&mut self, partition: PartitionId) -> bool {
        let before = self.assigned.len();
        self.assigned.retain(|a| a.partition != partition);
        self.assigned.len() != before
    }

    pub(super) fn mark<S: Sink>(&self, cx: &mut Cx<S>, partition: PartitionId, kind: MarkKind) {
        cx.emit(Output::Mark { member: self.id, partition, kind });
    }

    pub(super) fn wake_at<S: Sink>(&self, cx: &mut Cx<S>, at_us: u64) {
        cx.schedule(
            at_us,
            Phase::Loop,
            self.id,
            Event::LoopWake { member: self.id, incarnation: self.incarnation },
        );
    }

    fn set_position<S: Sink>(&mut self, cx: &mut Cx<S>, partition: PartitionId, position: Option<u64>) {
        if let Some(a) = self.assigned_mut(partition) {
            a.position = position;
            cx.emit(Output::Position { partition, position });
        }
    }

    /// The application starts `partition` over at `position` (a restart, a rejoin, an
    /// aborted transaction): nothing handled yet.
    fn start_over<S: Sink>(&mut self, cx: &mut Cx<S>, partition: PartitionId, position: u64) {
        if let Some(a) = self.assigned_mut(partition) {
            a.done = Frontier::starting_at(position);
            a.taken_at = Some(position);
        }
        self.set_position(cx, partition, Some(position));
    }

    fn assigned_mut(&mut self, partition: PartitionId) -> Option<&mut Assigned> {
        self.assigned.iter_mut().find(|a| a.partition == partition)
    }

    // ---------------------------------------------------------------- events

    /// A record's processing attempt ended (model.md §3, §4): it completed, or it threw
    /// (§12; decided now, see `Failures`).
    pub(crate) fn record_done<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        offset: u64,
        worker: Option<u32>,
        incarnation: u32,
    ) {
        if incarnation != self.incarnation || self.life == Life::Down {
            return;
        }
        // The common case without the step machine (the same steps as `resume` would take
        // through `Pc::AfterRecord` and `Pc::Process`; tested against it in `lib.rs`).
        if let (true, Pc::AfterRecord { partition, from, offset: o, end }) = (self.fast_path, self.pc) {
            if o == offset
                && offset + 1 < end
                && matches!(self.life, Life::Running)
                && !self.record_failed
                && !self.hung(cx.now_us)
            {
                world.complete_run(cx, self.id, partition, offset, self.batch_handed_over);
                // A group member may have lost the partition since its poll (it stays in the batch).
                if let Some(a) = self.assigned_mut(partition) {
                    a.done.restart_at(offset + 1);
                }
                self.failed_attempts = 0;
                self.unacked_tail = 0;
                self.records_since_commit += 1;
                let next = offset + 1;
                let every_us = world.durations.of(cx.s, partition, next);
                let done_at = cx.now_us + every_us;
                // Records next..end - 1 before the batch's last: one event at the last.
                let records = end - 1 - next;
                if records > 0 && self.may_batch(cx.s, world, partition, records) {
                    let handed_over = self.batch_handed_over;
                    let batch =
                        Batch { partition, from, end, next, next_at_us: done_at, every_us, handed_over };
                    return self.open_batch(cx, world, batch);
                }
                let event =
                    Event::RecordDone { member: self.id, partition, offset: next, worker: None, incarnation };
                cx.schedule(done_at, Phase::Loop, self.id, event);
                self.pc = Pc::AfterRecord { partition, from, offset: next, end };
                return;
            }
        }
        self.record_done_slow(cx, world, partition, offset, worker, incarnation);
    }

    /// Whether the fast path's next `records` records on `partition` may be a batch: every
    /// record as long as the last, no other batch there, the event budget far from its end,
    /// and no restart offset that follows the log end (the recorder reads those every
    /// instant, model.md §8.9).
    fn may_batch(&self, s: &Scenario, world: &World, partition: PartitionId, records: u64) -> bool {
        world.batches.may_open(partition, records)
            && world.durations.constant()
            && (s.auto_offset_reset != crate::scenario::OffsetReset::Latest
                || (s.log_start_offset == 0 && world.coordinator.all_committed()))
    }

    /// Runs `batch` as one loop event at its last record (the records before it are settled
    /// when observed, [`Member::settle`]).
    fn open_batch<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, batch: Batch) {
        let Batch { partition, from, end, next, next_at_us, every_us, .. } = batch;
        let records = end - 1 - next;
        self.batch = Some(batch);
        world.batches.owner[partition as usize] = Some(self.id);
        world.batches.pending += 1;
        world.batches.reserved += records;
        cx.batch_pending(partition, Some((next_at_us, self.loop_key())));
        let last = end - 1;
        let event = Event::RecordDone {
            member: self.id,
            partition,
            offset: last,
            worker: None,
            incarnation: self.incarnation,
        };
        cx.schedule(next_at_us + records * every_us, Phase::Loop, self.id, event);
        self.pc = Pc::AfterRecord { partition, from, offset: last, end };
    }

    /// After an event that observed the member: its records in hand go on as a batch again
    /// if the event left its loop waiting for the next one as the fast path would run it.
    pub(super) fn rebatch<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let Pc::AfterRecord { partition, from, offset, end } = self.pc else { return };
        let records = end.saturating_sub(offset + 1);
        if !self.fast_path
            || self.batch.is_some()
            || records == 0
            || self.life != Life::Running
            || self.record_failed
            || self.hung(cx.now_us)
        {
            return;
        }
        let pending = Event::RecordDone {
            member: self.id,
            partition,
            offset,
            worker: None,
            incarnation: self.incarnation,
        };
        let Some((at_us, event)) = cx.queue.loop_pending(self.id) else { return };
        if event != pending || !self.may_batch(cx.s, world, partition, records) {
            return;
        }
        let every_us = world.durations.of(cx.s, partition, offset + 1);
        let handed_over = self.batch_handed_over;
        let batch = Batch { partition, from, end, next: offset, next_at_us: at_us, every_us, handed_over };
        self.open_batch(cx, world, batch);
    }

    /// The key of the member's loop events ([`EventKey`]).
    fn loop_key(&self) -> EventKey {
        event_key(Phase::Loop as u8, self.id)
    }

    /// Settles the member's batch as of the event of key `key` at the current instant:
    /// each record whose loop event comes before it completes, as the fast path of
    /// [`Member::record_done`] would have completed it. With `unbatch` the rest goes back to
    /// one loop event per record (the member is about to be observed: its state may change).
    pub(super) fn settle<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        key: EventKey,
        unbatch: bool,
    ) {
        let Some(mut b) = self.batch else { return };
        let loop_key = self.loop_key();
        let last = b.end - 2;
        let mut done = 0;
        while b.next <= last && (b.next_at_us < cx.now_us || (b.next_at_us == cx.now_us && loop_key < key)) {
            let at = (b.next_at_us, loop_key, b.every_us);
            world.complete_settled_run(cx, at, self.id, b.partition, b.next, b.handed_over);
            b.next += 1;
            b.next_at_us += b.every_us;
            done += 1;
        }
        if done > 0 {
            // A group member may have lost the partition since its poll (it stays in the batch).
            if let Some(a) = self.assigned_mut(b.partition) {
                a.done.restart_at(b.next);
            }
            self.failed_attempts = 0;
            self.unacked_tail = 0;
            self.records_since_commit += done;
            world.batches.settled += done;
            world.batches.reserved -= done;
        }
        let left = last + 1 - b.next;
        if left > 0 && !unbatch {
            self.batch = Some(b);
            cx.batch_pending(b.partition, Some((b.next_at_us, loop_key)));
            return;
        }
        self.batch = None;
        world.batches.owner[b.partition as usize] = None;
        world.batches.pending -= 1;
        world.batches.reserved -= left;
        cx.batch_pending(b.partition, None);
        if left > 0 {
            let event = Event::RecordDone {
                member: self.id,
                partition: b.partition,
                offset: b.next,
                worker: None,
                incarnation: self.incarnation,
            };
            cx.schedule(b.next_at_us, Phase::Loop, self.id, event);
            self.pc = Pc::AfterRecord { partition: b.partition, from: b.from, offset: b.next, end: b.end };
        }
    }

    /// The partitions the member's events may report about: those it holds, those it gave up
    /// and still commits, the one of the batch in hand, and those an assignment it holds will
    /// give it (another member may still run records of them).
    pub(super) fn partitions_in_reach(&self) -> impl Iterator<Item = PartitionId> + '_ {
        #[cfg(feature = "group")]
        let to_take = self.group.iter().flat_map(|g| {
            g.pending_assignment
                .iter()
                .flatten()
                .chain(&g.assigning)
                .chain(g.reconciling.iter().flat_map(|(_, assign, _)| assign))
                .copied()
        });
        #[cfg(not(feature = "group"))]
        let to_take = std::iter::empty();
        let (in_hand, resume) = (self.pc.batch_partition(), self.resume_pc.batch_partition());
        self.assigned
            .iter()
            .map(|a| a.partition)
            .chain(self.revoked_kept.iter().map(|a| a.partition))
            .chain(in_hand)
            .chain(resume)
            .chain(to_take)
    }

    /// [`Member::record_done`] for everything but the fast path.
    #[inline(never)]
    fn record_done_slow<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        offset: u64,
        worker: Option<u32>,
        incarnation: u32,
    ) {
        if worker.is_none() {
            let event = Event::RecordDone { member: self.id, partition, offset, worker, incarnation };
            if self.deferred_by_hang(cx, event) {
                return;
            }
        }
        // After close() (or while closing without draining) records in progress never land.
        let draining = matches!(self.life, Life::Closing { .. }) && cx.s.drain_pool_on_close;
        if self.life != Life::Running && !(draining && worker.is_some()) {
            return;
        }
        let fails = world.failures.attempt_fails(cx.s, offset);
        match worker {
            Some(worker) => self.pool_record_done(cx, world, worker, partition, offset, fails),
            None => {
                if fails {
                    self.record_failed = true;
                } else {
                    self.complete(cx, world, partition, offset, self.batch_handed_over);
                    if let Some(a) = self.assigned_mut(partition) {
                        a.done.restart_at(offset + 1);
                    }
                }
                self.resume(cx, world)
            }
        }
    }

    /// A run of `offset` completed: its side effect lands now, or — in a transaction read
    /// `read_committed` — when the transaction commits (model.md §8.8).
    fn complete<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        offset: u64,
        handed_over: u32,
    ) {
        let visible_now = self.strategy != Strategy::Transactional
            || cx.s.isolation_level == IsolationLevel::ReadUncommitted;
        if visible_now {
            world.complete_run(cx, self.id, partition, offset, handed_over);
        } else {
            self.mark(cx, partition, MarkKind::RecordProcessed { offset });
        }
    }

    /// The loop's own wake-up.
    pub(crate) fn wake<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, incarnation: u32) {
        if incarnation == self.incarnation && self.life == Life::Running {
            if self.deferred_by_hang(cx, Event::LoopWake { member: self.id, incarnation }) {
                return;
            }
            self.resume(cx, world);
        }
    }

    /// Ends the run: reports a wait on a commit still in progress, and the script step running.
    pub(crate) fn finish<S: Sink>(&mut self, cx: &mut Cx<S>, stop_us: u64) {
        if let Some(since_us) = self.blocked_since_us.take() {
            cx.emit(Output::Unblocked { member: self.id, since_us, until_us: stop_us });
        }
        self.end_script_step(cx);
    }

    // ---------------------------------------------------------------- commits

    /// What a manual commit of "next offset `next`" sends (model.md §8.5).
    fn manual_value(s: &crate::Scenario, next: u64) -> u64 {
        match s.commit_value {
            CommitValue::NextOffset => next,
            CommitValue::RecordOffset => next.saturating_sub(1),
        }
    }

    /// The positions of every assigned partition that has one (`SubscriptionState.allConsumed`).
    pub(super) fn positions(&self) -> Vec<(PartitionId, u64)> {
        self.assigned.iter().filter_map(|a| a.position.map(|p| (a.partition, p))).collect()
    }

    /// model.md §8.8: callbacks of completed async commits run on the application thread at
    /// the start of the next `poll()`, `commitAsync()` or `commitSync()`, for responses that
    /// have arrived (Java `ConsumerCoordinator.invokeCompletedOffsetCommitCallbacks`, called
    /// first by `poll`, `commitOffsetsAsync` and `commitOffsetsSync`). A failed auto-commit's
    /// callback resets the timer to now + `retry.backoff.ms`
    /// (`autoCommitOffsetsAsync`: `nextAutoCommitTimer.updateAndReset(retryBackoffMs)`); with
    /// `retry_async_in_callback` the application re-sends a failed `commitAsync` — unless
    /// the member was evicted since, when the retry would fail too.
    fn run_callbacks<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        for commit in std::mem::take(&mut self.callbacks) {
            match world.commits.get(commit).kind {
                CommitKind::AutoInPoll => self.auto_commit_deadline_us = cx.now_us + cx.s.retry_backoff_us,
                CommitKind::Async if self.in_group => {
                    let offsets = world.commits.offsets(commit).to_vec();
                    self.send_commit(cx, world, CommitKind::Async, offsets);
                }
                _ => {}
            }
        }
    }

    /// Starts a commit of `offsets`. Returns false when nothing was sent: no offsets (Java
    /// sends no request for an empty map), or a member evicted from the group, whose commit
    /// fails at once with CommitFailedException (model.md §8.7; Java
    /// `ConsumerCoordinator.sendOffsetCommitRequest` with no generation).
    #[inline(never)] // off the per-record path
    pub(super) fn send_commit<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        kind: CommitKind,
        offsets: Vec<(PartitionId, u64)>,
    ) -> bool {
        if matches!(kind, CommitKind::Sync | CommitKind::Async | CommitKind::Woken) {
            self.run_callbacks(cx, world);
        }
        if offsets.is_empty() {
            return false;
        }
        let offsets = self.pool_commit_values(cx.s, kind, offsets);
        #[cfg(feature = "group")]
        if cx.s.client == Client::KafkaGo
            && self.group.as_ref().is_some_and(|g| g.join.awaits_sync_response())
        {
            // kafka-go between generations: `CommitMessages` queues the request on `r.commits`
            // and waits until the next generation's `commitLoopImmediate` sends it (model.md
            // §8.14); sent in `kafka_go_subscribe`.
            self.g().parked = Some((kind, offsets));
            self.blocked_since_us = Some(cx.now_us);
            self.resume_pc = self.pc;
            self.pc = Pc::Blocked;
            return true;
        }
        let reason = if !self.in_group {
            Some(CommitFailure::Evicted)
        } else if self.group.as_ref().is_some_and(|g| g.join.awaits_sync_response())
            && cx.s.client.is_java()
            && !cx.s.consumer_protocol()
        {
            // JoinGroup sent, SyncGroup response not yet read: not STABLE, so
            // `ConsumerCoordinator.sendOffsetCommitRequest` (`generationIfStable()` null) fails
            // the commit with RebalanceInProgressException and sends nothing (model.md §10.5).
            // librdkafka sends it with the generation it has (`rd_kafka_cgrp_offsets_commit`).
            Some(CommitFailure::RebalanceInProgress)
        } else {
            None
        };
        if let Some(reason) = reason {
            for &(partition, offset) in &offsets {
                self.mark(cx, partition, MarkKind::CommitFailed { offset, reason });
            }
            #[cfg(feature = "group")] // the pages' core without groups has no join round
            if reason == CommitFailure::RebalanceInProgress
                && matches!(kind, CommitKind::Sync | CommitKind::Async | CommitKind::Woken)
                && self.g().join == Join::Responded
            {
                // The failed call still passes through the network client once
                // (`ConsumerCoordinator.commitOffsetsSync` → `client.poll(future, timer)`,
                // `commitOffsetsAsync` → `client.pollNoWakeup()`): it reads the waiting JoinGroup
                // response, whose handler sends SyncGroup (model.md §10.5).
                self.send_sync(cx);
            }
            if let CommitKind::Transaction { partition, .. } = kind {
                self.abort_transaction(cx, world, partition);
            }
            return false;
        }
        let generation = self.group.as_ref().map_or(world.coordinator.generation(), |g| g.generation);
        let id = world.commits.open(
            self.id,
            self.process,
            kind,
            offsets,
            cx.now_us,
            cx.s.retry_backoff_us,
            generation,
        );
        if let Some(script) = &mut self.script {
            script.unresolved.push(id);
        }
        if kind.blocks_loop() {
            self.blocked_since_us = Some(cx.now_us);
            self.resume_pc = self.pc;
            self.pc = Pc::Blocked;
        }
        self.dispatch_commit(cx, world, id);
        true
    }

    /// model.md §12: with a worker pool, `pool_commit` decides the value every commit
    /// carries, whoever sends it: what was handed out (unchanged), the highest offset handled
    /// plus one, or the lowest offset not yet handled. A transaction commits what it
    /// processed. With `commit_revoked_partitions` the application's own commits also carry
    /// the partitions it gave up (§10.5).
    fn pool_commit_values(
        &self,
        s: &Scenario,
        kind: CommitKind,
        mut offsets: Vec<(PartitionId, u64)>,
    ) -> Vec<(PartitionId, u64)> {
        if self.pool.threads() == 0 || matches!(kind, CommitKind::Transaction { .. }) {
            return offsets;
        }
        if s.pool_commit != PoolCommit::HandedOut {
            for (partition, offset) in &mut offsets {
                if let Some(a) = self.assigned.iter().find(|a| a.partition == *partition) {
                    *offset = Self::pool_value(s, a, *offset);
                }
            }
        }
        if s.commit_revoked_partitions
            && matches!(kind, CommitKind::Sync | CommitKind::Async | CommitKind::Close | CommitKind::Woken)
        {
            for a in &self.revoked_kept {
                if let (false, Some(position)) = (offsets.iter().any(|(p, _)| *p == a.partition), a.position)
                {
                    offsets.push((a.partition, Self::pool_value(s, a, Self::manual_value(s, position))));
                }
            }
        }
        offsets
    }

    /// What a pool's commit carries for `a`, whose handed-out value is `handed_out`.
    fn pool_value(s: &Scenario, a: &Assigned, handed_out: u64) -> u64 {
        let value = match s.pool_commit {
            PoolCommit::HandedOut => return handed_out,
            PoolCommit::HighestCompleted => a.done.highest_end(),
            _ => a.done.frontier(),
        };
        if s.client == Client::Sarama {
            Self::sarama_mark(s, value)
        } else {
            value
        }
    }

    /// Sends commit request `id` (first try or retry); whether it fails is decided now.
    fn dispatch_commit<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, id: CommitId) {
        let fails = world.commits.next_request_fails(cx.s);
        let blocking = world.commits.get(id).kind.blocks_loop();
        self.commits_in_flight += 1;
        for &(partition, offset) in world.commits.offsets(id) {
            cx.emit(Output::Mark {
                member: self.id,
                partition,
                kind: MarkKind::CommitSent { offset, blocking },
            });
        }
        cx.schedule(
            cx.now_us + cx.s.commit_latency_us,
            Phase::Completion,
            0,
            Event::CommitResponse { commit: id, fails },
        );
    }

    /// A failed synchronous commit's backoff ended: send it again.
    pub(crate) fn commit_retry<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, id: CommitId) {
        self.retries_pending -= 1;
        if self.life != Life::Down {
            #[cfg(feature = "group")]
            if self.group.as_ref().is_some_and(|g| g.before_rebalance == Some(id)) {
                self.retry_before_rebalance(cx, world, id);
                return;
            }
            self.dispatch_commit(cx, world, id);
        }
    }

    /// The response to commit `id` arrived: it lands (unless its generation was evicted), or
    /// it failed and is retried, handed to its callback, or given up (model.md §8.8).
    pub(crate) fn commit_response<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        id: CommitId,
        fails: bool,
    ) {
        let commit = world.commits.get(id).clone();
        // A crash before landing means the commit never happened.
        if self.life == Life::Down || commit.process != self.process {
            return;
        }
        self.commits_in_flight -= 1;
        let refused = world.coordinator.accepts(cx.s, self.id, self.process, commit.generation).err();
        let fenced = refused.is_some();
        let offsets = world.commits.offsets(id).to_vec();
        // Consumer protocol: a commit whose member epoch the broker refuses (model.md §10.6):
        // nothing lands, and the call fails with no retry.
        #[cfg(feature = "group")]
        let stale = !fails
            && !fenced
            && cx.s.consumer_protocol()
            && self.group.is_some()
            && world.coordinator.refuses_epoch(cx.s, self.id, self.process, commit.generation, &offsets);
        #[cfg(not(feature = "group"))]
        let stale = false;
        let refused = if stale { Some(CommitFailure::StaleMemberEpoch) } else { refused };
        let fenced = fenced || stale;
        if !fails && !fenced {
            // A landed OffsetCommit refreshes a classic member's session (model.md §10.4).
            world.coordinator.refresh(cx.s, self.id, self.process, cx.now_us);
            if let CommitKind::Transaction { partition, from, to } = commit.kind {
                if cx.s.isolation_level == IsolationLevel::ReadCommitted {
                    let handed_over = world.partitions[partition as usize].handovers;
                    for offset in from..to {
                        if !self.skipped_in_transaction.contains(&offset) {
                            world.complete_run(cx, self.id, partition, offset, handed_over);
                        }
                    }
                }
                self.skipped_in_transaction.clear();
            }
            for (partition, offset) in offsets {
                self.mark(cx, partition, MarkKind::CommitLanded { offset });
                world.coordinator.store(cx, partition, offset);
                if cx.s.client == Client::LibrdkafkaBefore1_9 {
                    self.own_committed.retain(|(p, _)| *p != partition);
                    self.own_committed.push((partition, offset));
                }
            }
            self.commit_done(cx, world, id);
            return;
        }
        let reason = refused.unwrap_or(CommitFailure::Retriable);
        for &(partition, offset) in &offsets {
            self.mark(cx, partition, MarkKind::CommitFailed { offset, reason });
        }
        #[cfg(feature = "group")]
        if stale
            && (self.schedule_before_rebalance_retry(cx, world, id)
                || self.rdk_defer_stale_commit(cx, world, id))
        {
            return;
        }
        let s = cx.s;
        let retry_at = cx.now_us + commit.next_backoff_us;
        match commit.kind {
            kind if kind.retried()
                && !fenced
                && retry_at.saturating_sub(commit.first_sent_us) < s.default_api_timeout_us =>
            {
                world.commits.get_mut(id).next_backoff_us =
                    (commit.next_backoff_us * 2).min(s.retry_backoff_max_us);
                self.retries_pending += 1;
                cx.schedule(retry_at, Phase::Completion, 0, Event::CommitRetry { commit: id });
            }
            CommitKind::Async if s.retry_async_in_callback && !fenced => {
                self.callbacks.push(id);
                self.commit_done(cx, world, id);
            }
            // A retriable failure only: CommitFailedException leaves the timer alone.
            CommitKind::AutoInPoll if !fenced => {
                self.callbacks.push(id);
                self.commit_done(cx, world, id);
            }
            CommitKind::Transaction { partition, .. } => {
                // TimeoutException or CommitFailedException: the transaction aborts.
                self.abort_transaction(cx, world, partition);
                self.commit_done(cx, world, id);
            }
            _ => self.commit_done(cx, world, id),
        }
    }

    /// A commit is settled (landed, or given up): unblock the loop, or let `close()` return.
    fn commit_done<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, id: CommitId) {
        world.commits.resolve(id);
        #[cfg(feature = "group")]
        if cx.s.client == Client::FranzGo {
            self.franz_commit_done(cx, world, id);
        }
        if let Some(script) = &mut self.script {
            script.unresolved.retain(|&c| c != id);
        }
        // A join waiting inside poll() for onJoinPrepare's commit goes on (model.md §10.5).
        if world.commits.get(id).kind == CommitKind::JoinPrepare && self.pc == Pc::Poll {
            self.wake_at(cx, cx.now_us);
        }
        // So does a KIP-848 reconciliation waiting for its commit (model.md §10.6).
        #[cfg(feature = "group")]
        if self.group.as_ref().is_some_and(|g| g.before_rebalance == Some(id)) {
            self.g().before_rebalance = None;
            if self.pc == Pc::Poll {
                self.wake_at(cx, cx.now_us);
            }
        }
        if world.commits.get(id).kind.blocks_loop() && self.pc == Pc::Blocked {
            if let Some(since_us) = self.blocked_since_us.take() {
                cx.emit(Output::Unblocked { member: self.id, since_us, until_us: cx.now_us });
            }
            self.pc = self.resume_pc;
            self.wake_at(cx, cx.now_us);
        }
        if matches!(self.life, Life::Closing { commit_sent: true, .. }) {
            self.try_finish_close(cx, world);
        } else if let Pc::ScriptAwaitCommits { .. } = self.pc {
            self.wake_at(cx, cx.now_us);
        }
    }

    /// The transaction aborted: its outputs are never visible to `read_committed` readers,
    /// and the application rewinds to the committed offset (`abortTransaction` + `seek`).
    fn abort_transaction<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, partition: PartitionId) {
        self.skipped_in_transaction.clear();
        let rewound_to = world.start_offset(cx.s, cx.now_us, partition);
        self.start_over(cx, partition, rewound_to);
        self.mark(cx, partition, MarkKind::TransactionAborted { rewound_to });
    }

    /// When the background auto-commit timer fires among an instant's events (model.md §8.1,
    /// §8.4): after the loop's poll, but for the Java consumer-protocol client before
    /// KAFKA-18641, whose timer starts at the assignment, before the first records
    /// (`MembershipManagerImpl` resets it on reconciliation): at an instant shared with a
    /// poll it is a hair ahead, and commits before the poll hands out records — measured with
    /// kafka-clients 3.9.2 (`tests/conformance/`, case kip848-pre-fix-defaults).
    fn background_phase(s: &Scenario) -> Phase {
        match s.client {
            crate::scenario::Client::JavaConsumerProtocolPreFix => Phase::Completion,
            _ => Phase::Background,
        }
    }

    /// kafka-clients 3.9's background auto-commit (model.md §8.4): the consumer network thread
    /// checks the timer only when it wakes — for an application event such as `poll()`, or to
    /// send a heartbeat, and at least every `MAX_POLL_TIMEOUT_MS` (5 s): `ConsumerNetworkThread.
    /// runOnce` waits the least of the request managers' poll results, and
    /// `CommitRequestManager.poll` asks for no wake-up of its own.
    fn pre_fix(s: &Scenario) -> bool {
        s.client == crate::scenario::Client::JavaConsumerProtocolPreFix
    }

    /// How often the background timer is looked at: every `auto.commit.interval.ms` (librdkafka's
    /// own timer), or at the pre-fix client's network-thread wake-ups without a poll.
    fn background_check_interval_us(s: &Scenario) -> u64 {
        const MAX_POLL_TIMEOUT_US: u64 = 5_000_000;
        if Self::pre_fix(s) {
            s.consumer_heartbeat_interval_us.min(MAX_POLL_TIMEOUT_US)
        } else {
            s.auto_commit_interval_us
        }
    }

    /// model.md §8.2 / §8.3: the background timer commits the position, or the stored offset.
    /// The pre-fix Java client's timer is due from the deadline on and commits at its network
    /// thread's next wake-up, then counts its interval from there
    /// (`CommitRequestManager.maybeAutoCommitAsync` → `resetAutoCommitTimer`).
    pub(crate) fn background_auto_commit<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        if cx.now_us != self.background_due_us {
            return; // a chain a later session's ticker replaced
        }
        self.background_due_us = cx.now_us + Self::background_check_interval_us(cx.s);
        cx.schedule(
            self.background_due_us,
            Self::background_phase(cx.s),
            self.id,
            Event::BackgroundAutoCommit { member: self.id },
        );
        if self.life != Life::Running || !self.in_group || self.rdk_rebalancing(cx.s) {
            return;
        }
        if Self::pre_fix(cx.s) {
            self.pre_fix_auto_commit(cx, world);
            return;
        }
        self.send_background_commit(cx, world);
    }

    /// librdkafka skips its timer's commit while the group rebalances — from the rejoin until
    /// the rebalance callback has run (`rd_kafka_cgrp_offset_commit_tmr_cb`: "Don't attempt
    /// auto commit when rebalancing", join state not STEADY; model.md §10.4).
    #[cfg(feature = "group")]
    fn rdk_rebalancing(&self, s: &Scenario) -> bool {
        // On the consumer protocol: a reconciliation under way (join state WAIT_UNASSIGN_CALL,
        // WAIT_INCR_UNASSIGN_TO_COMPLETE or WAIT_ASSIGN_CALL; model.md §10.6).
        s.client.is_librdkafka()
            && self.group.as_ref().is_some_and(|g| {
                g.join != Join::None || g.pending_assignment.is_some() || g.reconciling.is_some()
            })
    }

    #[cfg(not(feature = "group"))]
    fn rdk_rebalancing(&self, _: &Scenario) -> bool {
        false
    }

    /// The pre-fix client's network thread woke (a heartbeat, the 5 s bound, or the
    /// application's `poll()`): the timer commits if due.
    fn pre_fix_auto_commit<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        if self.strategy == Strategy::AutoCommitBackground && cx.now_us >= self.auto_commit_deadline_us {
            self.auto_commit_deadline_us = cx.now_us + cx.s.auto_commit_interval_us;
            self.send_background_commit(cx, world);
        }
    }

    /// The background timer's commit (and franz-go's revoke, model.md §8.14): nothing for a
    /// partition whose offset is unchanged. Returns whether a commit went out.
    fn send_background_commit<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> bool {
        let changed: Vec<_> = self
            .client_commit_offsets(cx.s, world)
            .into_iter()
            .filter(|&(p, offset)| world.coordinator.committed(p) != Some(offset))
            .collect();
        self.send_commit(cx, world, CommitKind::AutoBackground, changed)
    }

    /// What the client's own commits carry — the auto-commit timer's, a revocation's and
    /// `close()`'s (model.md §8.2, §8.3, §8.6, §10.5): the Java client commits every position
    /// (`SubscriptionState.allConsumed`); librdkafka the stored offsets (the position with
    /// `enable.auto.offset.store`, else what the application stored), and of those only the
    /// ones stored since it took the partition and past the committed offset
    /// (`rd_kafka_topic_partition_list_set_offsets`: stored > committed) — a partition it
    /// holds but never consumed is left out, so a new group keeps no offset there (§1); sarama
    /// its marks ([`Self::sarama_marks`]). The values are those a pool's `pool_commit` makes
    /// (§12).
    pub(super) fn client_commit_offsets(&self, s: &Scenario, world: &World) -> Vec<(PartitionId, u64)> {
        if s.client == Client::Sarama {
            return self.sarama_marks(s, world);
        }
        let offsets = match self.strategy {
            Strategy::StoreOffsetsAfterProcessing => self.stored_offsets(),
            _ if s.commits_resolved() => self.stored_offsets(),
            _ if s.commits_previous_polls() => self.heads.clone(),
            _ => self.positions(),
        };
        let mut offsets = self.pool_commit_values(s, CommitKind::AutoBackground, offsets);
        if s.client.is_librdkafka() {
            self.retain_stored_past_committed(world, &mut offsets);
        }
        offsets
    }

    /// What sarama's offset manager commits (model.md §8.14): each partition's highest mark,
    /// only when the application marked it since the member took the partition and above the
    /// committed offset (`offset_manager.go`: `partitionOffsetManager.MarkOffset` keeps a mark
    /// only above the offset it holds and sets `dirty`; `constructRequestFor` sends the dirty
    /// ones). `MarkMessage` marks offset + 1 of the records done in order, or, from a pool's
    /// workers, what `pool_commit` makes of them; a raw `MarkOffset(msg.Offset)` (`commit_value:
    /// record_offset`) marks one less (sarama#1287: raw marks of 1 and 3 commit 3).
    fn sarama_marks(&self, s: &Scenario, world: &World) -> Vec<(PartitionId, u64)> {
        let highest = self.pool.threads() > 0 && s.pool_commit == PoolCommit::HighestCompleted;
        self.assigned
            .iter()
            .filter(|a| a.position.is_some())
            .filter_map(|a| {
                let next = if highest { a.done.highest_end() } else { a.done.frontier() };
                if a.taken_at == Some(next) {
                    return None; // nothing marked since it took the partition
                }
                let mark = Self::sarama_mark(s, next);
                world
                    .coordinator
                    .committed(a.partition)
                    .is_none_or(|c| mark > c)
                    .then_some((a.partition, mark))
            })
            .collect()
    }

    /// The mark sarama's application sets for the records done up to `next`: `MarkMessage`
    /// marks `next` itself, a raw `MarkOffset(msg.Offset)` (`commit_value: record_offset`) one
    /// less (model.md §8.14).
    fn sarama_mark(s: &Scenario, next: u64) -> u64 {
        if s.commit_value == CommitValue::RecordOffset {
            next.saturating_sub(1)
        } else {
            next
        }
    }

    /// librdkafka commits, of the offsets it would send, only those stored since the member
    /// took the partition and past the committed offset
    /// (`rd_kafka_topic_partition_list_set_offsets`, `is_commit`): its timer, its revocation
    /// and `close()`, and the application's `commit()` without offsets (model.md §8.3).
    ///
    /// Before 1.9.0 (`librdkafka_before_1_9`, model.md §8.14) a partition that came back
    /// before the member stored anew carries the stale stored offset instead, sent when it is
    /// above the offset the member's own commits last landed there (`rktp_committed_offset`),
    /// whatever other members committed meanwhile: the committed offset moves back.
    fn retain_stored_past_committed(&self, world: &World, offsets: &mut Vec<(PartitionId, u64)>) {
        offsets.retain_mut(|(p, offset)| {
            let Some(a) = self.assigned.iter().find(|a| a.partition == *p) else { return false };
            if a.taken_at == Some(*offset) {
                let Some(stale) = a.stale_store else { return false };
                *offset = stale;
                return self.own_committed(*p).is_none_or(|c| stale > c);
            }
            world.coordinator.committed(*p).is_none_or(|c| *offset > c)
        });
    }

    /// The offset the member's own commits last landed on `partition`.
    fn own_committed(&self, partition: PartitionId) -> Option<u64> {
        self.own_committed.iter().find(|(p, _)| *p == partition).map(|&(_, o)| o)
    }

    /// The offsets the application has stored: below them, everything is handled (in a
    /// pool, the lowest offset not yet handled).
    fn stored_offsets(&self) -> Vec<(PartitionId, u64)> {
        self.assigned
            .iter()
            .filter(|a| a.position.is_some())
            .map(|a| (a.partition, a.done.frontier()))
            .collect()
    }

    /// model.md §8.7: the member leaves the group at last poll + `max.poll.interval.ms`.
    pub(crate) fn check_poll_interval<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        self.poll_check_pending = false;
        if self.life == Life::Down || !self.in_group {
            return;
        }
        // A loop blocked inside `poll()` on its join round is polling: Java's heartbeat thread,
        // which would leave the group, is disabled from the JoinGroup to its response
        // (`AbstractCoordinator.disableHeartbeatThread`), and librdkafka does not check the
        // interval while the application is blocked in a poll (`rd_kafka_app_poll_blocking`).
        #[cfg(feature = "group")]
        let in_join = self.pc == Pc::Poll
            && self
                .group
                .as_ref()
                .is_some_and(|g| matches!(g.join, Join::MemberIdRequired | Join::Joining | Join::Syncing));
        #[cfg(not(feature = "group"))]
        let in_join = false;
        let deadline = if in_join {
            cx.now_us + cx.s.max_poll_interval_us
        } else {
            self.last_poll_us + cx.s.max_poll_interval_us
        };
        if cx.now_us < deadline {
            self.poll_check_pending = true;
            cx.schedule(deadline, Phase::Background, self.id, Event::PollIntervalCheck { member: self.id });
            return;
        }
        self.in_group = false;
        for a in &self.assigned {
            cx.emit(Output::Mark { member: self.id, partition: a.partition, kind: MarkKind::Evicted });
        }
        if self.group.is_some() {
            self.evicted_from_group(cx, world);
        } else {
            world.coordinator.evict();
        }
    }

    // ---------------------------------------------------------------- poll

    /// `poll()`: commit callbacks (model.md §8.8), rejoin if evicted (§8.7: resume from the
    /// committed offset), the auto-commit check at entry (Java `ConsumerCoordinator.poll` →
    /// `maybeAutoCommitOffsetsAsync`: `isExpired` is `now >= deadline`, reset from now), then
    /// up to `max.poll.records` records of the partition in turn (model.md §10.1: it keeps
    /// its turn while its fetched chunk lasts and it has records, then the next partition
    /// with records has it). Returns the partition and the batch `from..to` (empty at the log
    /// end).
    fn poll<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<(PartitionId, u64, u64)> {
        let s = cx.s;
        self.run_callbacks(cx, world);
        if !self.in_group && self.group.is_none() {
            self.in_group = true;
            for i in 0..self.assigned.len() {
                let partition = self.assigned[i].partition;
                let position = world.start_offset(s, cx.now_us, partition);
                self.start_over(cx, partition, position);
                self.mark(cx, partition, MarkKind::Rejoined { position });
            }
        }
        // A classic member inside its join round skips it: `ConsumerCoordinator.poll` returns
        // before `maybeAutoCommitOffsetsAsync` while `ensureActiveGroup` has not completed
        // (model.md §10.5).
        let rejoining = self.group.as_ref().is_some_and(|g| g.join != Join::None) && !s.consumer_protocol();
        // (`auto_commit_late`, a test-only broken rule: the timer read at the previous poll.)
        let read_at = if crate::broken::on("auto_commit_late") { self.last_poll_us } else { cx.now_us };
        // kafka-clients 4.3 checks the timer in the poll's `AsyncPollEvent` only (§10.6).
        if self.group.is_none() {
            self.submit_poll_event(s, cx.now_us);
        }
        let no_event = !self.poll_event;
        let due =
            self.strategy == Strategy::AutoCommit && read_at >= self.auto_commit_deadline_us && !rejoining;
        if due && no_event {
            self.mark(cx, 0, MarkKind::PollEventSkipped);
        } else if due {
            self.auto_commit_deadline_us = cx.now_us + s.auto_commit_interval_us;
            let positions = self.positions();
            self.send_commit(cx, world, CommitKind::AutoInPoll, positions);
        }
        if Self::pre_fix(s) && self.in_group {
            // The poll's event wakes the network thread, which checks the timer before this
            // poll hands out its records (model.md §8.4).
            self.pre_fix_auto_commit(cx, world);
        }
        self.last_poll_us = cx.now_us;
        if !self.poll_check_pending && s.client.has_max_poll_interval() {
            self.poll_check_pending = true;
            cx.schedule(
                cx.now_us + s.max_poll_interval_us,
                Phase::Background,
                self.id,
                Event::PollIntervalCheck { member: self.id },
            );
        }
        if s.commits_previous_polls() {
            let positions = self.assigned.iter().filter_map(|a| Some((a.partition, a.position?)));
            super::clients::set_heads(&mut self.heads, positions);
        }
        let index = self.partition_in_turn(s, cx.now_us)?;
        let (partition, position) = (self.assigned[index].partition, self.assigned[index].position);
        // A new group's first poll resolves where to start (model.md §8.9).
        let from = match position {
            Some(position) => position,
            None => {
                let start = world.start_offset(s, cx.now_us, partition);
                self.assigned[index].done = Frontier::starting_at(start);
                self.assigned[index].taken_at = Some(start);
                start
            }
        };
        let to = if !self.fetched(cx.now_us) {
            from // an idle librdkafka fetcher has fetched nothing (model.md §10.4)
        } else {
            (from + self.poll_size(s, index, cx.now_us)).min(s.log_end_at(cx.now_us).max(from))
        };
        if s.commits_previous_polls() && to > from {
            super::clients::add_head(&mut self.heads, partition, from);
        }
        if let Some(left) = self.chunk_left {
            let n = to - from;
            self.chunk_held = n > 0 && n == left && n == s.records_per_poll();
            self.chunk_left = Some(left.saturating_sub(n));
        }
        if position != Some(to) {
            self.set_position(cx, partition, Some(to));
        }
        self.mark(cx, partition, MarkKind::Poll { from, records: (to - from) as u32 });
        Some((partition, from, to))
    }

    /// How many records a poll of `assigned[index]` may return (model.md §10.1): `max.poll.records`;
    /// a Java member with no other partition to read stops at its chunk's end (the fetcher
    /// fetches no partition still buffered, so nothing else is in the buffer: `FetchCollector`
    /// returns what it has).
    fn poll_size(&self, s: &Scenario, index: usize, now_us: u64) -> u64 {
        let n = s.records_per_poll();
        let log_end = s.log_end_at(now_us);
        let alone = self.assigned.iter().enumerate().all(|(i, a)| i == index || !a.has_records(log_end));
        match self.chunk_left {
            Some(left) if s.client.is_java() && alone && left > 0 => n.min(left),
            _ => n,
        }
    }

    /// The index in `assigned` of the partition this `poll()` serves (model.md §10.1), passing
    /// over those the error handler stopped (§12): the one in turn while its chunk lasts and
    /// it has records; else the next with records, in partition order (after an eager round,
    /// the fetch session's), with a new chunk up to the end of the
    /// [`Scenario::fetch_chunk_records`]-sized batch its position falls in (Java
    /// `FetchCollector` drains the fetched chunk of one
    /// partition before the next, and `AbstractFetch` fetches no partition still buffered);
    /// else, every partition at its log end, the next one, for an empty poll. `None` when
    /// every partition is stopped or none is assigned.
    fn partition_in_turn(&mut self, s: &Scenario, now_us: u64) -> Option<usize> {
        let log_end = s.log_end_at(now_us);
        let fetched = self.fetched(now_us);
        let has_records = |a: &Assigned| fetched && a.has_records(log_end);
        let count = self.assigned.len();
        if self.chunk_left.is_some_and(|left| left > 0)
            && self.assigned.get(self.turn).is_some_and(has_records)
        {
            return Some(self.turn);
        }
        // The fetch session's order after an eager round (model.md §10.1), else partition order.
        let session = count > 0 && self.fetch_order.len() == count;
        let position_of = |i: usize| self.fetch_order.iter().position(|&p| p == self.assigned[i].partition);
        let first = if session { position_of(self.turn).unwrap_or(0) } else { self.turn }
            + usize::from(self.chunk_left.is_some());
        let nth = |k: usize| {
            let k = (first + k) % count;
            if session {
                let p = self.fetch_order[k];
                self.assigned.iter().position(|a| a.partition == p).unwrap_or(k)
            } else {
                k
            }
        };
        let order = (0..count).map(nth);
        let (index, chunk) = match order.clone().find(|&i| has_records(&self.assigned[i])) {
            Some(i) => {
                // A fetch returns whole batches: from a position inside one, the chunk runs to
                // the end of the chunk-sized batch it falls in (model.md §10.1).
                let chunk = s.fetch_chunk_records();
                let partition = self.assigned[i].partition;
                match self.fetch_queue.iter().position(|&p| p == partition) {
                    Some(k) => {
                        self.fetch_queue.remove(k);
                    }
                    None => {
                        self.fetch_queue = (self.assigned.iter())
                            .filter(|a| a.partition != partition && has_records(a))
                            .map(|a| a.partition)
                            .collect();
                    }
                }
                (i, chunk - self.assigned[i].position.unwrap_or(0) % chunk)
            }
            None => (order.into_iter().find(|&i| !self.assigned[i].stopped)?, 0),
        };
        self.turn = index;
        self.chunk_left = Some(chunk);
        Some(index)
    }

    /// kafka-clients 4.3 (model.md §10.6): whether this `poll()` submits an `AsyncPollEvent` —
    /// only such a poll starts a reconciliation and checks the auto-commit timer. One that
    /// finds the previous poll's event still held, complete, and another completed fetch in the
    /// buffer submits none (`AsyncKafkaConsumer.maybeClearPreviousInflightPoll`); a consumer
    /// alone on its partition is a group member as well.
    fn submit_poll_event(&mut self, s: &Scenario, now_us: u64) {
        if s.client.is_kip848_4x() {
            let keeps = self.poll_event && self.has_records(s, now_us) && self.completed_fetch_queued();
            self.poll_event = !keeps;
        }
    }

    /// kafka-clients 4.3, for a member with records to hand out: whether the fetch buffer holds
    /// a completed fetch it has not started on (`FetchBuffer.isEmpty` looks at those only): a
    /// chunk fetched with the one in hand and waiting behind it — a paused partition's too,
    /// until it is dropped — or, the chunk in hand drained by a poll that read past its end, the
    /// next fetch's (its prefetch went out). Not when the chunk in hand ran out exactly at the
    /// end of a full poll ([`Member::buffer_empty`]).
    fn completed_fetch_queued(&self) -> bool {
        let held = |p: &PartitionId| self.assigned.iter().any(|a| a.partition == *p && !a.stopped);
        self.fetch_queue.iter().any(held)
            || match self.chunk_left {
                None => true,
                Some(left) => left == 0 && !self.chunk_held,
            }
    }

    /// kafka-clients 4.3 (model.md §10.6): this `poll()` finds its fetch buffer empty and waits
    /// for a fetch — the chunk in hand ran out exactly at the end of the last full poll (it
    /// still counts as buffered, so no prefetch went out) and no other completed fetch waits
    /// behind it (`AsyncKafkaConsumer.pollForFetches`).
    fn buffer_empty(&self) -> bool {
        self.chunk_held && self.chunk_left == Some(0) && !self.completed_fetch_queued()
    }

    /// Whether a `poll()` now would return records: an assigned partition, not stopped,
    /// below its log end.
    pub(super) fn has_records(&self, s: &Scenario, now_us: u64) -> bool {
        let log_end = s.log_end_at(now_us);
        self.fetched(now_us) && self.assigned.iter().any(|a| a.has_records(log_end))
    }

    /// Whether the fetcher has brought records by `now_us`: not while an idle librdkafka
    /// fetcher has yet to see its resumed partitions (model.md §10.4).
    fn fetched(&self, now_us: u64) -> bool {
        now_us >= self.fetch_idle_until_us
    }

    // ---------------------------------------------------------------- the loop

    /// Runs the loop from its program counter until it has to wait for an event.
    fn resume<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        while let Flow::Next = self.step(cx, world) {}
    }

    /// One step of the loop.
    #[inline(always)]
    fn step<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Flow {
        match self.pc {
            Pc::Blocked | Pc::Stopped => Flow::Wait,
            Pc::Draining { until_us } => self.drain_step(cx, world, until_us),
            Pc::ScriptAwaitCommits { step } => {
                if self.script.as_ref().is_some_and(|s| !s.unresolved.is_empty()) {
                    return Flow::Wait;
                }
                self.pc = Pc::Script { step };
                Flow::Next
            }
            Pc::Poll | Pc::WaitingForRoom => self.step_poll(cx, world),
            Pc::Process { partition, from, next, end } => {
                // The loop thread runs the record itself: its completion is the loop's next
                // step, scheduled in the loop's phase (after pool records and commit responses
                // of the same instant, with which it commutes).
                let every_us = world.durations.of(cx.s, partition, next);
                let done_at = cx.now_us + every_us;
                // In the fast path, the records before the batch's last as one event: each
                // would go on as `record_done`'s fast path takes it.
                let records = end.saturating_sub(next + 1);
                if self.fast_path
                    && records > 0
                    && self.life == Life::Running
                    && !self.record_failed
                    && !self.hung(cx.now_us)
                    && self.may_batch(cx.s, world, partition, records)
                {
                    let handed_over = self.batch_handed_over;
                    let batch =
                        Batch { partition, from, end, next, next_at_us: done_at, every_us, handed_over };
                    self.open_batch(cx, world, batch);
                    return Flow::Wait;
                }
                cx.schedule(
                    done_at,
                    Phase::Loop,
                    self.id,
                    Event::RecordDone {
                        member: self.id,
                        partition,
                        offset: next,
                        worker: None,
                        incarnation: self.incarnation,
                    },
                );
                self.pc = Pc::AfterRecord { partition, from, offset: next, end };
                Flow::Wait
            }
            Pc::AfterRecord { partition, from, offset, end } => {
                self.step_after_record(cx, world, partition, from, offset, end)
            }
            Pc::AfterBatch { partition, from, to } => self.step_after_batch(cx, world, partition, from, to),
            Pc::CommitHandedOff { partition, next, end } => {
                if next >= end {
                    self.pc = Pc::Poll;
                    return Flow::Next;
                }
                self.pc = Pc::CommitHandedOff { partition, next: next + 1, end };
                let value = Self::manual_value(cx.s, next + 1);
                self.blocking_commit(cx, world, CommitKind::Sync, vec![(partition, value)])
            }
            Pc::RetryBackOff { partition, from, end, poll_us, resume_us } => {
                self.retry_back_off(cx, world, partition, from, end, poll_us, resume_us)
            }
            Pc::Script { step } => self.run_script_step(cx, world, step),
            Pc::ScriptProcess { step, left } => {
                let (partition, position, next) =
                    (self.assigned[0].partition, self.assigned[0].position, self.assigned[0].done.frontier());
                if left == 0 || position.is_none_or(|p| next >= p) {
                    self.pc = Pc::Script { step: step + 1 };
                    return Flow::Next;
                }
                let done_at = cx.now_us + world.durations.of(cx.s, partition, next);
                cx.schedule(
                    done_at,
                    Phase::Loop,
                    self.id,
                    Event::RecordDone {
                        member: self.id,
                        partition,
                        offset: next,
                        worker: None,
                        incarnation: self.incarnation,
                    },
                );
                self.pc = Pc::ScriptProcess { step, left: left - 1 };
                Flow::Wait
            }
        }
    }

    /// A blocking commit: the loop waits for it if it was sent, goes on if not.
    #[inline(never)] // off the per-record path
    fn blocking_commit<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        kind: CommitKind,
        offsets: Vec<(PartitionId, u64)>,
    ) -> Flow {
        if self.send_commit(cx, world, kind, offsets) {
            Flow::Wait
        } else {
            Flow::Next
        }
    }

    #[inline(never)] // off the per-record path
    fn step_poll<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Flow {
        let s = cx.s;
        if s.worker_pool && self.pool.in_flight() >= s.pool_max_in_flight_batches {
            self.pc = Pc::WaitingForRoom;
            return Flow::Wait;
        }
        self.pc = Pc::Poll;
        if let Some(flow) = self.group_poll(cx, world) {
            // Inside poll(), waiting for the group: not "between polls" (model.md §8.7).
            self.last_poll_us = cx.now_us;
            return flow;
        }
        let handed_out = self.poll(cx, world);
        #[cfg(feature = "group")]
        self.reconcile_after_hand_out(cx, world);
        match handed_out {
            Some((partition, from, to)) if from < to => {
                let handed_over = world.partitions[partition as usize].handovers;
                self.batch_handed_over = handed_over;
                if s.worker_pool {
                    self.submit(cx, world, partition, from, to, handed_over);
                    self.pc = Pc::AfterBatch { partition, from, to };
                } else {
                    self.unacked_tail = 0;
                    self.pc = Pc::Process { partition, from, next: from, end: to };
                    if self.strategy == Strategy::ReadMessage {
                        // kafka-go's ReadMessage commits before it returns (model.md §8.14).
                        return self.commit_sync(cx, world, vec![(partition, to)]);
                    }
                }
                Flow::Next
            }
            // Nothing to hand out: poll() waits fetch.max.wait.ms and the loop goes round.
            // Spring COUNT (3.1+, `pollAndInvoke`) first commits what is pending.
            _ => {
                if self.strategy == Strategy::CommitSyncCount
                    && s.spring_ack_check == AckCheck::AfterRecord
                    && !s.worker_pool
                    && self.records_since_commit > 0
                {
                    self.records_since_commit = 0;
                    self.last_ack_commit_us = cx.now_us;
                    let values: Vec<_> =
                        self.positions().into_iter().map(|(p, o)| (p, Self::manual_value(s, o))).collect();
                    if self.send_commit(cx, world, CommitKind::Sync, values) {
                        return Flow::Wait;
                    }
                }
                // An idle librdkafka fetcher's records arrive when it wakes (model.md §10.4).
                let mut at_us = cx.now_us + s.fetch_max_wait_us;
                if !self.fetched(cx.now_us) {
                    at_us = at_us.min(self.fetch_idle_until_us);
                }
                self.wake_at(cx, at_us);
                Flow::Wait
            }
        }
    }

    fn step_after_record<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        from: u64,
        offset: u64,
        end: u64,
    ) -> Flow {
        let s = cx.s;
        let failed = std::mem::take(&mut self.record_failed);
        if failed {
            if s.on_error == OnError::RetryBatch {
                return self.retry_batch(cx, world, partition, from, offset, end);
            }
            if let Some(flow) = self.on_error(cx, world, partition, offset) {
                return flow;
            }
        } else {
            self.failed_attempts = 0;
            self.unacked_tail = 0;
        }
        self.pc = if offset + 1 < end {
            Pc::Process { partition, from, next: offset + 1, end }
        } else {
            Pc::AfterBatch { partition, from, to: end }
        };
        self.kafkajs_heartbeat_after_message(cx, world, partition, from, offset);
        // Per-record strategies commit between records.
        self.records_since_commit += 1;
        let after_record = s.spring_ack_check == AckCheck::AfterRecord;
        let commit = match self.strategy {
            Strategy::CommitSyncRecord => !failed || s.ack_on_error,
            Strategy::CommitSyncEveryN => self.records_since_commit >= s.commit_every_records as u64,
            Strategy::CommitSyncCount => {
                after_record && self.records_since_commit >= s.commit_every_records as u64
            }
            Strategy::CommitSyncTime => after_record && self.ack_time_elapsed(s, cx.now_us),
            _ => false,
        };
        if !commit {
            return Flow::Next;
        }
        self.records_since_commit = 0;
        self.last_ack_commit_us = cx.now_us;
        let value = Self::manual_value(s, (offset + 1).saturating_sub(self.unacked_tail));
        self.commit_sync(cx, world, vec![(partition, value)])
    }

    /// The loop's `commitSync(offsets)`: it waits for the outcome — unless a `wakeup()` is
    /// pending (model.md §10.3): the commit is sent all the same (it lands one round trip
    /// later), the call throws WakeupException, and `close()` begins, which leaves the group
    /// only once that commit has landed (Java `ConsumerNetworkClient.poll` sends before
    /// `maybeTriggerWakeup`; `AbstractCoordinator.close` → `awaitPendingRequests`).
    fn commit_sync<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        offsets: Vec<(PartitionId, u64)>,
    ) -> Flow {
        if self.group.as_ref().is_some_and(|g| g.wakeup) {
            self.send_commit(cx, world, CommitKind::Woken, offsets);
            self.woken(cx, world);
            return Flow::Wait;
        }
        self.blocking_commit(cx, world, CommitKind::Sync, offsets)
    }

    /// Spring `AckMode.TIME` (`timedAcks`): more than `commit_every_ms` since the last commit.
    fn ack_time_elapsed(&self, s: &Scenario, now_us: u64) -> bool {
        now_us - self.last_ack_commit_us > s.commit_every_us
    }

    /// model.md §12: the loop's record `offset` threw. `on_error` decides: try again after a
    /// backoff (`retry`), commit what is before it and seek back to it (`seek_to_failed`,
    /// Spring `DefaultErrorHandler`), stop the partition (`stop`) — returning the loop's
    /// flow — or give it up (`log_and_continue`, and `retry` out of attempts): `None`, the
    /// loop goes on as after a processed record.
    #[inline(never)] // off the per-record path
    fn on_error<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        offset: u64,
    ) -> Option<Flow> {
        let s = cx.s;
        self.mark(cx, partition, MarkKind::RecordFailed { offset });
        match s.on_error {
            OnError::Retry if self.failed_attempts < s.error_retries => {
                self.failed_attempts += 1;
                let done_at = cx.now_us + s.error_retry_backoff_us + world.durations.of(s, partition, offset);
                let incarnation = self.incarnation;
                let event =
                    Event::RecordDone { member: self.id, partition, offset, worker: None, incarnation };
                cx.schedule(done_at, Phase::Loop, self.id, event);
                return Some(Flow::Wait);
            }
            // Spring `FailedRecordTracker` counts the deliveries of the record that failed
            // last; `SeekUtils.seekOrRecover` seeks back to it until the back-off
            // (`FixedBackOff(0, 9)`: 10 deliveries) is spent, then recovers it and seeks past.
            OnError::SeekToFailed => {
                let deliveries = match self.failed_record {
                    Some((p, o, n)) if (p, o) == (partition, offset) => n + 1,
                    _ => 1,
                };
                self.pc = Pc::Poll;
                if deliveries < s.max_deliveries {
                    self.failed_record = Some((partition, offset, deliveries));
                    self.set_position(cx, partition, Some(offset));
                    return Some(self.commit_before_seek(cx, world, partition, offset));
                }
                self.failed_record = None;
                self.give_up(cx, world, partition, offset);
                self.set_position(cx, partition, Some(offset + 1));
                let acked = if s.ack_on_error { offset + 1 } else { offset };
                return Some(self.commit_before_seek(cx, world, partition, acked));
            }
            // The partition stops where it failed and falls behind for ever.
            OnError::Stop => {
                self.pc = Pc::Poll;
                self.set_position(cx, partition, Some(offset));
                if let Some(a) = self.assigned_mut(partition) {
                    a.stopped = true;
                }
                self.mark(cx, partition, MarkKind::PartitionStopped { offset });
                return Some(self.commit_before_seek(cx, world, partition, offset));
            }
            _ => {}
        }
        self.failed_attempts = 0;
        self.give_up(cx, world, partition, offset);
        if !s.ack_on_error {
            self.unacked_tail += 1;
        }
        None
    }

    /// model.md §12.3 `retry_batch`: a Spring batch listener threw at record `offset` of the
    /// batch `from..end` (not a `BatchListenerFailedException`), and `DefaultErrorHandler`'s
    /// `FallbackBatchErrorHandler` retries the whole batch in memory
    /// (`ErrorHandlingUtils.retryBatch`): it pauses the consumer, polls it through the back-off
    /// (`ListenerUtils.conditionalSleepWithPoll`: the member keeps its place in the group),
    /// then calls the listener with the same records — the ones before `offset` run again.
    /// After `max_deliveries` deliveries the recoverer takes the batch: the records from
    /// `offset` on are given up (or dead-lettered), and the container commits the batch
    /// (`ackAfterHandle`).
    #[inline(never)] // off the per-record path
    fn retry_batch<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        from: u64,
        offset: u64,
        end: u64,
    ) -> Flow {
        let s = cx.s;
        self.mark(cx, partition, MarkKind::RecordFailed { offset });
        self.batch_deliveries += 1;
        if self.batch_deliveries < s.max_deliveries {
            let resume_at = cx.now_us + Self::spring_back_off_us(s);
            if let Some(a) = self.assigned_mut(partition) {
                a.done.restart_at(from);
            }
            if self.group.is_some() {
                // A group member polls the paused consumer for real: the group goes on.
                let (poll_us, resume_us) = (cx.now_us, resume_at);
                self.pc = Pc::RetryBackOff { partition, from, end, poll_us, resume_us };
                return Flow::Next;
            }
            // The paused polls of the back-off: the last one comes just before the listener.
            self.last_poll_us = resume_at;
            self.pc = Pc::Process { partition, from, next: from, end };
            cx.schedule(
                resume_at,
                Phase::Loop,
                self.id,
                Event::LoopWake { member: self.id, incarnation: self.incarnation },
            );
            return Flow::Wait;
        }
        for o in offset..end {
            self.give_up(cx, world, partition, o);
        }
        if !s.ack_on_error {
            self.unacked_tail = end - offset;
        }
        self.pc = Pc::AfterBatch { partition, from, to: end };
        Flow::Next
    }

    /// Spring's sleep between two checks of a back-off (`ListenerUtils.conditionalSleepWithPoll`,
    /// spring-kafka 4.1.2): 100 ms for a back-off over 500 ms, else 10 ms.
    fn spring_sleep_interval_us(s: &Scenario) -> u64 {
        let ms = if s.error_retry_backoff_us > 500 * crate::scenario::US_PER_MS { 100 } else { 10 };
        ms * crate::scenario::US_PER_MS
    }

    /// How long Spring's batch retry waits before the next delivery (model.md §12.3): whole
    /// sleeps until `error_retry_backoff_ms` has passed, at least one — a 0 ms back-off waits
    /// 10 ms, one of 550 ms waits 600 ms (`conditionalSleepWithPoll` sleeps, then checks).
    fn spring_back_off_us(s: &Scenario) -> u64 {
        let interval_us = Self::spring_sleep_interval_us(s);
        s.error_retry_backoff_us.div_ceil(interval_us).max(1) * interval_us
    }

    /// The loop gives up on record `offset`: it is skipped (lost), or with `seek_to_failed`
    /// (or `retry_batch`) and `dead_letter` published to a dead-letter topic (Spring
    /// `DeadLetterPublishingRecoverer`), which counts as its run.
    fn give_up<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, partition: PartitionId, offset: u64) {
        if matches!(cx.s.on_error, OnError::SeekToFailed | OnError::RetryBatch) && cx.s.dead_letter {
            self.mark(cx, partition, MarkKind::RecordDeadLettered { offset });
            self.complete(cx, world, partition, offset, self.batch_handed_over);
        } else {
            self.mark(cx, partition, MarkKind::RecordSkipped { offset });
            if self.strategy == Strategy::Transactional {
                self.skipped_in_transaction.push(offset);
            }
        }
        if let Some(a) = self.assigned_mut(partition) {
            a.done.restart_at(offset + 1);
        }
    }

    /// Before an error handler seeks (Spring `invokeErrorHandler` → `processCommits`): the
    /// records acknowledged so far are committed — below `value` — if the strategy's rule
    /// says so now (BATCH and RECORD always, COUNT once `commit_every_records` are pending,
    /// TIME once `commit_every_ms` has passed); auto-commit leaves it to the client.
    fn commit_before_seek<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        value: u64,
    ) -> Flow {
        let s = cx.s;
        let due = match self.strategy {
            Strategy::CommitSyncCount => self.records_since_commit >= s.commit_every_records as u64,
            Strategy::CommitSyncTime => self.ack_time_elapsed(s, cx.now_us),
            strategy => !strategy.is_auto(),
        };
        if !due || world.coordinator.committed(partition) == Some(value) {
            return Flow::Next;
        }
        self.records_since_commit = 0;
        self.last_ack_commit_us = cx.now_us;
        let offsets = vec![(partition, Self::manual_value(s, value))];
        if self.strategy == Strategy::CommitAsyncBatch {
            self.send_commit(cx, world, CommitKind::Async, offsets);
            return Flow::Next;
        }
        self.blocking_commit(cx, world, CommitKind::Sync, offsets)
    }

    /// What a commit at the end of the batch `..to` on `partition` carries (only the
    /// strategies that commit there ask: the loop's hot path builds no list it drops).
    fn batch_end_values(
        &self,
        s: &Scenario,
        world: &World,
        partition: PartitionId,
        to: u64,
    ) -> Vec<(PartitionId, u64)> {
        // With ack_on_error false, records given up at the batch's end are not acknowledged.
        let tail = self.unacked_tail;
        let mut values: Vec<_> = self
            .positions()
            .into_iter()
            .map(|(p, o)| (p, Self::manual_value(s, if p == partition { o.saturating_sub(tail) } else { o })))
            .collect();
        if s.on_error == OnError::RetryBatch {
            // Spring acknowledges the batch's records (`commitOffsetsIfNeededAfterHandlingError`):
            // their partition at the batch's end, whether the member still holds it or a
            // rebalance during the retries took it, or gave it back from the committed offset
            // (model.md §12.3).
            values.retain(|&(p, _)| p != partition);
            values.push((partition, Self::manual_value(s, to.saturating_sub(tail))));
        }
        if s.client.is_librdkafka() {
            // `commit()` without offsets: the stored offsets (model.md §8.3).
            self.retain_stored_past_committed(world, &mut values);
        }
        values
    }

    #[inline(never)] // off the per-record path
    fn step_after_batch<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        from: u64,
        to: u64,
    ) -> Flow {
        let s = cx.s;
        self.pc = Pc::Poll;
        self.batch_deliveries = 0;
        let spring_after_poll = s.worker_pool || s.spring_ack_check == AckCheck::AfterPoll;
        match self.strategy {
            Strategy::AutoCommit
            | Strategy::AutoCommitBackground
            | Strategy::StoreOffsetsAfterProcessing
            | Strategy::ReadMessage => Flow::Next,
            // Never the engine's: `Client::effective` maps them (model.md §8.14).
            Strategy::MarkMessage
            | Strategy::AutoCommitMarks
            | Strategy::GreedyAutoCommit
            | Strategy::FetchMessageCommitMessages
            | Strategy::EachMessage
            | Strategy::EachBatch
            | Strategy::EachBatchResolveOffset => Flow::Next,
            Strategy::CommitSyncBatch => {
                let values = self.batch_end_values(s, world, partition, to);
                self.commit_sync(cx, world, values)
            }
            Strategy::CommitAsyncBatch => {
                let values = self.batch_end_values(s, world, partition, to);
                self.send_commit(cx, world, CommitKind::Async, values);
                Flow::Next
            }
            // sendOffsetsToTransaction(position) + commitTransaction().
            Strategy::Transactional => {
                let values = self.batch_end_values(s, world, partition, to);
                self.blocking_commit(cx, world, CommitKind::Transaction { partition, from, to }, values)
            }
            Strategy::CommitSyncRecord => {
                if s.worker_pool {
                    self.pc = Pc::CommitHandedOff { partition, next: from, end: to };
                }
                Flow::Next
            }
            Strategy::CommitSyncEveryN => {
                if !s.worker_pool {
                    return Flow::Next;
                }
                // One commit for the highest multiple of N reached by this hand-off.
                let n = s.commit_every_records as u64;
                let before = self.records_since_commit;
                let total = before + (to - from);
                self.records_since_commit = total % n;
                if total < n {
                    return Flow::Next;
                }
                let reached = total - total % n;
                let value = Self::manual_value(s, from + (reached - before));
                self.blocking_commit(cx, world, CommitKind::Sync, vec![(partition, value)])
            }
            // Spring COUNT and TIME checked once the poll's records are done (before 3.1;
            // a pool hands them off instead).
            Strategy::CommitSyncCount | Strategy::CommitSyncTime if spring_after_poll => {
                if s.worker_pool {
                    self.records_since_commit += to - from;
                }
                let due = match self.strategy {
                    Strategy::CommitSyncCount => self.records_since_commit >= s.commit_every_records as u64,
                    _ => self.ack_time_elapsed(s, cx.now_us),
                };
                if !due {
                    return Flow::Next;
                }
                let values = self.batch_end_values(s, world, partition, to);
                self.records_since_commit = 0;
                self.last_ack_commit_us = cx.now_us;
                self.commit_sync(cx, world, values)
            }
            Strategy::CommitSyncCount | Strategy::CommitSyncTime => Flow::Next,
        }
    }

    // ---------------------------------------------------------------- script

    /// Runs script step `step` (model.md §8.11).
    #[inline(never)] // off the per-record path
    fn run_script_step<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, step: usize) -> Flow {
        // A step is read once its commits have landed, and the next waits for that.
        if self.script.as_ref().is_some_and(|s| !s.unresolved.is_empty()) {
            self.pc = Pc::ScriptAwaitCommits { step };
            return Flow::Wait;
        }
        self.end_script_step(cx);
        let Some(&current) = cx.s.script.as_ref().and_then(|steps| steps.get(step)) else {
            self.pc = Pc::Stopped;
            return Flow::Wait;
        };
        if let Some(script) = &mut self.script {
            script.step = Some(step);
        }
        self.pc = Pc::Script { step: step + 1 };
        let positions = self.positions();
        match current {
            ScriptStep::Poll => {
                let _ = self.poll(cx, world);
                Flow::Next
            }
            ScriptStep::Process(n) => {
                self.pc = Pc::ScriptProcess { step, left: n };
                Flow::Next
            }
            ScriptStep::Sleep(us) => {
                self.wake_at(cx, cx.now_us + us);
                Flow::Wait
            }
            ScriptStep::CommitSync => {
                let values = positions.into_iter().map(|(p, o)| (p, Self::manual_value(cx.s, o))).collect();
                self.blocking_commit(cx, world, CommitKind::Sync, values)
            }
            ScriptStep::CommitAsync => {
                let values = positions.into_iter().map(|(p, o)| (p, Self::manual_value(cx.s, o))).collect();
                self.send_commit(cx, world, CommitKind::Async, values);
                Flow::Next
            }
            ScriptStep::Close => {
                self.close(cx, world);
                Flow::Wait
            }
            ScriptStep::Crash => {
                self.end_script_step(cx);
                self.life = Life::Down;
                self.pc = Pc::Stopped;
                cx.queue.clear();
                Flow::Wait
            }
        }
    }

    /// Reports the reading of the script step that just ended (if any).
    fn end_script_step<S: Sink>(&mut self, cx: &mut Cx<S>) {
        let position = self.assigned.first().and_then(|a| a.position);
        if let Some(script) = &mut self.script {
            if let Some(step) = script.step.take() {
                cx.emit(Output::ScriptStepEnded { step: step as u32, position });
                script.unresolved.clear();
            }
        }
    }

    // ---------------------------------------------------------------- close and restart

    /// model.md §8.6: `close()`. The application stops processing; auto-commit strategies
    /// commit synchronously (Java: the position, `maybeAutoCommitOffsetsSync`; librdkafka:
    /// the stored offset); `close()` returns once that and every in-flight commit landed.
    pub(crate) fn close<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        if self.life != Life::Running {
            return;
        }
        self.life = Life::Closing { commit_sent: false, revoked: false };
        self.pc = Pc::Stopped;
        self.blocked_since_us = None;
        // Retries a callback would have sent are dropped: the application is closing.
        self.callbacks.clear();
        if !cx.s.drain_pool_on_close {
            self.pool.clear();
            self.incarnation += 1;
        }
        for a in &self.assigned {
            cx.emit(Output::Mark { member: self.id, partition: a.partition, kind: MarkKind::CloseCalled });
        }
        self.try_start_close_commit(cx, world);
    }

    fn try_start_close_commit<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let draining = cx.s.drain_pool_on_close && self.pool.in_flight() > 0;
        if self.life != (Life::Closing { commit_sent: false, revoked: false }) || draining {
            return;
        }
        self.life = Life::Closing { commit_sent: true, revoked: false };
        self.close_commit = None;
        if (self.strategy.is_auto() || cx.s.commits_resolved())
            && self.in_group
            && !crate::broken::on("close_commits_nothing")
        {
            let offsets = self.client_commit_offsets(cx.s, world);
            if self.send_commit(cx, world, CommitKind::Close, offsets) {
                self.close_commit = Some(world.commits.last_id());
            }
        }
        self.try_finish_close(cx, world);
    }

    fn try_finish_close<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let own_commit_pending = self.close_commit.is_some_and(|c| !world.commits.is_resolved(c));
        if self.group.is_some()
            && !own_commit_pending
            && self.life == (Life::Closing { commit_sent: true, revoked: false })
        {
            // onLeavePrepare: onPartitionsRevoked once close()'s own commit is done, not waiting
            // for other commits in flight — a woken commitSync's lands later (Java
            // `AbstractCoordinator.close`: `onLeavePrepare`, then `awaitPendingRequests`;
            // model.md §10.3).
            self.life = Life::Closing { commit_sent: true, revoked: true };
            // `drain` commits as `commit_sync`: close() has already waited for the pool, or
            // stopped it (`drain_pool_on_close`).
            if cx.s.on_revoke != OnRevoke::Nothing && self.in_group {
                let offsets: Vec<_> = self
                    .assigned
                    .iter()
                    .map(|a| (a.partition, world.partitions[a.partition as usize].durable_frontier()))
                    .collect();
                if self.send_commit(cx, world, CommitKind::Close, offsets) {
                    return;
                }
            }
        }
        if self.commits_in_flight > 0 || self.retries_pending > 0 {
            return;
        }
        self.end_script_step(cx);
        for a in &self.assigned {
            cx.emit(Output::Mark { member: self.id, partition: a.partition, kind: MarkKind::Closed });
        }
        if self.group.is_some() {
            self.closed_in_group(cx, world);
            return;
        }
        self.life = Life::Down;
        world.coordinator.single_member_left(cx);
        if let Some(downtime_us) = cx.s.downtime_us {
            cx.schedule(
                cx.now_us + downtime_us,
                Phase::Lifecycle,
                self.id,
                Event::Restart { member: self.id },
            );
        }
    }

    /// model.md §8.9: the consumer starts again after its downtime, from the committed
    /// offset — or, if the group's offsets expired meanwhile, where `auto.offset.reset`
    /// resolves now.
    pub(crate) fn restart<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        if self.group.is_some() {
            self.start_in_group(cx, world);
            return;
        }
        world.coordinator.single_member_present(self.process);
        self.life = Life::Running;
        self.in_group = true;
        self.pc = Pc::Poll;
        self.pool.clear();
        self.incarnation += 1;
        self.auto_commit_deadline_us = cx.now_us + cx.s.auto_commit_interval_us;
        self.last_ack_commit_us = cx.now_us;
        self.failed_attempts = 0;
        self.unacked_tail = 0;
        for i in 0..self.assigned.len() {
            let partition = self.assigned[i].partition;
            let position = world.start_offset(cx.s, cx.now_us, partition);
            self.start_over(cx, partition, position);
            self.mark(cx, partition, MarkKind::Restarted { position });
        }
        self.wake_at(cx, cx.now_us);
    }

    // ---------------------------------------------------------------- pool

    /// Hands records `from..to` of `partition` to the pool; idle threads start at once.
    fn submit<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        from: u64,
        to: u64,
        handed_over: u32,
    ) {
        self.pool.submit(partition, from, to, handed_over);
        for worker in 0..self.pool.threads() {
            if self.pool.work(worker).is_none() && !self.worker_take(cx, world, worker) {
                break;
            }
        }
    }

    /// An idle pool thread takes its next record, if one waits; returns whether it did.
    fn worker_take<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, worker: u32) -> bool {
        let Some(work) = self.pool.take(worker) else { return false };
        self.schedule_pool_record(cx, world, worker, work.partition, work.offset, cx.now_us);
        true
    }

    /// A pool thread starts an attempt at `offset` at `start_us`.
    fn schedule_pool_record<S: Sink>(
        &self,
        cx: &mut Cx<S>,
        world: &mut World,
        worker: u32,
        partition: PartitionId,
        offset: u64,
        start_us: u64,
    ) {
        let done_at = start_us + world.durations.of(cx.s, partition, offset);
        cx.schedule(
            done_at,
            Phase::Completion,
            0,
            Event::RecordDone {
                member: self.id,
                partition,
                offset,
                worker: Some(worker),
                incarnation: self.incarnation,
            },
        );
    }

    /// A pool thread's attempt at a record ended (model.md §4, §12): a failure is retried
    /// (`on_error: retry`) or given up; the record counts as handled; the thread moves on.
    fn pool_record_done<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        worker: u32,
        partition: PartitionId,
        offset: u64,
        fails: bool,
    ) {
        let work = self.pool.work(worker).expect("a record completed on a busy thread");
        if fails {
            self.mark(cx, partition, MarkKind::RecordFailed { offset });
            if cx.s.on_error == OnError::Retry && self.pool.failed_attempt(worker) <= cx.s.error_retries {
                let start_us = cx.now_us + cx.s.error_retry_backoff_us;
                self.schedule_pool_record(cx, world, worker, partition, offset, start_us);
                return;
            }
            self.mark(cx, partition, MarkKind::RecordSkipped { offset });
        } else {
            self.complete(cx, world, partition, offset, work.handed_over);
        }
        if let Some(a) = self.assigned_mut(partition) {
            a.done.done(offset);
        } else if let Some(a) = self.revoked_kept.iter_mut().find(|a| a.partition == partition) {
            a.done.done(offset);
        } else if self.strategy == Strategy::StoreOffsetsAfterProcessing {
            // librdkafka before 1.9.0 stores for a partition no longer assigned (model.md §8.14).
            if let Some((_, old)) = self.old_stores.iter_mut().find(|(p, _)| *p == partition) {
                old.done(offset);
            }
        }
        // Its hand-off done, the loop may poll again, or a draining `onPartitionsRevoked` go on.
        if self.pool.finish(worker) && matches!(self.pc, Pc::WaitingForRoom | Pc::Draining { .. }) {
            if self.pc == Pc::WaitingForRoom {
                self.pc = Pc::Poll;
            }
            self.wake_at(cx, cx.now_us);
        }
        self.worker_take(cx, world, worker);
        if self.life == (Life::Closing { commit_sent: false, revoked: false }) {
            self.try_start_close_commit(cx, world);
        }
    }

    /// The invariants every instant keeps (debug builds only).
    #[cfg(debug_assertions)]
    pub(crate) fn check_invariants(&self, queue: &super::queue::EventQueue) {
        self.pool.check_invariants();
        if self.life == Life::Running
            && self.pc != Pc::Stopped
            && self.pc != Pc::Blocked
            && self.pc != Pc::WaitingForRoom
        {
            // Inside poll(), a join waits for the coordinator's answer instead, and a KIP-848
            // reconciliation for its commit (woken when it settles).
            let joining = self.group.as_ref().is_some_and(|g| g.join != Join::None);
            #[cfg(feature = "group")]
            let reconciling = self.group.as_ref().is_some_and(|g| g.before_rebalance.is_some());
            #[cfg(not(feature = "group"))]
            let reconciling = false;
            debug_assert!(
                matches!(self.pc, Pc::ScriptAwaitCommits { .. })
                    || joining
                    || reconciling
                    || queue.loop_event(self.id).is_some_and(|e| match e {
                        Event::LoopWake { incarnation, .. } | Event::RecordDone { incarnation, .. } => {
                            incarnation == self.incarnation
                        }
                        _ => false,
                    }),
                "a running loop waits for an event of its own: {:?}",
                self.pc
            );
        }
        debug_assert_eq!(
            self.blocked_since_us.is_some(),
            self.pc == Pc::Blocked,
            "blocked exactly while waiting on a commit"
        );
    }
}

// The member's side of the consumer group (model.md §10).

/// Where a classic member is in a join round (model.md §10.5).
#[cfg(feature = "group")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Join {
    /// Stable: nothing to do.
    None,
    /// A rebalance is under way (its heartbeat said so), or it must rejoin: it joins in its
    /// next `poll()`.
    Needed,
    /// `onJoinPrepare`'s commit (or, `revoked`, the `onPartitionsRevoked` commit after it)
    /// is in flight; the JoinGroup waits for it. `None`: the callback waits for the pool
    /// first (`on_revoke: drain`), and sets the commit it sends.
    Preparing { commit: Option<CommitId>, revoked: bool },
    /// A new dynamic member's first JoinGroup, answered MEMBER_ID_REQUIRED (KIP-394).
    MemberIdRequired,
    /// JoinGroup sent: waiting for the round to complete.
    Joining,
    /// The round completed while the member's `poll()` was returning records: it handles
    /// the JoinGroup response (and sends SyncGroup) in its next `poll()`.
    Responded,
    /// SyncGroup sent: waiting for the assignment.
    Syncing,
    /// librdkafka, cooperative: a heartbeat said the group rebalances, and the JoinGroup waits
    /// for its one-a-second interval (an `Event::RdkJoin` sends it).
    Throttled,
}

#[cfg(feature = "group")]
impl Join {
    /// JoinGroup sent and the SyncGroup response not yet read: the member is not STABLE
    /// (Java `AbstractCoordinator`: PREPARING_REBALANCE from `initiateJoinGroup`,
    /// COMPLETING_REBALANCE from the JoinGroup response, STABLE when the SyncGroup response is
    /// handled), so its commits fail locally (model.md §10.5).
    pub(crate) fn awaits_sync_response(self) -> bool {
        matches!(self, Join::MemberIdRequired | Join::Joining | Join::Responded | Join::Syncing)
    }
}

/// A member's group client state; `None` on [`Member`] for the one-consumer model.
#[cfg(feature = "group")]
#[derive(Clone, Debug)]
pub(crate) struct GroupClient {
    pub(crate) is_static: bool,
    pub(crate) join: Join,
    /// The classic generation the member belongs to: its commits carry it.
    pub(crate) generation: u32,
    /// An assignment received and not yet taken in (that happens inside `poll()`).
    pub(crate) pending_assignment: Option<Vec<PartitionId>>,
    /// Bumped when the heartbeat schedule restarts (an assignment) or stops.
    pub(crate) heartbeat_seq: u32,
    /// Consumer protocol: paused for revocation, `onPartitionsRevoked` not yet run.
    pub(crate) revoking: Vec<PartitionId>,
    /// Consumer protocol: revoked, to acknowledge at the next heartbeat (kafka-clients 4.3: one
    /// sent at once, [`Member::acknowledge_now`]).
    pub(crate) released: Vec<PartitionId>,
    /// Consumer protocol: assigned at a heartbeat, fetched from once `onPartitionsAssigned`
    /// has run in the next `poll()`.
    pub(crate) assigning: Vec<PartitionId>,
    /// kafka-clients 4.3: a target a heartbeat brought that revokes partitions (or any target,
    /// with auto-commit), reconciled only inside a later `poll()` (model.md §10.6): what it
    /// revokes and what it adds, not yet started.
    pub(crate) to_reconcile: (Vec<PartitionId>, Vec<PartitionId>),
    /// kafka-clients 4.3: the reconciliation under way, one step per `poll()` that returns
    /// buffered records: what it revokes, what it adds, and the step it is at.
    pub(crate) reconciling: Option<(Vec<PartitionId>, Vec<PartitionId>, Step)>,
    /// kafka-clients 4.3: `onPartitionsRevoked` waits (a commit, a drain) inside a `poll()` that
    /// has records at hand; when it returns, the poll returns them, and `onPartitionsAssigned`
    /// waits for the next poll (model.md §10.6).
    pub(crate) returns_after_callback: bool,
    /// kafka-clients 4.x with auto-commit: the commit before the reconciliation under way
    /// (`CommitRequestManager.maybeAutoCommitSyncBeforeRebalance`), which the reconciliation's
    /// next step waits for; on STALE_MEMBER_EPOCH it is sent again with the member's new epoch
    /// (model.md §10.6, [`Member::retry_before_rebalance`]).
    pub(crate) before_rebalance: Option<CommitId>,
    /// `java_consumer_protocol_4_2_0` with auto-commit: the partitions a reconciliation this
    /// `poll()` started revokes, paused — and the commit before it sent — only once the poll has
    /// handed its records out (`collectFetch` does not wait for the reconciliation check before
    /// KAFKA-20332's fix; [`Member::reconcile_after_hand_out`]).
    pub(crate) after_hand_out: Option<Vec<PartitionId>>,
    /// `wakeup()` was called: the next blocking consumer call throws and `close()` starts.
    pub(crate) wakeup: bool,
    /// The loop does nothing until then (a hang, model.md §10.3).
    pub(crate) hung_until_us: u64,
    /// After `close()` returns, the process comes back this much later.
    pub(crate) restart_after_us: Option<u64>,
    /// The next JoinGroup is a new dynamic member's: one MEMBER_ID_REQUIRED round trip first.
    pub(crate) new_member: bool,
    /// The loop waits inside `poll()` for the join (eager, or nothing to return): responses
    /// are handled as they arrive. Otherwise one step per `poll()` (model.md §10.5).
    pub(crate) join_waits: bool,
    /// `on_revoke: drain`: the partitions `onPartitionsRevoked` commits once the pool drained.
    pub(crate) draining: Vec<PartitionId>,
    /// librdkafka's threads' wake-ups (model.md §10.4); `None` for the other clients.
    pub(crate) rdk: Option<RdkWakes>,
    /// librdkafka, cooperative: when the SyncGroup answer paused the member's partitions
    /// until its rebalance callback (`rd_kafka_rebalance_op_incr`); on the consumer protocol,
    /// the heartbeat answer that started a reconciliation.
    pub(crate) rdk_paused_at_us: Option<u64>,
    /// librdkafka on the consumer protocol: its fetcher's wake-ups (model.md §10.4, §10.6) —
    /// its heartbeats have a timer of their own, so only the fetcher's grid is read.
    pub(crate) rdk_fetcher: Option<RdkWakes>,
    /// kafka-go: a commit made between generations, which the next generation's commit loop
    /// sends (model.md §8.14, [`Member::kafka_go_generation_ends`]).
    pub(crate) parked: Option<(CommitKind, Vec<(PartitionId, u64)>)>,
}

/// The steps of a kafka-clients 4.3 reconciliation run on the application thread
/// (`AbstractMembershipManager.revokeAndAssign`), each in a `poll()`.
#[cfg(feature = "group")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Paused (and auto-committed): `onPartitionsRevoked` is next (`PartitionsRemovedEvent`).
    Revoke,
    /// Revoked: the new assignment is applied and `onPartitionsAssigned` runs
    /// (`PartitionsAssignedEvent`, even with nothing added); then a heartbeat sent at once
    /// acknowledges it ([`Member::acknowledge_now`]).
    Assign,
}

#[cfg(feature = "group")]
impl GroupClient {
    pub(crate) fn new(s: &Scenario) -> Self {
        GroupClient {
            is_static: s.static_membership,
            join: Join::None,
            join_waits: true,
            generation: 1,
            pending_assignment: None,
            heartbeat_seq: 0,
            revoking: Vec::new(),
            released: Vec::new(),
            assigning: Vec::new(),
            to_reconcile: (Vec::new(), Vec::new()),
            reconciling: None,
            returns_after_callback: false,
            before_rebalance: None,
            after_hand_out: None,
            wakeup: false,
            hung_until_us: 0,
            restart_after_us: None,
            new_member: false,
            draining: Vec::new(),
            rdk: None,
            rdk_paused_at_us: None,
            rdk_fetcher: None,
            parked: None,
        }
    }
}

#[cfg(feature = "group")]
impl Member {
    fn g(&mut self) -> &mut GroupClient {
        self.group.as_mut().expect("a group member")
    }

    fn heartbeat_interval_us(s: &Scenario) -> u64 {
        if s.consumer_protocol() {
            s.consumer_heartbeat_interval_us
        } else {
            s.heartbeat_interval_us
        }
    }

    /// librdkafka's classic-protocol client, whose heartbeats and fetches follow its threads'
    /// wake-ups (model.md §10.4).
    fn rdk_threads(s: &Scenario) -> bool {
        s.client.is_librdkafka() && !s.consumer_protocol()
    }

    /// When a heartbeat due at `due_us` goes out: then, or with librdkafka at its main
    /// thread's next wake-up (model.md §10.4).
    fn heartbeat_at(&self, due_us: u64) -> u64 {
        match self.group.as_ref().and_then(|g| g.rdk) {
            Some(rdk) => rdk.main_thread_wake(due_us),
            None => due_us,
        }
    }

    /// (Re)starts the heartbeat schedule from now: every interval from the latest assignment
    /// (model.md §10.4); librdkafka's from its last heartbeat, at once if one is due, as an
    /// answer wakes its main thread (§10.4).
    pub(crate) fn restart_heartbeats<S: Sink>(&mut self, cx: &mut Cx<S>) {
        let interval = Self::heartbeat_interval_us(cx.s);
        let at_us = match self.group.as_ref().and_then(|g| g.rdk) {
            Some(rdk) => match rdk.last_heartbeat_us.map(|t| t + interval) {
                Some(due) if due > cx.now_us => rdk.main_thread_wake(due),
                _ => cx.now_us,
            },
            // franz-go's cooperative member heartbeats 500 ms into a session whatever its
            // interval, to find the next round soon (`groupConsumer.heartbeat`,
            // `cooperativeFastCheck`); then every interval.
            None if cx.s.client == Client::FranzGo => cx.now_us + interval.min(500_000),
            None => cx.now_us + interval,
        };
        self.schedule_heartbeat(cx, at_us);
    }

    /// kafka-clients 4.3: a reconciliation has completed (`onPartitionsAssigned` ran), the
    /// member is ACKNOWLEDGING and heartbeats at once, not waiting for the interval, which then
    /// counts from this heartbeat (model.md §10.6; `AbstractMembershipManager.shouldHeartbeatNow`,
    /// `AbstractHeartbeatRequestManager.poll` → `makeHeartbeatRequest` → `resetTimer`).
    fn acknowledge_now<S: Sink>(&mut self, cx: &mut Cx<S>) {
        if cx.s.client.is_kip848_4x() || cx.s.client == Client::LibrdkafkaConsumerProtocol {
            self.schedule_heartbeat(cx, cx.now_us);
        }
    }

    /// The member's next heartbeat, at `at_us`: any heartbeat scheduled before is dropped (its
    /// sequence number is no longer the member's).
    fn schedule_heartbeat<S: Sink>(&mut self, cx: &mut Cx<S>, at_us: u64) {
        let id = self.id;
        let g = self.g();
        g.heartbeat_seq += 1;
        let seq = g.heartbeat_seq;
        cx.schedule(at_us, Phase::Background, id, Event::Heartbeat { member: id, seq });
    }

    /// The heartbeats of a member of the group at t = 0: from its assignment,
    /// `assigned_before_start_ms` before t = 0 (model.md §10.4); librdkafka's threads' grids
    /// from its creation and that assignment.
    pub(crate) fn start_heartbeats_at_zero<S: Sink>(&mut self, cx: &mut Cx<S>) {
        if Self::rdk_threads(cx.s) {
            let auto = self.background_auto_commit_runs();
            self.g().rdk = Some(RdkWakes::at_zero(cx.s, auto));
        } else if cx.s.client == Client::LibrdkafkaConsumerProtocol {
            let auto = self.background_auto_commit_runs();
            self.g().rdk_fetcher = Some(RdkWakes::at_zero(cx.s, auto));
        }
        let interval = Self::heartbeat_interval_us(cx.s);
        let at_us = self.heartbeat_at(cx.now_us + interval - cx.s.assigned_before_start_us % interval);
        self.schedule_heartbeat(cx, at_us);
    }

    fn status<S: Sink>(&self, cx: &mut Cx<S>, status: MemberStatus) {
        cx.emit(Output::MemberStatus { member: self.id, status });
    }

    /// Takes `partitions` (model.md §10.5: positions from the committed offsets, the
    /// auto-commit timer from now; the poll turn stays with a partition kept, §10.1): each is
    /// a handover.
    fn take_partitions<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, partitions: &[PartitionId]) {
        let in_turn = self.partition_in_turn_now();
        for &partition in partitions {
            world.partitions[partition as usize].handovers += 1;
            let position = world.start_offset(cx.s, cx.now_us, partition);
            self.add_partition(cx, partition, position);
            cx.emit(Output::Handover { partition, to: self.id });
            self.mark(cx, partition, MarkKind::Assigned);
        }
        self.keep_turn(in_turn);
        self.follow_fetch_session();
        self.auto_commit_deadline_us = cx.now_us + cx.s.auto_commit_interval_us;
    }

    /// After an assignment with no chunk in hand: the turn starts at the first partition the
    /// member fetched before an eager round and got back, and passes in the fetch session's
    /// order (model.md §10.1).
    fn follow_fetch_session(&mut self) {
        let fetched_before = std::mem::take(&mut self.fetched_before);
        self.fetch_order.clear();
        if self.chunk_left.is_some() {
            return;
        }
        let held: Vec<PartitionId> =
            fetched_before.into_iter().filter(|p| self.assigned.iter().any(|a| a.partition == *p)).collect();
        if let Some(&first) = held.first() {
            self.turn = self.assigned.iter().position(|a| a.partition == first).unwrap_or(0);
            let new = self.assigned.iter().map(|a| a.partition).filter(|p| !held.contains(p));
            self.fetch_order = held.iter().copied().chain(new).collect();
        }
    }

    /// Gives up `partitions`: the member stops processing them (a stall starts, unless a
    /// KIP-848 revocation paused them before).
    fn drop_partitions<S: Sink>(&mut self, cx: &mut Cx<S>, partitions: &[PartitionId]) {
        let in_turn = self.partition_in_turn_now();
        self.fetch_order.clear();
        for &partition in partitions {
            if cx.s.client == Client::LibrdkafkaBefore1_9 {
                self.keep_old_store(partition);
            }
            if cx.s.commit_revoked_partitions {
                if let Some(a) = self.assigned.iter().find(|a| a.partition == partition) {
                    self.revoked_kept.retain(|k| k.partition != partition);
                    self.revoked_kept.push(a.clone());
                }
            }
            let paused = self.assigned.iter().any(|a| a.partition == partition && a.revoking);
            self.heads.retain(|&(p, _)| p != partition);
            if self.remove_partition(partition) {
                cx.emit(Output::Position { partition, position: None });
                if !paused {
                    cx.emit(Output::Stopped { partition });
                    self.mark(cx, partition, MarkKind::Revoked);
                }
            }
        }
        self.keep_turn(in_turn);
    }

    /// `librdkafka_before_1_9` (model.md §8.14): the member gives `partition` up and keeps
    /// what it stored there — the stored offset (the position with `enable.auto.offset.store`,
    /// else the records handled in order), which the pool's records still completing move on
    /// under `store_offsets_after_processing`.
    fn keep_old_store(&mut self, partition: PartitionId) {
        let Some(a) = self.assigned.iter().find(|a| a.partition == partition) else { return };
        let Some(position) = a.position else { return };
        let fresh = match self.strategy {
            Strategy::StoreOffsetsAfterProcessing => a.done.clone(),
            _ => Frontier::starting_at(position),
        };
        let stored = if a.taken_at == Some(fresh.frontier()) {
            a.stale_store.map(Frontier::starting_at)
        } else {
            Some(fresh)
        };
        self.old_stores.retain(|(p, _)| *p != partition);
        if let Some(stored) = stored {
            self.old_stores.push((partition, stored));
        }
    }

    /// The partition whose fetched chunk the member is handing out, if any.
    fn partition_in_turn_now(&self) -> Option<PartitionId> {
        self.chunk_left.and(self.assigned.get(self.turn)).map(|a| a.partition)
    }

    /// After the assignment changed (model.md §10.1): a partition still held keeps the turn and
    /// what is left of its fetched chunk — the fetcher is not cleared at a rebalance
    /// (`FetchBuffer.retainAll` keeps the kept partitions' `nextInLineFetch`;
    /// `Fetcher.clearBufferedDataForUnassignedPartitions` runs only from `subscribe`,
    /// `unsubscribe` and `assign`), so an incremental assignment (cooperative, KIP-848) leaves
    /// an added lower partition waiting. Otherwise — an eager round revoked everything, or the
    /// partition in turn is gone — the next poll starts at the lowest partition.
    fn keep_turn(&mut self, in_turn: Option<PartitionId>) {
        match in_turn.and_then(|p| self.assigned.iter().position(|a| a.partition == p)) {
            Some(index) => self.turn = index,
            None => {
                self.turn = 0;
                self.chunk_left = None;
                self.chunk_held = false;
            }
        }
    }

    /// `onPartitionsRevoked` with `on_revoke: commit_sync`: a `commitSync` of each revoked
    /// partition's durable frontier; with `drain`, once the pool has nothing in flight or
    /// `on_revoke_drain_ms` has passed ([`Member::drain_step`]). Returns whether the loop now
    /// waits for it.
    fn on_revoke_commit<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partitions: &[PartitionId],
    ) -> bool {
        if cx.s.on_revoke == OnRevoke::Nothing || partitions.is_empty() {
            return false;
        }
        if cx.s.on_revoke == OnRevoke::Drain && self.pool.in_flight() > 0 {
            self.g().draining = partitions.to_vec();
            self.resume_pc = self.pc;
            self.pc = Pc::Draining { until_us: cx.now_us + cx.s.on_revoke_drain_us };
            self.wake_at(cx, cx.now_us + cx.s.on_revoke_drain_us);
            return true;
        }
        self.revoke_commit(cx, world, partitions)
    }

    fn revoke_commit<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partitions: &[PartitionId],
    ) -> bool {
        let offsets =
            partitions.iter().map(|&p| (p, world.partitions[p as usize].durable_frontier())).collect();
        self.send_commit(cx, world, CommitKind::Sync, offsets)
    }

    /// `on_revoke: drain` (model.md §10.5): `onPartitionsRevoked` waits while the pool has work
    /// in flight, until `until_us`; then it commits what is done (the records the pool finishes
    /// later are the next owner's to repeat) and returns to where the loop was.
    fn drain_step<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, until_us: u64) -> Flow {
        if self.pool.in_flight() > 0 && cx.now_us < until_us {
            self.wake_at(cx, until_us);
            return Flow::Wait;
        }
        self.pc = self.resume_pc;
        let partitions = std::mem::take(&mut self.g().draining);
        if !self.revoke_commit(cx, world, &partitions) {
            return Flow::Next;
        }
        if let Join::Preparing { commit: None, revoked: true } = self.g().join {
            // Eager: the JoinGroup waits for this commit.
            self.g().join = Join::Preparing { commit: Some(world.commits.last_id()), revoked: true };
        }
        Flow::Wait
    }

    // ---------------------------------------------------------------- heartbeats

    /// franz-go, cooperative (model.md §8.14): a group session ends — the heartbeat loop met
    /// REBALANCE_IN_PROGRESS, or the member rejoins after giving partitions up. The session's
    /// revoke calls `OnPartitionsRevoked` with nothing lost, whose default with autocommit is a
    /// synchronous commit of the heads (`groupConsumer.revoke`, `revokeThisSession` →
    /// `defaultRevoke`); the management goroutine sends JoinGroup once it is answered
    /// (`manage` → `joinAndSync`). The application polls on throughout.
    fn franz_session_end<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        if self.franz_revoke_commit(cx, world) {
            self.g().join = Join::Preparing { commit: Some(world.commits.last_id()), revoked: false };
        } else {
            self.send_join(cx, world);
        }
    }

    /// franz-go's `defaultRevoke`: with autocommit, `commitOffsetsSync` of every partition's
    /// head (`getUncommitted(false)`: not the latest poll; marks under `AutoCommitMarks`;
    /// everything polled under `GreedyAutoCommit`), leaving out those at the committed offset.
    /// Returns whether a commit went out.
    fn franz_revoke_commit<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> bool {
        self.strategy.is_auto() && self.send_background_commit(cx, world)
    }

    /// franz-go, cooperative: the SyncGroup answer, taken in by the management goroutine, not
    /// the application (`setupAssignedAndHeartbeat`). Partitions lost are "prerevoked" first
    /// (`assignRevokeSession.prerevoke` → `revoke(revokeLastSession, lost)`): their buffered
    /// records are dropped (`assignInvalidateMatching`) — a batch the application already holds
    /// runs on —, `defaultRevoke` commits the heads, lost ones included, and once that commit is
    /// answered they are forgotten and the member rejoins for the round that hands them over
    /// (`rejoin`). Added partitions start fetching from their committed offsets.
    fn franz_assigned<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, assignment: Vec<PartitionId>) {
        let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
        let lost: Vec<PartitionId> = owned.iter().copied().filter(|p| !assignment.contains(p)).collect();
        let added: Vec<PartitionId> = assignment.iter().copied().filter(|p| !owned.contains(p)).collect();
        self.mark(cx, 0, MarkKind::AssignmentReceived);
        if !lost.is_empty() {
            self.pause_for_revocation(cx, &lost);
            if self.franz_revoke_commit(cx, world) {
                self.g().join = Join::Preparing { commit: Some(world.commits.last_id()), revoked: true };
            } else {
                self.drop_partitions(cx, &lost);
                self.franz_session_end(cx, world);
            }
        }
        self.take_partitions(cx, world, &added);
        self.status(cx, if self.assigned.is_empty() { MemberStatus::Idle } else { MemberStatus::Active });
        if self.pc == Pc::Poll && !added.is_empty() {
            self.wake_at(cx, cx.now_us);
        }
    }

    /// franz-go: a revoke's commit is answered — the session's (then JoinGroup), or the
    /// prerevoke's (then the lost partitions go, and the member rejoins).
    fn franz_commit_done<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, id: CommitId) {
        let Some(g) = &self.group else { return };
        let Join::Preparing { commit: Some(c), revoked } = g.join else { return };
        if c != id || self.life != Life::Running {
            return;
        }
        self.g().join = Join::None;
        if revoked {
            let lost: Vec<PartitionId> =
                self.assigned.iter().filter(|a| a.revoking).map(|a| a.partition).collect();
            self.drop_partitions(cx, &lost);
            self.franz_session_end(cx, world);
        } else {
            self.send_join(cx, world);
        }
    }

    /// KafkaJS (model.md §8.14): the runner heartbeats after each message
    /// (`Runner.processEachMessage` → `heartbeat`; `each_batch_resolve_offset`: the `eachBatch`
    /// loop's `await heartbeat()`, the same `Runner.heartbeat`); REBALANCE_IN_PROGRESS commits
    /// the resolved offsets (`Runner.heartbeat` → `autoCommitOffsets`, here the batch's commit,
    /// cut at the message) and throws: the rest of the batch is dropped and the member rejoins.
    pub(crate) fn kafkajs_heartbeat_after_message<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &World,
        partition: PartitionId,
        from: u64,
        offset: u64,
    ) {
        let meets = cx.s.client == Client::Kafkajs
            && self.group.as_ref().is_some_and(|g| matches!(g.join, Join::None | Join::Needed))
            && world.coordinator.rebalance_pending(self.id, self.process);
        if meets {
            self.set_position(cx, partition, Some(offset + 1));
            self.pc = Pc::AfterBatch { partition, from, to: offset + 1 };
            self.g().join = Join::Needed;
        }
    }

    /// Whether the heartbeat `seq` (classic protocol) only refreshes the session and schedules
    /// the next one — stale, or no rebalance pending for the member: then it observes nothing of
    /// the loop (the engine's batches stay unsettled, model.md §8.1).
    pub(crate) fn heartbeat_is_quiet(&self, s: &Scenario, world: &World, seq: u32) -> bool {
        self.heartbeat_is_stale(seq)
            || !s.consumer_protocol() && !world.coordinator.rebalance_pending(self.id, self.process)
    }

    /// Whether the heartbeat `seq` is not the member's current one, or the member is not
    /// running in the group: it does nothing.
    fn heartbeat_is_stale(&self, seq: u32) -> bool {
        self.group.as_ref().is_none_or(|g| g.heartbeat_seq != seq)
            || self.life != Life::Running
            || !self.in_group
    }

    /// A heartbeat (model.md §10.4, §10.5, §10.6): it refreshes the session; a classic member
    /// learns of a rebalance (one with no partitions joins at once, its poll being idle); a
    /// consumer-protocol member reconciles its target assignment.
    pub(crate) fn heartbeat<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, seq: u32) {
        if self.heartbeat_is_stale(seq) {
            return;
        }
        let interval = Self::heartbeat_interval_us(cx.s);
        if let Some(rdk) = &mut self.g().rdk {
            rdk.last_heartbeat_us = Some(cx.now_us);
        }
        cx.schedule(
            self.heartbeat_at(cx.now_us + interval),
            Phase::Background,
            self.id,
            Event::Heartbeat { member: self.id, seq },
        );
        self.mark(cx, 0, MarkKind::Heartbeat);
        if cx.s.consumer_protocol() {
            self.reconcile(cx, world);
            return;
        }
        // The Java heartbeat thread is disabled from the JoinGroup until the member's poll
        // handles its response (`AbstractCoordinator.initiateJoinGroup` → PREPARING_REBALANCE,
        // `disableHeartbeatThread`; enabled again by the JoinGroup response). While the round
        // is open the coordinator counts the waiting JoinGroup as heartbeats; once it has
        // answered, a response that waits for the next poll lets the session run out
        // (model.md §10.5).
        let paused = cx.s.client.is_java() && self.g().join == Join::Responded;
        if !paused {
            world.coordinator.refresh(cx.s, self.id, self.process, cx.now_us);
        }
        if world.coordinator.rebalance_pending(self.id, self.process) && self.g().join == Join::None {
            if cx.s.client == Client::FranzGo {
                self.franz_session_end(cx, world);
                return;
            }
            if self.joins_in_background(cx.s) {
                // librdkafka's cooperative member rejoins from its background thread at the
                // heartbeat's REBALANCE_IN_PROGRESS (`rd_kafka_cgrp_rejoin`), the application
                // polling on — but sends at most one JoinGroup a second (model.md §10.5);
                // kafka-go's generation ends there and its Reader rejoins at once (§8.14).
                self.kafka_go_generation_ends(cx);
                let at_us = self.g().rdk.map_or(cx.now_us, |rdk| rdk.join_at(cx.now_us));
                if at_us > cx.now_us {
                    self.g().join = Join::Throttled;
                    let (id, seq) = (self.id, self.g().heartbeat_seq);
                    cx.schedule(at_us, Phase::Background, id, Event::RdkJoin { member: id, seq });
                } else {
                    self.send_join(cx, world);
                }
                return;
            }
            self.g().join = Join::Needed;
            if self.assigned.is_empty() && self.pc == Pc::Poll {
                self.wake_at(cx, cx.now_us);
            }
        }
    }

    /// KIP-848 reconciliation at a heartbeat: acknowledge finished revocations, then act on the
    /// new target. kafka-clients 3.9 (`java_consumer_protocol_pre_fix`) reconciles it here: with
    /// auto-commit a commit of every position first
    /// (`CommitRequestManager.maybeAutoCommitSyncBeforeRebalance`), the revoked partitions pause
    /// now and `onPartitionsRevoked` runs in the next poll. kafka-clients 4.3 reconciles here
    /// only a target that adds partitions without auto-commit; one that revokes, or any with
    /// auto-commit, waits for the next `poll()` (`AbstractMembershipManager.maybeReconcile`:
    /// "reconciliations revoking partitions cannot be triggered from the background").
    fn reconcile<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let released = std::mem::take(&mut self.g().released);
        let Some(todo) = world.coordinator.consumer_heartbeat(cx, self.id, self.process, &released) else {
            return;
        };
        // The heartbeat's answer carries the member epoch its next commits send.
        self.g().generation = todo.epoch;
        let g = self.group.as_ref().expect("a group member");
        let revoke: Vec<PartitionId> = todo
            .revoke
            .into_iter()
            .filter(|p| {
                !g.revoking.contains(p)
                    && !g.to_reconcile.0.contains(p)
                    && !g.reconciling.as_ref().is_some_and(|(r, _, _)| r.contains(p))
            })
            .collect();
        if cx.s.client == Client::LibrdkafkaConsumerProtocol {
            self.rdk_reconcile(cx, revoke, todo.assign);
            return;
        }
        let auto = self.strategy.is_auto();
        if cx.s.client.is_kip848_4x() && (!revoke.is_empty() || auto) {
            let g = self.g();
            let idle = g.reconciling.is_none() && g.to_reconcile.0.is_empty() && g.to_reconcile.1.is_empty();
            if cx.s.client == Client::JavaConsumerProtocol4_2_0 && !auto && idle {
                // kafka-clients 4.2.0 without auto-commit: the background thread reconciles at
                // once, revocations included (`AbstractMembershipManager.poll` →
                // `maybeReconcile(false)`, before KAFKA-20332's fix): what it revokes is paused
                // now, and `onPartitionsRevoked` waits for the application's next `poll()`.
                self.pause_for_revocation(cx, &revoke);
                let step = if revoke.is_empty() { Step::Assign } else { Step::Revoke };
                self.g().reconciling = Some((revoke, todo.assign, step));
            } else {
                g.to_reconcile.0.extend(revoke);
                g.to_reconcile.1.extend(todo.assign);
            }
            if self.pc == Pc::Poll {
                self.wake_at(cx, cx.now_us);
            }
            return;
        }
        if !revoke.is_empty() {
            self.commit_before_rebalance(cx, world);
            self.pause_for_revocation(cx, &revoke);
            self.g().revoking.extend(revoke);
        }
        if !todo.assign.is_empty() {
            // The background thread adds them awaiting the callback
            // (`SubscriptionState.assignFromSubscribedAwaitingCallback`): not fetchable until
            // `onPartitionsAssigned` has run on the application thread, in its next `poll()`.
            self.g().assigning.extend(todo.assign);
            if self.pc == Pc::Poll {
                self.wake_at(cx, cx.now_us);
            }
        }
    }

    /// librdkafka on the consumer protocol (model.md §10.6; 2.15.0 `rdkafka_cgrp.c`): a heartbeat
    /// answer's target starts a reconciliation only when none is under way
    /// (`rd_kafka_cgrp_consumer_handle_next_assignment`: with `RD_KAFKA_CGRP_CONSUMER_F_WAIT_ACK`
    /// set, "Reconciliation in progress, postponing next one"); the postponed target starts at the
    /// acknowledging heartbeat's answer. It runs as the cooperative protocol's incremental
    /// rebalance (`rd_kafka_cgrp_handle_assignment_cooperative`): the revoked partitions stop
    /// being fetched now (`rd_kafka_rebalance_op_incr` → `rd_kafka_assignment_pause`) and the
    /// `REVOKE_PARTITIONS` op waits for the application's next poll
    /// ([`Member::rdk_consumer_poll`]); with nothing revoked, the `ASSIGN_PARTITIONS` op does.
    fn rdk_reconcile<S: Sink>(&mut self, cx: &mut Cx<S>, revoke: Vec<PartitionId>, assign: Vec<PartitionId>) {
        let g = self.g();
        g.to_reconcile.0.extend(revoke);
        g.to_reconcile.1.extend(assign);
        if g.reconciling.is_some() || (g.to_reconcile.0.is_empty() && g.to_reconcile.1.is_empty()) {
            return;
        }
        let (revoke, assign) = std::mem::take(&mut g.to_reconcile);
        let step = if revoke.is_empty() { Step::Assign } else { Step::Revoke };
        g.reconciling = Some((revoke.clone(), assign, step));
        if !self.assigned.is_empty() {
            // `rd_kafka_assignment_pause`: every assigned partition, what was fetched dropped.
            self.g().rdk_paused_at_us = Some(cx.now_us);
        }
        self.pause_for_revocation(cx, &revoke);
        if self.pc == Pc::Poll {
            self.wake_at(cx, cx.now_us);
        }
    }

    /// librdkafka on the consumer protocol, inside `poll()` (model.md §10.6): the rebalance ops
    /// of the reconciliation under way. `REVOKE_PARTITIONS` (the binding's default
    /// `incremental_unassign`): with `enable.auto.commit` the removed partitions' stored offsets
    /// are committed (`rd_kafka_assignment_serve_removals` → `rd_kafka_cgrp_assigned_offsets_commit`,
    /// "unassigned partitions") and the stored offsets reset (#2782); the unassign is done only
    /// once that commit is answered (`rd_kafka_assignment_serve`: `wait_commit_cnt`), and then
    /// (`rd_kafka_cgrp_consumer_incr_unassign_done`) the `ASSIGN_PARTITIONS` op is queued, even
    /// with nothing to add. Served in a poll, it takes the added partitions (from their committed
    /// offsets) and the member heartbeats at once to acknowledge
    /// (`rd_kafka_cgrp_consumer_assignment_done` → `rd_kafka_cgrp_consumer_expedite_next_heartbeat`).
    /// No commit before the reconciliation, none waited for but the unassign's.
    fn rdk_consumer_poll<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<Flow> {
        if !self.in_group {
            // Evicted: rejoin as a new member (epoch 0) at once.
            self.in_group = true;
            world.coordinator.consumer_join(cx, self.id, self.process);
            self.restart_heartbeats(cx);
        }
        loop {
            let g = self.g();
            let (revoke, assign, step) = g.reconciling.take()?;
            if g.before_rebalance.is_some() {
                // The unassign's commit is not answered: no `ASSIGN_PARTITIONS` op yet. The
                // poll waits — the heartbeat's pause dropped what the kept partitions had
                // fetched (`rd_kafka_toppar_op_pause_resume`), and the op comes a commit round
                // trip later, before a fetch resumed by nobody's wake-up — and the commit's
                // answer wakes it to serve the op.
                g.reconciling = Some((revoke, assign, step));
                return Some(Flow::Wait);
            }
            match step {
                Step::Revoke => {
                    if self.strategy.is_auto() {
                        let offsets = self
                            .client_commit_offsets(cx.s, world)
                            .into_iter()
                            .filter(|(p, _)| revoke.contains(p))
                            .collect();
                        if self.send_commit(cx, world, CommitKind::AutoBackground, offsets) {
                            self.g().before_rebalance = Some(world.commits.last_id());
                        }
                    }
                    self.drop_partitions(cx, &revoke);
                    self.g().reconciling = Some((revoke, assign, Step::Assign));
                }
                Step::Assign => {
                    // The kept partitions resume; an idle fetcher sees them at its next wake-up,
                    // unless an added partition's fetch start wakes it ([`Member::rdk_assign`]).
                    self.rdk_assign(cx, &assign);
                    if !assign.is_empty() {
                        self.take_partitions(cx, world, &assign);
                        self.status(cx, MemberStatus::Active);
                    }
                    self.g().released.extend(revoke);
                    self.acknowledge_now(cx);
                    return None;
                }
            }
        }
    }

    /// librdkafka on the consumer protocol (model.md §10.6): a commit refused STALE_MEMBER_EPOCH
    /// that the application did not make itself (the auto-commit timer's, the unassign's) goes
    /// back to the group's wait queue and out again at once with the member's epoch and the same
    /// offsets, for at most the client's `session.timeout.ms` — its default 45 s, which
    /// `group.protocol=consumer` refuses to change (`rd_kafka_conf_finalize`) —
    /// (`rd_kafka_cgrp_op_handle_OffsetCommit` → `rd_kafka_cgrp_consumer_defer_offset_commit`;
    /// the model counts it from the first send, not the first refusal). A
    /// manual one (`commit()`) fails. Returns whether the commit went out again.
    fn rdk_defer_stale_commit<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, id: CommitId) -> bool {
        let c = world.commits.get(id);
        if cx.s.client != Client::LibrdkafkaConsumerProtocol
            || c.kind != CommitKind::AutoBackground
            || cx.now_us >= c.first_sent_us.saturating_add(RDK_SESSION_TIMEOUT_US)
        {
            return false;
        }
        let epoch = self.g().generation;
        world.commits.get_mut(id).generation = epoch;
        self.dispatch_commit(cx, world, id);
        true
    }

    /// Consumer protocol, with auto-commit: a commit of every position before a reconciliation
    /// (`CommitRequestManager.maybeAutoCommitSyncBeforeRebalance`; 3.9.2:
    /// `maybeAutoCommitSyncBeforeRevocation`). The reconciliation's next step waits for it, and
    /// it is retried ([`Member::retry_before_rebalance`]).
    fn commit_before_rebalance<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        if self.strategy.is_auto() {
            let positions = self.positions();
            if self.send_commit(cx, world, CommitKind::AutoBackground, positions) && cx.s.consumer_protocol()
            {
                self.g().before_rebalance = Some(world.commits.last_id());
            }
        }
    }

    /// kafka-clients 4.x and 3.9.2 (model.md §10.6): the commit before a reconciliation, `id`, was refused
    /// with STALE_MEMBER_EPOCH. `CommitRequestManager.autoCommitSyncBeforeRebalanceWithRetries`
    /// retries it (`isStaleEpochErrorAndValidEpochAvailable`) after the request's backoff
    /// (`retry.backoff.ms`, doubling up to `retry.backoff.max.ms`; the model leaves out its 20 %
    /// jitter) while its deadline — `max.poll.interval.ms` (the rebalance timeout) after the
    /// reconciliation started, `getDeadlineMsForTimeout(rebalanceTimeoutMs)` — has not passed.
    /// Returns whether a retry is scheduled (the commit stays unsettled, the reconciliation
    /// waiting); otherwise the reconciliation goes on without it ("Will proceed with the
    /// reconciliation anyway").
    fn schedule_before_rebalance_retry<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        id: CommitId,
    ) -> bool {
        if !cx.s.consumer_protocol()
            || cx.s.client == Client::LibrdkafkaConsumerProtocol
            || self.group.as_ref().is_none_or(|g| g.before_rebalance != Some(id))
        {
            return false;
        }
        let commit = world.commits.get(id);
        let retry_at = cx.now_us + commit.next_backoff_us;
        if retry_at >= commit.first_sent_us.saturating_add(cx.s.max_poll_interval_us) {
            return false;
        }
        world.commits.get_mut(id).next_backoff_us =
            (commit.next_backoff_us * 2).min(cx.s.retry_backoff_max_us);
        self.retries_pending += 1;
        cx.schedule(retry_at, Phase::Completion, 0, Event::CommitRetry { commit: id });
        true
    }

    /// The retry of the commit before a reconciliation (model.md §10.6): the request is built
    /// again with what the member has consumed now (`requestAttempt.offsets =
    /// subscriptions.allConsumed()`) and the member epoch of its latest heartbeat
    /// (`OffsetCommitRequestState.toUnsentRequest` reads `memberInfo.memberEpoch`).
    fn retry_before_rebalance<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, old: CommitId) {
        let (first_sent_us, backoff_us) = {
            let c = world.commits.get(old);
            (c.first_sent_us, c.next_backoff_us)
        };
        self.g().before_rebalance = None;
        let positions = self.positions();
        if self.send_commit(cx, world, CommitKind::AutoBackground, positions) {
            let new = world.commits.last_id();
            let c = world.commits.get_mut(new);
            c.first_sent_us = first_sent_us;
            c.next_backoff_us = backoff_us;
            self.g().before_rebalance = Some(new);
        }
        self.commit_done(cx, world, old);
    }

    /// `java_consumer_protocol_4_2_0` with auto-commit (model.md §10.6): a reconciliation this
    /// `poll()` started pauses what it revokes, and commits every position, once the poll has
    /// handed its records out — the revoked partitions' included. kafka-clients 4.2.0's
    /// `collectFetch` does not wait for the poll's reconciliation check (KAFKA-20332): the
    /// application thread, already running, reads its buffered records while the background
    /// thread wakes up for the poll's event; the model takes that order.
    pub(super) fn reconcile_after_hand_out<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let Some(revoke) = self.group.as_mut().and_then(|g| g.after_hand_out.take()) else { return };
        self.commit_before_rebalance(cx, world);
        self.pause_for_revocation(cx, &revoke);
    }

    /// Consumer protocol: `partitions` stop being fetched and stay assigned until
    /// `onPartitionsRevoked` runs (`SubscriptionState.markPendingRevocation`); franz-go's
    /// prerevoke likewise until its commit is answered.
    fn pause_for_revocation<S: Sink>(&mut self, cx: &mut Cx<S>, partitions: &[PartitionId]) {
        for a in self.assigned.iter_mut().filter(|a| partitions.contains(&a.partition)) {
            a.revoking = true;
        }
        for &partition in partitions {
            cx.emit(Output::Stopped { partition });
            self.mark(cx, partition, MarkKind::Revoked);
        }
    }

    // ---------------------------------------------------------------- inside poll()

    /// What `poll()` does for the group before it fetches (model.md §10.5, §10.6). Returns
    /// `Some(flow)` when the poll must not fetch now (it blocks, or it closed).
    pub(crate) fn group_poll<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<Flow> {
        self.group.as_ref()?;
        if self.woken(cx, world) {
            return Some(Flow::Wait);
        }
        if cx.s.consumer_protocol() {
            return self.consumer_poll(cx, world);
        }
        if cx.s.client == Client::FranzGo {
            // franz-go's group management runs beside the application, never in its poll: only
            // a new member's first JoinGroup starts from here (`NewClient` → `manage`).
            if self.g().join == Join::Needed {
                self.franz_session_end(cx, world);
            }
            return None;
        }
        if let Some(assignment) = self.g().pending_assignment.take() {
            if let Some(flow) = self.on_join_complete(cx, world, assignment) {
                return Some(flow);
            }
        }
        if !self.in_group && self.g().join == Join::None {
            // Evicted (model.md §8.7, §10.3): rejoin; a dynamic member as a new member.
            self.g().join = Join::Needed;
        }
        match self.g().join {
            Join::None => None,
            Join::Needed => self.on_join_prepare(cx, world),
            Join::Preparing { commit, revoked } => {
                if commit.is_none_or(|c| world.commits.is_resolved(c)) {
                    self.prepared(cx, world, revoked)
                } else if self.eager(cx.s) {
                    Some(Flow::Wait)
                } else {
                    None
                }
            }
            Join::MemberIdRequired => Some(Flow::Wait),
            Join::Throttled => None,
            Join::Joining | Join::Syncing => self.wait_for_join(cx),
            Join::Responded => {
                self.send_sync(cx);
                self.wait_for_join(cx)
            }
        }
    }

    /// Whether this `poll()` waits for the join to go on (model.md §10.5): an eager member
    /// always (it revoked everything), a cooperative one only when it has no records to
    /// return — one with records returns them and takes the next step in its next `poll()`
    /// (Java `ClassicKafkaConsumer.poll` → `updateAssignmentMetadataIfNeeded(timer, false)`
    /// → `ensureActiveGroup(time.timer(0))`).
    /// The member counts as waiting in a rebalance (§10.7) only while its `poll()` waits.
    fn wait_for_join<S: Sink>(&mut self, cx: &mut Cx<S>) -> Option<Flow> {
        // Spring's batch retry polls with `Duration.ZERO`: it never waits (model.md §12.3).
        let paused = matches!(self.pc, Pc::RetryBackOff { .. });
        let waits = !paused && (self.eager(cx.s) || !self.has_records(cx.s, cx.now_us));
        if waits != self.g().join_waits {
            self.status(cx, if waits { MemberStatus::Rebalancing } else { MemberStatus::Active });
        }
        self.g().join_waits = waits;
        if waits && !self.fetched(cx.now_us) && !self.eager(cx.s) {
            // librdkafka's `poll()` returns when its idle fetcher brings records (model.md §10.4).
            self.wake_at(cx, self.fetch_idle_until_us);
        }
        waits.then_some(Flow::Wait)
    }

    fn eager(&self, s: &Scenario) -> bool {
        s.assignment_strategy != crate::scenario::Assignor::CooperativeSticky
    }

    /// librdkafka runs a cooperative member's JoinGroup and SyncGroup on its background
    /// thread (`rd_kafka_cgrp_rejoin`, `rd_kafka_cgrp_handle_JoinGroup` →
    /// `rd_kafka_SyncGroupRequest`): only the assignment waits for the application's
    /// `poll()`, which runs the rebalance callback (model.md §10.5).
    fn joins_in_background(&self, s: &Scenario) -> bool {
        ((s.client.is_librdkafka() || s.client == Client::FranzGo) && !self.eager(s))
            || s.client == Client::KafkaGo
    }

    /// kafka-go (model.md §8.14): `Generation.heartbeatLoop` returns at the first heartbeat
    /// error, REBALANCE_IN_PROGRESS included, which ends the generation (`Generation.Start`);
    /// `ConsumerGroup.nextGeneration` waits in `gen.close()` for `commitLoopImmediate`'s last
    /// commit (only requests already queued: nothing of its own) and for `Reader.unsubscribe`,
    /// which stops the partition readers, then `ConsumerGroup.run` sends JoinGroup at once with
    /// the same member id. The application is not asked: the message in hand goes on.
    fn kafka_go_generation_ends<S: Sink>(&mut self, cx: &mut Cx<S>) {
        if cx.s.client == Client::KafkaGo {
            let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
            self.drop_partitions(cx, &owned);
        }
    }

    /// kafka-go (model.md §8.14): the generation's assignment is taken as soon as SyncGroup
    /// and the OffsetFetch answer (`ConsumerGroup.nextGeneration` → `Reader.run` →
    /// `subscribe`, partition readers from the committed offsets), and the new generation's
    /// commit loop sends a commit queued meanwhile, with the new generation's id, whether or
    /// not its partition is still the member's (`Generation.CommitOffsets`).
    fn kafka_go_subscribe<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        assignment: Vec<PartitionId>,
    ) {
        self.on_join_complete(cx, world, assignment);
        if let Some((kind, offsets)) = self.g().parked.take() {
            let since = self.blocked_since_us;
            self.pc = self.resume_pc;
            if !self.send_commit(cx, world, kind, offsets) {
                self.wake_at(cx, cx.now_us);
            }
            self.blocked_since_us = since;
        }
    }

    /// `onJoinPrepare`: with auto-commit, an asynchronous commit of every position that the
    /// join waits for; eager strategies then revoke everything (`onPartitionsRevoked`) and
    /// wait inside this poll; cooperative ones keep fetching and join in a later poll (Java
    /// `ConsumerCoordinator.onJoinPrepare`).
    fn on_join_prepare<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<Flow> {
        let eager = self.eager(cx.s);
        if eager && !self.assigned.is_empty() {
            // Eager members pause everything in this poll (KAFKA-14196): the stall starts now.
            self.status(cx, MemberStatus::Rebalancing);
            for a in &self.assigned {
                cx.emit(Output::Stopped { partition: a.partition });
            }
        }
        let offsets = self.client_commit_offsets(cx.s, world);
        if self.strategy.is_auto()
            && self.in_group
            && !offsets.is_empty()
            && self.send_commit(cx, world, CommitKind::JoinPrepare, offsets)
        {
            self.g().join = Join::Preparing { commit: Some(world.commits.last_id()), revoked: false };
            return if eager { Some(Flow::Wait) } else { None };
        }
        self.prepared(cx, world, false)
    }

    /// `onJoinPrepare`'s commit is done (or there was none): eager strategies revoke
    /// everything (with `on_revoke: commit_sync`, a commit the loop waits for), then JoinGroup.
    fn prepared<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, revoked: bool) -> Option<Flow> {
        if self.eager(cx.s) && !revoked && self.revoke_all(cx, world) {
            // The commit `onPartitionsRevoked` sent; none yet while it drains the pool.
            let commit = (!matches!(self.pc, Pc::Draining { .. })).then(|| world.commits.last_id());
            self.g().join = Join::Preparing { commit, revoked: true };
            return Some(Flow::Wait);
        }
        self.send_join(cx, world)
    }

    /// Eager: every owned partition is revoked at the join (`onPartitionsRevoked`, with
    /// `on_revoke: commit_sync` a commit of each durable frontier). Returns whether the loop
    /// waits for that commit.
    fn revoke_all<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> bool {
        let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
        let waits = self.on_revoke_commit(cx, world, &owned);
        self.drop_partitions(cx, &owned);
        if cx.s.client.is_java() {
            // Java's fetch session keeps the partitions it fetched, in order, and adds new ones
            // after them (`FetchSessionHandler.Builder.build`): with no fetch sent while the
            // member holds nothing, those it gets back come first in the next fetch response.
            self.fetched_before = owned;
        }
        waits
    }

    /// Sends JoinGroup (a new dynamic member: first the MEMBER_ID_REQUIRED round trip). The
    /// loop waits inside `poll()` until the assignment arrives, unless a cooperative member
    /// has records to return ([`Member::wait_for_join`]).
    fn send_join<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<Flow> {
        let _ = world;
        let (id, process) = (self.id, self.process);
        let first = std::mem::replace(&mut self.g().new_member, false);
        self.g().join = if first { Join::MemberIdRequired } else { Join::Joining };
        cx.schedule(
            cx.now_us + cx.s.commit_latency_us,
            Phase::Lifecycle,
            id,
            Event::JoinLands { member: id, process, first },
        );
        self.mark(cx, 0, MarkKind::JoinSent);
        self.stamp_rdk_join(cx.now_us);
        self.g().join_waits = false;
        if first {
            self.g().join_waits = true;
            self.status(cx, MemberStatus::Rebalancing);
            return Some(Flow::Wait);
        }
        self.wait_for_join(cx)
    }

    /// librdkafka: a JoinGroup goes out now (the one-a-second interval counts from it).
    fn stamp_rdk_join(&mut self, now_us: u64) {
        if let Some(rdk) = &mut self.g().rdk {
            rdk.last_join_us = Some(now_us);
        }
    }

    /// librdkafka: the held-back rejoin's second is over, and its main thread wakes: the
    /// JoinGroup goes out (model.md §10.5).
    pub(crate) fn rdk_join<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, seq: u32) {
        let Some(g) = &mut self.group else { return };
        if g.heartbeat_seq != seq || g.join != Join::Throttled {
            return;
        }
        g.join = Join::None;
        if self.life == Life::Running && self.in_group {
            self.send_join(cx, world);
        }
    }

    /// The JoinGroup request lands at the coordinator (or is answered MEMBER_ID_REQUIRED and
    /// sent again).
    pub(crate) fn join_lands<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        process: u32,
        first: bool,
    ) {
        if process != self.process || self.life == Life::Down {
            return;
        }
        if first {
            self.g().join = Join::Joining;
            self.stamp_rdk_join(cx.now_us);
            let id = self.id;
            cx.schedule(
                cx.now_us + cx.s.commit_latency_us,
                Phase::Lifecycle,
                id,
                Event::JoinLands { member: id, process, first: false },
            );
            return;
        }
        self.in_group = true;
        let owned = self.assigned.iter().map(|a| a.partition).collect();
        world.coordinator.join(cx, self.id, self.process, owned);
    }

    /// The JoinGroup response: the round completed; a member waiting in `poll()` sends
    /// SyncGroup now, one returning records in its next `poll()`.
    pub(crate) fn join_response<S: Sink>(&mut self, cx: &mut Cx<S>, world: &World) {
        self.g().generation = world.coordinator.generation();
        // Java restarts its heartbeats when it reads the JoinGroup response
        // (`JoinGroupResponseHandler` → `enable()` of the heartbeat thread), one round trip before
        // the assignment (model.md §10.4); librdkafka sends none while it waits for SyncGroup.
        if !Self::rdk_threads(cx.s) {
            self.restart_heartbeats(cx);
        }
        if self.g().join_waits || self.joins_in_background(cx.s) {
            self.send_sync(cx);
        } else {
            self.g().join = Join::Responded;
        }
    }

    /// Sends SyncGroup (the leader's carries the assignment).
    fn send_sync<S: Sink>(&mut self, cx: &mut Cx<S>) {
        self.g().join = Join::Syncing;
        self.mark(cx, 0, MarkKind::SyncSent);
        let (id, process) = (self.id, self.process);
        cx.schedule(
            cx.now_us + cx.s.commit_latency_us,
            Phase::Lifecycle,
            id,
            Event::SyncLands { member: id, process },
        );
    }

    /// The SyncGroup request lands: the assignment comes back (a follower's once the
    /// leader's SyncGroup has landed), and the loop takes it in at its `poll()` (the heartbeat
    /// thread receives it; a loop waiting inside `poll()` wakes).
    pub(crate) fn sync_lands<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World, process: u32) {
        if process != self.process || self.life == Life::Down {
            return;
        }
        match world.coordinator.sync(cx, self.id, self.process) {
            Some(SyncAnswer::Parked) => {}
            Some(SyncAnswer::Assignment(assignment)) => self.synced(cx, world, Some(assignment)),
            None => {
                // The coordinator removed it meanwhile (its session ran out while the JoinGroup
                // response waited for a poll): UNKNOWN_MEMBER_ID. Java resets its member id and
                // generation and calls `onPartitionsLost` (no commit); it joins again as a new
                // member, owning nothing (`AbstractCoordinator.SyncGroupResponseHandler`).
                self.process += 1;
                self.g().new_member = true;
                let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
                self.drop_partitions(cx, &owned);
                self.synced(cx, world, None);
            }
        }
    }

    /// The SyncGroup answer: the assignment, or (`None`) dropped from the round meanwhile:
    /// join again.
    pub(crate) fn synced<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        assignment: Option<Vec<PartitionId>>,
    ) {
        if self.life == Life::Down || self.group.is_none() {
            return;
        }
        match assignment {
            Some(assignment) if cx.s.client == Client::FranzGo => {
                self.g().join = Join::None;
                self.restart_heartbeats(cx);
                self.franz_assigned(cx, world, assignment);
                return;
            }
            Some(assignment) if cx.s.client == Client::KafkaGo => {
                self.g().join = Join::None;
                self.kafka_go_subscribe(cx, world, assignment);
            }
            Some(assignment) => {
                self.g().join = Join::None;
                self.g().pending_assignment = Some(assignment);
                if Self::rdk_threads(cx.s) && !self.eager(cx.s) && !self.assigned.is_empty() {
                    // The answer pauses every assigned partition until the callback has run
                    // (`rd_kafka_rebalance_op_incr` → `rd_kafka_assignment_pause`).
                    self.g().rdk_paused_at_us = Some(cx.now_us);
                }
            }
            None => self.g().join = Join::Needed,
        }
        self.restart_heartbeats(cx);
        if self.pc == Pc::Poll && self.life == Life::Running {
            self.wake_at(cx, cx.now_us);
        }
    }

    /// `onJoinComplete`, inside `poll()`: eager members take the whole new assignment;
    /// cooperative ones revoke what moved (no auto-commit; `onPartitionsRevoked`) and, if
    /// anything did, rejoin at once for the round that hands it over.
    fn on_join_complete<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        assignment: Vec<PartitionId>,
    ) -> Option<Flow> {
        let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
        let revoked: Vec<PartitionId> = owned.iter().copied().filter(|p| !assignment.contains(p)).collect();
        let added: Vec<PartitionId> = assignment.iter().copied().filter(|p| !owned.contains(p)).collect();
        self.mark(cx, 0, MarkKind::AssignmentReceived);
        self.restart_session_ticker(cx);
        self.rdk_assign(cx, &added);
        self.take_partitions(cx, world, &added);
        self.status(cx, if self.assigned.is_empty() { MemberStatus::Idle } else { MemberStatus::Active });
        if revoked.is_empty() {
            return None;
        }
        if crate::broken::on("cooperative_revoke_commits") {
            let positions = self.positions().into_iter().filter(|(p, _)| revoked.contains(p)).collect();
            self.send_commit(cx, world, CommitKind::Async, positions);
        }
        if self.joins_in_background(cx.s) {
            // librdkafka: with auto-commit the removed partitions' stored offsets are committed
            // (`rd_kafka_assignment_serve_removals`), and the background thread rejoins once the
            // incremental unassign is done (`rd_kafka_cgrp_incr_unassign_done`): no
            // `onJoinPrepare` commit of everything, nothing waited for.
            if self.strategy.is_auto() {
                let offsets = self
                    .client_commit_offsets(cx.s, world)
                    .into_iter()
                    .filter(|(p, _)| revoked.contains(p))
                    .collect();
                self.send_commit(cx, world, CommitKind::AutoBackground, offsets);
            }
            self.drop_partitions(cx, &revoked);
            return self.send_join(cx, world);
        }
        let waits = self.on_revoke_commit(cx, world, &revoked);
        self.drop_partitions(cx, &revoked);
        self.g().join = Join::Needed;
        if waits {
            return Some(Flow::Wait);
        }
        self.on_join_prepare(cx, world)
    }

    /// librdkafka's `assign()` in the rebalance callback (model.md §10.4): it restarts the
    /// poll-interval check's timer; added partitions start fetching, which wakes the fetcher.
    /// Kept partitions that the answer paused while the application was busy come back only
    /// when the idle fetcher next wakes (`rd_kafka_toppar_op_pause_resume` drops what was
    /// fetched; resuming wakes nobody).
    fn rdk_assign<S: Sink>(&mut self, cx: &mut Cx<S>, added: &[PartitionId]) {
        let now = cx.now_us;
        let g = self.g();
        let paused_at = g.rdk_paused_at_us.take();
        let Some(rdk) = g.rdk.as_mut().or(g.rdk_fetcher.as_mut()) else { return };
        rdk.assigned(now, !added.is_empty());
        let rdk = *rdk;
        if !added.is_empty() {
            self.fetch_idle_until_us = 0;
        } else if paused_at.is_some_and(|t| t < now) {
            self.fetch_idle_until_us = self.fetch_idle_until_us.max(rdk.fetcher_wake(now));
        }
    }

    /// Consumer protocol, inside `poll()`: the callbacks of what was reconciled before —
    /// `onPartitionsRevoked` for what is paused (the next heartbeat acknowledges it),
    /// `onPartitionsAssigned` for what was added — then, under kafka-clients 4.3, the
    /// reconciliation of the target the last heartbeat brought (model.md §10.6): with auto-commit
    /// a commit of every position, the revoked partitions pause, and the callbacks run in this
    /// poll if it has no records to return at once, else in the next
    /// (`AsyncKafkaConsumer.checkInflightPoll` runs the background events before the
    /// `AsyncPollEvent` that reconciles has been processed, and `pollForFetches` returns
    /// buffered records without waiting) — but a poll whose buffer is empty runs
    /// `onPartitionsRevoked` before it returns the records it fetches
    /// ([`Member::buffer_empty`]).
    fn consumer_poll<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> Option<Flow> {
        if cx.s.client == Client::LibrdkafkaConsumerProtocol {
            return self.rdk_consumer_poll(cx, world);
        }
        if std::mem::take(&mut self.g().returns_after_callback) {
            // The same poll, after its `onPartitionsRevoked`: `checkInflightPoll` has run the
            // background events and `collectFetch` returns the records at hand; the
            // `PartitionsAssignedEvent` the callback's completion queued waits for the next poll.
            return None;
        }
        // Read before this poll's steps and fetch change the chunk in hand.
        let fetches = cx.s.client.is_kip848_4x() && self.buffer_empty();
        if cx.s.client.is_kip848_4x() {
            // The previous poll's event is held (it returned at once) and complete by now; with
            // another partition's completed fetch buffered this poll keeps it and submits none
            // — one that has nothing to return at once waits and submits one meanwhile.
            self.submit_poll_event(cx.s, cx.now_us);
        }
        // kafka-clients 4.3 looks up the positions of partitions an earlier poll's
        // reconciliation added (one that returned buffered records at once) only now
        // (`updateAssignmentMetadataIfNeeded` → `CheckAndUpdatePositionsEvent`): none of their
        // records is buffered while this poll reconciles; they come with its fetch.
        let resolving = self.awaiting_positions();
        let flow = self.consumer_poll_steps(cx, world, fetches);
        // A poll with nothing to return at once waits, and its loop looks the positions up
        // meanwhile (`AsyncKafkaConsumer.poll`): then the partitions added in it count too.
        let waits = flow.is_none() && !self.has_records(cx.s, cx.now_us);
        self.positions_resolved(waits, &resolving);
        flow
    }

    /// [`Member::consumer_poll`]'s rebalance steps; `fetches`: the poll finds its fetch buffer
    /// empty ([`Member::buffer_empty`]).
    fn consumer_poll_steps<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        fetches: bool,
    ) -> Option<Flow> {
        if !self.in_group {
            // Evicted: rejoin as a new member (epoch 0) at once.
            self.in_group = true;
            world.coordinator.consumer_join(cx, self.id, self.process);
            self.restart_heartbeats(cx);
        }
        let assigned_now = !self.g().assigning.is_empty();
        if self.consumer_callbacks(cx, world) {
            return Some(Flow::Wait);
        }
        // kafka-clients 4.3: a step of the reconciliation per poll that returns buffered records;
        // a poll with nothing to return waits for a fetch and runs the steps meanwhile.
        // kafka-clients 4.2.0 without auto-commit starts one from its background thread.
        let background = cx.s.client == Client::JavaConsumerProtocol4_2_0 && !self.strategy.is_auto();
        loop {
            let poll_event = self.poll_event;
            let g = self.g();
            let Some((revoke, assign, step)) = g.reconciling.take() else {
                if assigned_now {
                    // The reconciliation just completed by `onPartitionsAssigned` ends after this
                    // poll's `AsyncPollEvent` was processed: the next target waits for the next
                    // poll (`AbstractMembershipManager.maybeReconcile`; random seed 13002).
                    return None;
                }
                if !poll_event && !background {
                    // Only a poll's `AsyncPollEvent` starts a reconciliation (random seed 12082).
                    if !g.to_reconcile.0.is_empty() || !g.to_reconcile.1.is_empty() {
                        self.mark(cx, 0, MarkKind::PollEventSkipped);
                    }
                    return None;
                }
                let (revoke, assign) = std::mem::take(&mut g.to_reconcile);
                if revoke.is_empty() && assign.is_empty() {
                    return None;
                }
                let step = if revoke.is_empty() { Step::Assign } else { Step::Revoke };
                if cx.s.client == Client::JavaConsumerProtocol4_2_0
                    && self.strategy.is_auto()
                    && self.has_records(cx.s, cx.now_us)
                    && self.awaiting_positions().is_empty()
                {
                    // 4.2.0: this poll returns its records before the reconciliation check
                    // commits and pauses ([`Member::reconcile_after_hand_out`]) — unless a
                    // position still awaits its look-up (a partition the previous poll added):
                    // then `collectFetch` waits for the event's positions stage
                    // (`PositionsValidator.canSkipUpdateFetchPositions` false,
                    // `isValidatePositionsComplete`), which comes after the check.
                    let g = self.g();
                    g.after_hand_out = Some(revoke.clone());
                    g.reconciling = Some((revoke, assign, step));
                    return None;
                }
                self.commit_before_rebalance(cx, world);
                self.pause_for_revocation(cx, &revoke);
                self.g().reconciling = Some((revoke, assign, step));
                // Without auto-commit the reconciliation check itself queues `onPartitionsRevoked`
                // (`AbstractMembershipManager.maybeReconcile` → `revokeAndAssign` →
                // `PartitionsRemovedEvent`, before `markReconciliationCheckComplete`). A poll
                // with records buffered returns them once that check is done; one whose buffer
                // is empty finds nothing (`collectFetch` drops the paused partition's chunk), its
                // `awaitWakeup` returns at once on the wake-up the last poll's prefetch left
                // (`FetchRequestManager.pollInternal`: nothing to fetch), and its loop's
                // `checkInflightPoll` runs the callback before the fetch's records are returned
                // (issue 30, `group-pool-drain-runs-out-kip848`); `onPartitionsAssigned` then
                // waits for the next poll.
                let callback_first = fetches && step == Step::Revoke && !self.strategy.is_auto();
                if self.has_records(cx.s, cx.now_us) && !callback_first {
                    return None;
                }
                continue;
            };
            if let Some(commit) = self.g().before_rebalance {
                // The commit before the reconciliation is not answered yet (or waits for its
                // retry): the steps wait for it (`AbstractMembershipManager.maybeReconcile`:
                // `commitResult.whenComplete` → `revokeAndAssign`). A poll with records returns
                // them; one without waits, woken when the commit settles.
                debug_assert!(!world.commits.is_resolved(commit));
                self.g().reconciling = Some((revoke, assign, step));
                return if self.has_records(cx.s, cx.now_us) { None } else { Some(Flow::Wait) };
            }
            match step {
                Step::Revoke => {
                    let waits = self.on_revoke_commit(cx, world, &revoke);
                    self.g().reconciling = Some((revoke, assign, Step::Assign));
                    if waits {
                        let returns = self.has_records(cx.s, cx.now_us);
                        self.g().returns_after_callback = returns;
                        return Some(Flow::Wait);
                    }
                }
                Step::Assign => {
                    self.drop_partitions(cx, &revoke);
                    if !assign.is_empty() {
                        self.take_partitions(cx, world, &assign);
                        self.await_positions(cx.s, &assign);
                        self.status(cx, MemberStatus::Active);
                    }
                    self.g().released.extend(revoke);
                    self.acknowledge_now(cx);
                }
            }
            if self.has_records(cx.s, cx.now_us) {
                return None;
            }
        }
    }

    /// kafka-clients 4.3: the partitions whose positions are not looked up yet.
    fn awaiting_positions(&self) -> Vec<PartitionId> {
        self.assigned.iter().filter(|a| a.awaiting_position).map(|a| a.partition).collect()
    }

    /// kafka-clients 4.3: the positions of `resolving` (or, when the poll waits, of all) are
    /// looked up.
    fn positions_resolved(&mut self, all: bool, resolving: &[PartitionId]) {
        for a in self.assigned.iter_mut().filter(|a| all || resolving.contains(&a.partition)) {
            a.awaiting_position = false;
        }
    }

    /// kafka-clients 4.3: `partitions`, added inside this `poll()`, get their positions in the
    /// next one (model.md §10.6).
    fn await_positions(&mut self, s: &Scenario, partitions: &[PartitionId]) {
        if s.client.is_kip848_4x() {
            for a in self.assigned.iter_mut().filter(|a| partitions.contains(&a.partition)) {
                a.awaiting_position = true;
            }
        }
    }

    /// Consumer protocol: `onPartitionsAssigned` for what was added, `onPartitionsRevoked` for
    /// what is paused (the next heartbeat acknowledges it). Returns whether the loop now waits
    /// for the callback's commit.
    fn consumer_callbacks<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> bool {
        let assigned = std::mem::take(&mut self.g().assigning);
        if !assigned.is_empty() {
            self.take_partitions(cx, world, &assigned);
            self.await_positions(cx.s, &assigned);
            self.status(cx, MemberStatus::Active);
            self.acknowledge_now(cx);
        }
        if self.g().before_rebalance.is_some() {
            // kafka-clients 3.9: `onPartitionsRevoked` waits for the commit before the revocation
            // (`MembershipManagerImpl`: `commitResult.whenComplete` → `revokeAndAssign`).
            return false;
        }
        let revoked = std::mem::take(&mut self.g().revoking);
        if revoked.is_empty() {
            return false;
        }
        self.drop_partitions(cx, &revoked);
        let waits = self.on_revoke_commit(cx, world, &revoked);
        self.g().released.extend(revoked);
        waits
    }

    /// A pending `wakeup()` makes this blocking call throw: `close()` starts now. Returns
    /// whether it did.
    pub(crate) fn woken<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) -> bool {
        if !self.group.as_ref().is_some_and(|g| g.wakeup) {
            return false;
        }
        self.g().wakeup = false;
        self.close(cx, world);
        true
    }

    /// `on_error: retry_batch` in a group (model.md §12.3): one `poll(Duration.ZERO)` of the
    /// paused consumer between two deliveries of the batch `from..end` (spring-kafka 4.1.2
    /// `ErrorHandlingUtils.retryBatch`: one at the failure, then
    /// `ListenerUtils.conditionalSleepWithPoll` one per sleep interval after the first — 100 ms
    /// for a back-off over 500 ms, else 10 ms — and one just before the listener). It takes the
    /// group's next step and returns at once with no records: `onJoinPrepare` and the JoinGroup,
    /// the SyncGroup once the JoinGroup response is in, `onJoinComplete` once the assignment
    /// is (`FallbackBatchErrorHandler.onPartitionsAssigned` pauses what it adds). Then the
    /// listener gets the same records, whether the member still holds their partition or not.
    #[allow(clippy::too_many_arguments)]
    fn retry_back_off<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        partition: PartitionId,
        from: u64,
        end: u64,
        poll_us: u64,
        resume_us: u64,
    ) -> Flow {
        if cx.now_us < poll_us {
            return Flow::Wait; // woken before its poll
        }
        self.last_poll_us = cx.now_us;
        self.group_poll(cx, world);
        if !matches!(self.pc, Pc::RetryBackOff { .. }) {
            return Flow::Wait; // a wakeup: `close()` began
        }
        if cx.now_us >= resume_us {
            self.pc = Pc::Process { partition, from, next: from, end };
            return Flow::Next;
        }
        let interval_us = Self::spring_sleep_interval_us(cx.s);
        // The sleeps count from the failure: the first ends without a poll.
        let failed_us = resume_us - Self::spring_back_off_us(cx.s);
        let slept = (cx.now_us - failed_us) / interval_us;
        let next_us = (failed_us + (slept.max(1) + 1) * interval_us).min(resume_us);
        self.pc = Pc::RetryBackOff { partition, from, end, poll_us: next_us, resume_us };
        self.wake_at(cx, next_us);
        Flow::Wait
    }

    // ---------------------------------------------------------------- the process

    /// The process dies (model.md §10.3): nothing it had in flight lands; its partitions
    /// wait for the coordinator to expire its session.
    pub(crate) fn crash<S: Sink>(&mut self, cx: &mut Cx<S>, restart_after_us: Option<u64>) {
        self.mark(cx, 0, MarkKind::Crashed);
        self.go_down(cx);
        if let Some(after) = restart_after_us {
            cx.schedule(cx.now_us + after, Phase::Lifecycle, self.id, Event::Restart { member: self.id });
        }
    }

    /// The process is gone: the loop, its pool and its timers stop; its partitions stall.
    pub(crate) fn go_down<S: Sink>(&mut self, cx: &mut Cx<S>) {
        self.life = Life::Down;
        self.pc = Pc::Stopped;
        self.blocked_since_us = None;
        self.incarnation += 1;
        self.commits_in_flight = 0;
        self.retries_pending = 0;
        self.callbacks.clear();
        self.pool.clear();
        if let Some(g) = self.group.as_mut() {
            g.heartbeat_seq += 1;
            g.join = Join::None;
            g.pending_assignment = None;
            g.wakeup = false;
            g.revoking.clear();
            g.to_reconcile = (Vec::new(), Vec::new());
            g.reconciling = None;
            g.returns_after_callback = false;
            g.released.clear();
            g.assigning.clear();
            g.parked = None;
        }
        let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
        self.drop_partitions(cx, &owned);
        self.status(cx, MemberStatus::Down);
    }

    /// The loop stops polling until `until_us`; the heartbeat thread keeps the session alive.
    pub(crate) fn hang<S: Sink>(&mut self, cx: &mut Cx<S>, until_us: u64) {
        self.g().hung_until_us = until_us;
        self.mark(cx, 0, MarkKind::HangStarted);
        for a in &self.assigned {
            cx.emit(Output::Stopped { partition: a.partition });
        }
        self.status(cx, MemberStatus::Hung);
        cx.schedule(until_us, Phase::Lifecycle, self.id, Event::HangEnds { member: self.id });
    }

    /// The hang is over.
    pub(crate) fn hang_ends<S: Sink>(&mut self, cx: &mut Cx<S>) {
        if self.life == Life::Running {
            self.status(cx, if self.assigned.is_empty() { MemberStatus::Idle } else { MemberStatus::Active });
        }
    }

    /// Whether the loop is hung now; then `event` waits for the hang's end.
    /// Whether a hang holds the member's loop at `now_us`.
    #[inline(always)]
    pub(crate) fn hung(&self, now_us: u64) -> bool {
        self.group.as_ref().is_some_and(|g| now_us < g.hung_until_us)
    }

    pub(crate) fn deferred_by_hang<S: Sink>(&self, cx: &mut Cx<S>, event: Event) -> bool {
        match &self.group {
            Some(g) if cx.now_us < g.hung_until_us => {
                cx.schedule(g.hung_until_us, Phase::Loop, self.id, event);
                true
            }
            _ => false,
        }
    }

    /// A shutdown (model.md §10.3): `wakeup()` — the next blocking call throws, then
    /// `close()` — or `close()` at once; the process comes back `restart_after_us` after
    /// `close()` returns.
    pub(crate) fn shutdown<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        mode: ShutdownMode,
        restart_after_us: Option<u64>,
    ) {
        self.mark(cx, 0, MarkKind::ShutdownRequested);
        self.g().restart_after_us = restart_after_us;
        match mode {
            ShutdownMode::Abrupt => self.close(cx, world),
            ShutdownMode::Wakeup => {
                self.g().wakeup = true;
                // A loop idle in poll() (no partitions, or nothing to fetch) throws now.
                if self.pc == Pc::Poll && self.blocked_since_us.is_none() {
                    self.wake_at(cx, cx.now_us);
                }
            }
        }
    }

    /// `close()` returned in a group: `onPartitionsRevoked` already ran (Java
    /// `AbstractCoordinator.close` → `onLeavePrepare`); a dynamic member leaves the group
    /// (LeaveGroup, or a consumer-protocol leave heartbeat), a static one does not (KIP-345:
    /// its partitions wait for its session to expire); then the process may come back.
    pub(crate) fn closed_in_group<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let (id, process) = (self.id, self.process);
        let is_static = self.g().is_static;
        if self.in_group {
            if !is_static {
                world.coordinator.leave(cx, id, process);
            } else if cx.s.consumer_protocol() {
                world.coordinator.static_away(id, process);
            }
        }
        let restart = self.g().restart_after_us.take();
        self.go_down(cx);
        if let Some(after) = restart {
            cx.schedule(cx.now_us + after, Phase::Lifecycle, id, Event::Restart { member: id });
        }
    }

    /// The process starts (a restart, or a new member): it joins the group in its first
    /// `poll()`; a dynamic one as a new member.
    pub(crate) fn start_in_group<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        self.process += 1;
        // A new process: librdkafka's partition objects, stored offsets included, are gone.
        self.old_stores.clear();
        self.own_committed.clear();
        self.revoked_kept.clear();
        self.heads.clear();
        self.life = Life::Running;
        self.in_group = false;
        self.pc = Pc::Poll;
        self.incarnation += 1;
        let is_static = self.g().is_static;
        let rdk = Self::rdk_threads(cx.s)
            .then(|| RdkWakes::created_at(cx.s, cx.now_us, self.background_auto_commit_runs()));
        let rdk_fetcher = (cx.s.client == Client::LibrdkafkaConsumerProtocol)
            .then(|| RdkWakes::created_at(cx.s, cx.now_us, self.background_auto_commit_runs()));
        self.fetch_idle_until_us = 0;
        let g = self.g();
        g.new_member = !is_static;
        g.join = Join::Needed;
        g.hung_until_us = 0;
        g.rdk = rdk;
        g.rdk_fetcher = rdk_fetcher;
        g.rdk_paused_at_us = None;
        self.mark(cx, 0, MarkKind::Started);
        self.status(cx, MemberStatus::Rebalancing);
        if cx.s.consumer_protocol() {
            self.in_group = true;
            self.g().join = Join::None;
            world.coordinator.consumer_join(cx, self.id, self.process);
            self.reconcile(cx, world);
            self.restart_heartbeats(cx);
        }
        self.wake_at(cx, cx.now_us);
        self.start_background_timer(cx);
    }

    /// Event `index` of `group_events` reaches this member (model.md §10.3). An event aimed
    /// at a member that is down (or, for `join`, already started) is refused.
    pub(crate) fn group_event<S: Sink>(
        &mut self,
        cx: &mut Cx<S>,
        world: &mut World,
        index: u16,
    ) -> Result<(), ScenarioError> {
        let event = cx.s.group_events[index as usize];
        let (running, started) = (self.life == Life::Running, self.process > 0 || self.life != Life::Down);
        let refuse = |what: &str| {
            Err(ScenarioError::at(
                &format!("group_events[{index}]"),
                format!(
                    "consumer-{} {what} at {} ms: {} cannot apply",
                    self.id + 1,
                    format_millis(cx.now_us),
                    describe(&event)
                ),
            ))
        };
        match event.kind {
            GroupEventKind::Join if started => return refuse("has already started"),
            GroupEventKind::Join => self.start_in_group(cx, world),
            _ if !running => return refuse("is down"),
            GroupEventKind::Crash => self.crash(cx, event.restart_after_us),
            GroupEventKind::Hang => self.hang(cx, cx.now_us + event.duration_us),
            GroupEventKind::Shutdown | GroupEventKind::Deploy => {
                self.shutdown(cx, world, event.shutdown_mode, event.restart_after_us)
            }
        }
        Ok(())
    }

    /// model.md §10.3: an eviction by `max.poll.interval.ms` starts a rebalance. A dynamic
    /// member sends LeaveGroup from its heartbeat thread and rejoins as a new member in its
    /// next poll; a static one sends nothing (Java `AbstractCoordinator.maybeLeaveGroup`) and
    /// stops heartbeating, so its session runs out unless it polls first.
    pub(crate) fn evicted_from_group<S: Sink>(&mut self, cx: &mut Cx<S>, world: &mut World) {
        let (id, process) = (self.id, self.process);
        let is_static = self.g().is_static;
        if !is_static {
            world.coordinator.leave(cx, id, process);
            self.process += 1;
            self.g().new_member = true;
        }
        self.g().heartbeat_seq += 1;
        self.g().join = Join::None;
        let owned: Vec<PartitionId> = self.assigned.iter().map(|a| a.partition).collect();
        self.drop_partitions(cx, &owned);
    }
}

/// Member ids of the members present at t = 0.
#[cfg(feature = "group")]
pub(crate) fn initial_members(s: &Scenario) -> Vec<MemberId> {
    (0..s.members as MemberId).collect()
}

// Without the `group` feature: the stand-ins for the group side, holding exactly what the
// loop above uses of it.

/// Where a classic member is in a join round: without groups, nowhere.
#[cfg(not(feature = "group"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Join {
    /// Stable: nothing to do.
    None,
}

#[cfg(not(feature = "group"))]
impl Join {
    /// Whether the member awaits its SyncGroup response: never without a group.
    pub(crate) fn awaits_sync_response(self) -> bool {
        false
    }
}

/// A member's group client state: the fields the loop reads. Never built without groups.
#[cfg(not(feature = "group"))]
#[derive(Clone, Debug)]
pub(crate) struct GroupClient {
    /// Where it is in a join round.
    pub(crate) join: Join,
    /// The classic generation the member belongs to.
    pub(crate) generation: u32,
    /// `wakeup()` was called.
    pub(crate) wakeup: bool,
}

#[cfg(not(feature = "group"))]
impl GroupClient {
    /// A group client as the group side starts one (never called: no scenario is a group).
    pub(crate) fn new(_: &Scenario) -> Self {
        GroupClient { join: Join::None, generation: 1, wakeup: false }
    }
}

#[cfg(not(feature = "group"))]
impl Member {
    /// The heartbeats of a member of the group at t = 0: none without a group.
    pub(crate) fn start_heartbeats_at_zero<S: Sink>(&mut self, _: &mut Cx<S>) {}

    /// What `poll()` does for the group first: nothing without a group, the poll goes on.
    pub(crate) fn group_poll<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) -> Option<Flow> {
        None
    }

    /// A KafkaJS heartbeat after a message: no rebalance without a group.
    pub(crate) fn kafkajs_heartbeat_after_message<S: Sink>(
        &mut self,
        _: &mut Cx<S>,
        _: &World,
        _: PartitionId,
        _: u64,
        _: u64,
    ) {
    }

    /// Whether a `wakeup()` interrupted the call: never without a group.
    pub(crate) fn woken<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) -> bool {
        false
    }

    /// `onPartitionsRevoked` draining the pool: no revocation without a group.
    fn drain_step<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World, _: u64) -> Flow {
        Flow::Wait
    }

    /// A group member's batch retry between deliveries: never without a group.
    #[allow(clippy::too_many_arguments)]
    fn retry_back_off<S: Sink>(
        &mut self,
        _: &mut Cx<S>,
        _: &mut World,
        _: PartitionId,
        _: u64,
        _: u64,
        _: u64,
        _: u64,
    ) -> Flow {
        Flow::Wait
    }

    /// Whether a hang holds `event` back: a hang is a group event, so never.
    pub(crate) fn deferred_by_hang<S: Sink>(&self, _: &mut Cx<S>, _: Event) -> bool {
        false
    }

    /// Whether a hang holds the member's loop: never without a group.
    #[inline(always)]
    pub(crate) fn hung(&self, _: u64) -> bool {
        false
    }

    /// A group member's `close()` has returned: nothing to tell a group.
    pub(crate) fn closed_in_group<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) {}

    /// A group member starts again: no group to join.
    pub(crate) fn start_in_group<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) {}

    /// A group member was evicted: no group to leave.
    pub(crate) fn evicted_from_group<S: Sink>(&mut self, _: &mut Cx<S>, _: &mut World) {}
}
