//! The pipeline engine (model.md §14.2–14.5): the service's instances process the input topic
//! and write the output log; the group coordinator and the transaction coordinator act at
//! their instants; then each downstream reader runs over the output log as in §13.
//!
//! One instant at a time, in this order: the transaction coordinator's timeout aborts, the
//! scenario's events (crashes, restarts, freezes, resumes, joins, deploy turns, in list order),
//! the group's session expiries; then, until nothing changes, a deploy's restarts, the
//! rebalance's completion, the partitions' new owners' offset fetches, and each instance's loop
//! (in instance order) up to the point where it waits for time to pass — a deploy's close
//! included (model.md §14.3).

use super::scenario::{CommitRule, EventKind, PipelineScenario, ServiceKind, MAX_PIPELINE_STEPS};
use super::{
    ByInput, InputCommitted, InputStall, OutputEntry, OutputState, PartitionStalls, PipelineReader,
    PipelineRun, PipelineTimedOutAbort, Rebalance, SeenCounts, SideEffects, StallReason,
};
use crate::transactions::engine::{first_scan_after, run_reader, Log};
use crate::transactions::{OffsetStep, RecordKind};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// One transaction of one instance's producer.
struct Txn {
    instance: u32,
    /// The instance's producer generation that opened it.
    producer: u32,
    start_us: u64,
    timeout_at_us: u64,
    /// TxnOffsetCommit sent: the offsets it holds pending, per input partition.
    pending: Vec<(u32, u64)>,
    ended: Option<(u64, bool)>,
}

/// One output entry as written: (at, kind, transaction, instance, input record).
type Written = (u64, RecordKind, Option<usize>, u32, Option<(u32, u64)>);

/// A member of the group: one incarnation of an instance, heartbeating every
/// `heartbeat.interval.ms` from `since_us`.
struct Member {
    instance: u32,
    in_group: bool,
    expires_at_us: Option<u64>,
    since_us: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Life {
    Running,
    Dead,
    Frozen,
}

struct Inst {
    life: Life,
    member: usize,
    producer: u32,
    owned: BTreeSet<u32>,
    revoking: BTreeSet<u32>,
    /// Eager: revoked everything, waits for the rebalance to complete.
    waiting: bool,
    inhand: VecDeque<(u32, u64)>,
    /// The record in progress: (ends at, partition, offset).
    busy: Option<(u64, u32, u64)>,
    txn: Option<usize>,
    /// Processed since the last commit: the next offset per partition.
    dirty: BTreeMap<u32, u64>,
    last_commit_us: u64,
    /// EndTxn reaches the coordinator at this instant (`offsets_to_end_txn_ms`).
    ending: Option<u64>,
    /// The commit's `flush()` ends and `sendOffsetsToTransaction` goes out at this instant
    /// (`flush_ms`).
    flushing: Option<u64>,
    /// `since_last_commit`: subtracted from the first commit timer's due instant
    /// (`commit_phase_ms`); 0 once a commit or a restart set `last_commit_us`.
    timer_phase_us: u64,
    /// `transaction_age`: when the open transaction's first record started (beginTransaction).
    began_us: Option<u64>,
    /// `transaction_age` / `transaction_records`: a record just ended or a poll just returned
    /// empty: the loop checks its transaction now.
    check: bool,
    /// The check is an empty poll's.
    empty_poll: bool,
    /// Records processed in the open transaction (since the last commit).
    txn_records: u32,
    /// `transaction_age`: the idle poll returns empty at this instant.
    poll_deadline: Option<u64>,
    fenced: bool,
    zombie: bool,
    frozen_at_us: u64,
    wake_us: Option<u64>,
    /// A deploy told it to close: it finishes the records in hand, commits, closes.
    closing: bool,
    /// Kafka Streams: its close waits for the group's rebalance since this instant.
    close_wait_from: Option<u64>,
    /// A deploy restarts it at this instant (its close's return + `restart_after_ms`).
    restart_at: Option<u64>,
    /// The deploy's `restart_after_ms`.
    restart_after_us: u64,
    /// Its close committed work (the listener's commit, `TaskManager.shutdown(clean)`).
    close_committed: bool,
}

struct Part {
    /// The member the last completed rebalance gave it to.
    assigned: Option<usize>,
    /// The instance processing it.
    held_by: Option<u32>,
    /// The holder's consumer position.
    pos: u64,
    committed: Option<u64>,
    steps: Vec<OffsetStep>,
    stall: Option<(StallReason, u64)>,
    stalls: Vec<InputStall>,
}

struct Engine<'a> {
    s: &'a PipelineScenario,
    records: u64,
    insts: Vec<Inst>,
    members: Vec<Member>,
    parts: Vec<Part>,
    txns: Vec<Txn>,
    /// The transactions without a marker yet.
    open: BTreeSet<usize>,
    out: Vec<Written>,
    rebalances: Vec<Rebalance>,
    pending_rebalance: Option<usize>,
    timed_out: Vec<(usize, u64, usize)>,
    side: Vec<Vec<u32>>,
    processed: Vec<Vec<u32>>,
    notes: Vec<String>,
    changes: u64,
    steps: u64,
}

/// `transaction_age`: the loop's `poll(Duration.ofMillis(100))` (EosConformance `mode=ctp`).
const AGE_RULE_POLL_US: u64 = 100 * crate::keys::US_PER_MS;

fn fmt(us: u64) -> String {
    crate::keys::format_millis(us)
}

