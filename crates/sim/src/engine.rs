//! The discrete-event engine: one consumer's poll loop (SPEC §3), its worker pool (§4) and
//! the group coordinator's committed offset (§2), stepped through a queue of timed events.
//!
//! Events at one instant run in a fixed order (SPEC §8.1): record completions and commit
//! landings first (commit landings in send order), then the loop (a `poll()` and its
//! auto-commit check). Ties inside a phase break by scheduling order, so a run is a pure
//! function of its [`Scenario`].
//!
//! The engine knows nothing of crashes: a crash at T is the state after every event with
//! time < T, which [`crate::Run::state_at`] reads off the recorded step functions and
//! [`crate::crash_state_brute_force`] recomputes by stopping the engine at T.

use crate::scenario::{Scenario, Strategy};
use crate::timeline::{Mark, MarkKind, Recorder};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Order of simultaneous events (SPEC §8.1): lower runs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    /// A record completes, a commit lands.
    Completion = 0,
    /// The application's loop resumes (and may `poll()`).
    Loop = 1,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// A record's processing ends. `worker` is the pool thread; `None`: the loop ran it
    /// itself and resumes.
    RecordDone { offset: u64, worker: Option<u32> },
    /// An OffsetCommit reaches the coordinator: the committed offset becomes `offset`.
    CommitLands { offset: u64 },
    /// `commitTransaction` completes: records `from..to` become durable and the committed
    /// offset becomes `to`, atomically.
    TransactionCommits { from: u64, to: u64 },
    /// The loop resumes.
    LoopWake,
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
    pub(crate) now_us: u64,
    queue: BinaryHeap<Reverse<(u64, Phase, u64, Event)>>,
    seq: u64,
    pc: Pc,
    /// Next offset `poll()` hands out (SubscriptionState.position).
    pub(crate) position: u64,
    /// The coordinator's committed offset.
    pub(crate) committed: u64,
    /// Completed runs per offset (index = offset), for offsets below `position`.
    pub(crate) runs: Vec<u32>,
    /// Lowest offset with no completed run (the durable frontier).
    pub(crate) durable_frontier: u64,
    auto_commit_deadline_us: u64,
    records_since_commit: u64,
    // Worker pool.
    waiting_batches: VecDeque<Batch>,
    worker_batches: Vec<Option<Batch>>,
    in_flight_batches: u32,
    // Loop statistics over [0, horizon].
    pub(crate) blocked_on_commits_us: u64,
    pub(crate) polls: u64,
    pub(crate) commits_landed: u64,
}

impl<'a> Engine<'a> {
    /// A consumer at t = 0, about to make its first `poll()`.
    pub(crate) fn new(scenario: &'a Scenario) -> Self {
        let threads = if scenario.worker_pool { scenario.pool_threads as usize } else { 0 };
        let mut engine = Engine {
            scenario,
            now_us: 0,
            queue: BinaryHeap::new(),
            seq: 0,
            pc: Pc::Poll,
            position: 0,
            committed: 0,
            runs: Vec::new(),
            durable_frontier: 0,
            auto_commit_deadline_us: scenario.auto_commit_interval_us,
            records_since_commit: 0,
            waiting_batches: VecDeque::new(),
            worker_batches: vec![None; threads],
            in_flight_batches: 0,
            blocked_on_commits_us: 0,
            polls: 0,
            commits_landed: 0,
        };
        engine.schedule(0, Phase::Loop, Event::LoopWake);
        engine
    }

    fn schedule(&mut self, at_us: u64, phase: Phase, event: Event) {
        self.seq += 1;
        self.queue.push(Reverse((at_us, phase, self.seq, event)));
    }

