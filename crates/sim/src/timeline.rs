//! What one run produces for a chart and a crash slider: per partition the three lines as
//! step functions and the crash profile, the event marks, and the loop's statistics, all
//! recorded in one pass over the engine's outputs (by the crate's recorder), then read at any crash
//! instant without re-running ([`Run::state_at`]).

use crate::engine::world::{restart_follows_log_end, restart_offset};
use crate::engine::Sink;
use crate::keys::millis_value;
use crate::output::{MemberId, Output, PartitionId};
#[cfg(feature = "group")]
use crate::report::{GroupRecorder, GroupReport, GroupSummary};
use crate::runs::RunCounts;
use crate::scenario::{millis_f64, Scenario, US_PER_MS};
use serde::Serialize;

/// One step of a step function: from the event instant `at_us` on, the value is `value`.
/// A crash at T reads the last step with `at_us < T` (events at T itself have not happened).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Step<V = u64> {
    /// Event instant, µs.
    pub at_us: u64,
    /// An offset (for the position and the committed offset: `None` while there is none).
    pub value: V,
}

/// One step of the crash profile: a crash at any T in (`at_us`, next step's `at_us`]
/// would lose `lost` records and process `duplicated` records a second time. While the
/// group has no committed offset and `auto.offset.reset` is `latest`, `lost` also grows
/// with the records produced after `at_us` ([`Run::state_at`] adds them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ProfileStep {
    /// Event instant, µs.
    pub at_us: u64,
    /// Offsets below the committed offset whose side effect never landed (model.md §5).
    pub lost: u64,
    /// Completed runs that a restart from the committed offset repeats (model.md §5).
    pub duplicated: u64,
}

/// Something that happened at an instant, for the chart to mark. 32 bytes: a
/// million-record run holds a million of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    /// Event instant, µs.
    pub at_us: u64,
    /// The member it concerns (index from 0: `consumer-1` is 0).
    pub member: MemberId,
    /// The partition it concerns (index within the topic).
    pub partition: PartitionId,
    /// What happened.
    pub kind: MarkKind,
}

/// The kinds of [`Mark`].
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
    /// `commit_latency_ms` later unless a crash comes first (see [`Run::lands_at_us`]).
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

/// What became of records that threw (model.md §12), within the horizon.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RecordOutcomes {
    /// Processing attempts that threw.
    pub failed_attempts: u64,
    /// Records given up on without a run (each one lost).
    pub skipped: u64,
    /// Records sent to a dead-letter topic.
    pub dead_lettered: u64,
    /// Partitions stopped by `on_error: stop` at least once (a partition stopped again by
    /// its next owner counts once).
    pub stopped_partitions: u64,
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
}

/// The state a crash at one instant leaves behind in one partition (model.md §5), plus the
/// three lines' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CrashState {
    /// The crash instant, µs.
    #[serde(skip)]
    pub crash_at_us: u64,
    /// Position: records `poll()` had handed out; `None` before a new group's first poll.
    pub position: Option<u64>,
    /// Durable frontier: the lowest offset whose side effect had not landed.
    pub durable: u64,
    /// The committed offset the group restarts from; `None` when it has none (then it
    /// restarts where `auto.offset.reset` resolves at the crash, which lost and
    /// duplicated count from).
    pub committed: Option<u64>,
    /// Committed offsets whose work never ran (at-most-once).
    pub lost: u64,
    /// Completed runs the restart repeats (at-least-once).
    pub duplicated: u64,
    /// max(0, position − restart offset): records `poll()` hands out again after restart.
    pub reread: u64,
}

/// The offsets a crash loses and repeats ([`Run::offsets_at`]), as ascending half-open ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrashOffsets {
    /// Offsets below the committed offset that never ran.
    pub lost: Vec<std::ops::Range<u64>>,
    /// Offsets whose completed work a restart repeats.
    pub duplicated: Vec<std::ops::Range<u64>>,
}

fn push_offsets(ranges: &mut Vec<std::ops::Range<u64>>, offsets: std::ops::Range<u64>) {
    if offsets.is_empty() {
        return;
    }
    match ranges.last_mut() {
        Some(last) if last.end == offsets.start => last.end = offsets.end,
        _ => ranges.push(offsets),
    }
}