impl<'a> Engine<'a> {
    fn new(s: &'a PipelineScenario) -> Self {
        let n = s.service.instances;
        let records = s.input.records_per_partition as u64;
        // An instance with a join event does not run before it (model.md §14.3).
        let joins = s.joining();
        let insts = (0..n)
            .map(|i| Inst {
                life: if joins[i as usize].is_some() { Life::Dead } else { Life::Running },
                member: i as usize,
                producer: 0,
                owned: BTreeSet::new(),
                revoking: BTreeSet::new(),
                waiting: false,
                inhand: VecDeque::new(),
                busy: None,
                txn: None,
                dirty: BTreeMap::new(),
                last_commit_us: 0,
                ending: None,
                flushing: None,
                timer_phase_us: s.service.commit_phase_us,
                began_us: None,
                check: false,
                empty_poll: false,
                txn_records: 0,
                poll_deadline: None,
                fenced: false,
                zombie: false,
                frozen_at_us: 0,
                wake_us: None,
                closing: false,
                close_wait_from: None,
                restart_at: None,
                restart_after_us: 0,
                close_committed: false,
            })
            .collect();
        let members = (0..n)
            .map(|i| Member {
                instance: i,
                in_group: joins[i as usize].is_none(),
                expires_at_us: None,
                since_us: 0,
            })
            .collect();
        let parts = (0..s.input.partitions)
            .map(|_| Part {
                assigned: None,
                held_by: None,
                pos: 0,
                committed: None,
                steps: Vec::new(),
                stall: None,
                stalls: Vec::new(),
            })
            .collect();
        let zeros = vec![vec![0u32; records as usize]; s.input.partitions as usize];
        let mut e = Engine {
            s,
            records,
            insts,
            members,
            parts,
            txns: Vec::new(),
            open: BTreeSet::new(),
            out: Vec::new(),
            rebalances: Vec::new(),
            pending_rebalance: None,
            timed_out: Vec::new(),
            side: zeros.clone(),
            processed: zeros,
            notes: Vec::new(),
            changes: 0,
            steps: 0,
        };
        let assignment = e.range_assignment();
        for (p, m) in assignment.into_iter().enumerate() {
            e.parts[p].assigned = m;
        }
        e
    }

    fn eos(&self) -> bool {
        self.s.service.eos()
    }

    fn eager(&self) -> bool {
        self.s.service.kind == ServiceKind::ConsumeTransformProduce
    }

    /// The RangeAssignor over the members in the group, ordered by instance (Kafka orders by
    /// member id; the model by instance): member k of m gets ⌊P/m⌋ partitions, the first P mod m
    /// one more.
    fn range_assignment(&self) -> Vec<Option<usize>> {
        let mut live: Vec<usize> = (0..self.members.len()).filter(|&m| self.members[m].in_group).collect();
        live.sort_by_key(|&m| (self.members[m].instance, m));
        let p = self.s.input.partitions as usize;
        let mut out = vec![None; p];
        if live.is_empty() {
            return out;
        }
        let (q, r) = (p / live.len(), p % live.len());
        let mut next = 0;
        for (k, &m) in live.iter().enumerate() {
            let take = q + usize::from(k < r);
            for slot in out.iter_mut().skip(next).take(take) {
                *slot = Some(m);
            }
            next += take;
        }
        out
    }

    fn write(
        &mut self,
        at: u64,
        kind: RecordKind,
        txn: Option<usize>,
        instance: u32,
        input: Option<(u32, u64)>,
    ) -> u64 {
        self.out.push((at, kind, txn, instance, input));
        self.changes += 1;
        self.out.len() as u64 - 1
    }

    fn set_committed(&mut self, p: u32, at: u64, offset: u64) {
        let part = &mut self.parts[p as usize];
        if part.committed != Some(offset) {
            part.committed = Some(offset);
            match part.steps.last_mut() {
                Some(last) if last.at_us == at => last.offset = offset,
                _ => part.steps.push(OffsetStep { at_us: at, offset }),
            }
        }
    }

    /// Ends transaction `x` with a marker at `at`.
    fn end_txn(&mut self, x: usize, at: u64, abort: bool) -> u64 {
        let instance = self.txns[x].instance;
        self.txns[x].ended = Some((at, abort));
        self.open.remove(&x);
        let pending = std::mem::take(&mut self.txns[x].pending);
        if !abort {
            for (p, o) in pending {
                self.set_committed(p, at, o);
            }
        }
        let kind = if abort { RecordKind::AbortMarker } else { RecordKind::CommitMarker };
        self.write(at, kind, Some(x), instance, None)
    }

    fn open_txn_of(&self, i: u32) -> Option<usize> {
        self.insts[i as usize].txn.filter(|&x| self.txns[x].ended.is_none())
    }

    fn start_rebalance(&mut self, t: u64, trigger: String) {
        self.changes += 1;
        if self.pending_rebalance.is_some() {
            if let Some(k) = self.pending_rebalance {
                self.rebalances[k].trigger += &format!("; {trigger}");
            }
            return;
        }
        self.rebalances.push(Rebalance {
            trigger,
            started_at_us: t,
            completed_at_us: None,
            assignment: Vec::new(),
        });
        self.pending_rebalance = Some(self.rebalances.len() - 1);
        if self.eager() {
            // RangeAssignor is eager: every member revokes all it owns before it rejoins
            // (ConsumerCoordinator.onJoinPrepare).
            for i in 0..self.insts.len() {
                let inst = &mut self.insts[i];
                if inst.life != Life::Dead && !inst.zombie && self.members[inst.member].in_group {
                    inst.revoking = inst.owned.clone();
                    inst.waiting = true;
                }
            }
        }
    }

