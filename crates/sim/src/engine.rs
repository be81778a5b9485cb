//! The discrete-event engine: one consumer's poll loop (SPEC §3), its worker pool (§4), the
//! group coordinator's committed offset (§2), and the lifecycle of §8 (background
//! auto-commit, close, eviction, failed commits, downtime and offset expiry, scripts,
//! jitter), stepped through a queue of timed events.
//!
//! Events at one instant run in a fixed order (SPEC §8.1): a close first (it sees only
//! earlier events), then pool record completions and commit responses (in send order),
//! then the loop (a loop-run record's completion, then `poll()` with its auto-commit check),
//! then background timers. Ties inside a phase break by scheduling order, so a run is a pure
//! function of its [`Scenario`].
//!
//! The engine knows nothing of crashes: a crash at T is the state after every event with
//! time < T, which [`crate::Run::state_at`] reads off the recorded step functions and
//! [`crate::crash_state_brute_force`] recomputes by stopping the engine at T.

use crate::scenario::{
    format_millis, CommitValue, IsolationLevel, Jitter, OffsetReset, Scenario, ScenarioError, ScriptStep,
    Strategy, MAX_EVENTS, US_PER_MS,
};
use crate::timeline::{CommitFailure, Mark, MarkKind, Recorder};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Order of simultaneous events (SPEC §8.1): lower runs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// `close()` or a restart: sees only what happened before this instant.
    Lifecycle = 0,
    /// A pool record completes, a commit response arrives.
    Completion = 1,
    /// The application's loop: a record it ran completes, then it may `poll()`.
    Loop = 2,
    /// Background timers: the auto-commit timer of §8.2, the poll-interval check of §8.7.
    Background = 3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    /// A record's processing ends. `worker` is the pool thread; `None`: the loop ran it
    /// itself and resumes. `incarnation`: the application's life it belongs to (a close
    /// or restart cancels the work in progress).
    RecordDone { offset: u64, worker: Option<u32>, incarnation: u32 },
    /// The response to commit request `id` arrives (the commit lands, or fails).
    CommitResponse { id: usize, fails: bool },
    /// A failed synchronous commit `id` is sent again after its backoff.
    CommitRetry { id: usize },
    /// The loop resumes (if still in the same `incarnation`).
    LoopWake { incarnation: u32 },
    /// SPEC §8.2: the background auto-commit timer fires.
    BackgroundAutoCommit,
    /// SPEC §8.7: the member has not polled for `max.poll.interval.ms` unless it polled since.
    PollIntervalCheck,
    /// SPEC §8.6: the application calls `close()`.
    Close,
    /// SPEC §8.9: the consumer starts again after its downtime.
    Restart,
}

/// A scheduled event, ordered by one key: time, then phase (SPEC §8.1), then scheduling
/// order (`seq`), packed as `time << 64 | phase << 56 | seq` so the queue compares one integer.
#[derive(Clone, Copy, Debug)]
struct Queued {
    key: u128,
    event: Event,
}

impl Queued {
    fn at_us(&self) -> u64 {
        (self.key >> 64) as u64
    }
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// Who sent a commit, which decides what happens when it fails (SPEC §8.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CommitKind {
    /// `commitSync`: the loop waits; retried with backoff until `default.api.timeout.ms`.
    Sync,
    /// `commitAsync`: not retried by the client.
    Async,
    /// Java's poll-driven auto-commit: a failure reschedules the timer `retry.backoff.ms` later.
    AutoInPoll,
    /// A background timer's commit (§8.2, §8.3): the next tick tries again.
    AutoBackground,
    /// `close()`'s synchronous commit: retried as `Sync`.
    Close,
    /// `sendOffsetsToTransaction` + `commitTransaction` of records `from..to`.
    Transaction { from: u64, to: u64 },
}

impl CommitKind {
    fn blocks_loop(self) -> bool {
        matches!(self, CommitKind::Sync | CommitKind::Transaction { .. })
    }
    fn retried(self) -> bool {
        matches!(self, CommitKind::Sync | CommitKind::Close | CommitKind::Transaction { .. })
    }
}

/// One commit the application or client asked for, with its retry state.
#[derive(Clone, Copy, Debug)]
struct Commit {
    offset: u64,
    kind: CommitKind,
    first_sent_us: u64,
    next_backoff_us: u64,
    /// The group generation it was sent in: a commit from an evicted generation fails.
    generation: u32,
}

/// Where the application's loop is (its program counter between events).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pc {
    /// About to `poll()`.
    Poll,
    /// Synchronous loop: about to process record `next` of the batch `from..end`.
    Process { from: u64, next: u64, end: u64 },
    /// Synchronous loop: record `offset` of the batch `from..end` just finished.
    AfterRecord { from: u64, offset: u64, end: u64 },
    /// The batch `from..to` is done (synchronous) or handed off (pool): commit as the
    /// strategy says.
    AfterBatch { from: u64, to: u64 },
    /// Pool + `commit_sync_record`: commit `next + 1`, one blocking commit per handed-off record.
    CommitHandedOff { next: u64, end: u64 },
    /// Pool full: the loop waits for a batch to finish.
    WaitingForRoom,
    /// Waiting for a blocking commit's outcome; then continue at the stored `Pc`.
    Blocked,
    /// Script: about to run step `step`.
    Script { step: usize },
    /// Script: processing (`left` more records after the one in progress), then step `step + 1`.
    ScriptProcess { step: usize, left: u64 },
    /// Script: waiting for the last step's commits to land before running step `step`.
    ScriptAwaitCommits { step: usize },
    /// The application stopped (closed, crashed, or closing).
    Stopped,
}

