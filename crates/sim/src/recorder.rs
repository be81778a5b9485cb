//! The recorder: builds a [`Run`] in one pass over the engine's outputs (the lines as step
//! functions, the crash profile, the marks, the statistics). It sees only [`Output`]s,
//! never the engine.

use crate::output::{EventKey, MarkKind, Output, PartitionId, Sink, SETUP_KEY};
#[cfg(feature = "group")]
use crate::report::GroupRecorder;
use crate::runs::RunCounts;
use crate::scenario::Scenario;
use crate::timeline::{
    value_at, Line, Mark, MarkLog, PartitionRun, ProfileStep, RecordOutcomes, Run, ScriptReading, Step,
};

/// Appends a step to `steps` if `value` differs from its last one, `last` (kept beside the
/// values it follows: the vector's end is seldom in the cache).
#[inline(always)]
fn push_step<V: PartialEq + Copy>(steps: &mut Vec<Step<V>>, last: &mut Option<V>, at_us: u64, value: V) {
    if *last != Some(value) {
        *last = Some(value);
        steps.push(Step { at_us, value });
    }
}

/// [`push_step`] for a line kept as ramps.
fn push_line_step(line: &mut Line<Step>, at_us: u64, value: u64) {
    if line.final_step().is_none_or(|s| s.value != value) {
        line.push(Step { at_us, value });
    }
}

/// One partition's bookkeeping while recording.
#[derive(Clone)]
struct PartitionRecorder {
    runs: RunCounts,
    /// Where a restart would begin now: the committed offset, or `auto.offset.reset`'s answer.
    restart_at: u64,
    committed: Option<u64>,
    position: Option<u64>,
    /// The last steps of the position and committed lines ([`push_step`]).
    last_position: Option<Option<u64>>,
    last_committed: Option<Option<u64>>,
    durable: u64,
    lost: u64,
    duplicated: u64,
    /// Stopped by `on_error: stop` within the horizon, at least once.
    stopped: bool,
    /// Changed in the current instant (listed in [`Recorder::touched`]).
    touched: bool,
    /// Its restart offset follows the log end ([`Scenario::restart_follows_log_end`]).
    follows_log: bool,
    lines: PartitionRun,
}

impl PartitionRecorder {
    /// Appends the lines' and profile's steps of instant `at_us` where they changed.
    #[inline(always)]
    fn push_steps(&mut self, s: &Scenario, at_us: u64) {
        // With no usable committed offset and `latest`, the restart offset follows the log end.
        let follows_log = s.restart_follows_log_end(self.committed);
        if follows_log {
            self.move_restart(s.restart_offset(self.committed, at_us));
        }
        push_step(&mut self.lines.position, &mut self.last_position, at_us, self.position);
        push_line_step(&mut self.lines.durable_frontier, at_us, self.durable);
        push_step(&mut self.lines.committed, &mut self.last_committed, at_us, self.committed);
        let step = ProfileStep { at_us, lost: self.lost, duplicated: self.duplicated };
        // A step where the values change, and wherever lost grows with the log from
        // this instant on (Run::state_at counts the growth from the last step).
        let changed = self
            .lines
            .profile
            .final_step()
            .is_none_or(|s| (s.lost, s.duplicated) != (step.lost, step.duplicated));
        if changed || follows_log {
            self.lines.profile.push(step);
        }
    }

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
#[derive(Clone)]
pub(crate) struct Recorder<'a> {
    scenario: &'a Scenario,
    partitions: Vec<PartitionRecorder>,
    /// The partitions changed in the current instant: only they can append steps
    /// (with thousands of partitions, an instant touches one or two).
    touched: Vec<PartitionId>,
    /// How many partitions' restart offsets follow the log end: while any does, every
    /// partition is looked at each instant.
    following_log: usize,
    marks: MarkLog,
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
    /// The partitions, from the first, whose lines and profile are kept: all of them, none
    /// (a light recorder, for the sweep of model.md §10.7: only the totals and the instants
    /// that had marks, [`Recorder::mark_instants`]), or the first (a group's result JSON,
    /// which reads only its `at_close`).
    lines_kept: usize,
    /// Whether the marks are kept (else only [`Recorder::mark_instants`]): not by a light
    /// recorder, nor for a group's result JSON ([`crate::summarize`]).
    keep_marks: bool,
    mark_instants: Vec<u64>,
    /// Whether [`Recorder::mark_instants`] are kept (by a recorder that keeps no marks): not
    /// for the result JSON of a group without events, which has no sweep to read them.
    keep_instants: bool,
    /// The key of the event whose outputs come in now ([`Sink::event`]).
    event_key: EventKey,
    /// The instants of the engine's settled runs' marks, of a recorder that does not keep
    /// the marks (merged into [`Recorder::mark_instants`]).
    settled_instants: Vec<u64>,
    /// A light recorder took settled runs, whose instants it does not keep.
    instants_incomplete: bool,
    /// Each partition's next unsettled run of the engine's batch, if any
    /// ([`Sink::batch_pending`]): nothing about the partition may come in later than it, and
    /// an instant that touched the partition and has such a run leaves its steps to it.
    pending: Vec<Option<(u64, EventKey)>>,
}