    fn try_complete_rebalance(&mut self, t: u64) {
        let Some(k) = self.pending_rebalance else { return };
        for (mi, m) in self.members.iter().enumerate() {
            if !m.in_group {
                continue;
            }
            let inst = &self.insts[m.instance as usize];
            if inst.member != mi || inst.life != Life::Running {
                return;
            }
            if self.eager()
                && (!inst.revoking.is_empty()
                    || inst.ending.is_some()
                    || inst.flushing.is_some()
                    || inst.busy.is_some())
            {
                return;
            }
        }
        let assignment = self.range_assignment();
        let mut by_instance = vec![Vec::new(); self.insts.len()];
        for (p, m) in assignment.iter().enumerate() {
            if let Some(m) = *m {
                by_instance[self.members[m].instance as usize].push(p as u32);
            }
            self.parts[p].assigned = *m;
            if let Some(h) = self.parts[p].held_by {
                let holder = &self.insts[h as usize];
                let live =
                    holder.life == Life::Running && !holder.zombie && self.members[holder.member].in_group;
                if live && Some(holder.member) == *m {
                    continue;
                }
                if live {
                    self.insts[h as usize].revoking.insert(p as u32);
                } else {
                    self.parts[p].held_by = None;
                    self.insts[h as usize].owned.remove(&(p as u32));
                }
            }
        }
        for inst in &mut self.insts {
            inst.waiting = false;
        }
        self.rebalances[k].completed_at_us = Some(t);
        self.rebalances[k].assignment = by_instance;
        self.pending_rebalance = None;
        self.changes += 1;
    }

    /// Whether an open transaction holds offsets for input partition `p`.
    fn pending_on(&self, p: u32) -> bool {
        self.open.iter().any(|&x| self.txns[x].pending.iter().any(|&(q, _)| q == p))
    }

    /// New owners fetch their committed offsets (`requireStable`).
    fn acquire(&mut self) {
        for p in 0..self.parts.len() {
            let part = &self.parts[p];
            let (None, Some(m)) = (part.held_by, part.assigned) else { continue };
            let i = self.members[m].instance as usize;
            let inst = &self.insts[i];
            if inst.member != m || inst.life != Life::Running || inst.waiting || inst.zombie {
                continue;
            }
            if self.pending_on(p as u32) {
                continue;
            }
            let part = &mut self.parts[p];
            part.held_by = Some(i as u32);
            part.pos = part.committed.unwrap_or(0);
            self.insts[i].owned.insert(p as u32);
            self.changes += 1;
        }
    }

    /// The commit point: EOS sends the offsets to the transaction (and EndTxn, at once or after
    /// `offsets_to_end_txn_ms`); at_least_once commits synchronously.
    fn commit(&mut self, i: usize, t: u64) {
        if self.insts[i].dirty.is_empty() {
            return;
        }
        let dirty: Vec<(u32, u64)> = self.insts[i].dirty.iter().map(|(&p, &o)| (p, o)).collect();
        if self.eos() {
            if self.open_txn_of(i as u32).is_none() {
                return;
            }
            // Streams sets lastCommitMs to the `now` its commit started at.
            self.set_last_commit(i, t);
            let flush = self.s.service.flush_us;
            if flush > 0 {
                // flush() first: outputs only, no offsets in the transaction yet.
                self.insts[i].flushing = Some(t + flush);
                self.changes += 1;
            } else {
                self.send_offsets(i, t);
            }
        } else {
            for (p, o) in dirty {
                self.set_committed(p, t, o);
            }
            self.insts[i].dirty.clear();
            self.set_last_commit(i, t);
            self.insts[i].began_us = None;
            self.insts[i].txn_records = 0;
            self.changes += 1;
        }
    }

    fn set_last_commit(&mut self, i: usize, t: u64) {
        let inst = &mut self.insts[i];
        inst.last_commit_us = t;
        inst.timer_phase_us = 0;
    }

    /// `sendOffsetsToTransaction` of the processed positions (the offsets pending in the
    /// group from now), then EndTxn at once or `offsets_to_end_txn_ms` later.
    fn send_offsets(&mut self, i: usize, t: u64) {
        self.insts[i].flushing = None;
        let Some(x) = self.open_txn_of(i as u32) else { return };
        let dirty: Vec<(u32, u64)> = self.insts[i].dirty.iter().map(|(&p, &o)| (p, o)).collect();
        self.txns[x].pending = dirty;
        {
            let window = self.s.service.offsets_to_end_txn_us;
            if window > 0 {
                self.insts[i].ending = Some(t + window);
                self.changes += 1;
            } else {
                self.finish_commit(i, t);
            }
        }
    }

    fn finish_commit(&mut self, i: usize, t: u64) {
        self.insts[i].ending = None;
        if let Some(x) = self.open_txn_of(i as u32) {
            self.end_txn(x, t, false);
        }
        let inst = &mut self.insts[i];
        inst.txn = None;
        inst.dirty.clear();
        inst.began_us = None;
        inst.txn_records = 0;
        self.changes += 1;
    }

    fn drop_work(&mut self, i: usize) {
        let inst = &mut self.insts[i];
        inst.inhand.clear();
        inst.busy = None;
        inst.dirty.clear();
        inst.ending = None;
        inst.flushing = None;
        inst.txn = None;
        inst.began_us = None;
        inst.check = false;
        inst.empty_poll = false;
        inst.txn_records = 0;
        inst.poll_deadline = None;
    }

    /// A zombie's commit is refused by the group (TxnOffsetCommit or OffsetCommit: UNKNOWN_MEMBER_ID
    /// for a removed member, ILLEGAL_GENERATION for an old generation): it aborts its transaction
    /// and rejoins as a new member.
    fn zombie_rejoins(&mut self, i: usize, t: u64) {
        let had = self.insts[i].dirty.len();
        if let Some(x) = self.open_txn_of(i as u32) {
            self.end_txn(x, t, true);
        }
        self.drop_work(i);
        let owned = std::mem::take(&mut self.insts[i].owned);
        for p in owned {
            if self.parts[p as usize].held_by == Some(i as u32) {
                self.parts[p as usize].held_by = None;
            }
        }
        self.insts[i].revoking.clear();
        if self.insts[i].fenced {
            // Its producer was fenced too: it takes a new one as it rejoins.
            self.insts[i].fenced = false;
            self.insts[i].producer += 1;
        }
        self.insts[i].zombie = false;
        self.insts[i].waiting = false;
        self.members.push(Member { instance: i as u32, in_group: true, expires_at_us: None, since_us: t });
        self.insts[i].member = self.members.len() - 1;
        self.set_last_commit(i, t);
        let what = if self.eos() {
            "its TxnOffsetCommit is refused by the group (UNKNOWN_MEMBER_ID, as the group removed it; a member of \
             an older generation would get ILLEGAL_GENERATION): CommitFailedException, it aborts its transaction"
        } else {
            "its commitSync is refused by the group (UNKNOWN_MEMBER_ID; ILLEGAL_GENERATION for an older generation): \
             CommitFailedException"
        };
        if had > 0 {
            self.notes.push(format!(
                "{} ms: instance {i}, a zombie (the group removed it while it was frozen), reaches its commit: {what}, \
                 drops its work and rejoins",
                fmt(t)
            ));
        } else {
            self.notes
                .push(format!("{} ms: instance {i}, removed from the group while frozen, rejoins", fmt(t)));
        }
        self.start_rebalance(t, format!("instance {i} rejoins after it was removed"));
    }