/// Where the application is in its lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    Running,
    /// `close()` called: waiting for the pool to drain (if asked) and for commits to land.
    Closing {
        commit_sent: bool,
    },
    /// `close()` returned, or the process died.
    Down,
}

/// A batch waiting for, or being processed by, a pool thread.
#[derive(Clone, Copy, Debug)]
struct Batch {
    next: u64,
    end: u64,
}

/// Everything the engine tracks; exposed to the crate so the recorder and the brute-force
/// path can read the state at any instant.
pub(crate) struct Engine<'a> {
    pub(crate) scenario: &'a Scenario,
    strategy: Strategy,
    pub(crate) now_us: u64,
    queue: BinaryHeap<Reverse<Queued>>,
    /// The loop's own next event, kept out of the heap: the loop is one thread, so it has at
    /// most one pending event (a newer one replaces an event of an earlier incarnation).
    loop_event: Option<Queued>,
    seq: u64,
    pc: Pc,
    resume_pc: Pc,
    life: Life,
    /// Counts the application's lives: bumped when `close()` drops the work in progress and
    /// at each restart, so events of an earlier life are ignored.
    incarnation: u32,
    /// Next offset `poll()` hands out (SubscriptionState.position).
    pub(crate) position: u64,
    /// The coordinator's committed offset (for a script before its first commit: where a
    /// restart would begin, by `auto.offset.reset`).
    pub(crate) committed: u64,
    /// When the first commit landed (scripts start with no committed offset).
    pub(crate) first_commit_landed_us: Option<u64>,
    /// Completed runs per offset (index = offset), for offsets below the highest position.
    pub(crate) runs: Vec<u32>,
    /// Lowest offset with no completed run (the durable frontier).
    pub(crate) durable_frontier: u64,
    /// The offset a librdkafka application stored after processing (SPEC §8.3).
    stored_offset: u64,
    auto_commit_deadline_us: u64,
    records_since_commit: u64,
    // Commits.
    commits: Vec<Commit>,
    commit_requests_sent: u64,
    commits_in_flight: u32,
    async_retries: Vec<usize>,
    failure_rng: ChaCha8Rng,
    blocked_since_us: Option<u64>,
    // Group membership (SPEC §8.7).
    member: bool,
    generation: u32,
    last_poll_us: u64,
    poll_check_pending: bool,
    // Worker pool.
    waiting_batches: VecDeque<Batch>,
    worker_batches: Vec<Option<Batch>>,
    in_flight_batches: u32,
    // Per-offset processing times under jitter (SPEC §8.12), drawn in offset order.
    jitter_rng: ChaCha8Rng,
    processing_us: Vec<u64>,
    // Loop statistics over [0, horizon].
    pub(crate) blocked_on_commits_us: u64,
    pub(crate) polls: u64,
    pub(crate) commits_landed: u64,
    pub(crate) closed_at_us: Option<u64>,
    /// When each commit (by id) landed or was given up.
    pub(crate) commit_resolved_us: Vec<Option<u64>>,
    // Script bookkeeping (SPEC §8.11).
    script_step: Option<usize>,
    script_commits: Vec<usize>,
    pub(crate) script_records: Vec<ScriptRecord>,
}

/// What a script step left: the position when it ended and the commits it sent, whose
/// landing the reading of the committed offset waits for (SPEC §8.11).
pub(crate) struct ScriptRecord {
    pub(crate) step: usize,
    pub(crate) ended_at_us: u64,
    pub(crate) position: u64,
    pub(crate) commits: Vec<usize>,
}