/// How many marks a run reserves up front: one per record, three per poll (the poll and a
/// commit sent and landed), and for a group each member's heartbeats and
/// [`marks_by_partition`]. Capped like the records ([`Scenario::records_to_reserve`]); a run
/// past it grows the vector.
fn marks_to_reserve(s: &Scenario) -> usize {
    let records = s.records_to_reserve() as u64;
    let members = u64::from(s.member_count());
    let polls = (records / u64::from(s.max_poll_records)).max(members * (s.horizon_us / s.fetch_max_wait_us));
    #[cfg(feature = "group")]
    let group = if s.group_mode() {
        members * (s.horizon_us / s.heartbeat_interval_us + 1)
            + marks_by_partition(s) as u64
            + 3 * members * rebalances_to_reserve(s)
    } else {
        0
    };
    #[cfg(not(feature = "group"))]
    let group = 0;
    (records + 3 * polls + 1 + group).min(1 << 22) as usize
}

/// How many rebalances a group's run reserves for: the first, and two per group event (a
/// deploy's members leave and come back: two each).
#[cfg(feature = "group")]
fn rebalances_to_reserve(s: &Scenario) -> u64 {
    let members = u64::from(s.member_count());
    1 + s
        .group_events
        .iter()
        .map(|e| if e.kind == crate::events::GroupEventKind::Deploy { 2 * members } else { 2 })
        .sum::<u64>()
}

/// The marks a group's events give partition by partition (most of them kept as followers,
/// [`MarkLog`]): each partition's auto-commits (sent and landed) and each rebalance's
/// revocations and assignments. Capped like the records.
fn marks_by_partition(s: &Scenario) -> usize {
    #[cfg(feature = "group")]
    if s.group_mode() {
        let partitions = u64::from(s.partitions);
        let marks = 2 * partitions * (s.horizon_us / s.auto_commit_interval_us + 1)
            + rebalances_to_reserve(s) * 2 * partitions;
        return marks.min(1 << 22) as usize;
    }
    let _ = s;
    0
}

/// How many handovers a group's report reserves: a partition's per rebalance, capped like the
/// records. Only with `compact-runs` (the CLI and the benchmark), where room never written is
/// never resident; on the pages it would be wasm memory (about twice what a rolling deploy
/// hands over), so there the list grows as it fills.
#[cfg(feature = "group")]
fn handovers_to_reserve(s: &Scenario) -> usize {
    if !cfg!(feature = "compact-runs") {
        return 0;
    }
    (rebalances_to_reserve(s) * u64::from(s.partitions)).min(1 << 22) as usize
}

impl<'a> Recorder<'a> {
    pub(crate) fn new(scenario: &'a Scenario, partitions: usize) -> Self {
        Recorder::with_mode(scenario, partitions, partitions, true)
    }

