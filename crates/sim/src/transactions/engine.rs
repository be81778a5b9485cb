//! The transactions engine (model.md §13): the partition log the producers and the
//! coordinator write, its last stable offset over time, then each reader's polls over it.
//!
//! The log does not depend on the readers, so it is built first, in one pass over the writes
//! in time order (at one instant: the coordinator's timeout aborts, then each producer's
//! entries in the order the producers are listed, a producer's data before its marker). Then
//! each reader runs on its own over that log: its polls at 0, P, 2P, … see every write at or
//! before their instant, and its background commit timer (where the client has one) ticks
//! after the polls of the same instant.

use super::scenario::{has_commit_timer, CommitStyle, TxnEnd, TxnReader, TxnScenario};
use super::{
    DataState, Handed, LogRecord, OffsetStep, ReaderRun, RecordKind, ShareReaderRun, Stall, TimedOutAbort,
    TxnOutcome, TxnRun, TxnTrace,
};
use crate::clients::Client;
use crate::scenario::IsolationLevel;

/// One planned write: when, in which tie phase, by whom, what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Write {
    at_us: u64,
    /// 0: the coordinator's timeout abort; 1: a producer's own write.
    phase: u8,
    producer: u32,
    /// Order within the producer's writes.
    seq: u64,
    kind: RecordKind,
    /// Index into the run's transactions (`None`: a plain record).
    txn: Option<usize>,
}

/// The instant of the first coordinator scan strictly after `deadline_us` (scans at
/// `phase + k · interval`, k ≥ 0; Kafka `TransactionStateManager.timedOutTransactions` keeps a
/// transaction whose `txnStartTimestamp + txnTimeoutMs < now`).
pub(crate) fn first_scan_after(phase: u64, every: u64, deadline_us: u64) -> u64 {
    if phase > deadline_us {
        phase
    } else {
        phase + ((deadline_us - phase) / every + 1) * every
    }
}

/// Plans every producer's writes and each transaction's fate.
fn plan(s: &TxnScenario, notes: &mut Vec<String>) -> (Vec<Write>, Vec<TxnTrace>) {
    let mut writes = Vec::new();
    let mut txns: Vec<TxnTrace> = Vec::new();
    let horizon = s.horizon_us;
    for (pi, p) in s.producers.iter().enumerate() {
        let producer = pi as u32;
        let mut seq = 0u64;
        let mut push =
            |writes: &mut Vec<Write>, at_us: u64, phase: u8, kind: RecordKind, txn: Option<usize>| {
                if at_us <= horizon {
                    writes.push(Write { at_us, phase, producer, seq, kind, txn });
                }
                seq += 1;
            };
        if p.transactional_id.is_none() {
            for &at in &p.records_at_us {
                push(&mut writes, at, 1, RecordKind::Data, None);
            }
            continue;
        }
        let mut fenced_at: Option<(u64, usize)> = None;
        for (ti, t) in p.transactions.iter().enumerate() {
            let index = txns.len();
            let mut trace = TxnTrace {
                producer,
                transaction: ti as u32,
                outcome: TxnOutcome::Open,
                started_at_us: t.begin_us,
                ended_at_us: None,
                first_offset: None,
                marker_offset: None,
                records_written: 0,
            };
            if let Some((at, by)) = fenced_at {
                // Said once, at the first transaction the fence stops.
                if ti == by + 1 {
                    notes.push(format!(
                        "producers[{pi}].transactions[{ti}..] are not written: the coordinator aborted transaction \
                         {by} at {} ms and bumped the producer's epoch, so the producer is fenced and writes nothing \
                         more",
                        crate::keys::format_millis(at)
                    ));
                }
                trace.outcome = TxnOutcome::NotWritten;
                txns.push(trace);
                continue;
            }
            if t.begin_us > horizon {
                trace.outcome = TxnOutcome::NotWritten;
                txns.push(trace);
                continue;
            }
            let scan_us = if t.end == TxnEnd::Hangs {
                None
            } else {
                Some(first_scan_after(
                    s.scan_phase_us,
                    s.cleanup_interval_us,
                    t.begin_us.saturating_add(p.transaction_timeout_us),
                ))
            };
            // The coordinator's scan comes first at an instant it shares with the client's end.
            let timed_out = scan_us.filter(|&at| at <= horizon && t.end_us.is_none_or(|end| at <= end));
            let cut_us = timed_out.unwrap_or(u64::MAX);
            for i in 0..t.records {
                let at = t.record_us(i);
                if at >= cut_us {
                    break;
                }
                if at <= horizon {
                    trace.records_written += 1;
                }
                push(&mut writes, at, 1, RecordKind::Data, Some(index));
            }
            if let Some(at) = timed_out {
                push(&mut writes, at, 0, RecordKind::AbortMarker, Some(index));
                trace.outcome = TxnOutcome::TimedOut;
                trace.ended_at_us = Some(at);
                fenced_at = Some((at, ti));
                if t.end.has_end_ms() {
                    notes.push(format!(
                        "producers[{pi}].transactions[{ti}]: the coordinator's scan at {} ms aborted it (started {} ms + \
                         transaction.timeout.ms {} ms) before the client's {} at {} ms, which fails",
                        crate::keys::format_millis(at),
                        crate::keys::format_millis(t.begin_us),
                        crate::keys::format_millis(p.transaction_timeout_us),
                        t.end.name(),
                        crate::keys::format_millis(t.end_us.unwrap_or_default())
                    ));
                }
            } else if let Some(end) = t.end_us.filter(|&e| e <= horizon) {
                let kind =
                    if t.end == TxnEnd::Commit { RecordKind::CommitMarker } else { RecordKind::AbortMarker };
                push(&mut writes, end, 1, kind, Some(index));
                trace.outcome =
                    if t.end == TxnEnd::Commit { TxnOutcome::Committed } else { TxnOutcome::Aborted };
                trace.ended_at_us = Some(end);
            } else if t.end == TxnEnd::Hangs {
                trace.outcome = TxnOutcome::Hanging;
            }
            txns.push(trace);
        }
    }
    writes.sort_unstable();
    (writes, txns)
}