    /// Processes every event with time < `stop_before_us`, in order. After each instant's
    /// events, hands the state to `recorder` (if any).
    pub(crate) fn run(&mut self, stop_before_us: u64, mut recorder: Option<&mut Recorder>) {
        while let Some(&Reverse((at_us, ..))) = self.queue.peek() {
            if at_us >= stop_before_us {
                break;
            }
            let Reverse((at_us, _, _, event)) = self.queue.pop().expect("peeked");
            debug_assert!(at_us >= self.now_us, "time never goes backwards");
            self.now_us = at_us;
            self.handle(event, recorder.as_deref_mut());
            let instant_done = self.queue.peek().is_none_or(|Reverse((next, ..))| *next > at_us);
            if instant_done {
                if let Some(rec) = recorder.as_deref_mut() {
                    rec.end_of_instant(self);
                }
            }
            debug_assert!(self.committed <= self.position, "committed never passes the position");
        }
    }

    fn handle(&mut self, event: Event, recorder: Option<&mut Recorder>) {
        match event {
            Event::RecordDone { offset, worker } => {
                let mut recorder = recorder;
                if self.scenario.strategy != Strategy::Transactional {
                    self.complete_run(offset, recorder.as_deref_mut());
                } else if let Some(rec) = recorder.as_deref_mut() {
                    rec.mark(Mark { at_us: self.now_us, kind: MarkKind::RecordProcessed { offset } });
                }
                match worker {
                    Some(worker) => self.worker_next_record(worker),
                    None => self.resume_loop(recorder),
                }
            }
            Event::CommitLands { offset } => {
                self.land_commit(offset, recorder);
            }
            Event::TransactionCommits { from, to } => {
                let mut recorder = recorder;
                for offset in from..to {
                    self.complete_run(offset, recorder.as_deref_mut());
                }
                self.land_commit(to, recorder);
            }
            Event::LoopWake => self.resume_loop(recorder),
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

    fn land_commit(&mut self, offset: u64, recorder: Option<&mut Recorder>) {
        if self.now_us <= self.scenario.horizon_us {
            self.commits_landed += 1;
        }
        if let Some(rec) = recorder {
            rec.commit_moves(self, offset);
            rec.mark(Mark { at_us: self.now_us, kind: MarkKind::CommitLanded { offset } });
        }
        self.committed = offset;
    }

    /// Sends an OffsetCommit of `offset`; it lands one round trip later. `blocking` commits
    /// (commitSync, commitTransaction) also hold the loop until then.
    fn send_commit(&mut self, event: Event, offset: u64, blocking: bool, recorder: Option<&mut Recorder>) {
        let lands_at_us = self.now_us + self.scenario.commit_latency_us;
        if let Some(rec) = recorder {
            rec.mark(Mark {
                at_us: self.now_us,
                kind: MarkKind::CommitSent { offset, lands_at_us, blocking },
            });
        }
        self.schedule(lands_at_us, Phase::Completion, event);
        if blocking {
            let horizon = self.scenario.horizon_us;
            self.blocked_on_commits_us += lands_at_us.min(horizon) - self.now_us.min(horizon);
            self.schedule(lands_at_us, Phase::Loop, Event::LoopWake);
        }
    }

    fn commit_sync(&mut self, offset: u64, recorder: Option<&mut Recorder>) {
        self.records_since_commit = 0;
        self.send_commit(Event::CommitLands { offset }, offset, true, recorder);
    }

    /// `poll()`: the auto-commit check at entry (Java `ConsumerCoordinator.poll` →
    /// `maybeAutoCommitOffsetsAsync`: `isExpired` is `now >= deadline`, reset from now),
    /// then up to `max.poll.records` records. Returns the batch `from..to` (empty at the
    /// log end).
    fn poll(&mut self, mut recorder: Option<&mut Recorder>) -> (u64, u64) {
        let s = self.scenario;
        if s.strategy == Strategy::AutoCommit && self.now_us >= self.auto_commit_deadline_us {
            self.auto_commit_deadline_us = self.now_us + s.auto_commit_interval_us;
            let offset = self.position;
            self.send_commit(Event::CommitLands { offset }, offset, false, recorder.as_deref_mut());
        }
        let from = self.position;
        let to = (from + s.max_poll_records as u64).min(s.log_end_offset.max(from));
        self.position = to;
        self.runs.resize(to as usize, 0);
        if self.now_us <= s.horizon_us {
            self.polls += 1;
        }
        if let Some(rec) = recorder {
            rec.mark(Mark { at_us: self.now_us, kind: MarkKind::Poll { from, to } });
        }
        (from, to)
    }

    /// Runs the loop from its program counter until it has to wait for an event.
    fn resume_loop(&mut self, mut recorder: Option<&mut Recorder>) {
        let s = self.scenario;
        let now = self.now_us;
        loop {
            match self.pc {
                Pc::Poll | Pc::WaitingForRoom => {
                    if s.worker_pool && self.in_flight_batches >= s.pool_max_in_flight_batches {
                        self.pc = Pc::WaitingForRoom;
                        return;
                    }
                    let (from, to) = self.poll(recorder.as_deref_mut());
                    if from == to {
                        // Nothing left: poll() waits fetch.max.wait.ms and the loop goes round.
                        self.pc = Pc::Poll;
                        self.schedule(now + s.fetch_max_wait_us, Phase::Loop, Event::LoopWake);
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
                    // landings of the same instant, with which it commutes).
                    let done_at = now + s.record_processing_us;
                    self.schedule(done_at, Phase::Loop, Event::RecordDone { offset: next, worker: None });
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
                    let commit = match s.strategy {
                        Strategy::CommitSyncRecord => true,
                        Strategy::CommitSyncEveryN => {
                            self.records_since_commit >= s.commit_every_records as u64
                        }
                        _ => false,
                    };
                    if commit {
                        self.commit_sync(offset + 1, recorder.as_deref_mut());
                        return;
                    }
                }
                Pc::AfterBatch { from, to } => {
                    self.pc = Pc::Poll;
                    match s.strategy {
                        Strategy::AutoCommit => {}
                        Strategy::CommitSyncBatch => {
                            self.commit_sync(self.position, recorder.as_deref_mut());
                            return;
                        }
                        Strategy::CommitAsyncBatch => {
                            let offset = self.position;
                            self.send_commit(
                                Event::CommitLands { offset },
                                offset,
                                false,
                                recorder.as_deref_mut(),
                            );
                        }
                        Strategy::Transactional => {
                            // sendOffsetsToTransaction(position) + commitTransaction().
                            let to = self.position;
                            self.send_commit(
                                Event::TransactionCommits { from, to },
                                to,
                                true,
                                recorder.as_deref_mut(),
                            );
                            return;
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
                                if total >= n {
                                    let reached = total - total % n;
                                    self.commit_sync(from + (reached - before), recorder.as_deref_mut());
                                    self.records_since_commit = total % n;
                                    return;
                                }
                                self.records_since_commit = total;
                            }
                        }
                    }
                }
                Pc::CommitHandedOff { next, end } => {
                    if next < end {
                        self.pc = Pc::CommitHandedOff { next: next + 1, end };
                        self.commit_sync(next + 1, recorder.as_deref_mut());
                        return;
                    }
                    self.pc = Pc::Poll;
                }
            }
        }
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
            self.schedule(
                self.now_us + self.scenario.record_processing_us,
                Phase::Completion,
                Event::RecordDone { offset: batch.next, worker: Some(worker) },
            );
        }
    }

    /// A pool thread finished a record: it starts the next one of its batch, or the batch is
    /// done (out of flight: the loop may poll again) and it takes the next batch.
    fn worker_next_record(&mut self, worker: u32) {
        let slot = &mut self.worker_batches[worker as usize];
        let batch = slot.as_mut().expect("a record completed on a busy thread");
        batch.next += 1;
        if batch.next < batch.end {
            let offset = batch.next;
            self.schedule(
                self.now_us + self.scenario.record_processing_us,
                Phase::Completion,
                Event::RecordDone { offset, worker: Some(worker) },
            );
            return;
        }
        *slot = None;
        self.in_flight_batches -= 1;
        if self.pc == Pc::WaitingForRoom {
            self.pc = Pc::Poll;
            self.schedule(self.now_us, Phase::Loop, Event::LoopWake);
        }
        self.worker_take_batch(worker);
    }
}
