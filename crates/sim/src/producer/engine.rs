//! The producer's discrete-event engine (model.md §9): the client's accumulator and sender, the
//! network, and the partition leader's log and producer state, stepped through one queue of
//! timed events (`BinaryHeap<Reverse<(time, phase, seq, event)>>`, as in the consumer engine).
//!
//! At one instant, faults and requests reaching the leader run first, then what reaches the
//! client (answers, timeouts, batches becoming ready), then the sender drains; ties inside a
//! phase break by scheduling order, so a run is a pure function of its scenario.

use super::scenario::{
    plan_batches, Acks, FaultKind, PlannedBatch, ProducerScenario, MAX_IN_FLIGHT_FOR_IDEMPOTENCE,
    MAX_PRODUCER_EVENTS,
};
use super::{
    AttemptResult, AttemptTrace, BatchMeta, BatchOutcome, BatchTrace, FaultTrace, LogEntry, MemoryChange,
    PidMemory, ProduceRun, ProducerCounters, Source, Verdict,
};
use crate::scenario::ScenarioError;
use crate::timeline::Step;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};

/// The first producer id the leader hands out; each producer restart takes the next one.
pub const FIRST_PRODUCER_ID: u64 = 1000;

/// The epoch every producer session starts with. It is 1, not 0, so that a zombie — the
/// earlier instance of the same identity, fenced when this one started (what a fixed
/// `transactional.id` gives: `InitProducerId` bumps the epoch) — can carry epoch 0.
pub const FIRST_EPOCH: u16 = 1;

/// Order of simultaneous events: lower runs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    /// Faults, and requests reaching the leader.
    Broker = 0,
    /// Answers and timeouts reaching the client; batches becoming ready.
    Client = 1,
    /// The client's sender thread drains ready batches.
    Sender = 2,
}

/// A produce request on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Request {
    origin: Source,
    /// Index of the batch.
    batch: u32,
    /// Index of the attempt in the batch's trace (producer requests only).
    attempt: u32,
    pid: Option<u64>,
    epoch: Option<u16>,
    sequence: Option<u32>,
    /// The leader generation it was sent to; a failover in between loses it.
    generation: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Fault { index: u32 },
    Arrive(Request),
    Response { batch: u32, attempt: u32, verdict: Verdict },
    RequestTimeout { batch: u32, attempt: u32 },
    DeliveryTimeout { batch: u32 },
    BatchReady { batch: u32 },
    Wake,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Still filling (linger).
    Filling,
    /// In the accumulator's queue, ready to send once not backing off.
    Queued,
    /// A request is outstanding.
    InFlight,
    /// Finished: acknowledged, sent without acks, or failed.
    Done,
}

struct BatchState {
    plan: PlannedBatch,
    status: Status,
    /// First sequence number in the current session and epoch (idempotence only).
    sequence: Option<u32>,
    retry_at_us: u64,
    deadline_us: u64,
    attempts_in_session: u32,
    trace: BatchTrace,
}

/// The leader's memory of one producer id (Kafka `ProducerStateEntry`): its epoch and the
/// metadata of its last five appended batches.
struct ProducerEntry {
    epoch: u16,
    batches: VecDeque<BatchMeta>,
}

struct Broker {
    producers: BTreeMap<u64, ProducerEntry>,
    log: Vec<LogEntry>,
    next_offset: u64,
    /// First offset at which each record id was written, for `duplicate_of`.
    first_offset: Vec<Option<u64>>,
}

