//! What the engine reports as it steps: typed outputs, each at the instant being processed.
//! The recorder (`recorder.rs`) builds the lines, the crash profile, the marks and the
//! statistics of a [`Run`](crate::Run) from these alone; it never sees the engine. The
//! engine's vocabulary lives here, below both: [`MarkKind`], [`CommitFailure`], the
//! [`Sink`] the outputs go to.

use serde::Serialize;

/// A member's index: `consumer-(N + 1)` in the page's words.
pub type MemberId = u16;
/// A partition's index within the topic (the one-consumer model's `orders-3` is index 0).
pub type PartitionId = u16;
/// A commit request's number in send order, from 0.
pub type CommitId = u32;

/// One thing that happened at the instant the engine is processing. Without the `group`
/// feature the group's and share group's outputs are never emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "group"), allow(dead_code))]
pub(crate) enum Output {
    /// The consumer's position in `partition` is now `position` (`None`: no consumer holds
    /// a position there).
    Position { partition: PartitionId, position: Option<u64> },
    /// A run of `offset` by `member` completed: its side effect landed. The partition's
    /// durable frontier (lowest offset with no completed run) is now `durable_frontier`.
    /// `late`: the record was polled before the partition's last handover (a pool finishing
    /// what it held, model.md §10.7).
    RunCompleted { member: MemberId, partition: PartitionId, late: bool, offset: u64, durable_frontier: u64 },
    /// The lowest offset of `partition` with no completed run is `offset` (at t = 0).
    DurableFrontier { partition: PartitionId, offset: u64 },
    /// The coordinator's committed offset for `partition` is now `offset` (`None`: the
    /// group has none, e.g. a new group or expired offsets).
    Committed { partition: PartitionId, offset: Option<u64> },
    /// Something to mark on the chart.
    Mark { member: MemberId, partition: PartitionId, kind: MarkKind },
    /// The member's loop waited in `commitSync` / `commitTransaction` from `since_us` until
    /// `until_us` (when it went on, or the run ended).
    Unblocked { member: MemberId, since_us: u64, until_us: u64 },
    /// A script step ended (model.md §8.11), its commits settled: the position then.
    ScriptStepEnded { step: u32, position: Option<u64> },
    /// `partition` passed to `to` (a new owner, or its own member again, model.md §10.7).
    Handover { partition: PartitionId, to: MemberId },
    /// The owner of `partition` stopped processing it (a crash, `close()`, a revocation, a
    /// hang): the partition stalls until a poll hands out its records again.
    Stopped { partition: PartitionId },
    /// A member is now in this state.
    MemberStatus { member: MemberId, status: MemberStatus },
    /// A rebalance's assignment arrived (model.md §10.7).
    Rebalance,
    /// model.md §11: a share-partition's crash counts now — records run and not ended
    /// (a crash delivers them again), records ended without a run.
    ShareCounts { partition: PartitionId, duplicated: u32, lost: u32 },
}

/// Whoever consumes the engine's outputs (the recorder, the brute-force count). The engine
/// knows only this trait; each output is handed over at the instant it happens.
pub(crate) trait Sink {
    /// Takes in one output of the instant `at_us`.
    fn emit(&mut self, at_us: u64, output: Output);

    /// The outputs that follow are the event's of key `key` ([`event_key`]): what places a
    /// record's mark among the other marks of its instant ([`crate::timeline::MarkLog`]).
    #[inline(always)]
    fn event(&mut self, key: EventKey) {
        let _ = key;
    }

    /// Takes in a completed run of the engine's batch ([`Output::RunCompleted`]), settled
    /// after the fact: it happened at `at_us` (at most `now_us`, the instant of the event
    /// being handled) in an event of key `key`, the batch's runs `every_us` apart, and
    /// nothing about its partition has come in since (model.md §8.1: the engine settles a
    /// batch before anything can observe it).
    #[inline(always)]
    fn settled(&mut self, at_us: u64, key: EventKey, now_us: u64, every_us: u64, output: Output) {
        let _ = (key, now_us, every_us);
        self.emit(at_us, output);
    }