impl<'a> Engine<'a> {
    /// A consumer at t = 0, about to make its first `poll()` (or run its script's first step).
    pub(crate) fn new(scenario: &'a Scenario) -> Self {
        let threads = if scenario.worker_pool { scenario.pool_threads as usize } else { 0 };
        let committed = match (&scenario.script, scenario.auto_offset_reset) {
            (Some(_), OffsetReset::Latest) => scenario.log_end_offset,
            _ => scenario.log_start_offset,
        };
        let mut engine = Engine {
            scenario,
            strategy: scenario.effective_strategy(),
            now_us: 0,
            queue: BinaryHeap::new(),
            loop_event: None,
            seq: 0,
            pc: if scenario.script.is_some() { Pc::Script { step: 0 } } else { Pc::Poll },
            resume_pc: Pc::Poll,
            life: Life::Running,
            incarnation: 0,
            position: scenario.log_start_offset,
            committed,
            first_commit_landed_us: None,
            runs: {
                let start = scenario.log_start_offset as usize;
                let mut runs = Vec::with_capacity(start + scenario.records_to_reserve());
                runs.resize(start, 1);
                runs
            },
            durable_frontier: 0,
            stored_offset: scenario.log_start_offset,
            auto_commit_deadline_us: scenario.auto_commit_interval_us,
            records_since_commit: 0,
            commits: Vec::new(),
            commit_requests_sent: 0,
            commits_in_flight: 0,
            async_retries: Vec::new(),
            failure_rng: ChaCha8Rng::seed_from_u64(scenario.seed.wrapping_add(1)),
            blocked_since_us: None,
            member: true,
            generation: 0,
            last_poll_us: 0,
            poll_check_pending: false,
            waiting_batches: VecDeque::new(),
            worker_batches: vec![None; threads],
            in_flight_batches: 0,
            jitter_rng: ChaCha8Rng::seed_from_u64(scenario.seed),
            processing_us: Vec::new(),
            blocked_on_commits_us: 0,
            polls: 0,
            commits_landed: 0,
            closed_at_us: None,
            commit_resolved_us: Vec::new(),
            script_step: None,
            script_commits: Vec::new(),
            script_records: Vec::new(),
        };
        // Offsets below the log start (retention deleted them) count as done.
        engine.durable_frontier = engine.runs.len() as u64;
        engine.schedule(0, Phase::Loop, Event::LoopWake { incarnation: 0 });
        if matches!(engine.strategy, Strategy::AutoCommitBackground | Strategy::StoreOffsetsAfterProcessing) {
            engine.schedule(scenario.auto_commit_interval_us, Phase::Background, Event::BackgroundAutoCommit);
        }
        if let Some(close_at_us) = scenario.close_at_us {
            engine.schedule(close_at_us, Phase::Lifecycle, Event::Close);
        }
        engine
    }

    fn schedule(&mut self, at_us: u64, phase: Phase, event: Event) {
        self.seq += 1;
        debug_assert!(self.seq < 1 << 56, "the event bound keeps seq far below 2^56");
        let key = (at_us as u128) << 64 | (phase as u128) << 56 | self.seq as u128;
        if phase == Phase::Loop {
            debug_assert!(
                self.loop_event.is_none_or(|q| match q.event {
                    Event::LoopWake { incarnation } | Event::RecordDone { incarnation, .. } =>
                        incarnation != self.incarnation,
                    _ => false,
                }),
                "the loop has one pending event"
            );
            self.loop_event = Some(Queued { key, event });
        } else {
            self.queue.push(Reverse(Queued { key, event }));
        }
    }

    /// The next event: the earlier of the loop's own and the heap's first.
    fn peek(&self) -> Option<Queued> {
        let heap = self.queue.peek().map(|Reverse(q)| *q);
        match (self.loop_event, heap) {
            (Some(l), Some(h)) => Some(if l.key < h.key { l } else { h }),
            (l, h) => l.or(h),
        }
    }

    /// Removes `next`, the event [`Self::peek`] just showed.
    fn pop(&mut self, next: Queued) {
        if self.loop_event.is_some_and(|l| l.key == next.key) {
            self.loop_event = None;
        } else {
            self.queue.pop();
        }
    }

    /// Processes every event with time < `stop_before_us`, in order. After each instant's
    /// events, hands the state to `recorder` (if any). Errors when the run needs more than
    /// twice [`MAX_EVENTS`] events (the estimate that validation checks was too low): the
    /// bound that keeps every input from hanging the page.
    pub(crate) fn run(
        &mut self,
        stop_before_us: u64,
        mut recorder: Option<&mut Recorder>,
    ) -> Result<(), ScenarioError> {
        let mut budget = 2 * MAX_EVENTS;
        let mut upcoming = self.peek();
        while let Some(next) = upcoming {
            let at_us = next.at_us();
            if at_us >= stop_before_us {
                break;
            }
            budget -= 1;
            if budget == 0 {
                return Err(ScenarioError {
                    key: None,
                    message: format!(
                        "the run passed {} events before {} ms; shorten horizon_ms or make the scenario coarser",
                        2 * MAX_EVENTS,
                        format_millis(at_us)
                    ),
                });
            }
            self.pop(next);
            debug_assert!(at_us >= self.now_us, "time never goes backwards");
            self.now_us = at_us;
            self.handle(next.event, recorder.as_deref_mut());
            upcoming = self.peek();
            let instant_done = upcoming.is_none_or(|next| next.at_us() > at_us);
            if instant_done {
                if let Some(rec) = recorder.as_deref_mut() {
                    rec.end_of_instant(self);
                }
            }
        }
        if let Some(since) = self.blocked_since_us.take() {
            let horizon = self.scenario.horizon_us.min(stop_before_us);
            self.blocked_on_commits_us += horizon.saturating_sub(since.min(horizon));
        }
        Ok(())
    }

    fn mark(&self, recorder: Option<&mut Recorder>, kind: MarkKind) {
        if let Some(rec) = recorder {
            rec.mark(Mark { at_us: self.now_us, kind });
        }
    }