    /// A fenced producer (the coordinator aborted its transaction for its timeout and bumped
    /// the epoch): its next send or commit fails; it drops its work, takes a new producer
    /// (initTransactions), seeks its partitions to their committed offsets and rejoins.
    fn fenced_restarts(&mut self, i: usize, t: u64) {
        if self.insts[i].closing {
            // Told to close: it closes instead of rejoining.
            self.close(i, t);
            return;
        }
        self.drop_work(i);
        let inst = &mut self.insts[i];
        inst.fenced = false;
        inst.producer += 1;
        self.set_last_commit(i, t);
        let owned: Vec<u32> = self.insts[i].owned.iter().copied().collect();
        for p in owned {
            let part = &mut self.parts[p as usize];
            part.pos = part.committed.unwrap_or(0);
        }
        self.notes.push(format!(
            "{} ms: instance {i}'s producer is fenced (its transaction was aborted for its timeout): the send fails, \
             it drops its work, re-initialises its producer and goes back to its committed offsets",
            fmt(t)
        ));
        self.start_rebalance(t, format!("instance {i} rejoins after its producer was fenced"));
    }

    /// Streams' `maybeCommit`: `lastCommitMs + commitTimeMs < now` on a millisecond clock, so
    /// the first instant a whole millisecond past the interval.
    fn commit_due_at(&self, i: usize) -> u64 {
        let inst = &self.insts[i];
        (inst.last_commit_us + self.s.service.commit_interval_us + crate::keys::US_PER_MS)
            .saturating_sub(inst.timer_phase_us)
    }

    /// The suite's loop (`transaction_age`, `transaction_records`): checks after each record and
    /// each empty `poll(100 ms)`, never while blocked in a poll.
    fn age_rule(&self) -> bool {
        self.s.service.commit_rule != CommitRule::SinceLastCommit
    }

    fn commit_due(&self, i: usize, t: u64) -> bool {
        let inst = &self.insts[i];
        if inst.dirty.is_empty() {
            return false;
        }
        match self.s.service.commit_rule {
            // After a record or an empty poll: `now - began >= commit.interval.ms`.
            CommitRule::TransactionAge => {
                inst.check
                    && inst
                        .began_us
                        .is_some_and(|b| t + inst.timer_phase_us >= b + self.s.service.commit_interval_us)
            }
            // After a record: `commit_records` in the transaction; after an empty poll: once it
            // is commit.interval.ms old (the input's tail).
            CommitRule::TransactionRecords => {
                inst.check
                    && (inst.txn_records >= self.s.service.commit_records
                        || inst.empty_poll
                            && inst.began_us.is_some_and(|b| t >= b + self.s.service.commit_interval_us))
            }
            CommitRule::SinceLastCommit => t >= self.commit_due_at(i),
        }
    }