    /// The engine's batch on `partition` has its next unsettled run at `next` (instant, key),
    /// or none (`None`): no output about the partition may come in later than that before it
    /// is settled (checked by the recorder in debug builds).
    #[inline(always)]
    fn batch_pending(&mut self, partition: PartitionId, next: Option<(u64, EventKey)>) {
        let _ = (partition, next);
    }
}

/// The place of an event among the events of its instant: its phase and member
/// (`(phase + 1) << 12 | member`; the queue's order but for the scheduling sequence).
/// [`SETUP_KEY`] for the outputs of the world at t = 0, [`FINISH_KEY`] for those of the
/// run's end.
pub(crate) type EventKey = u16;

/// The key of the outputs before any event (the world at t = 0).
pub(crate) const SETUP_KEY: EventKey = 0;

/// The key of the outputs at the run's end, after every event.
pub(crate) const FINISH_KEY: EventKey = EventKey::MAX;

/// The key of an event of phase `phase` (its number in the queue's order) for `member`.
#[inline(always)]
pub(crate) fn event_key(phase: u8, member: MemberId) -> EventKey {
    debug_assert!(member < 1 << 12, "at most 256 members");
    (EventKey::from(phase) + 1) << 12 | member
}

/// What a member is doing, for the group view's member lanes (model.md §10.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(not(feature = "group"), allow(dead_code))]
pub enum MemberStatus {
    /// Processing its partitions.
    Active,
    /// In the group with no partitions.
    Idle,
    /// Not polling (a hang).
    Hung,
    /// Between its join and its new assignment.
    Rebalancing,
    /// Not running (crashed, closed, or not started yet).
    Down,
}

