//! What one run produces for a chart and a crash slider: the three lines as step
//! functions, the event marks, and the crash profile, all recorded in one pass over the
//! engine's events, then read at any crash instant without re-running
//! ([`Run::state_at`]).

use crate::engine::Engine;
use crate::scenario::{millis_f64, Scenario, US_PER_MS};
use serde::Serialize;

/// One step of a step function: from the event instant `at_us` on, the value is `value`.
/// A crash at T reads the last step with `at_us < T` (events at T itself have not happened).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// Event instant, µs.
    pub at_us: u64,
    /// An offset.
    pub value: u64,
}

/// One step of the crash profile: a crash at any T in (`at_us`, next step's `at_us`]
/// would lose `lost` records and process `duplicated` records a second time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ProfileStep {
    /// Event instant, µs.
    pub at_us: u64,
    /// Offsets below the committed offset whose side effect never landed (SPEC §5).
    pub lost: u64,
    /// Durable runs that a restart from the committed offset repeats (SPEC §5).
    pub duplicated: u64,
}

/// Something that happened at an instant, for the chart to mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mark {
    /// Event instant, µs.
    pub at_us: u64,
    /// What happened.
    pub kind: MarkKind,
}

/// The kinds of [`Mark`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MarkKind {
    /// `poll()` returned records `from..to` (empty at the log end).
    Poll {
        /// First offset handed out.
        from: u64,
        /// The position after the poll.
        to: u64,
    },
    /// An OffsetCommit (or `commitTransaction`) of `offset` was sent; it lands at
    /// `lands_at_us` unless a crash comes first. `blocking`: the loop waits for it.
    CommitSent {
        /// The offset committed (the next offset to read).
        offset: u64,
        /// When it reaches the coordinator, µs.
        lands_at_us: u64,
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
    /// A commit of `offset` failed (SPEC §8.7, §8.8): it never lands.
    CommitFailed {
        /// The offset it would have committed.
        offset: u64,
        /// Why.
        reason: CommitFailure,
    },
    /// The transaction aborted; the application rewound its position (SPEC §8.8).
    TransactionAborted {
        /// The position after the rewind (the committed offset).
        rewound_to: u64,
    },
    /// The member left the group: no `poll()` for `max.poll.interval.ms` (SPEC §8.7).
    Evicted,
    /// `poll()` rejoined the group and resumed from the committed offset (SPEC §8.7).
    Rejoined {
        /// The position after rejoining.
        position: u64,
    },
    /// The application called `close()` (SPEC §8.6).
    CloseCalled,
    /// `close()` returned: its commit and every commit in flight had landed.
    Closed,
    /// The empty group's committed offset expired; `auto.offset.reset` chose `reset_to` (SPEC §8.9).
    OffsetsExpired {
        /// Where the restarted consumer begins.
        reset_to: u64,
    },
    /// The consumer started again after its downtime (SPEC §8.9).
    Restarted {
        /// Its first position.
        position: u64,
    },
}

/// Why a commit failed (SPEC §8.7, §8.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitFailure {
    /// `CommitFailedException`: the member was evicted from the group (no request is sent,
    /// or the coordinator rejects the old generation).
    Evicted,
    /// A retriable error (e.g. `COORDINATOR_LOAD_IN_PROGRESS`): `commitSync` retries it.
    Retriable,
}

/// The state a crash at one instant leaves behind (SPEC §5), plus the three lines' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CrashState {
    /// The crash instant, µs.
    #[serde(skip)]
    pub crash_at_us: u64,
    /// Position: records `poll()` had handed out.
    pub position: u64,
    /// Durable frontier: the lowest offset whose side effect had not landed.
    pub durable: u64,
    /// The committed offset the group restarts from.
    pub committed: u64,
    /// Committed offsets whose work never ran (at-most-once).
    pub lost: u64,
    /// Durable runs the restart repeats (at-least-once).
    pub duplicated: u64,
    /// max(0, position − committed): records `poll()` hands out again after restart.
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

fn push_offset(ranges: &mut Vec<std::ops::Range<u64>>, offset: u64) {
    match ranges.last_mut() {
        Some(last) if last.end == offset => last.end += 1,
        _ => ranges.push(offset..offset + 1),
    }
}

/// The worst crash instants over (0, horizon] (SPEC §5). `*_at_us` is the earliest instant
/// reaching the maximum, `None` when the maximum is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Worst {
    /// Largest `lost` over the horizon.
    pub lost: u64,
    /// Earliest crash instant losing `lost` records, µs.
    pub lost_at_us: Option<u64>,
    /// Largest `duplicated` over the horizon.
    pub duplicated: u64,
    /// Earliest crash instant duplicating `duplicated` records, µs.
    pub duplicated_at_us: Option<u64>,
}