    /// Instance `i`'s loop at `t`, until it waits for time to pass.
    fn step(&mut self, i: usize, t: u64) {
        let proc_us = self.s.service.record_processing_us;
        loop {
            self.steps += 1;
            if self.steps > MAX_PIPELINE_STEPS * 4 {
                return;
            }
            if self.insts[i].life != Life::Running {
                self.insts[i].wake_us = None;
                return;
            }
            if let Some(end) = self.insts[i].flushing {
                if end > t {
                    self.insts[i].wake_us = Some(end);
                    return;
                }
                if self.insts[i].fenced {
                    self.fenced_restarts(i, t);
                } else if self.insts[i].zombie {
                    // Its TxnOffsetCommit goes out after the group removed it: refused.
                    if self.insts[i].closing {
                        self.close(i, t);
                    } else {
                        self.zombie_rejoins(i, t);
                    }
                } else {
                    self.send_offsets(i, t);
                }
                continue;
            }
            if let Some(end) = self.insts[i].ending {
                if end > t {
                    self.insts[i].wake_us = Some(end);
                    return;
                }
                if self.insts[i].fenced {
                    self.fenced_restarts(i, t);
                } else {
                    self.finish_commit(i, t);
                }
                continue;
            }
            if let Some((end, p, o)) = self.insts[i].busy {
                if end > t {
                    self.insts[i].wake_us = Some(end);
                    return;
                }
                self.insts[i].busy = None;
                self.complete(i, p, o, t);
                self.insts[i].check = true;
                self.insts[i].txn_records += 1;
                continue;
            }
            if self.insts[i].closing
                && self.insts[i].inhand.is_empty()
                && !self.eager()
                && !self.insts[i].zombie
                && self.pending_rebalance.is_some()
                && self.members[self.insts[i].member].in_group
            {
                // Kafka Streams' thread, told to shut down with its records done, keeps polling
                // while its rebalance is in progress (StreamThread.runLoop: `while (isRunning()
                // || taskManager.rebalanceInProgress())`), processing and committing nothing (it
                // returns after the poll), and shuts down once the rebalance completes.
                if self.insts[i].close_wait_from.is_none() {
                    self.insts[i].close_wait_from = Some(t);
                }
                self.insts[i].wake_us = None;
                return;
            }
            if self.insts[i].zombie {
                if self.insts[i].inhand.is_empty() || self.commit_due(i, t) {
                    if self.insts[i].closing {
                        self.close(i, t);
                        continue;
                    }
                    self.zombie_rejoins(i, t);
                }
            } else if self.insts[i].fenced {
                if self.insts[i].closing {
                    self.close(i, t);
                } else {
                    self.fenced_restarts(i, t);
                }
                continue;
            } else if !self.insts[i].revoking.is_empty() {
                if !self.insts[i].dirty.is_empty() {
                    self.commit(i, t);
                    continue;
                }
                let revoking = std::mem::take(&mut self.insts[i].revoking);
                for &p in &revoking {
                    self.insts[i].owned.remove(&p);
                    if self.parts[p as usize].held_by == Some(i as u32) {
                        self.parts[p as usize].held_by = None;
                    }
                }
                self.insts[i].inhand.retain(|(p, _)| !revoking.contains(p));
                self.changes += 1;
                continue;
            } else if self.insts[i].closing && self.insts[i].inhand.is_empty() {
                // The records in hand are done: the close.
                if !self.insts[i].dirty.is_empty() && (!self.eos() || self.open_txn_of(i as u32).is_some()) {
                    self.insts[i].close_committed = true;
                    self.commit(i, t);
                } else {
                    self.close(i, t);
                }
                continue;
            } else if self.commit_due(i, t) {
                self.commit(i, t);
                continue;
            } else if self.insts[i].waiting {
                self.insts[i].wake_us = None;
                return;
            } else if self.insts[i].inhand.is_empty() {
                self.poll(i, t);
                if self.age_rule() {
                    if !self.insts[i].inhand.is_empty() {
                        self.insts[i].poll_deadline = None;
                    } else {
                        match self.insts[i].poll_deadline {
                            Some(d) if d <= t => {
                                // poll(100 ms) returned empty: the loop checks, then polls again.
                                self.insts[i].poll_deadline = Some(t + AGE_RULE_POLL_US);
                                if !self.insts[i].check && !self.insts[i].dirty.is_empty() {
                                    self.insts[i].check = true;
                                    self.insts[i].empty_poll = true;
                                    continue;
                                }
                            }
                            None => self.insts[i].poll_deadline = Some(t + AGE_RULE_POLL_US),
                            _ => {}
                        }
                    }
                }
            }
            self.insts[i].check = false;
            self.insts[i].empty_poll = false;
            if let Some((p, o)) = self.insts[i].inhand.pop_front() {
                self.insts[i].busy = Some((t + proc_us, p, o));
                if self.insts[i].began_us.is_none() {
                    self.insts[i].began_us = Some(t);
                }
                self.changes += 1;
                continue;
            }
            // Idle: the next record of a partition it holds, or the commit due.
            let mut wake: Option<u64> = None;
            for &p in &self.insts[i].owned {
                let pos = self.parts[p as usize].pos;
                if pos < self.records {
                    let at = self.s.input.append_us(pos);
                    wake = Some(wake.map_or(at, |w: u64| w.min(at)));
                }
            }
            if !self.insts[i].dirty.is_empty() {
                let due =
                    if self.age_rule() { self.insts[i].poll_deadline } else { Some(self.commit_due_at(i)) };
                if let Some(due) = due {
                    wake = Some(wake.map_or(due, |w| w.min(due)));
                }
            }
            self.insts[i].wake_us = wake.filter(|&w| w > t);
            return;
        }
    }

    fn poll(&mut self, i: usize, t: u64) {
        let mut n = 0u32;
        let max = self.s.service.max_poll_records;
        let owned: Vec<u32> = self.insts[i].owned.iter().copied().collect();
        for p in owned {
            let part = &mut self.parts[p as usize];
            while n < max && part.pos < self.records && self.s.input.append_us(part.pos) <= t {
                self.insts[i].inhand.push_back((p, part.pos));
                part.pos += 1;
                n += 1;
            }
        }
        if n > 0 {
            self.changes += 1;
        }
    }

    /// Record (p, o) processed at `t`: its side effect, then its output sent.
    fn complete(&mut self, i: usize, p: u32, o: u64, t: u64) {
        self.side[p as usize][o as usize] += 1;
        self.processed[p as usize][o as usize] += 1;
        if self.eos() {
            if self.insts[i].fenced {
                self.fenced_restarts(i, t);
                return;
            }
            let x = match self.open_txn_of(i as u32) {
                Some(x) => x,
                None => {
                    let timeout_at_us = first_scan_after(
                        self.s.scan_phase_us,
                        self.s.cleanup_interval_us,
                        t.saturating_add(self.s.service.transaction_timeout_us),
                    );
                    self.txns.push(Txn {
                        instance: i as u32,
                        producer: self.insts[i].producer,
                        start_us: t,
                        timeout_at_us,
                        pending: Vec::new(),
                        ended: None,
                    });
                    let x = self.txns.len() - 1;
                    self.insts[i].txn = Some(x);
                    self.open.insert(x);
                    x
                }
            };
            self.write(t, RecordKind::Data, Some(x), i as u32, Some((p, o)));
        } else {
            self.write(t, RecordKind::Data, None, i as u32, Some((p, o)));
        }
        self.insts[i].dirty.insert(p, o + 1);
    }

    fn crash(&mut self, i: usize, t: u64) {
        self.drop_work(i);
        let inst = &mut self.insts[i];
        inst.life = Life::Dead;
        inst.revoking.clear();
        inst.waiting = false;
        let m = inst.member;
        self.stop_heartbeats(m, t);
        self.changes += 1;
    }