    fn handle(&mut self, event: Event, mut recorder: Option<&mut Recorder>) {
        let stopped = self.life == Life::Down;
        match event {
            Event::RecordDone { incarnation, .. } | Event::LoopWake { incarnation }
                if incarnation != self.incarnation => {}
            Event::RecordDone { offset, worker, .. } => {
                // After close() (or while closing without draining) records in progress
                // never land.
                let draining = matches!(self.life, Life::Closing { .. }) && self.scenario.drain_pool_on_close;
                if stopped || (self.life != Life::Running && !(draining && worker.is_some())) {
                    return;
                }
                let visible_now = self.strategy != Strategy::Transactional
                    || self.scenario.isolation_level == IsolationLevel::ReadUncommitted;
                if visible_now {
                    self.complete_run(offset, recorder.as_deref_mut());
                } else {
                    self.mark(recorder.as_deref_mut(), MarkKind::RecordProcessed { offset });
                }
                match worker {
                    Some(worker) => self.worker_next_record(worker, recorder),
                    None => {
                        self.stored_offset = offset + 1;
                        self.resume_loop(recorder)
                    }
                }
            }
            Event::CommitResponse { id, fails } => {
                if !stopped {
                    self.commit_response(id, fails, recorder);
                }
            }
            Event::CommitRetry { id } => {
                if !stopped {
                    self.dispatch_commit(id, recorder);
                }
            }
            Event::LoopWake { .. } => {
                if self.life == Life::Running {
                    self.resume_loop(recorder);
                }
            }
            Event::BackgroundAutoCommit => self.background_auto_commit(recorder),
            Event::PollIntervalCheck => self.check_poll_interval(recorder),
            Event::Close => self.close(recorder),
            Event::Restart => self.restart(recorder),
        }
    }

    fn complete_run(&mut self, offset: u64, recorder: Option<&mut Recorder>) {
        let index = offset as usize;
        if let Some(rec) = recorder {
            rec.record_durable(self, offset);
            rec.mark(Mark { at_us: self.now_us, kind: MarkKind::RecordDurable { offset } });
        }
        self.runs[index] += 1;
        while self.runs.get(self.durable_frontier as usize).is_some_and(|&k| k > 0) {
            self.durable_frontier += 1;
        }
    }

    fn move_committed(&mut self, offset: u64, recorder: Option<&mut Recorder>) {
        if let Some(rec) = recorder {
            rec.commit_moves(self, offset);
        }
        self.committed = offset;
    }

    /// The processing time of `offset`'s record: `record_processing_ms`, or under jitter one
    /// draw per offset, in offset order, from `ChaCha8Rng::seed_from_u64(seed)` (SPEC §8.12).
    fn processing_time_us(&mut self, offset: u64) -> u64 {
        let s = self.scenario;
        let p = s.record_processing_us;
        if s.record_processing_jitter == Jitter::None {
            return p;
        }
        while self.processing_us.len() as u64 <= offset {
            let u = self.jitter_rng.next_u64();
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
            self.processing_us.push(us.max(1));
        }
        self.processing_us[offset as usize]
    }

    /// What a manual commit of "next offset `next`" sends (SPEC §8.5).
    fn manual_value(&self, next: u64) -> u64 {
        match self.scenario.commit_value {
            CommitValue::NextOffset => next,
            CommitValue::RecordOffset => next.saturating_sub(1),
        }
    }

    /// Starts a commit of `offset`. Returns false when it could not even be sent: a commit
    /// from an evicted member fails at once with CommitFailedException (§8.7), before any
    /// request (Java `ConsumerCoordinator.sendOffsetCommitRequest` with no generation).
    fn send_commit(&mut self, kind: CommitKind, offset: u64, mut recorder: Option<&mut Recorder>) -> bool {
        if !self.member {
            self.mark(
                recorder.as_deref_mut(),
                MarkKind::CommitFailed { offset, reason: CommitFailure::Evicted },
            );
            if let CommitKind::Transaction { .. } = kind {
                self.abort_transaction(recorder.as_deref_mut());
            }
            return false;
        }
        let id = self.commits.len();
        self.commits.push(Commit {
            offset,
            kind,
            first_sent_us: self.now_us,
            next_backoff_us: self.scenario.retry_backoff_us,
            generation: self.generation,
        });
        self.commit_resolved_us.push(None);
        if self.scenario.script.is_some() {
            self.script_commits.push(id);
        }
        if kind.blocks_loop() {
            self.blocked_since_us = Some(self.now_us);
            self.resume_pc = self.pc;
            self.pc = Pc::Blocked;
        }
        self.dispatch_commit(id, recorder);
        true
    }

    /// Sends commit request `id` (first try or retry). Whether it fails is decided here,
    /// by its number in send order (`commit_failures`) or the seeded probability (§8.8).
    fn dispatch_commit(&mut self, id: usize, recorder: Option<&mut Recorder>) {
        let s = self.scenario;
        self.commit_requests_sent += 1;
        let n = self.commit_requests_sent;
        let mut fails = s.commit_failures.contains(&n);
        if s.commit_failure_per_mille > 0 {
            let u = self.failure_rng.next_u64();
            fails |= (u as u128 * 1_000) >> 64 < s.commit_failure_per_mille as u128;
        }
        let commit = self.commits[id];
        let lands_at_us = self.now_us + s.commit_latency_us;
        self.commits_in_flight += 1;
        self.mark(
            recorder,
            MarkKind::CommitSent { offset: commit.offset, lands_at_us, blocking: commit.kind.blocks_loop() },
        );
        self.schedule(lands_at_us, Phase::Completion, Event::CommitResponse { id, fails });
    }