/// Everything a chart and a crash slider need from one simulation, computed once.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The (validated) scenario that produced this run.
    pub scenario: Scenario,
    /// Position over time (starts at the first event, t = 0).
    pub position: Vec<Step>,
    /// Durable frontier over time.
    pub durable_frontier: Vec<Step>,
    /// Committed offset over time.
    pub committed: Vec<Step>,
    /// lost(T) and duplicated(T) for every crash instant T in (0, horizon].
    pub profile: Vec<ProfileStep>,
    /// Polls, commits and record completions, in time order.
    pub marks: Vec<Mark>,
    /// Loop time spent waiting in `commitSync` / `commitTransaction` within [0, horizon], µs.
    pub blocked_on_commits_us: u64,
    /// `poll()` calls within [0, horizon].
    pub polls: u64,
    /// Commits that landed within [0, horizon].
    pub commits_landed: u64,
    /// When `close()` returned (SPEC §8.6), µs; `None` without a close.
    pub closed_at_us: Option<u64>,
    /// A scripted consumer's reading after each step (SPEC §8.11).
    pub script: Option<Vec<ScriptReading>>,
}

/// The state after one step of a scripted consumer (SPEC §8.11).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScriptReading {
    /// The step as written.
    pub step: String,
    /// When the step ended, µs.
    pub ended_at_us: u64,
    /// The position when the step ended.
    pub position: u64,
    /// The committed offset once the step's commits have landed; `None` while the new group
    /// has no committed offset.
    pub committed: Option<u64>,
}

pub(crate) fn value_at(steps: &[Step], crash_at_us: u64) -> u64 {
    match steps.partition_point(|s| s.at_us < crash_at_us) {
        0 => 0,
        i => steps[i - 1].value,
    }
}

impl Run {
    /// The state a crash at `crash_at_us` leaves: every event before that instant happened,
    /// none at or after it. O(log events).
    pub fn state_at(&self, crash_at_us: u64) -> CrashState {
        let position = value_at(&self.position, crash_at_us);
        let committed = value_at(&self.committed, crash_at_us);
        let (lost, duplicated) = match self.profile.partition_point(|s| s.at_us < crash_at_us) {
            0 => (0, 0),
            i => (self.profile[i - 1].lost, self.profile[i - 1].duplicated),
        };
        CrashState {
            crash_at_us,
            position,
            durable: value_at(&self.durable_frontier, crash_at_us),
            committed,
            lost,
            duplicated,
            reread: position.saturating_sub(committed),
        }
    }

    /// Which offsets a crash at `crash_at_us` loses and which it repeats, as ascending
    /// half-open ranges (for a text description of the chart). O(marks): meant for
    /// page-sized runs, not for the million-record benchmark.
    pub fn offsets_at(&self, crash_at_us: u64) -> CrashOffsets {
        let committed = value_at(&self.committed, crash_at_us);
        let mut runs: Vec<u32> = vec![0; value_at(&self.position, crash_at_us).max(committed) as usize];
        for mark in self.marks.iter().take_while(|m| m.at_us < crash_at_us) {
            if let MarkKind::RecordDurable { offset } = mark.kind {
                if let Some(k) = runs.get_mut(offset as usize) {
                    *k += 1;
                }
            }
        }
        // Offsets below the log start count as done (see Engine::new).
        for k in runs.iter_mut().take(self.scenario.log_start_offset as usize) {
            *k = (*k).max(1);
        }
        let mut offsets = CrashOffsets::default();
        for (offset, &k) in runs.iter().enumerate() {
            let offset = offset as u64;
            let below = offset < committed;
            if below && k == 0 {
                push_offset(&mut offsets.lost, offset);
            }
            if (below && k >= 2) || (!below && k >= 1) {
                push_offset(&mut offsets.duplicated, offset);
            }
        }
        offsets
    }

    /// The worst crash instants over (0, horizon], from one pass over the profile.
    pub fn worst(&self) -> Worst {
        let mut worst = Worst { lost: 0, lost_at_us: None, duplicated: 0, duplicated_at_us: None };
        for step in self.profile.iter().take_while(|s| s.at_us < self.scenario.horizon_us) {
            if step.lost > worst.lost {
                worst.lost = step.lost;
                worst.lost_at_us = Some(step.at_us + 1);
            }
            if step.duplicated > worst.duplicated {
                worst.duplicated = step.duplicated;
                worst.duplicated_at_us = Some(step.at_us + 1);
            }
        }
        worst
    }

    /// Fraction (0..1) of the horizon the loop spent blocked on commits.
    pub fn blocked_on_commits(&self) -> f64 {
        self.blocked_on_commits_us as f64 / self.scenario.horizon_us as f64
    }

    /// Commits landed per second of horizon.
    pub fn commits_per_s(&self) -> f64 {
        self.commits_landed as f64 * (1_000.0 * US_PER_MS as f64) / self.scenario.horizon_us as f64
    }

    /// Polls per second of horizon.
    pub fn polls_per_s(&self) -> f64 {
        self.polls as f64 * (1_000.0 * US_PER_MS as f64) / self.scenario.horizon_us as f64
    }

    /// The result of SPEC §6 at the scenario's own crash instant.
    pub fn summary(&self) -> Summary {
        self.summary_at(self.scenario.crash_at_us)
    }