/// The log as the readers see it: entries in offset order, each transaction's marker, and
/// the high watermark and last stable offset as step functions of time.
pub(crate) struct Log {
    /// Each entry's instant, ascending (offset = index).
    at_us: Vec<u64>,
    kind: Vec<RecordKind>,
    txn: Vec<Option<usize>>,
    /// For each transaction: its marker's instant and whether it aborts.
    marker: Vec<Option<(u64, bool)>>,
    lso: Vec<(u64, u64)>,
}

impl Log {
    /// A log of entries already in offset order (instants ascending): each entry's instant,
    /// kind and transaction (an index below `transactions`; `None`: plain). Markers end their
    /// transaction; the last stable offset is the first offset of the oldest open transaction,
    /// else the high watermark. Returns the log and the high watermark's steps.
    pub(crate) fn from_entries(
        entries: &[(u64, RecordKind, Option<usize>)],
        transactions: usize,
    ) -> (Log, Vec<(u64, u64)>) {
        let mut log = Log {
            at_us: Vec::with_capacity(entries.len()),
            kind: Vec::with_capacity(entries.len()),
            txn: Vec::with_capacity(entries.len()),
            marker: vec![None; transactions],
            lso: vec![(0, 0)],
        };
        let mut hw_steps: Vec<(u64, u64)> = vec![(0, 0)];
        let mut first: Vec<Option<u64>> = vec![None; transactions];
        let mut open: std::collections::BTreeMap<u64, usize> = std::collections::BTreeMap::new();
        let mut i = 0;
        while i < entries.len() {
            let at = entries[i].0;
            while i < entries.len() && entries[i].0 == at {
                let (_, kind, txn) = entries[i];
                let offset = log.at_us.len() as u64;
                log.at_us.push(at);
                log.kind.push(kind);
                log.txn.push(txn);
                if let Some(x) = txn {
                    if kind == RecordKind::Data {
                        if first[x].is_none() {
                            first[x] = Some(offset);
                            open.insert(offset, x);
                        }
                    } else {
                        log.marker[x] = Some((at, kind == RecordKind::AbortMarker));
                        if let Some(f) = first[x] {
                            open.remove(&f);
                        }
                    }
                }
                i += 1;
            }
            let hw = log.at_us.len() as u64;
            let lso = open.keys().next().copied().unwrap_or(hw);
            push_step(&mut log.lso, at, lso);
            push_step(&mut hw_steps, at, hw);
        }
        (log, hw_steps)
    }

    /// The last stable offset's steps `(from µs, offset)`.
    pub(crate) fn lso_steps(&self) -> &[(u64, u64)] {
        &self.lso
    }