    /// Member `m` sends no more heartbeats from `t`: the coordinator removes it
    /// `session.timeout.ms` after the last one it got (heartbeats at its start and every
    /// `heartbeat.interval.ms`; `GroupCoordinator` reschedules the expiry at each).
    fn stop_heartbeats(&mut self, m: usize, t: u64) {
        let member = &mut self.members[m];
        if member.in_group {
            let every = self.s.service.heartbeat_interval_us;
            let last = member.since_us + (t - member.since_us) / every * every;
            member.expires_at_us = Some(last + self.s.service.session_timeout_us);
        }
    }

    /// Scale-out: instance `i` starts and joins as a new member. The rebalance moves partitions
    /// to it: eager (consume_transform_produce, RangeAssignor) every member revokes everything,
    /// committing first; cooperative (Kafka Streams) only the moving partitions' owners revoke
    /// them, committing first (14.3).
    fn join(&mut self, i: usize, t: u64) {
        self.members.push(Member { instance: i as u32, in_group: true, expires_at_us: None, since_us: t });
        let inst = &mut self.insts[i];
        inst.member = self.members.len() - 1;
        inst.life = Life::Running;
        self.set_last_commit(i, t);
        self.start_rebalance(t, format!("instance {i} joins the group (scale-out)"));
    }

    /// A deploy's turn: instance `i` is told to close (a shutdown hook's `wakeup()`, or
    /// `KafkaStreams.close()`): it polls no more, finishes the records in hand (committing as its
    /// rule says meanwhile), then commits and closes ([`Engine::close`]).
    fn begin_close(&mut self, i: usize, t: u64, restart_after_us: u64) {
        let inst = &mut self.insts[i];
        inst.closing = true;
        inst.restart_after_us = restart_after_us;
        self.changes += 1;
        let what = if self.eager() {
            "wakeup(): the loop finishes the records in hand, then calls close()"
        } else {
            "KafkaStreams.close(): the stream thread finishes the records it polled, then shuts down"
        };
        self.notes.push(format!("{} ms: deploy, instance {i} is told to close: {what}", fmt(t)));
    }

    /// Instance `i`'s close, once its records in hand are done and its work committed (model.md
    /// §14.3). consume_transform_produce: `KafkaConsumer.close()` runs `onLeavePrepare` — the
    /// rebalance listener's `onPartitionsRevoked`, whose commit came first — then LeaveGroup (a
    /// dynamic member, `CloseOptions` DEFAULT): the group rebalances at once. Kafka Streams:
    /// `TaskManager.shutdown(clean)` committed its tasks; `KafkaStreams.close()` closes the
    /// consumer with REMAIN_IN_GROUP: no LeaveGroup under the classic protocol, so its
    /// partitions wait for its session to expire. Either way the producer's `close()` aborts a
    /// transaction still open (`Sender.run`: "Aborting incomplete transaction due to
    /// shutdown") — a zombie's, whose commit the group refused. The instance starts again
    /// `restart_after_ms` later.
    fn close(&mut self, i: usize, t: u64) {
        let mut what = Vec::new();
        if let Some(x) = self.open_txn_of(i as u32) {
            self.end_txn(x, t, true);
            what.push(if self.insts[i].zombie {
                "its commit is refused by the group (it was removed while frozen): the producer's close() aborts its \
                 transaction"
            } else {
                "the producer's close() aborts its open transaction"
            });
        }
        if self.insts[i].fenced {
            what.push(
                "its producer was fenced (its transaction aborted for its timeout): its work is dropped",
            );
        }
        if let Some(from) = self.insts[i].close_wait_from.take() {
            self.notes.push(format!(
                "{} ms: instance {i}'s stream thread waited for the group's rebalance from {} ms before shutting down \
                 (StreamThread.runLoop polls on while a rebalance is in progress)",
                fmt(t),
                fmt(from)
            ));
        }
        self.drop_work(i);
        let m = self.insts[i].member;
        let inst = &mut self.insts[i];
        inst.closing = false;
        inst.life = Life::Dead;
        inst.zombie = false;
        inst.fenced = false;
        inst.revoking.clear();
        inst.waiting = false;
        inst.restart_at = Some(t + inst.restart_after_us);
        let in_group = self.members[m].in_group;
        if self.eager() {
            let owned = std::mem::take(&mut self.insts[i].owned);
            for p in owned {
                if self.parts[p as usize].held_by == Some(i as u32) {
                    self.parts[p as usize].held_by = None;
                }
            }
            if in_group {
                self.members[m].in_group = false;
                self.members[m].expires_at_us = None;
                what.push("KafkaConsumer.close(): onLeavePrepare revoked its partitions, then LeaveGroup");
                self.start_rebalance(
                    t,
                    format!("instance {i} leaves the group (close() in the deploy: LeaveGroup)"),
                );
            }
        } else if in_group {
            self.stop_heartbeats(m, t);
            what.push(
                "KafkaStreams.close() sends no LeaveGroup under the classic protocol (REMAIN_IN_GROUP): its \
                 partitions wait for its session to expire",
            );
        }
        self.changes += 1;
        let committed = match (std::mem::take(&mut self.insts[i].close_committed), self.eos()) {
            (true, true) => " (its open transaction committed first)",
            (true, false) => " (its offsets committed first)",
            (false, _) => "",
        };
        let what = if what.is_empty() { String::new() } else { format!(": {}", what.join("; ")) };
        self.notes.push(format!("{} ms: instance {i} closes{committed}{what}", fmt(t)));
    }