    fn commit_response(&mut self, id: usize, fails: bool, mut recorder: Option<&mut Recorder>) {
        self.commits_in_flight -= 1;
        let commit = self.commits[id];
        let fenced = commit.generation != self.generation;
        if !fails && !fenced {
            if self.now_us <= self.scenario.horizon_us {
                self.commits_landed += 1;
            }
            if let CommitKind::Transaction { from, to } = commit.kind {
                if self.scenario.isolation_level == IsolationLevel::ReadCommitted {
                    for offset in from..to {
                        self.complete_run(offset, recorder.as_deref_mut());
                    }
                }
            }
            self.mark(recorder.as_deref_mut(), MarkKind::CommitLanded { offset: commit.offset });
            self.first_commit_landed_us.get_or_insert(self.now_us);
            self.move_committed(commit.offset, recorder.as_deref_mut());
            self.commit_done(id, recorder);
            return;
        }
        let reason = if fenced { CommitFailure::Evicted } else { CommitFailure::Retriable };
        self.mark(recorder.as_deref_mut(), MarkKind::CommitFailed { offset: commit.offset, reason });
        let s = self.scenario;
        let retry_at = self.now_us + commit.next_backoff_us;
        match commit.kind {
            kind if kind.retried()
                && !fenced
                && retry_at.saturating_sub(commit.first_sent_us) < s.default_api_timeout_us =>
            {
                self.commits[id].next_backoff_us = (commit.next_backoff_us * 2).min(s.retry_backoff_max_us);
                self.schedule(retry_at, Phase::Completion, Event::CommitRetry { id });
            }
            CommitKind::Async if s.retry_async_in_callback && !fenced => {
                self.async_retries.push(id);
                self.commit_done(id, recorder);
            }
            CommitKind::AutoInPoll => {
                self.auto_commit_deadline_us = self.now_us + s.retry_backoff_us;
                self.commit_done(id, recorder);
            }
            CommitKind::Transaction { .. } => {
                // TimeoutException or CommitFailedException: the transaction aborts.
                self.abort_transaction(recorder.as_deref_mut());
                self.commit_done(id, recorder);
            }
            _ => self.commit_done(id, recorder),
        }
    }

    /// A commit is finished (landed, or given up): unblock the loop, or let `close()` return.
    fn commit_done(&mut self, id: usize, recorder: Option<&mut Recorder>) {
        self.commit_resolved_us[id] = Some(self.now_us);
        let commit = self.commits[id];
        if commit.kind.blocks_loop() && self.pc == Pc::Blocked {
            if let Some(since) = self.blocked_since_us.take() {
                let horizon = self.scenario.horizon_us;
                self.blocked_on_commits_us += self.now_us.min(horizon) - since.min(horizon);
            }
            self.pc = self.resume_pc;
            self.schedule(self.now_us, Phase::Loop, Event::LoopWake { incarnation: self.incarnation });
        }
        if matches!(self.life, Life::Closing { commit_sent: true }) {
            self.try_finish_close(recorder);
        } else if let Pc::ScriptAwaitCommits { .. } = self.pc {
            self.schedule(self.now_us, Phase::Loop, Event::LoopWake { incarnation: self.incarnation });
        }
    }

    /// The transaction aborted: its outputs are never visible to `read_committed` readers,
    /// and the application rewinds to the committed offset (`abortTransaction` + `seek`).
    fn abort_transaction(&mut self, recorder: Option<&mut Recorder>) {
        self.position = self.committed;
        self.mark(recorder, MarkKind::TransactionAborted { rewound_to: self.committed });
    }

    /// SPEC §8.2 / §8.3: the background timer commits the position, or the stored offset.
    fn background_auto_commit(&mut self, recorder: Option<&mut Recorder>) {
        let interval = self.scenario.auto_commit_interval_us;
        self.schedule(self.now_us + interval, Phase::Background, Event::BackgroundAutoCommit);
        if self.life != Life::Running {
            return;
        }
        let offset = match self.strategy {
            Strategy::StoreOffsetsAfterProcessing => self.stored(),
            _ => self.position,
        };
        // librdkafka sends nothing when no stored offset changed since the last commit.
        if self.member && offset != self.committed {
            self.send_commit(CommitKind::AutoBackground, offset, recorder);
        }
    }

    /// The offset the application has stored: in a pool, the durable frontier.
    fn stored(&self) -> u64 {
        if self.scenario.worker_pool {
            self.durable_frontier
        } else {
            self.stored_offset
        }
    }