impl Broker {
    /// Handles one produce request as the partition leader does (Kafka
    /// `UnifiedLog.analyzeAndValidateProducerState` then `ProducerAppendInfo.append`):
    /// without a producer id, append; a match with one of the last five batches of the same
    /// epoch is a duplicate (answered with its offset, not appended); an older epoch is
    /// fenced; otherwise the first sequence must be the next expected one (0 for an epoch
    /// the leader has not seen), else `OUT_OF_ORDER_SEQUENCE_NUMBER`.
    ///
    /// Kafka accepts any sequence from a producer id it has no state for (state lost to
    /// retention); model.md §9 says the leader appends only the next expected sequence, so here
    /// a new producer id must start at 0.
    fn handle(&mut self, req: &Request, plan: &PlannedBatch, now_us: u64) -> Verdict {
        let Some(pid) = req.pid else {
            return Verdict::Appended { offset: self.append(req, plan, now_us) };
        };
        let epoch = req.epoch.expect("a producer id comes with an epoch");
        let first = req.sequence.expect("a producer id comes with a sequence");
        let last = first + plan.count - 1;
        if let Some(entry) = self.producers.get(&pid) {
            if entry.epoch == epoch {
                if let Some(dup) =
                    entry.batches.iter().find(|b| b.first_sequence == first && b.last_sequence == last)
                {
                    return Verdict::Duplicate { offset: dup.offset };
                }
            }
            if epoch < entry.epoch {
                return Verdict::Fenced;
            }
        }
        let expected = match self.producers.get(&pid) {
            Some(entry) if entry.epoch == epoch => entry.batches.back().map_or(0, |b| b.last_sequence + 1),
            _ => 0,
        };
        if first != expected {
            return Verdict::OutOfOrderSequence;
        }
        let offset = self.append(req, plan, now_us);
        let entry = self.producers.entry(pid).or_insert(ProducerEntry { epoch, batches: VecDeque::new() });
        if entry.epoch != epoch {
            entry.epoch = epoch;
            entry.batches.clear();
        }
        entry.batches.push_back(BatchMeta { first_sequence: first, last_sequence: last, offset });
        while entry.batches.len() > MAX_IN_FLIGHT_FOR_IDEMPOTENCE as usize {
            entry.batches.pop_front();
        }
        Verdict::Appended { offset }
    }

    fn append(&mut self, req: &Request, plan: &PlannedBatch, now_us: u64) -> u64 {
        let offset = self.next_offset;
        let records: Vec<u32> = (plan.first_record..plan.first_record + plan.count).collect();
        let duplicate_of = self.first_offset[plan.first_record as usize];
        for (i, &r) in records.iter().enumerate() {
            self.first_offset[r as usize].get_or_insert(offset + i as u64);
        }
        self.next_offset += plan.count as u64;
        self.log.push(LogEntry {
            offset,
            batch: req.batch + 1,
            pid: req.pid,
            epoch: req.epoch,
            sequence: req.sequence,
            records,
            appended_at_us: now_us,
            duplicate_of,
            source: req.origin,
        });
        offset
    }

    fn memory(&self) -> Vec<PidMemory> {
        self.producers
            .iter()
            .map(|(&pid, e)| PidMemory { pid, epoch: e.epoch, batches: e.batches.iter().copied().collect() })
            .collect()
    }
}

pub(crate) struct Engine<'a> {
    s: &'a ProducerScenario,
    idempotence: bool,
    delivery_timeout_us: u64,
    now_us: u64,
    queue: BinaryHeap<Reverse<(u64, Phase, u64, Event)>>,
    seq: u64,
    events: u64,
    batches: Vec<BatchState>,
    /// The accumulator's deque for `orders-3`: batch indices, sent from the front.
    ready: VecDeque<u32>,
    /// Batches with a request outstanding.
    in_flight: BTreeSet<u32>,
    /// Sequenced, unfinished batches by first sequence (Java
    /// `TxnPartitionEntry.inflightBatchesBySequence`).
    by_sequence: BTreeMap<u32, u32>,
    pid: u64,
    epoch: u16,
    next_sequence: u32,
    session: u32,
    generation: u32,
    broker: Broker,
    in_flight_steps: Vec<Step>,
    memory_changes: Vec<MemoryChange>,
    fault_traces: Vec<FaultTrace>,
    counters: ProducerCounters,
    notes: Vec<String>,
}