    fn restart(&mut self, i: usize, t: u64) {
        if self.eos() {
            let open: Vec<usize> =
                self.open.iter().copied().filter(|&x| self.txns[x].instance == i as u32).collect();
            if self.s.service.restart_keeps_id() {
                for x in open {
                    self.end_txn(x, t, true);
                    self.notes.push(format!(
                        "{} ms: instance {i} restarts with the same transactional.id: initTransactions fences the old \
                         producer and aborts its open transaction at once",
                        fmt(t)
                    ));
                }
            } else if !open.is_empty() {
                self.notes.push(format!(
                    "{} ms: instance {i} restarts with a new transactional.id: its old open transaction waits for the \
                     coordinator's timeout",
                    fmt(t)
                ));
            }
        }
        let owned = std::mem::take(&mut self.insts[i].owned);
        for p in owned {
            if self.parts[p as usize].held_by == Some(i as u32) {
                self.parts[p as usize].held_by = None;
            }
        }
        self.members.push(Member { instance: i as u32, in_group: true, expires_at_us: None, since_us: t });
        let inst = &mut self.insts[i];
        inst.member = self.members.len() - 1;
        inst.life = Life::Running;
        inst.producer += 1;
        inst.fenced = false;
        inst.zombie = false;
        inst.last_commit_us = t;
        inst.timer_phase_us = 0;
        self.start_rebalance(t, format!("instance {i} restarts and joins as a new member"));
    }

    fn freeze(&mut self, i: usize, t: u64) {
        let inst = &mut self.insts[i];
        inst.life = Life::Frozen;
        inst.frozen_at_us = t;
        let m = inst.member;
        self.stop_heartbeats(m, t);
        self.changes += 1;
    }

    fn resume(&mut self, i: usize, t: u64) {
        let inst = &mut self.insts[i];
        let frozen = t - inst.frozen_at_us;
        inst.life = Life::Running;
        if let Some(b) = inst.busy.as_mut() {
            b.0 = b.0.max(inst.frozen_at_us) + frozen;
        }
        if let Some(e) = inst.ending.as_mut() {
            *e += frozen;
        }
        if let Some(e) = inst.flushing.as_mut() {
            *e += frozen;
        }
        if let Some(d) = inst.poll_deadline.as_mut() {
            *d += frozen;
        }
        let m = inst.member;
        if self.members[m].in_group {
            self.members[m].expires_at_us = None;
        } else {
            inst.zombie = true;
            inst.waiting = false;
            inst.revoking.clear();
            self.notes.push(format!(
                "{} ms: instance {i} resumes after {} ms frozen; the group removed it meanwhile: a zombie",
                fmt(t),
                fmt(frozen)
            ));
        }
        self.changes += 1;
    }

    fn stall_bookkeeping(&mut self, t: u64) {
        for p in 0..self.parts.len() {
            let part = &self.parts[p];
            let state = match part.held_by {
                Some(h) => {
                    let inst = &self.insts[h as usize];
                    if inst.life == Life::Running
                        && !inst.zombie
                        && !inst.waiting
                        && inst.close_wait_from.is_none()
                    {
                        None
                    } else if inst.waiting || inst.life == Life::Running && inst.close_wait_from.is_some() {
                        // An eager survivor's wait, or a Streams thread told to close that polls
                        // on, processing nothing, until the rebalance completes.
                        Some(StallReason::Rebalance)
                    } else {
                        Some(StallReason::OwnerDown)
                    }
                }
                None => {
                    if self.pending_on(p as u32)
                        && part.assigned.is_some_and(|m| {
                            let inst = &self.insts[self.members[m].instance as usize];
                            inst.member == m && inst.life == Life::Running && !inst.waiting
                        })
                    {
                        Some(StallReason::UnstableOffsetCommit)
                    } else if part.assigned.is_some_and(|m| {
                        let inst = &self.insts[self.members[m].instance as usize];
                        inst.member != m || inst.life != Life::Running
                    }) {
                        Some(StallReason::OwnerDown)
                    } else {
                        Some(StallReason::Rebalance)
                    }
                }
            };
            let part = &mut self.parts[p];
            let now = part.stall.map(|(r, _)| r);
            if now != state {
                if let Some((reason, from)) = part.stall.take() {
                    if from < t {
                        part.stalls.push(InputStall { reason, from_us: from, to_us: Some(t) });
                    }
                }
                part.stall = state.map(|r| (r, t));
            }
        }
    }

    fn next_instant(&self, t: u64) -> Option<u64> {
        let mut next: Option<u64> = None;
        let mut see = |at: u64| {
            if at > t {
                next = Some(next.map_or(at, |n: u64| n.min(at)));
            }
        };
        for inst in &self.insts {
            if inst.life == Life::Running {
                if let Some(w) = inst.wake_us {
                    see(w);
                }
            }
        }
        for &x in &self.open {
            see(self.txns[x].timeout_at_us);
        }
        for m in &self.members {
            if m.in_group {
                if let Some(e) = m.expires_at_us {
                    see(e);
                }
            }
        }
        for e in &self.s.events {
            if e.kind == EventKind::Deploy {
                for k in 0..self.insts.len() {
                    see(e.turn_us(k as u32));
                }
                continue;
            }
            see(e.at_us);
            if let Some(end) = e.end_us() {
                see(end);
            }
        }
        for inst in &self.insts {
            if let Some(r) = inst.restart_at {
                see(r);
            }
        }
        next
    }