    /// SPEC §8.7: the member leaves the group at last poll + `max.poll.interval.ms`.
    fn check_poll_interval(&mut self, recorder: Option<&mut Recorder>) {
        self.poll_check_pending = false;
        if self.life == Life::Down || !self.member {
            return;
        }
        let deadline = self.last_poll_us + self.scenario.max_poll_interval_us;
        if self.now_us < deadline {
            self.poll_check_pending = true;
            self.schedule(deadline, Phase::Background, Event::PollIntervalCheck);
            return;
        }
        self.member = false;
        self.generation += 1;
        self.mark(recorder, MarkKind::Evicted);
    }

    /// `poll()`: rejoin if evicted (SPEC §8.7: resume from the committed offset), resend
    /// failed async commits from their callbacks (§8.8), the auto-commit check at entry
    /// (Java `ConsumerCoordinator.poll` → `maybeAutoCommitOffsetsAsync`: `isExpired` is
    /// `now >= deadline`, reset from now), then up to `max.poll.records` records. Returns the
    /// batch `from..to` (empty at the log end).
    fn poll(&mut self, mut recorder: Option<&mut Recorder>) -> (u64, u64) {
        let s = self.scenario;
        if !self.member {
            self.member = true;
            self.position = self.committed;
            // Retries queued by callbacks belong to the old generation: they would fail too.
            self.async_retries.clear();
            self.mark(recorder.as_deref_mut(), MarkKind::Rejoined { position: self.position });
        }
        for id in std::mem::take(&mut self.async_retries) {
            let offset = self.commits[id].offset;
            self.send_commit(CommitKind::Async, offset, recorder.as_deref_mut());
        }
        if self.strategy == Strategy::AutoCommit && self.now_us >= self.auto_commit_deadline_us {
            self.auto_commit_deadline_us = self.now_us + s.auto_commit_interval_us;
            self.send_commit(CommitKind::AutoInPoll, self.position, recorder.as_deref_mut());
        }
        let from = self.position;
        let to = (from + s.max_poll_records as u64).min(s.log_end_at(self.now_us).max(from));
        self.position = to;
        if self.runs.len() < to as usize {
            self.runs.resize(to as usize, 0);
        }
        if self.now_us <= s.horizon_us {
            self.polls += 1;
        }
        self.last_poll_us = self.now_us;
        if !self.poll_check_pending {
            self.poll_check_pending = true;
            self.schedule(self.now_us + s.max_poll_interval_us, Phase::Background, Event::PollIntervalCheck);
        }
        self.mark(recorder, MarkKind::Poll { from, to });
        (from, to)
    }

    /// Runs the loop from its program counter until it has to wait for an event.
    fn resume_loop(&mut self, mut recorder: Option<&mut Recorder>) {
        let s = self.scenario;
        let now = self.now_us;
        loop {
            match self.pc {
                Pc::Blocked | Pc::Stopped => return,
                Pc::ScriptAwaitCommits { step } => {
                    if self.script_commits.iter().any(|&id| self.commit_resolved_us[id].is_none()) {
                        return;
                    }
                    self.pc = Pc::Script { step };
                }
                Pc::Poll | Pc::WaitingForRoom => {
                    if s.worker_pool && self.in_flight_batches >= s.pool_max_in_flight_batches {
                        self.pc = Pc::WaitingForRoom;
                        return;
                    }
                    let (from, to) = self.poll(recorder.as_deref_mut());
                    if from == to {
                        // Nothing left: poll() waits fetch.max.wait.ms and the loop goes round.
                        self.pc = Pc::Poll;
                        self.schedule(
                            now + s.fetch_max_wait_us,
                            Phase::Loop,
                            Event::LoopWake { incarnation: self.incarnation },
                        );
                        return;
                    }
                    if s.worker_pool {
                        self.submit(Batch { next: from, end: to });
                        self.pc = Pc::AfterBatch { from, to };
                    } else {
                        self.pc = Pc::Process { from, next: from, end: to };
                    }
                }
                Pc::Process { from, next, end } => {
                    // The loop thread runs the record itself: its completion is the loop's
                    // next step, scheduled in the loop's phase (after pool records and commit
                    // responses of the same instant, with which it commutes).
                    let done_at = now + self.processing_time_us(next);
                    self.schedule(
                        done_at,
                        Phase::Loop,
                        Event::RecordDone { offset: next, worker: None, incarnation: self.incarnation },
                    );
                    self.pc = Pc::AfterRecord { from, offset: next, end };
                    return;
                }
                Pc::AfterRecord { from, offset, end } => {
                    self.pc = if offset + 1 < end {
                        Pc::Process { from, next: offset + 1, end }
                    } else {
                        Pc::AfterBatch { from, to: end }
                    };
                    // Per-record strategies commit between records.
                    self.records_since_commit += 1;
                    let commit = match self.strategy {
                        Strategy::CommitSyncRecord => true,
                        Strategy::CommitSyncEveryN => {
                            self.records_since_commit >= s.commit_every_records as u64
                        }
                        _ => false,
                    };
                    if commit {
                        self.records_since_commit = 0;
                        let value = self.manual_value(offset + 1);
                        if self.send_commit(CommitKind::Sync, value, recorder.as_deref_mut()) {
                            return;
                        }
                    }
                }
                Pc::AfterBatch { from, to } => {
                    self.pc = Pc::Poll;
                    let value = self.manual_value(self.position);
                    match self.strategy {
                        Strategy::AutoCommit
                        | Strategy::AutoCommitBackground
                        | Strategy::StoreOffsetsAfterProcessing => {}
                        Strategy::CommitSyncBatch => {
                            if self.send_commit(CommitKind::Sync, value, recorder.as_deref_mut()) {
                                return;
                            }
                        }
                        Strategy::CommitAsyncBatch => {
                            self.send_commit(CommitKind::Async, value, recorder.as_deref_mut());
                        }
                        Strategy::Transactional => {
                            // sendOffsetsToTransaction(position) + commitTransaction().
                            let kind = CommitKind::Transaction { from, to };
                            if self.send_commit(kind, value, recorder.as_deref_mut()) {
                                return;
                            }
                        }
                        Strategy::CommitSyncRecord => {
                            if s.worker_pool {
                                self.pc = Pc::CommitHandedOff { next: from, end: to };
                            }
                        }
                        Strategy::CommitSyncEveryN => {
                            if s.worker_pool {
                                // One commit for the highest multiple of N reached by this hand-off.
                                let n = s.commit_every_records as u64;
                                let before = self.records_since_commit;
                                let total = before + (to - from);
                                self.records_since_commit = total % n;
                                if total >= n {
                                    let reached = total - total % n;
                                    let value = self.manual_value(from + (reached - before));
                                    if self.send_commit(CommitKind::Sync, value, recorder.as_deref_mut()) {
                                        return;
                                    }
                                }
                            }
                        }
                    }
                }
                Pc::CommitHandedOff { next, end } => {
                    if next < end {
                        self.pc = Pc::CommitHandedOff { next: next + 1, end };
                        let value = self.manual_value(next + 1);
                        if self.send_commit(CommitKind::Sync, value, recorder.as_deref_mut()) {
                            return;
                        }
                    } else {
                        self.pc = Pc::Poll;
                    }
                }
                Pc::Script { step } => {
                    if !self.run_script_step(step, recorder.as_deref_mut()) {
                        return;
                    }
                }
                Pc::ScriptProcess { step, left } => {
                    let next = self.stored_offset;
                    if left == 0 || next >= self.position {
                        self.pc = Pc::Script { step: step + 1 };
                        continue;
                    }
                    let done_at = now + self.processing_time_us(next);
                    self.schedule(
                        done_at,
                        Phase::Loop,
                        Event::RecordDone { offset: next, worker: None, incarnation: self.incarnation },
                    );
                    self.pc = Pc::ScriptProcess { step, left: left - 1 };
                    return;
                }
            }
        }
    }