impl<'a> Engine<'a> {
    pub(crate) fn new(s: &'a ProducerScenario) -> Self {
        let (idempotence, note) = s.effective_idempotence();
        let mut notes: Vec<String> = note.into_iter().collect();
        let delivery_timeout_us = s.effective_delivery_timeout_us();
        if s.delivery_timeout_us.is_none()
            && delivery_timeout_us != super::scenario::DEFAULT_DELIVERY_TIMEOUT_US
        {
            notes.push(format!(
                "delivery.timeout.ms was raised to linger.ms + request.timeout.ms = {} ms, as the Java client \
                 does when the default is smaller.",
                crate::keys::format_millis(delivery_timeout_us)
            ));
        }
        if s.acks == Acks::None {
            notes.push(
                "acks=0: the leader never answers, so the client counts a batch done once it is sent and never \
                 retries it."
                    .to_string(),
            );
        }
        let batches: Vec<BatchState> = plan_batches(s)
            .into_iter()
            .enumerate()
            .map(|(i, plan)| BatchState {
                plan,
                status: Status::Filling,
                sequence: None,
                retry_at_us: 0,
                deadline_us: plan.created_us + delivery_timeout_us,
                attempts_in_session: 0,
                trace: BatchTrace {
                    batch: i as u32 + 1,
                    first_record: plan.first_record,
                    record_count: plan.count,
                    created_us: plan.created_us,
                    ready_us: plan.ready_us,
                    attempts: Vec::new(),
                    outcome: BatchOutcome::Unresolved,
                    done_at_us: None,
                },
            })
            .collect();
        let mut engine = Engine {
            s,
            idempotence,
            delivery_timeout_us,
            now_us: 0,
            queue: BinaryHeap::new(),
            seq: 0,
            events: 0,
            ready: VecDeque::new(),
            in_flight: BTreeSet::new(),
            by_sequence: BTreeMap::new(),
            pid: FIRST_PRODUCER_ID,
            epoch: FIRST_EPOCH,
            next_sequence: 0,
            session: 0,
            generation: 0,
            broker: Broker {
                producers: BTreeMap::new(),
                log: Vec::new(),
                next_offset: 0,
                first_offset: vec![None; s.records as usize],
            },
            in_flight_steps: vec![Step { at_us: 0, value: 0 }],
            memory_changes: Vec::new(),
            fault_traces: Vec::new(),
            counters: ProducerCounters::default(),
            notes,
            batches,
        };
        for i in 0..engine.batches.len() {
            let plan = engine.batches[i].plan;
            let deadline = engine.batches[i].deadline_us;
            engine.schedule(plan.ready_us, Phase::Client, Event::BatchReady { batch: i as u32 });
            engine.schedule(deadline, Phase::Client, Event::DeliveryTimeout { batch: i as u32 });
        }
        for (index, fault) in s.faults.iter().enumerate() {
            engine.fault_traces.push(FaultTrace {
                fault: fault.to_json_value(),
                fired_at_us: None,
                verdict: None,
                effect: String::new(),
            });
            if let Some(at_us) = fault.at_us {
                engine.schedule(at_us, Phase::Broker, Event::Fault { index: index as u32 });
            }
        }
        engine
    }

    fn schedule(&mut self, at_us: u64, phase: Phase, event: Event) {
        self.seq += 1;
        self.queue.push(Reverse((at_us, phase, self.seq, event)));
    }

    fn wake(&mut self, at_us: u64) {
        self.schedule(at_us, Phase::Sender, Event::Wake);
    }