    /// The high watermark (log end offset) at `t`: every write at or before `t`.
    fn hw_at(&self, t: u64) -> u64 {
        self.at_us.partition_point(|&a| a <= t) as u64
    }

    /// The last stable offset at `t`.
    fn lso_at(&self, t: u64) -> u64 {
        let i = self.lso.partition_point(|&(a, _)| a <= t);
        if i == 0 {
            0
        } else {
            self.lso[i - 1].1
        }
    }

    /// Whether data entry `o` belongs to a transaction aborted by `t`.
    fn aborted_by(&self, o: usize, t: u64) -> bool {
        self.txn[o].and_then(|x| self.marker[x]).is_some_and(|(at, abort)| abort && at <= t)
    }
}

/// Runs the whole scenario (validated by the caller).
pub(crate) fn run(s: &TxnScenario) -> TxnRun {
    let mut notes = Vec::new();
    let (writes, mut traces) = plan(s, &mut notes);

    let mut log = Log {
        at_us: Vec::with_capacity(writes.len()),
        kind: Vec::with_capacity(writes.len()),
        txn: Vec::with_capacity(writes.len()),
        marker: vec![None; traces.len()],
        lso: vec![(0, 0)],
    };
    let mut hw_steps: Vec<(u64, u64)> = vec![(0, 0)];
    // Open transactions by first offset (a transaction's first offset is unique).
    let mut open: std::collections::BTreeMap<u64, usize> = std::collections::BTreeMap::new();
    let mut timed_out_aborts = Vec::new();
    let mut i = 0;
    while i < writes.len() {
        let at = writes[i].at_us;
        while i < writes.len() && writes[i].at_us == at {
            let w = writes[i];
            let offset = log.at_us.len() as u64;
            log.at_us.push(at);
            log.kind.push(w.kind);
            log.txn.push(w.txn);
            if let Some(x) = w.txn {
                let t = &mut traces[x];
                match w.kind {
                    RecordKind::Data => {
                        if t.first_offset.is_none() {
                            t.first_offset = Some(offset);
                            open.insert(offset, x);
                        }
                    }
                    RecordKind::CommitMarker | RecordKind::AbortMarker => {
                        t.marker_offset = Some(offset);
                        log.marker[x] = Some((at, w.kind == RecordKind::AbortMarker));
                        if let Some(first) = t.first_offset {
                            open.remove(&first);
                        }
                        if t.outcome == TxnOutcome::TimedOut {
                            timed_out_aborts.push(TimedOutAbort {
                                producer: t.producer,
                                transaction: t.transaction,
                                started_at_us: t.started_at_us,
                                aborted_at_us: at,
                                marker_offset: offset,
                            });
                        }
                    }
                }
            }
            i += 1;
        }
        let hw = log.at_us.len() as u64;
        let lso = open.keys().next().copied().unwrap_or(hw);
        debug_assert!(lso <= hw, "the last stable offset never passes the high watermark");
        push_step(&mut log.lso, at, lso);
        push_step(&mut hw_steps, at, hw);
    }

    let log_records: Vec<LogRecord> = (0..log.at_us.len())
        .map(|o| {
            let w = &writes[o];
            let state = match (w.kind, w.txn) {
                (RecordKind::Data, None) => Some(DataState::Plain),
                (RecordKind::Data, Some(x)) => Some(match log.marker[x] {
                    Some((_, true)) => DataState::Aborted,
                    Some((_, false)) => DataState::Committed,
                    None => DataState::Open,
                }),
                _ => None,
            };
            LogRecord {
                offset: o as u64,
                kind: w.kind,
                producer: w.producer,
                transaction: w.txn.map(|x| traces[x].transaction),
                at_us: w.at_us,
                state,
            }
        })
        .collect();

    let log_end_offset = log.at_us.len() as u64;
    let readers = s.readers.iter().map(|r| run_reader(s.horizon_us, &log, &hw_steps, r)).collect();
    let share_readers = s
        .share_readers
        .iter()
        .map(|r| {
            let rc = r.isolation == IsolationLevel::ReadCommitted;
            let mut cursor = 0u64;
            let mut handed = Vec::new();
            let mut cursor_steps = vec![(0u64, 0u64)];
            let mut t = 0u64;
            while t <= s.horizon_us {
                let limit = if rc { log.lso_at(t) } else { log.hw_at(t) };
                let mut n = 0u32;
                while cursor < limit && n < r.max_poll_records {
                    let o = cursor as usize;
                    let skip = log.kind[o] != RecordKind::Data || (rc && log.aborted_by(o, t));
                    if !skip {
                        handed.push(Handed { offset: cursor, at_us: t, control: false });
                        n += 1;
                    }
                    cursor += 1;
                }
                push_step(&mut cursor_steps, t, cursor);
                t += r.poll_interval_us;
            }
            ShareReaderRun {
                name: r.name.clone(),
                isolation: r.isolation.name(),
                handed,
                next_offset: cursor,
                stalled: if rc { stalls(&cursor_steps, &log.lso, &hw_steps) } else { Vec::new() },
            }
        })
        .collect();

    TxnRun {
        scenario: s.to_json_value(),
        log: log_records,
        log_end_offset,
        last_stable_offset: log.lso.iter().map(|&(at_us, offset)| OffsetStep { at_us, offset }).collect(),
        high_watermark: hw_steps.iter().map(|&(at_us, offset)| OffsetStep { at_us, offset }).collect(),
        transactions: traces,
        timed_out_aborts,
        readers,
        share_readers,
        notes,
    }
}