/// The worst crash instants over (0, horizon] (model.md §5). `*_at_us` is the earliest
/// instant reaching the maximum, `None` when the maximum is 0. `*_at_horizon_end`: the maximum
/// is first reached in the horizon's last stretch (the profile's last step, which the horizon
/// cuts), so a longer horizon may show a worse instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Worst {
    /// Largest `lost` over the horizon.
    pub lost: u64,
    /// Earliest crash instant losing `lost` records, µs.
    pub lost_at_us: Option<u64>,
    /// `lost` is first reached in the horizon's last stretch.
    pub lost_at_horizon_end: bool,
    /// Largest `duplicated` over the horizon.
    pub duplicated: u64,
    /// Earliest crash instant duplicating `duplicated` records, µs.
    pub duplicated_at_us: Option<u64>,
    /// `duplicated` is first reached in the horizon's last stretch.
    pub duplicated_at_horizon_end: bool,
}

impl Worst {
    /// Either maximum is first reached in the horizon's last stretch.
    pub fn at_horizon_end(&self) -> bool {
        self.lost_at_horizon_end || self.duplicated_at_horizon_end
    }
}

/// One partition's lines and crash profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionRun {
    /// The partition's index within the topic.
    pub partition: PartitionId,
    /// Position over time (`None` while no consumer holds a position).
    pub position: Vec<Step<Option<u64>>>,
    /// Durable frontier over time.
    pub durable_frontier: Vec<Step>,
    /// Committed offset over time (`None` while the group has none).
    pub committed: Vec<Step<Option<u64>>>,
    /// lost(T) and duplicated(T) for every crash instant T in (0, horizon].
    pub profile: Vec<ProfileStep>,
}

fn value_at<V: Copy>(steps: &[Step<V>], crash_at_us: u64) -> Option<V> {
    match steps.partition_point(|s| s.at_us < crash_at_us) {
        0 => None,
        i => Some(steps[i - 1].value),
    }
}

/// Everything a chart and a crash slider need from one simulation, computed once.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The (validated) scenario that produced this run.
    pub scenario: Scenario,
    /// Each partition's lines and crash profile (the one-consumer model has one, `orders-3`).
    pub partitions: Vec<PartitionRun>,
    /// Polls, commits and record completions, in time order.
    pub marks: Vec<Mark>,
    /// Loop time spent waiting in `commitSync` / `commitTransaction` within [0, horizon], µs,
    /// summed over the members (a group's report has each member's own).
    pub blocked_on_commits_us: u64,
    /// `poll()` calls within [0, horizon].
    pub polls: u64,
    /// Commits that landed within [0, horizon].
    pub commits_landed: u64,
    /// When `close()` returned (model.md §8.6), µs; `None` without a close.
    pub closed_at_us: Option<u64>,
    /// A scripted consumer's reading after each step (model.md §8.11).
    pub script: Option<Vec<ScriptReading>>,
    /// A consumer group's report (model.md §10.7); `None` for the one-consumer model.
    #[cfg(feature = "group")]
    pub group: Option<GroupReport>,
    /// What became of records that threw (model.md §12).
    pub records: RecordOutcomes,
}

/// The state after one step of a scripted consumer (model.md §8.11).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScriptReading {
    /// The step as written.
    pub step: String,
    /// When the step ended, µs.
    pub ended_at_us: u64,
    /// The position when the step ended (`None` before the first poll).
    pub position: Option<u64>,
    /// The committed offset once the step's commits have landed; `None` while the group has
    /// no committed offset.
    pub committed: Option<u64>,
}

impl Run {
    /// The one partition of the one-consumer model (`orders-3`).
    pub fn lines(&self) -> &PartitionRun {
        &self.partitions[0]
    }

    /// The state a crash at `crash_at_us` leaves in the first partition (the one-consumer
    /// model's only one): every event before that instant happened, none at or after it.
    /// O(log events).
    pub fn state_at(&self, crash_at_us: u64) -> CrashState {
        self.partition_state_at(0, crash_at_us)
    }