    /// Runs script step `step`. Returns true when the loop may go straight on.
    fn run_script_step(&mut self, step: usize, recorder: Option<&mut Recorder>) -> bool {
        // A step is read once its commits have landed, and the next waits for that.
        if self.script_commits.iter().any(|&id| self.commit_resolved_us[id].is_none()) {
            self.pc = Pc::ScriptAwaitCommits { step };
            return false;
        }
        self.end_script_step();
        let steps = self.scenario.script.as_ref().expect("script mode");
        let Some(&current) = steps.get(step) else {
            self.pc = Pc::Stopped;
            return false;
        };
        self.script_step = Some(step);
        self.pc = Pc::Script { step: step + 1 };
        match current {
            ScriptStep::Poll => {
                self.poll(recorder);
                true
            }
            ScriptStep::Process(n) => {
                self.pc = Pc::ScriptProcess { step, left: n };
                true
            }
            ScriptStep::Sleep(us) => {
                self.schedule(
                    self.now_us + us,
                    Phase::Loop,
                    Event::LoopWake { incarnation: self.incarnation },
                );
                false
            }
            ScriptStep::CommitSync => {
                let value = self.manual_value(self.position);
                !self.send_commit(CommitKind::Sync, value, recorder)
            }
            ScriptStep::CommitAsync => {
                let value = self.manual_value(self.position);
                self.send_commit(CommitKind::Async, value, recorder);
                true
            }
            ScriptStep::Close => {
                self.close(recorder);
                false
            }
            ScriptStep::Crash => {
                self.end_script_step();
                self.life = Life::Down;
                self.pc = Pc::Stopped;
                self.queue.clear();
                self.loop_event = None;
                false
            }
        }
    }

    /// Records the reading of the script step that just ended (if any).
    pub(crate) fn end_script_step(&mut self) {
        if let Some(step) = self.script_step.take() {
            self.script_records.push(ScriptRecord {
                step,
                ended_at_us: self.now_us,
                position: self.position,
                commits: std::mem::take(&mut self.script_commits),
            });
        }
    }

    /// SPEC §8.6: `close()`. The application stops processing; auto-commit strategies
    /// commit synchronously (Java: the position, `maybeAutoCommitOffsetsSync`; librdkafka:
    /// the stored offset); `close()` returns once that and every in-flight commit landed.
    fn close(&mut self, mut recorder: Option<&mut Recorder>) {
        if self.life != Life::Running {
            return;
        }
        self.life = Life::Closing { commit_sent: false };
        self.pc = Pc::Stopped;
        self.blocked_since_us = None;
        if !self.scenario.drain_pool_on_close {
            self.waiting_batches.clear();
            self.incarnation += 1;
        }
        self.mark(recorder.as_deref_mut(), MarkKind::CloseCalled);
        self.try_start_close_commit(recorder);
    }