    /// Runs every event to the end (the queue empties once every batch is finished and
    /// every fault has fired), then assembles the result.
    pub(crate) fn run(mut self) -> Result<ProduceRun, ScenarioError> {
        while let Some(Reverse((at_us, _, _, event))) = self.queue.pop() {
            debug_assert!(at_us >= self.now_us, "time never goes backwards");
            self.now_us = at_us;
            self.events += 1;
            if self.events > MAX_PRODUCER_EVENTS {
                return Err(ScenarioError {
                    key: None,
                    message: format!(
                        "this producer scenario needs more than {MAX_PRODUCER_EVENTS} simulation events; \
                         send fewer records or raise batch.size"
                    ),
                });
            }
            self.handle(event);
            debug_assert!(self.in_flight.len() <= self.s.max_in_flight_requests as usize);
        }
        Ok(self.finish())
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Fault { index } => self.fire_fault(index as usize),
            Event::Arrive(req) => self.arrive(req),
            Event::Response { batch, attempt, verdict } => self.response(batch, attempt, verdict),
            Event::RequestTimeout { batch, attempt } => {
                if self.pending(batch, attempt) {
                    self.resolve_attempt(batch, attempt, AttemptResult::TimedOut);
                    self.retry(batch);
                }
            }
            Event::DeliveryTimeout { batch } => {
                let b = &self.batches[batch as usize];
                if b.status != Status::Done && self.now_us >= b.deadline_us {
                    if b.status == Status::InFlight {
                        let attempt = b.trace.attempts.len() as u32 - 1;
                        self.resolve_attempt(batch, attempt, AttemptResult::Expired);
                    }
                    self.ready.retain(|&i| i != batch);
                    self.fail(batch, BatchOutcome::Expired);
                }
            }
            Event::BatchReady { batch } => {
                let b = &mut self.batches[batch as usize];
                if b.status == Status::Filling {
                    b.status = Status::Queued;
                    self.ready.push_back(batch);
                    self.wake(self.now_us);
                }
            }
            Event::Wake => self.drain(),
        }
    }

    fn pending(&self, batch: u32, attempt: u32) -> bool {
        self.batches[batch as usize].trace.attempts[attempt as usize].result == AttemptResult::Pending
    }

    fn record_in_flight(&mut self) {
        let value = self.in_flight.len() as u64;
        match self.in_flight_steps.last_mut() {
            Some(last) if last.at_us == self.now_us => last.value = value,
            Some(last) if last.value == value => {}
            _ => self.in_flight_steps.push(Step { at_us: self.now_us, value }),
        }
    }

    fn record_memory(&mut self, reason: &str) {
        self.memory_changes.push(MemoryChange {
            at_us: self.now_us,
            reason: reason.to_string(),
            memory: self.broker.memory(),
        });
    }

    /// The sender (Java `Sender.sendProducerData` → `RecordAccumulator.drain`): looks only at
    /// the front of the partition's deque; sends while fewer than
    /// `max.in.flight.requests.per.connection` requests are outstanding and the front is not
    /// backing off. With idempotence a batch already sequenced (a retry) goes only when it is
    /// the first unfinished sequence (`RecordAccumulator.shouldStopDrainBatchesForPartition`),
    /// which keeps the log in sequence order.
    ///
    /// Also with idempotence, a new batch waits while it would be the sixth from the first
    /// unfinished one. Java has no such rule, and needs none: answers on one connection are
    /// read in order, so five requests in flight never span more than five batches. model.md §9
    /// loses one answer while later ones arrive; without this rule later batches could
    /// push the unanswered one out of the leader's five-batch memory, and its retry would
    /// be refused as out of order although it was written.
    fn drain(&mut self) {
        while self.in_flight.len() < self.s.max_in_flight_requests as usize {
            let Some(&front) = self.ready.front() else { return };
            let b = &self.batches[front as usize];
            if b.retry_at_us > self.now_us {
                let at = b.retry_at_us;
                self.wake(at);
                return;
            }
            if self.idempotence {
                let first_unfinished = self.by_sequence.iter().next().map(|(&seq, &batch)| (seq, batch));
                match (b.sequence, first_unfinished) {
                    (Some(sequence), Some((first, _))) if sequence != first => return,
                    (None, Some((_, first_batch)))
                        if front - first_batch >= MAX_IN_FLIGHT_FOR_IDEMPOTENCE =>
                    {
                        return
                    }
                    _ => {}
                }
            }
            self.ready.pop_front();
            self.send(front);
        }
    }

    fn send(&mut self, batch: u32) {
        let now = self.now_us;
        let (pid, epoch, sequence) = if self.idempotence {
            let b = &mut self.batches[batch as usize];
            let sequence = *b.sequence.get_or_insert_with(|| {
                let s = self.next_sequence;
                self.next_sequence += b.plan.count;
                s
            });
            self.by_sequence.insert(sequence, batch);
            (Some(self.pid), Some(self.epoch), Some(sequence))
        } else {
            (None, None, None)
        };
        let b = &mut self.batches[batch as usize];
        b.attempts_in_session += 1;
        if b.attempts_in_session > 1 {
            self.counters.retries += 1;
        }
        let attempt_number = b.trace.attempts.len() as u32 + 1;
        let hits = |kind: FaultKind| {
            self.s
                .faults
                .iter()
                .position(|f| f.kind == kind && f.batch == Some(batch + 1) && f.attempt == attempt_number)
        };
        let lost = hits(FaultKind::RequestLost);
        let ack_lost = hits(FaultKind::AckLost);
        for index in [lost, ack_lost].into_iter().flatten() {
            let trace = &mut self.fault_traces[index];
            trace.fired_at_us = Some(now);
            trace.effect = format!(
                "attempt {attempt_number} of batch {}: {}",
                batch + 1,
                if Some(index) == lost {
                    "the request never reached the leader"
                } else {
                    "the answer was lost"
                }
            );
        }
        let attempt = b.trace.attempts.len() as u32;
        b.trace.attempts.push(AttemptTrace {
            sent_at_us: now,
            pid,
            epoch,
            sequence,
            request_lost: lost.is_some(),
            ack_lost: ack_lost.is_some(),
            broker: None,
            broker_at_us: None,
            result: AttemptResult::Pending,
            resolved_at_us: None,
        });
        if lost.is_none() {
            let req = Request {
                origin: Source::Producer,
                batch,
                attempt,
                pid,
                epoch,
                sequence,
                generation: self.generation,
            };
            self.schedule(now + self.s.network_latency_us, Phase::Broker, Event::Arrive(req));
        }
        if self.s.acks == Acks::None {
            self.resolve_attempt(batch, attempt, AttemptResult::NotAwaited);
            self.finish_batch(batch, BatchOutcome::SentWithoutAck);
        } else {
            self.batches[batch as usize].status = Status::InFlight;
            self.in_flight.insert(batch);
            self.schedule(
                now + self.s.request_timeout_us,
                Phase::Client,
                Event::RequestTimeout { batch, attempt },
            );
        }
        self.record_in_flight();
    }

    fn arrive(&mut self, req: Request) {
        let now = self.now_us;
        if req.generation != self.generation {
            if req.origin == Source::Producer {
                let a = &mut self.batches[req.batch as usize].trace.attempts[req.attempt as usize];
                a.broker = Some(Verdict::LostInFailover);
                a.broker_at_us = Some(now);
            }
            return;
        }
        let plan = self.batches[req.batch as usize].plan;
        let verdict = self.broker.handle(&req, &plan, now);
        self.count_verdict(verdict);
        if req.origin == Source::Producer {
            let a = &mut self.batches[req.batch as usize].trace.attempts[req.attempt as usize];
            a.broker = Some(verdict);
            a.broker_at_us = Some(now);
            let ack_lost = a.ack_lost;
            if self.s.acks != Acks::None && !ack_lost {
                let (batch, attempt) = (req.batch, req.attempt);
                self.schedule(
                    now + self.s.network_latency_us,
                    Phase::Client,
                    Event::Response { batch, attempt, verdict },
                );
            }
        }
        if matches!(verdict, Verdict::Appended { .. }) && req.pid.is_some() {
            self.record_memory("append");
        }
    }

    fn count_verdict(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Duplicate { .. } => self.counters.duplicates_dropped += 1,
            Verdict::OutOfOrderSequence => self.counters.out_of_order_rejections += 1,
            Verdict::Fenced => self.counters.fenced_requests += 1,
            Verdict::Appended { .. } | Verdict::LostInFailover => {}
        }
    }

    /// The client reads an answer (Java `Sender.completeBatch`): success or duplicate
    /// completes the batch; `OUT_OF_ORDER_SEQUENCE_NUMBER` is retried while an earlier
    /// sequence is unfinished (`TransactionManager.canRetry`), and fatal for the first one;
    /// a fenced request of the current epoch is fatal, one of an epoch the client has since
    /// bumped is resent under the new epoch.
    fn response(&mut self, batch: u32, attempt: u32, verdict: Verdict) {
        if !self.pending(batch, attempt) {
            return; // timed out, disconnected or abandoned meanwhile: nobody reads it
        }
        match verdict {
            Verdict::Appended { .. } | Verdict::Duplicate { .. } => {
                self.resolve_attempt(batch, attempt, AttemptResult::Acknowledged);
                self.finish_batch(batch, BatchOutcome::Acknowledged);
            }
            Verdict::OutOfOrderSequence => {
                self.resolve_attempt(batch, attempt, AttemptResult::OutOfOrderSequence);
                let sequence = self.batches[batch as usize].sequence;
                let first = self.by_sequence.keys().next().copied();
                if sequence.is_some() && sequence == first {
                    self.fail(batch, BatchOutcome::OutOfOrderSequence);
                } else {
                    self.retry(batch);
                }
            }
            Verdict::Fenced => {
                self.resolve_attempt(batch, attempt, AttemptResult::Fenced);
                let sent_epoch = self.batches[batch as usize].trace.attempts[attempt as usize].epoch;
                if sent_epoch.is_some_and(|e| e < self.epoch) {
                    self.retry(batch);
                } else {
                    self.fail(batch, BatchOutcome::Fenced);
                }
            }
            Verdict::LostInFailover => unreachable!("never answered"),
        }
    }

    fn resolve_attempt(&mut self, batch: u32, attempt: u32, result: AttemptResult) {
        let now = self.now_us;
        let a = &mut self.batches[batch as usize].trace.attempts[attempt as usize];
        debug_assert_eq!(a.result, AttemptResult::Pending);
        a.result = result;
        a.resolved_at_us = Some(now);
        if self.in_flight.remove(&batch) {
            self.record_in_flight();
        }
        self.wake(now);
    }

    /// Puts a batch back for another send after `retry.backoff.ms` doubling per attempt up
    /// to `retry.backoff.max.ms` (Java `ExponentialBackoff`, without its jitter), or fails
    /// it once `retries` resends are used up. Java `RecordAccumulator.reenqueue` puts it at
    /// the front of the deque; with idempotence, in sequence order
    /// (`insertInSequenceOrder`).
    fn retry(&mut self, batch: u32) {
        let b = &mut self.batches[batch as usize];
        if b.attempts_in_session > self.s.retries {
            self.fail(batch, BatchOutcome::RetriesExhausted);
            return;
        }
        let exponent = (b.attempts_in_session - 1).min(32);
        let backoff =
            self.s.retry_backoff_us.saturating_mul(1u64 << exponent).min(self.s.retry_backoff_max_us);
        let backoff = backoff.max(self.s.retry_backoff_us.min(self.s.retry_backoff_max_us));
        b.retry_at_us = self.now_us + backoff;
        b.status = Status::Queued;
        if self.idempotence {
            let at = self.ready.iter().position(|&i| i > batch).unwrap_or(self.ready.len());
            self.ready.insert(at, batch);
        } else {
            self.ready.push_front(batch);
        }
        let at = self.batches[batch as usize].retry_at_us;
        self.wake(at);
    }

    fn finish_batch(&mut self, batch: u32, outcome: BatchOutcome) {
        let now = self.now_us;
        let b = &mut self.batches[batch as usize];
        b.status = Status::Done;
        b.trace.outcome = outcome;
        b.trace.done_at_us = Some(now);
        if let Some(sequence) = b.sequence {
            self.by_sequence.remove(&sequence);
        }
        self.in_flight.remove(&batch);
        self.record_in_flight();
    }

    /// A batch fails for good. With idempotence the client then bumps its epoch and
    /// numbers the unfinished batches afresh from sequence 0 (KIP-360,
    /// `TransactionManager.bumpIdempotentEpochAndResetIdIfNeeded`), so one failed batch does
    /// not leave a gap every later batch trips on.
    fn fail(&mut self, batch: u32, outcome: BatchOutcome) {
        self.finish_batch(batch, outcome);
        if self.idempotence {
            self.epoch += 1;
            self.next_sequence = 0;
            self.by_sequence.clear();
            for b in &mut self.batches {
                if b.status != Status::Done {
                    b.sequence = None;
                }
            }
            self.notes.push(format!(
                "Batch {} failed ({}); the producer bumped its epoch to {} and renumbered its unfinished batches \
                 from sequence 0.",
                batch + 1,
                outcome.name(),
                self.epoch
            ));
        }
    }

    fn fire_fault(&mut self, index: usize) {
        let fault = self.s.faults[index];
        let now = self.now_us;
        self.fault_traces[index].fired_at_us = Some(now);
        let effect = match fault.kind {
            FaultKind::RequestLost | FaultKind::AckLost => unreachable!("batch faults fire when sent"),
            FaultKind::LeaderFailover => {
                self.generation += 1;
                let outstanding: Vec<u32> = self.in_flight.iter().copied().collect();
                for &batch in &outstanding {
                    let attempt = self.batches[batch as usize].trace.attempts.len() as u32 - 1;
                    self.resolve_attempt(batch, attempt, AttemptResult::Disconnected);
                    self.retry(batch);
                }
                self.record_memory("leader_failover");
                format!(
                    "the new leader rebuilt producer state from the log and its snapshot; {} request(s) in flight \
                     were cut off and will be resent",
                    outstanding.len()
                )
            }
            FaultKind::ProducerRestart => {
                self.session += 1;
                self.pid += 1;
                self.epoch = FIRST_EPOCH;
                self.next_sequence = 0;
                self.by_sequence.clear();
                let outstanding: Vec<u32> = self.in_flight.iter().copied().collect();
                for &batch in &outstanding {
                    let attempt = self.batches[batch as usize].trace.attempts.len() as u32 - 1;
                    self.resolve_attempt(batch, attempt, AttemptResult::Abandoned);
                }
                let mut resent = Vec::new();
                self.ready.clear();
                for (i, b) in self.batches.iter_mut().enumerate() {
                    if b.status == Status::Done {
                        continue;
                    }
                    b.sequence = None;
                    b.attempts_in_session = 0;
                    b.retry_at_us = 0;
                    b.deadline_us = now.max(b.plan.created_us) + self.delivery_timeout_us;
                    if b.status != Status::Filling {
                        b.status = Status::Queued;
                        self.ready.push_back(i as u32);
                        resent.push((i + 1).to_string());
                    }
                }
                for i in 0..self.batches.len() {
                    if self.batches[i].status != Status::Done {
                        let deadline = self.batches[i].deadline_us;
                        self.schedule(deadline, Phase::Client, Event::DeliveryTimeout { batch: i as u32 });
                    }
                }
                self.wake(now);
                format!(
                    "new producer id {}; the application sends again the unacknowledged batch(es) {}",
                    self.pid,
                    if resent.is_empty() { "(none)".to_string() } else { resent.join(", ") }
                )
            }
            FaultKind::Zombie | FaultKind::OldDuplicate => {
                let batch = fault.batch.expect("validated") - 1;
                let b = &self.batches[batch as usize];
                let req = if fault.kind == FaultKind::Zombie {
                    let idem = self.idempotence;
                    Some(Request {
                        origin: Source::Zombie,
                        batch,
                        attempt: 0,
                        pid: idem.then_some(self.pid),
                        epoch: idem.then_some(self.epoch.saturating_sub(1)),
                        sequence: idem.then_some(b.plan.first_record),
                        generation: self.generation,
                    })
                } else {
                    b.trace.attempts.first().map(|a| Request {
                        origin: Source::OldDuplicate,
                        batch,
                        attempt: 0,
                        pid: a.pid,
                        epoch: a.epoch,
                        sequence: a.sequence,
                        generation: self.generation,
                    })
                };
                match req {
                    None => format!("nothing happened: batch {} had not been sent yet", batch + 1),
                    Some(req) => {
                        let plan = b.plan;
                        let verdict = self.broker.handle(&req, &plan, now);
                        self.count_verdict(verdict);
                        self.fault_traces[index].verdict = Some(verdict);
                        if matches!(verdict, Verdict::Appended { .. }) && req.pid.is_some() {
                            self.record_memory("append");
                        }
                        format!(
                            "a stale copy of batch {} reached the leader: {}",
                            batch + 1,
                            verdict.describe()
                        )
                    }
                }
            }
        };
        self.fault_traces[index].effect = effect;
    }

    fn finish(mut self) -> ProduceRun {
        for (trace, fault) in self.fault_traces.iter_mut().zip(&self.s.faults) {
            if trace.fired_at_us.is_none() {
                trace.effect = format!(
                    "did not fire: batch {} never had send number {}",
                    fault.batch.unwrap_or(0),
                    fault.attempt
                );
            }
        }
        let mut copies = vec![0u32; self.s.records as usize];
        for entry in &self.broker.log {
            for &r in &entry.records {
                copies[r as usize] += 1;
            }
        }
        let c = &mut self.counters;
        c.log_records = self.broker.next_offset;
        c.records_written_twice = copies.iter().map(|&k| k.saturating_sub(1) as u64).sum();
        c.records_never_written = copies.iter().filter(|&&k| k == 0).count() as u64;
        for b in &self.batches {
            match b.trace.outcome {
                BatchOutcome::Acknowledged => c.batches_acknowledged += 1,
                BatchOutcome::SentWithoutAck | BatchOutcome::Unresolved => {}
                _ => c.batches_failed += 1,
            }
        }
        ProduceRun {
            scenario: self.s.to_json_value(),
            idempotence: self.idempotence,
            counters: self.counters,
            log: self.broker.log,
            broker_memory: self
                .broker
                .producers
                .iter()
                .map(|(&pid, e)| PidMemory {
                    pid,
                    epoch: e.epoch,
                    batches: e.batches.iter().copied().collect(),
                })
                .collect(),
            batches: self.batches.into_iter().map(|b| b.trace).collect(),
            in_flight: self.in_flight_steps,
            broker_memory_changes: self.memory_changes,
            faults: self.fault_traces,
            end_us: self.now_us,
            notes: self.notes,
        }
    }
}