    /// As [`Run::state_at`], for partition `partition` (an index into [`Run::partitions`]).
    pub fn partition_state_at(&self, partition: usize, crash_at_us: u64) -> CrashState {
        let p = &self.partitions[partition];
        let position = value_at(&p.position, crash_at_us).flatten();
        let committed = value_at(&p.committed, crash_at_us).flatten();
        let restart_at = restart_offset(&self.scenario, committed, crash_at_us);
        let (lost, duplicated) = match p.profile.partition_point(|s| s.at_us < crash_at_us) {
            0 => (0, 0),
            i => {
                let step = p.profile[i - 1];
                (step.lost + self.lost_growth(committed, step.at_us, crash_at_us), step.duplicated)
            }
        };
        CrashState {
            crash_at_us,
            position,
            durable: value_at(&p.durable_frontier, crash_at_us).unwrap_or(self.scenario.log_start_offset),
            committed,
            lost,
            duplicated,
            reread: position.map_or(0, |p| p.saturating_sub(restart_at)),
        }
    }

    /// model.md §8.9: with no committed offset (or one below the log start) and `latest`, a
    /// restart at T skips to the log end at T: each record produced after the profile step
    /// at `step_at_us` adds one lost.
    fn lost_growth(&self, committed: Option<u64>, step_at_us: u64, crash_at_us: u64) -> u64 {
        if restart_follows_log_end(&self.scenario, committed) {
            self.scenario.log_end_at(crash_at_us) - self.scenario.log_end_at(step_at_us)
        } else {
            0
        }
    }

    /// When a commit sent at `sent_at_us` lands (one `commit_latency_ms` round trip).
    pub fn lands_at_us(&self, sent_at_us: u64) -> u64 {
        sent_at_us + self.scenario.commit_latency_us
    }

    /// Which offsets a crash at `crash_at_us` loses and which it repeats in the first
    /// partition, as ascending half-open ranges (for a text description of the chart).
    /// O(marks): meant for page-sized runs, not for the million-record benchmark.
    pub fn offsets_at(&self, crash_at_us: u64) -> CrashOffsets {
        let state = self.state_at(crash_at_us);
        let restart_at = restart_offset(&self.scenario, state.committed, crash_at_us);
        let mut runs = std::collections::BTreeMap::<u64, u64>::new();
        for mark in self.marks.iter().take_while(|m| m.at_us < crash_at_us) {
            if let (0, MarkKind::RecordDurable { offset }) = (mark.partition, mark.kind) {
                *runs.entry(offset).or_default() += 1;
            }
        }
        let mut offsets = CrashOffsets::default();
        // Below the restart offset: never-run offsets from the log start on are lost.
        let mut next = self.scenario.log_start_offset;
        for (&offset, &k) in runs.range(..restart_at) {
            push_offsets(&mut offsets.lost, next..offset);
            next = offset + 1;
            if k >= 2 {
                push_offsets(&mut offsets.duplicated, offset..offset + 1);
            }
        }
        push_offsets(&mut offsets.lost, next..restart_at.max(next));
        for (&offset, _) in runs.range(restart_at..) {
            push_offsets(&mut offsets.duplicated, offset..offset + 1);
        }
        offsets
    }

    /// The worst crash instants over (0, horizon] in the first partition, from one pass
    /// over its profile.
    pub fn worst(&self) -> Worst {
        let p = self.lines();
        let horizon = self.scenario.horizon_us;
        let mut worst = Worst {
            lost: 0,
            lost_at_us: None,
            lost_at_horizon_end: false,
            duplicated: 0,
            duplicated_at_us: None,
            duplicated_at_horizon_end: false,
        };
        for (i, step) in p.profile.iter().enumerate().take_while(|(_, s)| s.at_us < horizon) {
            // Over (at, end]: constant, but for lost growing with the log (model.md §8.9).
            let end = p.profile.get(i + 1).map_or(horizon, |n| n.at_us.min(horizon));
            let last = end == horizon;
            let committed = value_at(&p.committed, step.at_us + 1).flatten();
            let growth = self.lost_growth(committed, step.at_us, end);
            if step.lost + growth > worst.lost {
                worst.lost = step.lost + growth;
                let reached = match growth {
                    0 => step.at_us + 1,
                    _ => self.scenario.log_end_reaches_at(self.scenario.log_end_at(end)).unwrap_or(end),
                };
                worst.lost_at_us = Some(reached.max(step.at_us + 1));
                worst.lost_at_horizon_end = last;
            }
            if step.duplicated > worst.duplicated {
                worst.duplicated = step.duplicated;
                worst.duplicated_at_us = Some(step.at_us + 1);
                worst.duplicated_at_horizon_end = last;
            }
        }
        worst
    }