    fn try_start_close_commit(&mut self, mut recorder: Option<&mut Recorder>) {
        let draining = self.scenario.drain_pool_on_close && self.in_flight_batches > 0;
        if self.life != (Life::Closing { commit_sent: false }) || draining {
            return;
        }
        self.life = Life::Closing { commit_sent: true };
        if self.strategy.is_auto() && self.member {
            let offset = match self.strategy {
                Strategy::StoreOffsetsAfterProcessing => self.stored(),
                _ => self.position,
            };
            self.send_commit(CommitKind::Close, offset, recorder.as_deref_mut());
        }
        self.try_finish_close(recorder);
    }

    fn try_finish_close(&mut self, recorder: Option<&mut Recorder>) {
        if self.commits_in_flight > 0
            || self.queue.iter().any(|Reverse(q)| matches!(q.event, Event::CommitRetry { .. }))
        {
            return;
        }
        self.life = Life::Down;
        self.closed_at_us = Some(self.now_us);
        self.end_script_step();
        self.mark(recorder, MarkKind::Closed);
        if let Some(downtime_us) = self.scenario.downtime_us {
            self.schedule(self.now_us + downtime_us, Phase::Lifecycle, Event::Restart);
        }
    }

    /// SPEC §8.9: a new consumer joins after the downtime. If the group stayed empty past
    /// `offsets.retention.minutes`, its committed offset was deleted and
    /// `auto.offset.reset` decides where it starts.
    fn restart(&mut self, mut recorder: Option<&mut Recorder>) {
        let s = self.scenario;
        let empty_since = self.closed_at_us.unwrap_or(self.now_us);
        let retention_us = s.offsets_retention_minutes.saturating_mul(60_000 * US_PER_MS);
        if self.now_us - empty_since >= retention_us {
            let reset_to = match s.auto_offset_reset {
                OffsetReset::Earliest => s.log_start_offset,
                OffsetReset::Latest => s.log_end_at(self.now_us),
            };
            if self.runs.len() < reset_to as usize {
                self.runs.resize(reset_to as usize, 0);
            }
            self.mark(recorder.as_deref_mut(), MarkKind::OffsetsExpired { reset_to });
            self.move_committed(reset_to, recorder.as_deref_mut());
        }
        self.position = self.committed;
        self.stored_offset = self.committed;
        self.life = Life::Running;
        self.member = true;
        self.pc = Pc::Poll;
        self.waiting_batches.clear();
        self.worker_batches.iter_mut().for_each(|w| *w = None);
        self.in_flight_batches = 0;
        self.incarnation += 1;
        self.auto_commit_deadline_us = self.now_us + s.auto_commit_interval_us;
        self.mark(recorder, MarkKind::Restarted { position: self.position });
        self.schedule(self.now_us, Phase::Loop, Event::LoopWake { incarnation: self.incarnation });
    }

    /// Hands a batch to the pool; an idle thread starts it at once.
    fn submit(&mut self, batch: Batch) {
        self.in_flight_batches += 1;
        self.waiting_batches.push_back(batch);
        for worker in 0..self.worker_batches.len() {
            if self.worker_batches[worker].is_none() {
                self.worker_take_batch(worker as u32);
                if self.waiting_batches.is_empty() {
                    break;
                }
            }
        }
    }

    /// An idle pool thread takes the oldest waiting batch, if any, and starts its first record.
    fn worker_take_batch(&mut self, worker: u32) {
        if let Some(batch) = self.waiting_batches.pop_front() {
            self.worker_batches[worker as usize] = Some(batch);
            let done_at = self.now_us + self.processing_time_us(batch.next);
            self.schedule(
                done_at,
                Phase::Completion,
                Event::RecordDone { offset: batch.next, worker: Some(worker), incarnation: self.incarnation },
            );
        }
    }

    /// A pool thread finished a record: it starts the next one of its batch, or the batch is
    /// done (out of flight: the loop may poll again) and it takes the next batch.
    fn worker_next_record(&mut self, worker: u32, recorder: Option<&mut Recorder>) {
        let slot = &mut self.worker_batches[worker as usize];
        let batch = slot.as_mut().expect("a record completed on a busy thread");
        batch.next += 1;
        if batch.next < batch.end {
            let offset = batch.next;
            let done_at = self.now_us + self.processing_time_us(offset);
            self.schedule(
                done_at,
                Phase::Completion,
                Event::RecordDone { offset, worker: Some(worker), incarnation: self.incarnation },
            );
            return;
        }
        *slot = None;
        self.in_flight_batches -= 1;
        if self.pc == Pc::WaitingForRoom {
            self.pc = Pc::Poll;
            self.schedule(self.now_us, Phase::Loop, Event::LoopWake { incarnation: self.incarnation });
        }
        self.worker_take_batch(worker);
        if self.life == (Life::Closing { commit_sent: false }) {
            self.try_start_close_commit(recorder);
        }
    }
}
