//! What one run produces for a chart and a crash slider: per partition the three lines as
//! step functions and the crash profile, the event marks, and the loop's statistics, all
//! recorded in one pass over the engine's outputs (by the crate's recorder, `recorder.rs`),
//! then read at any crash instant without re-running ([`Run::state_at`]). The result JSON
//! read off a run is in [`crate::summary`].

pub use crate::line::{Line, RampStep};
pub use crate::mark_log::{Mark, MarkLog};
use crate::output::PartitionId;
pub use crate::output::{CommitFailure, MarkKind};
#[cfg(feature = "group")]
use crate::report::GroupReport;
use crate::scenario::{Scenario, US_PER_MS};
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

impl RampStep for Step<u64> {
    type Delta = u64;
    fn at_us(&self) -> u64 {
        self.at_us
    }
    fn delta_to(&self, next: &Self) -> u64 {
        next.value.wrapping_sub(self.value)
    }
    fn moved(&self, delta: u64, k: u64, every_us: u64) -> Self {
        Step { at_us: self.at_us + k * every_us, value: self.value.wrapping_add(k.wrapping_mul(delta)) }
    }
}

impl RampStep for ProfileStep {
    type Delta = (u64, u64);
    fn at_us(&self) -> u64 {
        self.at_us
    }
    fn delta_to(&self, next: &Self) -> (u64, u64) {
        (next.lost.wrapping_sub(self.lost), next.duplicated.wrapping_sub(self.duplicated))
    }
    fn moved(&self, (lost, duplicated): (u64, u64), k: u64, every_us: u64) -> Self {
        ProfileStep {
            at_us: self.at_us + k * every_us,
            lost: self.lost.wrapping_add(k.wrapping_mul(lost)),
            duplicated: self.duplicated.wrapping_add(k.wrapping_mul(duplicated)),
        }
    }
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
    /// Durable frontier over time (a step per completed record, kept as ramps).
    pub durable_frontier: Line<Step>,
    /// Committed offset over time (`None` while the group has none).
    pub committed: Vec<Step<Option<u64>>>,
    /// lost(T) and duplicated(T) for every crash instant T in (0, horizon] (kept as ramps).
    pub profile: Line<ProfileStep>,
}

pub(crate) fn value_at<V: Copy>(steps: &[Step<V>], crash_at_us: u64) -> Option<V> {
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
    /// Polls, commits and record completions, in time order (a member's records done one
    /// after another kept as ramps).
    pub marks: MarkLog,
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
        let restart_at = self.scenario.restart_offset(committed, crash_at_us);
        let (lost, duplicated) = match p.profile.last_before(crash_at_us) {
            None => (0, 0),
            Some(step) => (step.lost + self.lost_growth(committed, step.at_us, crash_at_us), step.duplicated),
        };
        CrashState {
            crash_at_us,
            position,
            durable: p
                .durable_frontier
                .last_before(crash_at_us)
                .map_or(self.scenario.log_start_offset, |s| s.value),
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
        if self.scenario.restart_follows_log_end(committed) {
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
        let restart_at = self.scenario.restart_offset(state.committed, crash_at_us);
        let mut runs = std::collections::BTreeMap::<u64, u64>::new();
        for mark in self.marks.marks().take_while(|m| m.at_us < crash_at_us) {
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
        let mut steps = p.profile.steps().peekable();
        while let Some(step) = steps.next().filter(|s| s.at_us < horizon) {
            // Over (at, end]: constant, but for lost growing with the log (model.md §8.9).
            let end = steps.peek().map_or(horizon, |n| n.at_us.min(horizon));
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
}

#[cfg(test)]
mod line_tests {
    use super::*;
    use crate::line::Line;
    use proptest::prelude::*;

    fn step(at_us: u64, value: u64) -> Step<u64> {
        Step { at_us, value }
    }

    #[test]
    #[cfg(feature = "compact-runs")] // counts the ramps kept
    fn records_at_one_pace_are_one_ramp() {
        let steps: Vec<_> = (0..100).map(|k| step(1_000 + 10 * k, 5 + k)).collect();
        let line = Line::from(steps.clone());
        assert_eq!(line.stored(), 2, "one explicit head and its ramp");
        assert_eq!(line, steps);
        assert_eq!(line.last_before(1_000), None);
        assert_eq!(line.last_before(1_001), Some(step(1_000, 5)));
        assert_eq!(line.last_before(1_010), Some(step(1_000, 5)));
        assert_eq!(line.last_before(1_011), Some(step(1_010, 6)));
        assert_eq!(line.last_before(u64::MAX), Some(step(1_990, 104)));
        assert_eq!(line.final_step(), Some(step(1_990, 104)));
    }

    proptest! {
        /// Whatever the steps, the line gives them back, reads each instant as the slice
        /// does, and compares, prints and serializes as the `Vec` of them.
        #[test]
        fn a_line_is_its_steps(
            gaps in proptest::collection::vec((1u64..=4, 0u64..=3, any::<bool>()), 0..60),
            probes in proptest::collection::vec(0u64..=300, 0..20),
        ) {
            let mut at = 0;
            let mut value = 7u64;
            let steps: Vec<_> = gaps
                .iter()
                .map(|&(gap, by, down)| {
                    at += gap;
                    value = if down { value.wrapping_sub(by) } else { value.wrapping_add(by) };
                    step(at, value)
                })
                .collect();
            let line = Line::from(steps.clone());
            prop_assert!(line.stored() <= steps.len());
            prop_assert_eq!(line.steps().collect::<Vec<_>>(), steps.clone());
            prop_assert_eq!(&*line, &steps[..]);
            prop_assert_eq!(line.final_step(), steps.last().copied());
            for at_us in probes {
                let slice = value_at(&steps, at_us);
                prop_assert_eq!(line.last_before(at_us).map(|s| s.value), slice);
            }
            prop_assert_eq!(format!("{line:?}"), format!("{steps:?}"));
            prop_assert_eq!(serde_json::to_string(&line).unwrap(), serde_json::to_string(&steps).unwrap());
            prop_assert_eq!(line.clone(), Line::from(steps));
        }
    }
}