    /// Fraction (0..1) of the horizon the loop spent blocked on commits; in a group, the
    /// mean over its members (`members` and those that join) of each member's fraction
    /// (model.md §5).
    pub fn blocked_on_commits(&self) -> f64 {
        let members = u64::from(self.scenario.member_count().max(1));
        self.blocked_on_commits_us as f64 / (self.scenario.horizon_us * members) as f64
    }

    /// Commits landed per second of horizon.
    pub fn commits_per_s(&self) -> f64 {
        self.commits_landed as f64 * (1_000.0 * US_PER_MS as f64) / self.scenario.horizon_us as f64
    }

    /// Polls per second of horizon.
    pub fn polls_per_s(&self) -> f64 {
        self.polls as f64 * (1_000.0 * US_PER_MS as f64) / self.scenario.horizon_us as f64
    }

    /// The result of model.md §6 for a crash at `crash_at_us`: what `offset-window run`
    /// prints and the page exports.
    pub fn summary_at(&self, crash_at_us: u64) -> Summary {
        let worst = self.worst();
        let mut scenario = self.scenario.to_json_value();
        // One consumer, or a share group of one partition: the crash reading of §5 / §11.
        let one_consumer = !self.scenario.group_mode() && self.partitions.len() == 1;
        if let (serde_json::Value::Object(map), true) = (&mut scenario, one_consumer) {
            map.insert(crate::scenario::CRASH_AT_KEY.name.into(), millis_value(crash_at_us));
        }
        // A group reports its handovers, and the damage as a function of its first event.
        #[cfg(feature = "group")]
        let group = self.group.as_ref().map(|report| {
            let profile = crate::sweep::first_event_profile(&self.scenario).ok().flatten();
            GroupSummary::new(report, profile.as_ref())
        });
        Summary {
            scenario,
            at_crash: one_consumer.then(|| self.state_at(crash_at_us)),
            worst: one_consumer.then_some(WorstSummary {
                lost: worst.lost,
                lost_at_ms: worst.lost_at_us.map(millis_f64),
                duplicated: worst.duplicated,
                duplicated_at_ms: worst.duplicated_at_us.map(millis_f64),
                lost_at_horizon_end: worst.lost_at_horizon_end,
                duplicated_at_horizon_end: worst.duplicated_at_horizon_end,
            }),
            blocked_on_commits: self.blocked_on_commits(),
            commits_per_s: self.commits_per_s(),
            polls_per_s: self.polls_per_s(),
            commits_landed: self.commits_landed,
            polls: self.polls,
            client: self.scenario.client.note(),
            at_close: self.closed_at_us.map(|at| self.state_at(at + 1)),
            closed_at_ms: self.closed_at_us.map(millis_f64),
            script: self.script.clone(),
            #[cfg(feature = "group")]
            group,
            records: self.scenario.record_failures_possible().then_some(self.records),
            #[cfg(feature = "group")]
            share: self
                .scenario
                .share_group()
                .then(|| crate::share_report::ShareSummary::new(self, crash_at_us)),
        }
    }
}

/// The result JSON of model.md §6 (what `offset-window run` prints and the page exports).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The scenario, every key, canonical form, with the crash instant read.
    pub scenario: serde_json::Value,
    /// The state at the crash instant (one consumer; a group reports `group`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_crash: Option<CrashState>,
    /// The worst crash instants over the horizon (one consumer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<WorstSummary>,
    /// Fraction 0..1 of the horizon the loop spent blocked on commits (a group: the mean
    /// over its members; `group.members` has each one's).
    pub blocked_on_commits: f64,
    /// Commits landed per second of horizon.
    pub commits_per_s: f64,
    /// Polls per second of horizon.
    pub polls_per_s: f64,
    /// Commits landed within the horizon.
    pub commits_landed: u64,
    /// Polls within the horizon.
    pub polls: u64,
    /// Which real client's behaviour the run follows.
    pub client: &'static str,
    /// With `close_at_ms`: the state 1 µs after `close()` returned (model.md §8.6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_close: Option<CrashState>,
    /// With `close_at_ms`: when `close()` returned, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_at_ms: Option<f64>,
    /// With `script`: the reading after each step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<Vec<ScriptReading>>,
    /// A consumer group's report (model.md §10.7).
    #[cfg(feature = "group")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<GroupSummary>,
    /// With record failures (model.md §12): what became of the records that threw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<RecordOutcomes>,
    /// A share group's report (model.md §11).
    #[cfg(feature = "group")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share: Option<crate::share_report::ShareSummary>,
}