/// Appends `(at, value)` to a step function: replaces a step at the same instant, skips a
/// value that does not change.
pub(crate) fn push_step(steps: &mut Vec<(u64, u64)>, at: u64, value: u64) {
    if let Some(last) = steps.last_mut() {
        if last.0 == at {
            last.1 = value;
            if steps.len() >= 2 && steps[steps.len() - 2].1 == value {
                steps.pop();
            }
            return;
        }
        if last.1 == value {
            return;
        }
    }
    steps.push((at, value));
}

/// The value of a step function at `t`.
fn step_at(steps: &[(u64, u64)], t: u64) -> u64 {
    let i = steps.partition_point(|&(a, _)| a <= t);
    if i == 0 {
        0
    } else {
        steps[i - 1].1
    }
}

/// The intervals in which a `read_committed` reader is caught up with the last stable offset
/// while records lie past it: its position at or past the LSO and the LSO below the high
/// watermark.
fn stalls(cursor: &[(u64, u64)], lso: &[(u64, u64)], hw: &[(u64, u64)]) -> Vec<Stall> {
    let mut instants: Vec<u64> = cursor.iter().chain(lso).chain(hw).map(|&(a, _)| a).collect();
    instants.sort_unstable();
    instants.dedup();
    let mut out: Vec<Stall> = Vec::new();
    let mut since: Option<u64> = None;
    for t in instants {
        let (c, l, h) = (step_at(cursor, t), step_at(lso, t), step_at(hw, t));
        let stalled = c >= l && l < h;
        match (stalled, since) {
            (true, None) => since = Some(t),
            (false, Some(from)) => {
                out.push(Stall { from_us: from, to_us: Some(t) });
                since = None;
            }
            _ => {}
        }
    }
    if let Some(from) = since {
        out.push(Stall { from_us: from, to_us: None });
    }
    out
}

/// How a client walks the fetched entries (model.md §13.3).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Java, librdkafka, sarama, franz-go: control records (and, `read_committed`, aborted
    /// data) are passed over and the fetch position moves past them.
    Skip,
    /// KafkaJS: as `Skip`, but the next fetch starts at the resolved offset: the last message
    /// handed + 1, or, for a batch with nothing to hand, its last offset + 1.
    KafkaJs,
    /// kafka-go: every record of every batch is handed, control records and aborted data too.
    HandAll,
}

fn walk(client: Client) -> Walk {
    match client {
        Client::Kafkajs => Walk::KafkaJs,
        Client::KafkaGo => Walk::HandAll,
        _ => Walk::Skip,
    }
}

struct ReaderState {
    cursor: u64,
    committed: Option<u64>,
    commits: Vec<OffsetStep>,
    /// The highest last-handed + 1 (sarama's mark, franz-go's dirty offset).
    mark: Option<u64>,
    /// franz-go's head: the marks of the polls before the latest.
    head: Option<u64>,
    /// librdkafka's stored offset (set once the application position moved).
    stored: Option<u64>,
}

impl ReaderState {
    fn commit(&mut self, at_us: u64, offset: u64) {
        if self.committed != Some(offset) {
            self.committed = Some(offset);
            self.commits.push(OffsetStep { at_us, offset });
        }
    }
}