/// The kinds of [`Mark`](crate::timeline::Mark): what the engine reports for the chart to mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MarkKind {
    /// `poll()` handed out `records` records from `from` on (none at the log end).
    Poll {
        /// First offset handed out.
        from: u64,
        /// How many; the position after the poll is `from + records`.
        records: u32,
    },
    /// An OffsetCommit (or `commitTransaction`) of `offset` was sent; it lands one
    /// `commit_latency_ms` later unless a crash comes first (see [`Run::lands_at_us`](crate::Run::lands_at_us)).
    CommitSent {
        /// The offset committed (the next offset to read).
        offset: u64,
        /// `commitSync` / `commitTransaction` (true) or asynchronous (false).
        blocking: bool,
    },
    /// The coordinator stored `offset`.
    CommitLanded {
        /// The new committed offset.
        offset: u64,
    },
    /// The record's side effect landed (it became durable).
    RecordDurable {
        /// The record's offset.
        offset: u64,
    },
    /// Transactional mode: the handler finished the record, but its output is only
    /// durable when the transaction commits.
    RecordProcessed {
        /// The record's offset.
        offset: u64,
    },
    /// A commit of `offset` failed (model.md §8.7, §8.8): it never lands.
    CommitFailed {
        /// The offset it would have committed.
        offset: u64,
        /// Why.
        reason: CommitFailure,
    },
    /// The transaction aborted; the application rewound its position (model.md §8.8).
    TransactionAborted {
        /// The position after the rewind (the committed offset).
        rewound_to: u64,
    },
    /// The member left the group: no `poll()` for `max.poll.interval.ms` (model.md §8.7).
    Evicted,
    /// `poll()` rejoined the group and resumed from the committed offset (model.md §8.7).
    Rejoined {
        /// The position after rejoining.
        position: u64,
    },
    /// The application called `close()` (model.md §8.6).
    CloseCalled,
    /// `close()` returned: its commit and every commit in flight had landed.
    Closed,
    /// The empty group's committed offsets were deleted (model.md §8.9): a restart resolves
    /// `auto.offset.reset`.
    OffsetsExpired,
    /// The consumer started again after its downtime (model.md §8.9).
    Restarted {
        /// Its first position.
        position: u64,
    },
    /// The process died (model.md §10.3).
    Crashed,
    /// The member stopped polling (a hang, model.md §10.3).
    HangStarted,
    /// A shutdown began (`wakeup()` or `close()`, model.md §10.3).
    ShutdownRequested,
    /// The process started (a restart or a new member).
    Started,
    /// The member sent JoinGroup (model.md §10.5).
    JoinSent,
    /// The member sent SyncGroup (model.md §10.5).
    SyncSent,
    /// Its SyncGroup answered with its assignment.
    AssignmentReceived,
    /// The member took this partition.
    Assigned,
    /// The member gave up this partition.
    Revoked,
    /// The coordinator expired the member's session (model.md §10.3).
    SessionExpired,
    /// The member's heartbeat (model.md §10.4).
    Heartbeat,
    /// kafka-clients 4.3 (model.md §10.6): this `poll()` submitted no `AsyncPollEvent` — the
    /// previous poll's was still held and another fetched chunk waited — so the reconciliation
    /// or the auto-commit due waits for the next poll. (The real client submits one anyway
    /// when the previous poll's event completed inside that poll: a race of its two threads.)
    PollEventSkipped,
    /// An attempt at the record threw (model.md §12): no run.
    RecordFailed {
        /// The record's offset.
        offset: u64,
    },
    /// The application gave up on the record (`log_and_continue`, `retry` out of attempts,
    /// `seek_to_failed` out of deliveries): it counts as handled, with no run.
    RecordSkipped {
        /// The record's offset.
        offset: u64,
    },
    /// `seek_to_failed` with `dead_letter`: the record went to a dead-letter topic, which
    /// counts as its run.
    RecordDeadLettered {
        /// The record's offset.
        offset: u64,
    },
    /// `on_error: stop`: the partition stopped at the record, for good.
    PartitionStopped {
        /// The offset it stopped at.
        offset: u64,
    },
    /// Share groups (model.md §11): a member acquired the record, its `delivery`-th delivery.
    ShareAcquired {
        /// The record's offset.
        offset: u64,
        /// Deliveries so far, this one included.
        delivery: u32,
    },
    /// An ACCEPT of the record landed: it ended.
    ShareAccepted {
        /// The record's offset.
        offset: u64,
    },
    /// A REJECT of the record landed: it ended, never to be delivered again.
    ShareRejected {
        /// The record's offset.
        offset: u64,
    },
    /// A RELEASE of the record landed: it is offered again (or archived, see
    /// [`MarkKind::ShareArchived`]).
    ShareReleased {
        /// The record's offset.
        offset: u64,
    },
    /// A RENEW of the record landed: its acquisition lock runs a full
    /// `group.share.record.lock.duration.ms` again from here.
    ShareRenewed {
        /// The record's offset.
        offset: u64,
    },
    /// The record's acquisition lock expired (`group.share.record.lock.duration.ms`).
    ShareLockExpired {
        /// The record's offset.
        offset: u64,
    },
    /// Released at `group.share.delivery.count.limit` deliveries: archived, never delivered again.
    ShareArchived {
        /// The record's offset.
        offset: u64,
    },
}

/// Why a commit failed (model.md §8.7, §8.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitFailure {
    /// `CommitFailedException`: the member was evicted from the group (no request is sent,
    /// or the coordinator rejects the old generation).
    Evicted,
    /// A retriable error (e.g. `COORDINATOR_LOAD_IN_PROGRESS`): `commitSync` retries it.
    Retriable,
    /// REBALANCE_IN_PROGRESS: it landed between a join round's completion and the
    /// assignment (model.md §10.5); `commitSync` throws and the application moves on.
    RebalanceInProgress,
    /// STALE_MEMBER_EPOCH (consumer protocol): the commit carried a member epoch older than
    /// the member's, refused for this partition (model.md §10.6); `commitSync` throws
    /// CommitFailedException and the application moves on.
    StaleMemberEpoch,
}