/// [`Worst`] in the JSON's milliseconds (`5000.001` is 1 µs after the event at 5000 ms).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WorstSummary {
    /// Largest `lost` over the horizon.
    pub lost: u64,
    /// Earliest crash instant reaching it, ms; null when it is 0.
    pub lost_at_ms: Option<f64>,
    /// Largest `duplicated` over the horizon.
    pub duplicated: u64,
    /// Earliest crash instant reaching it, ms; null when it is 0.
    pub duplicated_at_ms: Option<f64>,
    /// `lost` is first reached in the horizon's last stretch: a longer horizon may be worse.
    pub lost_at_horizon_end: bool,
    /// `duplicated` is first reached in the horizon's last stretch: a longer horizon may be worse.
    pub duplicated_at_horizon_end: bool,
}

fn push_step<V: PartialEq + Copy>(steps: &mut Vec<Step<V>>, at_us: u64, value: V) {
    if steps.last().is_none_or(|s| s.value != value) {
        steps.push(Step { at_us, value });
    }
}

/// One partition's bookkeeping while recording.
struct PartitionRecorder {
    runs: RunCounts,
    /// Where a restart would begin now: the committed offset, or `auto.offset.reset`'s answer.
    restart_at: u64,
    committed: Option<u64>,
    position: Option<u64>,
    durable: u64,
    lost: u64,
    duplicated: u64,
    /// Stopped by `on_error: stop` within the horizon, at least once.
    stopped: bool,
    lines: PartitionRun,
}

impl PartitionRecorder {
    /// The restart offset moves from `restart_at` to `to`: offsets in between change sides
    /// of it. Below it an offset counts max(0, k − 1) duplicates and is lost when k = 0;
    /// at or above it, k duplicates.
    fn move_restart(&mut self, to: u64) {
        let from = self.restart_at;
        let counts = self.runs.range_counts(from.min(to), from.max(to));
        if to > from {
            self.lost += counts.never_run;
            self.duplicated -= counts.run;
        } else {
            self.lost -= counts.never_run;
            self.duplicated += counts.run;
        }
        self.restart_at = to;
    }
}

/// Builds a [`Run`] from the engine's outputs: keeps lost and duplicated up to date as runs
/// complete and the committed offset moves (model.md §5 with k(o) runs per offset), and
/// appends a step to each line when its value changed at an instant. Sees only outputs.
pub(crate) struct Recorder<'a> {
    scenario: &'a Scenario,
    partitions: Vec<PartitionRecorder>,
    marks: Vec<Mark>,
    blocked_on_commits_us: u64,
    polls: u64,
    commits_landed: u64,
    closed_at_us: Option<u64>,
    /// Script readings waiting for the committed line: (step, ended at, position).
    script_steps: Vec<(usize, u64, Option<u64>)>,
    /// The group's report (model.md §10.7), for a consumer group.
    #[cfg(feature = "group")]
    group: Option<GroupRecorder>,
    records: RecordOutcomes,
    /// A share group: §11's counts come from the share-partitions.
    share: bool,
}