    /// A recorder keeping the lines of the first `lines_kept` partitions, and the marks if
    /// `keep_marks`; one that keeps no lines is light: its group report lists no handovers.
    fn with_mode(scenario: &'a Scenario, partitions: usize, lines_kept: usize, keep_marks: bool) -> Self {
        // One durable step, one profile step and a mark or two per record: reserving them
        // up front saves copying the vectors as they grow (a third of a long run's time).
        let light = lines_kept == 0;
        let records = if light { 0 } else { scenario.records_to_reserve() / partitions };
        let polls =
            |p: usize| if p < lines_kept { records / scenario.max_poll_records as usize + 1 } else { 0 };
        // A position step per poll that hands out the partition's records: at most one per
        // record, and one per poll of its owner (a member's share of the records, or one
        // poll per `fetch.max.wait.ms` when they come slowly), and its revocations. That bound
        // is reserved only with `compact-runs`, where room never written is never resident;
        // the pages' wasm reserves a step per full poll and grows the line past it.
        let owner_polls = (scenario.records_to_reserve() / scenario.member_count() as usize)
            / scenario.max_poll_records as usize
            + (scenario.horizon_us / scenario.fetch_max_wait_us) as usize;
        let positions = |p: usize| {
            if cfg!(feature = "compact-runs") && p < lines_kept {
                records.min(owner_polls) + 2
            } else {
                polls(p)
            }
        };
        let start = scenario.log_start_offset;
        Recorder {
            scenario,
            partitions: (0..partitions)
                .map(|p| PartitionRecorder {
                    runs: RunCounts::new(start, records),
                    restart_at: start,
                    committed: Some(start),
                    position: None,
                    last_position: None,
                    last_committed: None,
                    durable: start,
                    lost: 0,
                    duplicated: 0,
                    stopped: false,
                    touched: false,
                    follows_log: false,
                    lines: PartitionRun {
                        partition: p as PartitionId,
                        position: Vec::with_capacity(positions(p)),
                        durable_frontier: Line::with_capacity(polls(p)),
                        committed: Vec::new(),
                        profile: Line::with_capacity(polls(p)),
                    },
                })
                .collect(),
            touched: Vec::new(),
            following_log: 0,
            marks: if keep_marks {
                let records = scenario.records_to_reserve();
                MarkLog::with_capacities(marks_to_reserve(scenario), records, marks_by_partition(scenario))
            } else {
                MarkLog::default()
            },
            keep_marks,
            blocked_on_commits_us: 0,
            polls: 0,
            commits_landed: 0,
            closed_at_us: None,
            script_steps: Vec::new(),
            #[cfg(feature = "group")]
            group: scenario.group_mode().then(|| {
                let handovers = (!light).then(|| handovers_to_reserve(scenario));
                GroupRecorder::new(partitions, scenario.member_count() as usize, handovers)
            }),
            records: RecordOutcomes::default(),
            share: scenario.share_group(),
            lines_kept,
            mark_instants: Vec::new(),
            keep_instants: true,
            event_key: SETUP_KEY,
            settled_instants: Vec::new(),
            instants_incomplete: false,
            pending: vec![None; partitions],
        }
    }

    /// A recorder for the sweep (model.md §10.7): it keeps the counts a group's report needs
    /// and, in place of the marks, the instants that had one; no lines, no profile.
    #[cfg(feature = "group")]
    pub(crate) fn light(scenario: &'a Scenario) -> Self {
        Recorder::with_mode(scenario, scenario.partitions as usize, 0, false)
    }

    /// A recorder that keeps the group's whole report, the first partition's lines and
    /// profile (the result's `at_close` reads them) and, of the marks, only their instants
    /// ([`Recorder::mark_instants`]): for a consumer group's result JSON
    /// ([`crate::summarize`]), which reads nothing else of a run (S-C, 64 × 1024 for a day,
    /// would keep 1 GB of lines).
    #[cfg(feature = "group")]
    pub(crate) fn for_group_summary(scenario: &'a Scenario) -> Self {
        let keep_instants = !scenario.group_events.is_empty();
        Recorder { keep_instants, ..Recorder::with_mode(scenario, scenario.partitions as usize, 1, false) }
    }