pub(crate) fn run_reader(horizon_us: u64, log: &Log, hw_steps: &[(u64, u64)], r: &TxnReader) -> ReaderRun {
    let rc = r.isolation == IsolationLevel::ReadCommitted;
    let mode = walk(r.client);
    let timer = has_commit_timer(r.client, r.commit);
    let in_poll_auto = r.commit == CommitStyle::AutoCommit && r.client.is_java();
    let interval = r.effective_auto_commit_interval_us();
    let mut st =
        ReaderState { cursor: 0, committed: None, commits: Vec::new(), mark: None, head: None, stored: None };
    let mut handed = Vec::new();
    let mut cursor_steps = vec![(0u64, 0u64)];
    let mut java_deadline = interval;
    // KafkaJS's `lastCommit`: set when the consumer starts and by every commitOffsets().
    let mut kafkajs_last_commit = 0u64;
    let mut next_poll = 0u64;
    let mut next_tick = if timer { interval } else { u64::MAX };
    loop {
        let t = next_poll.min(next_tick);
        if t > horizon_us {
            break;
        }
        if next_poll == t {
            // Java's auto-commit at poll() entry (ConsumerCoordinator.maybeAutoCommitOffsetsAsync).
            if in_poll_auto && t >= java_deadline {
                let at = st.cursor;
                st.commit(t, at);
                java_deadline = t + interval;
            }
            // franz-go promotes the previous polls' marks at the start of a poll.
            if r.client == Client::FranzGo {
                st.head = st.mark;
            }
            let limit = if rc { log.lso_at(t) } else { log.hw_at(t) };
            let start = st.cursor;
            let mut c = start;
            let mut n = 0u32;
            let mut last_handed: Option<u64> = None;
            while c < limit && n < r.max_poll_records {
                let o = c as usize;
                let control = log.kind[o] != RecordKind::Data;
                let skip = mode != Walk::HandAll && (control || (rc && log.aborted_by(o, t)));
                if !skip {
                    handed.push(Handed { offset: c, at_us: t, control });
                    n += 1;
                    last_handed = Some(c);
                }
                c += 1;
            }
            st.cursor = match (mode, last_handed) {
                (Walk::KafkaJs, Some(last)) => last + 1,
                _ => c,
            };
            debug_assert!(!rc || st.cursor <= limit, "a read_committed position never passes the LSO");
            if st.cursor != start {
                st.stored = Some(st.cursor);
            }
            if let Some(last) = last_handed {
                st.mark = Some(last + 1);
            }
            push_step(&mut cursor_steps, t, st.cursor);
            match (r.commit, r.client) {
                (CommitStyle::Position, _) => {
                    let at = st.cursor;
                    st.commit(t, at);
                }
                (CommitStyle::LastRecordPlusOne, _) | (CommitStyle::AutoCommit, Client::KafkaGo) => {
                    if let Some(last) = last_handed {
                        st.commit(t, last + 1);
                    }
                }
                // KafkaJS commits what it resolved after each batch with messages
                // (Runner.handleBatch: autoCommitOffsets); a batch it filtered to nothing
                // (markers, aborted records) is resolved but committed only when
                // autoCommitInterval has passed since the last commit
                // (autoCommitOffsetsIfNecessary → OffsetManager.commitOffsetsIfNecessary).
                (CommitStyle::AutoCommit, Client::Kafkajs) if c > start => {
                    let due = r.auto_commit_interval_us.is_some_and(|every| t >= kafkajs_last_commit + every);
                    if last_handed.is_some() || due {
                        let at = st.cursor;
                        st.commit(t, at);
                        kafkajs_last_commit = t;
                    }
                }
                _ => {}
            }
            next_poll = t + r.poll_interval_us;
        } else {
            // A background auto-commit tick (after the polls of the same instant).
            let value = match r.client {
                Client::Librdkafka => st.stored,
                Client::Sarama => st.mark,
                _ => st.head,
            };
            if let Some(v) = value {
                st.commit(t, v);
            }
            next_tick = t + interval;
        }
    }
    let log_end = log.at_us.len() as u64;
    ReaderRun {
        name: r.name.clone(),
        client: r.client.name(),
        isolation: r.isolation.name(),
        commit: r.commit.name(),
        handed,
        position: st.cursor,
        committed: st.committed,
        committed_steps: st.commits,
        lag: st.committed.map(|c| log_end.saturating_sub(c)),
        stalled: if rc { stalls(&cursor_steps, &log.lso, hw_steps) } else { Vec::new() },
    }
}