impl<'a> Recorder<'a> {
    pub(crate) fn new(scenario: &'a Scenario, partitions: usize) -> Self {
        // One durable step, one profile step and a mark or two per record: reserving them
        // up front saves copying the vectors as they grow (a third of a long run's time).
        let records = scenario.records_to_reserve() / partitions;
        let polls = records / scenario.max_poll_records as usize + 1;
        let start = scenario.log_start_offset;
        Recorder {
            scenario,
            partitions: (0..partitions)
                .map(|p| PartitionRecorder {
                    runs: RunCounts::new(start, records),
                    restart_at: start,
                    committed: Some(start),
                    position: None,
                    durable: start,
                    lost: 0,
                    duplicated: 0,
                    stopped: false,
                    lines: PartitionRun {
                        partition: p as PartitionId,
                        position: Vec::with_capacity(polls),
                        durable_frontier: Vec::with_capacity(records),
                        committed: Vec::new(),
                        profile: Vec::with_capacity(records),
                    },
                })
                .collect(),
            marks: Vec::with_capacity(records + 3 * polls),
            blocked_on_commits_us: 0,
            polls: 0,
            commits_landed: 0,
            closed_at_us: None,
            script_steps: Vec::new(),
            #[cfg(feature = "group")]
            group: scenario
                .group_mode()
                .then(|| GroupRecorder::new(partitions, scenario.member_count() as usize)),
            records: RecordOutcomes::default(),
            share: scenario.share_group(),
        }
    }

    /// Takes in every output but a completed run.
    fn take(&mut self, at_us: u64, output: Output) {
        let horizon = self.scenario.horizon_us;
        match output {
            Output::Position { partition, position } => {
                self.partitions[partition as usize].position = position
            }
            Output::RunCompleted { .. } => unreachable!("counted in Recorder::emit"),
            Output::DurableFrontier { partition, offset } => {
                self.partitions[partition as usize].durable = offset
            }
            Output::Committed { partition, offset } => {
                let p = &mut self.partitions[partition as usize];
                p.committed = offset;
                // A share group's start offset: §11 counts instead (Output::ShareCounts).
                if !self.share {
                    p.move_restart(restart_offset(self.scenario, offset, at_us));
                }
            }
            Output::ShareCounts { partition, duplicated, lost } => {
                let p = &mut self.partitions[partition as usize];
                p.duplicated = u64::from(duplicated);
                p.lost = u64::from(lost);
            }
            Output::Mark { member, partition, kind } => {
                match kind {
                    MarkKind::Poll { from, records } => {
                        if !self.share {
                            self.partitions[partition as usize].runs.hand_out(from, from + records as u64);
                        }
                        self.polls += u64::from(at_us <= horizon);
                        #[cfg(feature = "group")]
                        if let (Some(group), true) = (&mut self.group, records > 0) {
                            group.polled(at_us, partition, horizon);
                        }
                    }
                    MarkKind::CommitLanded { .. } => self.commits_landed += u64::from(at_us <= horizon),
                    MarkKind::Closed => self.closed_at_us = Some(at_us),
                    MarkKind::RecordFailed { .. } if at_us <= horizon => self.records.failed_attempts += 1,
                    MarkKind::RecordSkipped { .. } if at_us <= horizon => self.records.skipped += 1,
                    MarkKind::RecordDeadLettered { .. } if at_us <= horizon => {
                        self.records.dead_lettered += 1
                    }
                    MarkKind::PartitionStopped { .. } if at_us <= horizon => {
                        let p = &mut self.partitions[partition as usize];
                        self.records.stopped_partitions += u64::from(!p.stopped);
                        p.stopped = true;
                    }
                    _ => {}
                }
                self.marks.push(Mark { at_us, member, partition, kind });
            }
            Output::Unblocked { member, since_us, until_us } => {
                let blocked_us = until_us.min(horizon) - since_us.min(horizon);
                self.blocked_on_commits_us += blocked_us;
                #[cfg(feature = "group")]
                if let Some(group) = &mut self.group {
                    group.blocked(member, blocked_us);
                }
                #[cfg(not(feature = "group"))]
                let _ = member; // only a group's report counts per member
            }
            Output::ScriptStepEnded { step, position } => {
                self.script_steps.push((step as usize, at_us, position))
            }
            Output::Handover { .. }
            | Output::Stopped { .. }
            | Output::MemberStatus { .. }
            | Output::Rebalance => {
                #[cfg(feature = "group")]
                self.take_group(at_us, output);
            }
        }
    }