    /// The instants that had a mark, ascending (each once), of a recorder that does not keep
    /// the marks.
    #[cfg(feature = "group")]
    pub(crate) fn mark_instants(&self) -> Vec<u64> {
        debug_assert!(
            !self.instants_incomplete,
            "a light recorder's instants come from a run without batches"
        );
        if self.settled_instants.is_empty() {
            return self.mark_instants.clone();
        }
        let mut instants = [&self.mark_instants[..], &self.settled_instants[..]].concat();
        crate::keys::sort_ascending(&mut instants);
        instants.dedup();
        instants
    }

    /// Points the recorder at another scenario (the sweep's moved one, model.md §10.7),
    /// which differs from its own only in the first group event's instant.
    #[cfg(feature = "group")]
    pub(crate) fn set_scenario(&mut self, scenario: &'a Scenario) {
        self.scenario = scenario;
    }

    /// The group's totals so far ([`crate::report::GroupReport::lost`], `duplicated`) as
    /// they would be reported if the run ended now.
    #[cfg(feature = "group")]
    pub(crate) fn into_group_totals(self) -> Option<(u64, u64)> {
        let scenario = self.scenario;
        let committed: Vec<Option<u64>> = self.partitions.iter().map(|p| p.committed).collect();
        let runs: Vec<&RunCounts> = self.partitions.iter().map(|p| &p.runs).collect();
        let report = self.group?.finish(scenario, &committed, &runs);
        Some((report.lost(), report.duplicated()))
    }

    #[inline(always)]
    fn mark(&mut self, mark: Mark) {
        if self.keep_marks {
            self.marks.push(mark, self.event_key);
        } else if self.keep_instants && self.mark_instants.last() != Some(&mark.at_us) {
            self.mark_instants.push(mark.at_us);
        }
    }

    /// Debug builds: nothing about `partition` comes in at `at_us` in the current event
    /// while the engine's batch there has a run before it unsettled.
    #[inline(always)]
    fn check_settled(&self, at_us: u64, partition: PartitionId) {
        #[cfg(debug_assertions)]
        if let Some(&Some(next)) = self.pending.get(partition as usize) {
            debug_assert!(
                next >= (at_us, self.event_key),
                "partition {partition} observed at {at_us} µs (key {}) before its batch's run at {next:?} was settled",
                self.event_key
            );
        }
        let _ = (at_us, partition);
    }

    /// Counts a completed run (model.md §5): k(o), lost and duplicated, the durable frontier
    /// and the group's books.
    #[inline(always)]
    fn count_run(&mut self, partition: PartitionId, offset: u64, durable_frontier: u64, late: bool) {
        #[cfg(not(feature = "group"))]
        let _ = late; // only a group's report counts late runs
        let p = &mut self.partitions[partition as usize];
        let ran_before = p.runs.increment(offset);
        if offset < p.restart_at && !ran_before {
            p.lost -= 1; // committed work that had never run has now run
        } else {
            p.duplicated += 1; // at/above committed: will run again; below: a second run
        }
        p.durable = durable_frontier;
        #[cfg(feature = "group")]
        if let Some(group) = &mut self.group {
            group.run_completed(partition, offset, ran_before, late);
        }
    }

    /// Notes that `partition`'s lines or profile may change at this instant.
    #[inline(always)]
    fn touch(&mut self, partition: PartitionId) -> &mut PartitionRecorder {
        let p = &mut self.partitions[partition as usize];
        if !p.touched {
            p.touched = true;
            self.touched.push(partition);
        }
        p
    }