    /// The result of SPEC §6 for a crash at `crash_at_us`.
    pub fn summary_at(&self, crash_at_us: u64) -> Summary {
        let worst = self.worst();
        let mut scenario = self.scenario.clone();
        scenario.crash_at_us = crash_at_us;
        Summary {
            scenario: scenario.to_json_value(),
            at_crash: self.state_at(crash_at_us),
            worst: WorstSummary {
                lost: worst.lost,
                lost_at_ms: worst.lost_at_us.map(millis_f64),
                duplicated: worst.duplicated,
                duplicated_at_ms: worst.duplicated_at_us.map(millis_f64),
            },
            blocked_on_commits: self.blocked_on_commits(),
            commits_per_s: self.commits_per_s(),
            polls_per_s: self.polls_per_s(),
            commits_landed: self.commits_landed,
            polls: self.polls,
            client: self.scenario.client.note(),
            at_close: self.closed_at_us.map(|at| self.state_at(at + 1)),
            closed_at_ms: self.closed_at_us.map(millis_f64),
            script: self.script.clone(),
        }
    }
}

/// The result JSON of SPEC §6 (what `offset-window run` prints and the page exports).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The scenario, every key, canonical form.
    pub scenario: serde_json::Value,
    /// The state at the crash instant.
    pub at_crash: CrashState,
    /// The worst crash instants over the horizon.
    pub worst: WorstSummary,
    /// Fraction 0..1 of the horizon the loop spent blocked on commits.
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
    /// With `close_at_ms`: the state 1 µs after `close()` returned (SPEC §8.6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_close: Option<CrashState>,
    /// With `close_at_ms`: when `close()` returned, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_at_ms: Option<f64>,
    /// With `script`: the reading after each step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<Vec<ScriptReading>>,
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
}

/// Builds a [`Run`] while the engine steps: keeps lost and duplicated up to date as records
/// complete and commits land (SPEC §5 with k(o) runs per offset), and appends a step to each
/// line when its value changed at an instant.
pub(crate) struct Recorder {
    lost: u64,
    duplicated: u64,
    pub(crate) position: Vec<Step>,
    pub(crate) durable_frontier: Vec<Step>,
    pub(crate) committed: Vec<Step>,
    pub(crate) profile: Vec<ProfileStep>,
    pub(crate) marks: Vec<Mark>,
}

fn push_step(steps: &mut Vec<Step>, at_us: u64, value: u64) {
    if steps.last().is_none_or(|s| s.value != value) {
        steps.push(Step { at_us, value });
    }
}

impl Recorder {
    /// A recorder for an engine at t = 0, counting what its initial state already holds
    /// (offsets below the log start count as done; a script's initial committed offset).
    pub(crate) fn new(engine: &Engine) -> Self {
        let (lost, duplicated) = crate::count_lost_and_duplicated(&engine.runs, engine.committed);
        // One durable step, one profile step and a mark or two per record: reserving them
        // up front saves copying the vectors as they grow (a third of a long run's time).
        let records = engine.scenario.records_to_reserve();
        let polls = records / engine.scenario.max_poll_records as usize + 1;
        Recorder {
            lost,
            duplicated,
            position: Vec::with_capacity(polls),
            durable_frontier: Vec::with_capacity(records),
            committed: Vec::new(),
            profile: Vec::with_capacity(records),
            marks: Vec::with_capacity(records + 3 * polls),
        }
    }

    pub(crate) fn mark(&mut self, mark: Mark) {
        self.marks.push(mark);
    }

    /// Called just before a run of `offset` completes (engine state still without it).
    pub(crate) fn record_durable(&mut self, engine: &Engine, offset: u64) {
        let earlier_runs = engine.runs[offset as usize];
        if offset < engine.committed && earlier_runs == 0 {
            self.lost -= 1; // committed work that had never run has now run
        } else {
            self.duplicated += 1; // at/above committed: will run again; below: a second run
        }
    }

    /// Called just before the committed offset moves to `to` (engine state still at the old one).
    pub(crate) fn commit_moves(&mut self, engine: &Engine, to: u64) {
        let from = engine.committed;
        let (low, high) = (from.min(to) as usize, from.max(to) as usize);
        // Offsets never handed out have no runs.
        let known = engine.runs.len().clamp(low, high);
        let never_run = std::iter::repeat_n(&0, high - known);
        for &runs in engine.runs[low..known].iter().chain(never_run) {
            // Below the committed offset an offset counts max(0, k − 1) duplicates and is
            // lost when k = 0; at or above it, k duplicates.
            let forward = to > from;
            match (runs == 0, forward) {
                (true, true) => self.lost += 1,
                (true, false) => self.lost -= 1,
                (false, true) => self.duplicated -= 1,
                (false, false) => self.duplicated += 1,
            }
        }
    }

    pub(crate) fn end_of_instant(&mut self, engine: &Engine) {
        let at_us = engine.now_us;
        push_step(&mut self.position, at_us, engine.position);
        push_step(&mut self.durable_frontier, at_us, engine.durable_frontier);
        push_step(&mut self.committed, at_us, engine.committed);
        let step = ProfileStep { at_us, lost: self.lost, duplicated: self.duplicated };
        if self.profile.last().is_none_or(|s| (s.lost, s.duplicated) != (step.lost, step.duplicated)) {
            self.profile.push(step);
        }
    }
}