    /// Takes in an output only a consumer group's report reads (model.md §10.7).
    #[cfg(feature = "group")]
    fn take_group(&mut self, at_us: u64, output: Output) {
        let horizon = self.scenario.horizon_us;
        let Some(group) = &mut self.group else { return };
        match output {
            Output::Handover { partition, to } => {
                let p = &self.partitions[partition as usize];
                group.handover(self.scenario, at_us, partition, Some(to), p.committed, &p.runs);
            }
            Output::Stopped { partition } => group.stopped(at_us, partition),
            Output::MemberStatus { member, status } => group.member_status(at_us, member, status, horizon),
            Output::Rebalance => group.rebalance(at_us, horizon),
            _ => {}
        }
    }

    /// Every output of the instant `at_us` is in: append the lines' and profile's steps.
    pub(crate) fn end_of_instant(&mut self, at_us: u64) {
        for p in &mut self.partitions {
            // With no usable committed offset and `latest`, the restart offset follows the log end.
            let follows_log = restart_follows_log_end(self.scenario, p.committed);
            if follows_log {
                p.move_restart(restart_offset(self.scenario, p.committed, at_us));
            }
            push_step(&mut p.lines.position, at_us, p.position);
            push_step(&mut p.lines.durable_frontier, at_us, p.durable);
            push_step(&mut p.lines.committed, at_us, p.committed);
            let step = ProfileStep { at_us, lost: p.lost, duplicated: p.duplicated };
            // A step where the values change, and wherever lost grows with the log from
            // this instant on (Run::state_at counts the growth from the last step).
            let changed =
                p.lines.profile.last().is_none_or(|s| (s.lost, s.duplicated) != (step.lost, step.duplicated));
            if changed || follows_log {
                p.lines.profile.push(step);
            }
        }
    }

    /// The finished run.
    pub(crate) fn into_run(self) -> Run {
        let scenario = self.scenario;
        #[cfg(feature = "group")]
        let group = self.group.map(|g| {
            let committed: Vec<Option<u64>> = self.partitions.iter().map(|p| p.committed).collect();
            let runs: Vec<&RunCounts> = self.partitions.iter().map(|p| &p.runs).collect();
            g.finish(scenario, &committed, &runs)
        });
        let partitions: Vec<PartitionRun> = self.partitions.into_iter().map(|p| p.lines).collect();
        let script = scenario.script.as_ref().map(|steps| {
            self.script_steps
                .iter()
                .map(|&(step, ended_at_us, position)| ScriptReading {
                    step: steps[step].text(),
                    ended_at_us,
                    position,
                    // A step ends once its own commits have landed (or the run stopped).
                    committed: value_at(&partitions[0].committed, ended_at_us + 1).flatten(),
                })
                .collect()
        });
        Run {
            scenario: scenario.clone(),
            partitions,
            marks: self.marks,
            blocked_on_commits_us: self.blocked_on_commits_us,
            polls: self.polls,
            commits_landed: self.commits_landed,
            closed_at_us: self.closed_at_us,
            script,
            #[cfg(feature = "group")]
            group,
            records: self.records,
        }
    }
}

impl Sink for Recorder<'_> {
    /// A completed run (one per record: the hot path) is counted here; the rest in
    /// [`Recorder::take`].
    #[inline(always)]
    fn emit(&mut self, at_us: u64, output: Output) {
        match output {
            Output::RunCompleted { member, partition, offset, durable_frontier, .. } if self.share => {
                // §11 counts come from the share-partition (Output::ShareCounts).
                self.partitions[partition as usize].durable = durable_frontier;
                self.marks.push(Mark { at_us, member, partition, kind: MarkKind::RecordDurable { offset } });
            }
            Output::RunCompleted { member, partition, late, offset, durable_frontier } => {
                #[cfg(not(feature = "group"))]
                let _ = late; // only a group's report counts late runs
                let p = &mut self.partitions[partition as usize];
                let earlier_runs = p.runs.increment(offset);
                if offset < p.restart_at && earlier_runs == 0 {
                    p.lost -= 1; // committed work that had never run has now run
                } else {
                    p.duplicated += 1; // at/above committed: will run again; below: a second run
                }
                p.durable = durable_frontier;
                self.marks.push(Mark { at_us, member, partition, kind: MarkKind::RecordDurable { offset } });
                #[cfg(feature = "group")]
                if let Some(group) = &mut self.group {
                    group.run_completed(partition, offset, earlier_runs, late);
                }
            }
            other => self.take(at_us, other),
        }
    }
}