    /// Takes in every output but a completed run.
    fn take(&mut self, at_us: u64, output: Output) {
        let horizon = self.scenario.horizon_us;
        #[cfg(debug_assertions)]
        match output {
            Output::Position { partition, .. }
            | Output::DurableFrontier { partition, .. }
            | Output::Committed { partition, .. }
            | Output::ShareCounts { partition, .. }
            | Output::Handover { partition, .. }
            | Output::Stopped { partition }
            | Output::Mark { partition, kind: MarkKind::Poll { .. }, .. } => {
                self.check_settled(at_us, partition)
            }
            _ => {}
        }
        match output {
            Output::Position { partition, position } => self.touch(partition).position = position,
            Output::RunCompleted { .. } => unreachable!("counted in Recorder::emit"),
            Output::DurableFrontier { partition, offset } => self.touch(partition).durable = offset,
            Output::Committed { partition, offset } => {
                let follows_log = self.scenario.restart_follows_log_end(offset);
                // A share group's start offset: §11 counts instead (Output::ShareCounts).
                let restart = (!self.share).then(|| self.scenario.restart_offset(offset, at_us));
                let p = self.touch(partition);
                let was_following = std::mem::replace(&mut p.follows_log, follows_log);
                p.committed = offset;
                if let Some(restart) = restart {
                    p.move_restart(restart);
                }
                self.following_log =
                    self.following_log + usize::from(follows_log) - usize::from(was_following);
            }
            Output::ShareCounts { partition, duplicated, lost } => {
                let p = self.touch(partition);
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
                self.mark(Mark { at_us, member, partition, kind });
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
        if self.lines_kept == 0 {
            for &partition in &self.touched {
                self.partitions[partition as usize].touched = false;
            }
            self.touched.clear();
            return;
        }
        // Only a partition touched at this instant can have a new step, unless a restart
        // offset follows the log end (then every partition is looked at, as it may be one).
        let all = self.following_log > 0;
        let count = if all { self.partitions.len() } else { self.touched.len() };
        for i in 0..count {
            let index = if all { i } else { self.touched[i] as usize };
            if index >= self.lines_kept {
                continue;
            }
            // A batch's run of this instant, settled later, comes before the instant ends: the
            // instant's steps wait for it (Sink::settled).
            if self.pending[index].is_some_and(|(next_us, _)| next_us == at_us) {
                continue;
            }
            self.partitions[index].push_steps(self.scenario, at_us);
        }
        for &partition in &self.touched {
            self.partitions[partition as usize].touched = false;
        }
        self.touched.clear();
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
            marks: self.marks.finish(),
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
                self.touch(partition).durable = durable_frontier;
                self.mark(Mark { at_us, member, partition, kind: MarkKind::RecordDurable { offset } });
            }
            Output::RunCompleted { member, partition, late, offset, durable_frontier } => {
                self.check_settled(at_us, partition);
                self.touch(partition);
                self.count_run(partition, offset, durable_frontier, late);
                self.mark(Mark { at_us, member, partition, kind: MarkKind::RecordDurable { offset } });
            }
            other => self.take(at_us, other),
        }
    }

    /// A run of the engine's batch, settled after the fact: counted as it would have been
    /// then, its steps pushed at its own instant (nothing about the partition came in since),
    /// its mark placed by its event's key.
    fn settled(&mut self, at_us: u64, key: EventKey, now_us: u64, every_us: u64, output: Output) {
        let Output::RunCompleted { member, partition, late, offset, durable_frontier } = output else {
            unreachable!("a batch settles completed runs only")
        };
        debug_assert!(!self.share && self.following_log == 0, "no batch then");
        if at_us == now_us {
            self.touch(partition); // its steps come at the end of this instant
        } else {
            debug_assert!(
                !self.partitions[partition as usize].touched,
                "settled before the instant touched it"
            );
        }
        self.count_run(partition, offset, durable_frontier, late);
        if at_us < now_us && (partition as usize) < self.lines_kept {
            // Its instant's steps (the partition's values have not moved since), and those
            // the instant left to it.
            self.partitions[partition as usize].push_steps(self.scenario, at_us);
        }
        let mark = Mark { at_us, member, partition, kind: MarkKind::RecordDurable { offset } };
        if self.keep_marks {
            let placed = self.marks.push_past(mark, key, every_us);
            debug_assert!(placed, "a batch's record mark goes on from its member's last");
            if !placed {
                self.marks.push(mark, key);
            }
        } else if self.lines_kept == 0 {
            // The sweep reads only a light recorder's totals, but for its walk, which runs
            // without batches.
            self.instants_incomplete = true;
        } else if self.keep_instants && self.mark_instants.last() != Some(&at_us) {
            self.settled_instants.push(at_us);
        }
    }

    fn batch_pending(&mut self, partition: PartitionId, next: Option<(u64, EventKey)>) {
        if let Some(pending) = self.pending.get_mut(partition as usize) {
            *pending = next;
        }
    }

    #[inline(always)]
    fn event(&mut self, key: EventKey) {
        self.event_key = key;
    }
}