    fn instant(&mut self, t: u64) {
        // 1. The transaction coordinator's timeout aborts.
        let due: Vec<usize> =
            self.open.iter().copied().filter(|&x| self.txns[x].timeout_at_us == t).collect();
        for x in due {
            {
                let offset = self.end_txn(x, t, true);
                self.timed_out.push((x, t, offset as usize));
                let (i, producer) = (self.txns[x].instance as usize, self.txns[x].producer);
                if self.insts[i].producer == producer && self.insts[i].txn == Some(x) {
                    self.insts[i].fenced = true;
                }
            }
        }
        // 2. The scenario's events.
        for k in 0..self.s.events.len() {
            let e = self.s.events[k].clone();
            let i = e.instance as usize;
            if e.kind == EventKind::Deploy {
                for k in 0..self.insts.len() {
                    if e.turn_us(k as u32) == t {
                        self.begin_close(k, t, e.restart_after_us.unwrap_or(0));
                    }
                }
                continue;
            }
            if e.at_us == t {
                match e.kind {
                    EventKind::Crash => self.crash(i, t),
                    EventKind::Hang => self.freeze(i, t),
                    EventKind::Join => self.join(i, t),
                    EventKind::Deploy => {}
                }
            }
            if e.end_us() == Some(t) {
                match e.kind {
                    EventKind::Crash => self.restart(i, t),
                    EventKind::Hang => self.resume(i, t),
                    EventKind::Join | EventKind::Deploy => {}
                }
            }
        }
        // 3. Session expiries.
        for m in 0..self.members.len() {
            if self.members[m].in_group && self.members[m].expires_at_us == Some(t) {
                self.members[m].in_group = false;
                self.members[m].expires_at_us = None;
                let i = self.members[m].instance;
                self.start_rebalance(
                    t,
                    format!(
                        "instance {i}'s session expires ({} ms without a heartbeat)",
                        fmt(self.s.service.session_timeout_us)
                    ),
                );
            }
        }
        // 4. Until nothing changes: the rebalance, the offset fetches, each instance's loop.
        for _ in 0..256 {
            let before = self.changes;
            // A deploy's restarts (a close with `restart_after_ms` 0 restarts at once).
            for i in 0..self.insts.len() {
                if self.insts[i].restart_at == Some(t) {
                    self.insts[i].restart_at = None;
                    self.restart(i, t);
                }
            }
            self.try_complete_rebalance(t);
            self.acquire();
            for i in 0..self.insts.len() {
                self.step(i, t);
            }
            if self.changes == before || self.steps > MAX_PIPELINE_STEPS * 4 {
                break;
            }
        }
        self.stall_bookkeeping(t);
    }
}

fn counts(by: &[Vec<u32>]) -> SeenCounts {
    let mut c = SeenCounts::default();
    for n in by.iter().flatten() {
        match n {
            0 => c.never += 1,
            1 => c.once += 1,
            2 => c.twice += 1,
            _ => c.more += 1,
        }
    }
    c
}

fn by_input(by: &[Vec<u32>]) -> Vec<ByInput> {
    by.iter().enumerate().map(|(p, counts)| ByInput { partition: p as u32, counts: counts.clone() }).collect()
}

/// Runs the whole scenario (validated by the caller).
pub(crate) fn run(s: &PipelineScenario) -> PipelineRun {
    let mut e = Engine::new(s);
    let mut t = 0u64;
    loop {
        e.instant(t);
        if e.steps > MAX_PIPELINE_STEPS * 4 {
            e.notes.push(format!(
                "the run stopped at {} ms: more than {} steps",
                fmt(t),
                MAX_PIPELINE_STEPS * 4
            ));
            break;
        }
        match e.next_instant(t) {
            Some(n) if n <= s.horizon_us => t = n,
            _ => break,
        }
    }
    // Close the stalls open at the horizon.
    let mut input_stalls = Vec::new();
    for (p, part) in e.parts.iter_mut().enumerate() {
        if let Some((reason, from)) = part.stall.take() {
            part.stalls.push(InputStall { reason, from_us: from, to_us: None });
        }
        input_stalls.push(PartitionStalls { partition: p as u32, stalls: std::mem::take(&mut part.stalls) });
    }

    let entries: Vec<(u64, RecordKind, Option<usize>)> =
        e.out.iter().map(|&(at, k, x, _, _)| (at, k, x)).collect();
    let (log, hw) = Log::from_entries(&entries, e.txns.len());
    let output_log: Vec<OutputEntry> = e
        .out
        .iter()
        .enumerate()
        .map(|(o, &(at, kind, x, instance, input))| OutputEntry {
            offset: o as u64,
            kind,
            at_us: at,
            instance,
            input_partition: input.map(|(p, _)| p),
            input_offset: input.map(|(_, k)| k),
            state: (kind == RecordKind::Data).then(|| match x.and_then(|x| e.txns[x].ended) {
                None if x.is_none() => OutputState::Committed,
                None => OutputState::Open,
                Some((_, true)) => OutputState::Aborted,
                Some((_, false)) => OutputState::Committed,
            }),
        })
        .collect();
    let zeros = vec![vec![0u32; e.records as usize]; s.input.partitions as usize];
    let readers = s
        .readers
        .iter()
        .map(|r| {
            let run = run_reader(s.horizon_us, &log, &hw, r);
            let mut seen = zeros.clone();
            for h in &run.handed {
                if let Some((p, k)) = e.out[h.offset as usize].4 {
                    seen[p as usize][k as usize] += 1;
                }
            }
            PipelineReader {
                name: run.name,
                client: run.client,
                isolation: run.isolation,
                seen: counts(&seen),
                by_input: by_input(&seen),
                position: run.position,
                stalled: run.stalled,
            }
        })
        .collect();
    let timed_out_aborts = e
        .timed_out
        .iter()
        .map(|&(x, at, offset)| PipelineTimedOutAbort {
            instance: e.txns[x].instance,
            started_at_us: e.txns[x].start_us,
            aborted_at_us: at,
            marker_offset: offset as u64,
        })
        .collect();
    PipelineRun {
        scenario: s.to_json_value(),
        input_committed: e
            .parts
            .iter()
            .enumerate()
            .map(|(p, part)| InputCommitted {
                partition: p as u32,
                steps: part.steps.clone(),
                last: part.committed,
            })
            .collect(),
        input_stalls,
        output_log,
        output_last_stable_offset: log
            .lso_steps()
            .iter()
            .map(|&(at_us, offset)| OffsetStep { at_us, offset })
            .collect(),
        readers,
        side_effects: s
            .service
            .side_effect
            .then(|| SideEffects { counts: counts(&e.side), by_input: by_input(&e.side) }),
        processed: counts(&e.processed),
        timed_out_aborts,
        rebalances: e.rebalances,
        notes: e.notes,
    }
}
