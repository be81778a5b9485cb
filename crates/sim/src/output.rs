//! What the engine reports as it steps: typed outputs, each at the instant being processed.
//! The recorder ([`crate::timeline`]) builds the lines, the crash profile, the marks and the
//! statistics from these alone; it never sees the engine.

use crate::timeline::MarkKind;

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

/// What a member is doing, for the group view's member lanes (model.md §10.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
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
