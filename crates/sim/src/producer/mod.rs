//! The producer side (model.md §9): one idempotent — or not — producer writing batches to
//! `orders-3`, the partition leader's duplicate check, and the faults that make a retry
//! write a record twice or not at all.
//!
//! Same promises as the consumer model: pure (no I/O, no clock, no RNG), integer
//! microseconds, bounded ([`MAX_PRODUCER_EVENTS`]), every bad input refused with the key at
//! fault. [`simulate_producer`] runs a [`ProducerScenario`] to the end — until every batch
//! is acknowledged or has failed and every fault has fired — and returns a [`ProduceRun`]:
//! the partition log, each batch's sends, the leader's memory of the last five batches per
//! producer id, and the counters.
//!
//! ```
//! use offset_window_sim::producer::{simulate_producer, Fault, FaultKind, ProducerScenario};
//!
//! let ack_lost = Fault { kind: FaultKind::AckLost, at_us: None, batch: Some(1), attempt: 1 };
//! let on = ProducerScenario { faults: vec![ack_lost], ..ProducerScenario::default() };
//! let off = ProducerScenario { enable_idempotence: Some(false), ..on.clone() };
//! assert_eq!(simulate_producer(&on).unwrap().counters.log_records, 20);
//! assert_eq!(simulate_producer(&off).unwrap().counters.log_records, 25);
//! ```

mod engine;
pub mod scenario;

pub use engine::{FIRST_EPOCH, FIRST_PRODUCER_ID};
pub use scenario::{
    Acks, Fault, FaultKind, ProducerScenario, MAX_FAULTS, MAX_IN_FLIGHT_FOR_IDEMPOTENCE, MAX_PRODUCER_EVENTS,
    PRODUCER_KEYS, PRODUCER_KEY_HELP,
};

use crate::scenario::ScenarioError;
use crate::timeline::Step;
use serde::Serialize;

/// Runs `scenario` to the end and records the log, the batches, the leader's memory and
/// the counters.
///
/// Errors: the scenario's own [`ProducerScenario::validate`] error (a key out of range, a
/// combination the Java client refuses), or more than [`MAX_PRODUCER_EVENTS`] events.
pub fn simulate_producer(scenario: &ProducerScenario) -> Result<ProduceRun, ScenarioError> {
    scenario.validate()?;
    engine::Engine::new(scenario).run()
}

/// Who sent a request that reached the leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The simulated producer.
    Producer,
    /// A zombie instance with an older epoch ([`FaultKind::Zombie`]).
    Zombie,
    /// A stale copy of an earlier request ([`FaultKind::OldDuplicate`]).
    OldDuplicate,
}

/// What the leader did with a request (Kafka `UnifiedLog.appendAsLeader` and
/// `ProducerStateManager`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Appended at `offset` (the batch's first offset).
    Appended {
        /// First offset of the appended batch.
        offset: u64,
    },
    /// Matched one of the five remembered batches: not appended, answered with success and
    /// the offset of the earlier append (Kafka `ProducerStateEntry.findDuplicateBatch`).
    Duplicate {
        /// First offset of the earlier append.
        offset: u64,
    },
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER`: the first sequence is not the next expected one.
    OutOfOrderSequence,
    /// `INVALID_PRODUCER_EPOCH` (fenced): an older epoch than the leader knows.
    Fenced,
    /// Sent to a leader that failed before the request reached it.
    LostInFailover,
}

impl Verdict {
    /// A few words for notes and tables.
    pub fn describe(self) -> String {
        match self {
            Verdict::Appended { offset } => format!("appended at offset {offset}"),
            Verdict::Duplicate { offset } => {
                format!("duplicate of the batch at offset {offset}, not appended")
            }
            Verdict::OutOfOrderSequence => "rejected: OUT_OF_ORDER_SEQUENCE_NUMBER".to_string(),
            Verdict::Fenced => "rejected: fenced (older epoch)".to_string(),
            Verdict::LostInFailover => "lost: the leader failed first".to_string(),
        }
    }
}

/// How the client settled one send of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptResult {
    /// Still outstanding at the end (cannot happen in a finished run; kept for safety).
    Pending,
    /// Answered with success (appended, or a duplicate the leader dropped).
    Acknowledged,
    /// Answered `OUT_OF_ORDER_SEQUENCE_NUMBER`.
    OutOfOrderSequence,
    /// Answered fenced.
    Fenced,
    /// No answer within `request.timeout.ms`.
    TimedOut,
    /// The connection dropped in a leader failover.
    Disconnected,
    /// The producer restarted while it was outstanding; any answer goes unread.
    Abandoned,
    /// `delivery.timeout.ms` passed while it was outstanding.
    Expired,
    /// `acks=0`: nobody waits for an answer.
    NotAwaited,
}

/// How a batch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchOutcome {
    /// Acknowledged by the leader.
    Acknowledged,
    /// `acks=0`: sent; whether it landed, the client never learns.
    SentWithoutAck,
    /// `delivery.timeout.ms` passed (Java `TimeoutException`).
    Expired,
    /// `retries` used up.
    RetriesExhausted,
    /// `OutOfOrderSequenceException` for the first unfinished sequence.
    OutOfOrderSequence,
    /// Fenced by a newer epoch.
    Fenced,
    /// Not finished (cannot happen in a finished run).
    Unresolved,
}

impl BatchOutcome {
    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            BatchOutcome::Acknowledged => "acknowledged",
            BatchOutcome::SentWithoutAck => "sent_without_ack",
            BatchOutcome::Expired => "expired",
            BatchOutcome::RetriesExhausted => "retries_exhausted",
            BatchOutcome::OutOfOrderSequence => "out_of_order_sequence",
            BatchOutcome::Fenced => "fenced",
            BatchOutcome::Unresolved => "unresolved",
        }
    }
}

/// One send of a batch (a produce request) and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AttemptTrace {
    /// When the sender sent it, µs.
    pub sent_at_us: u64,
    /// Producer id stamped on it (`None` without idempotence).
    pub pid: Option<u64>,
    /// Producer epoch stamped on it.
    pub epoch: Option<u16>,
    /// First sequence number stamped on it.
    pub sequence: Option<u32>,
    /// A [`FaultKind::RequestLost`] fault dropped it on the way.
    pub request_lost: bool,
    /// A [`FaultKind::AckLost`] fault dropped its answer.
    pub ack_lost: bool,
    /// What the leader did with it (`None` if it never arrived).
    pub broker: Option<Verdict>,
    /// When it reached the leader, µs.
    pub broker_at_us: Option<u64>,
    /// How the client settled it.
    pub result: AttemptResult,
    /// When the client settled it, µs.
    pub resolved_at_us: Option<u64>,
}

/// One batch over time: its records and every send.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BatchTrace {
    /// Batch number, counted from 1 (as faults name it).
    pub batch: u32,
    /// Its first record id.
    pub first_record: u32,
    /// Records in it.
    pub record_count: u32,
    /// When its first record was appended to the accumulator, µs.
    pub created_us: u64,
    /// When it became ready to send (full, or `linger.ms` passed), µs.
    pub ready_us: u64,
    /// Every send, in order (across producer restarts).
    pub attempts: Vec<AttemptTrace>,
    /// How it ended.
    pub outcome: BatchOutcome,
    /// When it ended, µs.
    pub done_at_us: Option<u64>,
}

/// One batch appended to the partition log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    /// First offset of the batch.
    pub offset: u64,
    /// Batch number (counted from 1) whose records these are.
    pub batch: u32,
    /// Producer id (`None`: not idempotent, Kafka's −1).
    pub pid: Option<u64>,
    /// Producer epoch.
    pub epoch: Option<u16>,
    /// First sequence number.
    pub sequence: Option<u32>,
    /// Record ids, one per offset from `offset` on.
    pub records: Vec<u32>,
    /// When the leader appended it, µs.
    pub appended_at_us: u64,
    /// The offset where these records were first written, when this append repeats them.
    pub duplicate_of: Option<u64>,
    /// Who sent it.
    pub source: Source,
}

/// Metadata of one appended batch as the leader remembers it (Kafka `BatchMetadata`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BatchMeta {
    /// First sequence number.
    pub first_sequence: u32,
    /// Last sequence number.
    pub last_sequence: u32,
    /// First offset.
    pub offset: u64,
}

/// The leader's memory of one producer id: its epoch and its last (up to) five batches,
/// oldest first (Kafka `ProducerStateEntry`, `NUM_BATCHES_TO_RETAIN` = 5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PidMemory {
    /// Producer id.
    pub pid: u64,
    /// The epoch the leader knows.
    pub epoch: u16,
    /// Remembered batches, oldest first.
    pub batches: Vec<BatchMeta>,
}

/// The leader's whole producer memory after a change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemoryChange {
    /// When, µs.
    pub at_us: u64,
    /// `"append"` or `"leader_failover"` (the new leader's state, rebuilt from the log and
    /// its snapshot, is the same).
    pub reason: String,
    /// Every producer id's memory, by producer id.
    pub memory: Vec<PidMemory>,
}

/// What one placed fault did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaultTrace {
    /// The fault as given (canonical JSON).
    pub fault: serde_json::Value,
    /// When it took effect, µs (`None`: it never did).
    pub fired_at_us: Option<u64>,
    /// For a zombie or an old duplicate: what the leader did with it.
    pub verdict: Option<Verdict>,
    /// In words.
    pub effect: String,
}

/// The counters of model.md §9.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ProducerCounters {
    /// Records in the partition log (its end offset).
    pub log_records: u64,
    /// Extra copies in the log: Σ over record ids of max(0, copies − 1).
    pub records_written_twice: u64,
    /// Record ids with no copy in the log.
    pub records_never_written: u64,
    /// Requests the leader rejected with `OUT_OF_ORDER_SEQUENCE_NUMBER`.
    pub out_of_order_rejections: u64,
    /// Requests the leader rejected as fenced.
    pub fenced_requests: u64,
    /// Requests the leader recognised as duplicates and dropped.
    pub duplicates_dropped: u64,
    /// Sends beyond each batch's first in a producer session.
    pub retries: u64,
    /// Batches acknowledged.
    pub batches_acknowledged: u64,
    /// Batches that failed (expired, retries exhausted, out of order, fenced).
    pub batches_failed: u64,
}

/// Everything one producer simulation produces.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProduceRun {
    /// The scenario, in canonical JSON.
    pub scenario: serde_json::Value,
    /// Whether the producer ran idempotent (a weaker default `acks` turns it off).
    pub idempotence: bool,
    /// The counters.
    pub counters: ProducerCounters,
    /// The partition log, batch by batch, in offset order.
    pub log: Vec<LogEntry>,
    /// Each batch and its sends.
    pub batches: Vec<BatchTrace>,
    /// Requests in flight over time (a step function from t = 0).
    pub in_flight: Vec<Step>,
    /// The leader's memory at the end, by producer id.
    pub broker_memory: Vec<PidMemory>,
    /// The leader's memory after each change.
    pub broker_memory_changes: Vec<MemoryChange>,
    /// What each placed fault did, in the order given.
    pub faults: Vec<FaultTrace>,
    /// The instant of the last event, µs.
    pub end_us: u64,
    /// Things the reader should know (idempotence silently off, a timeout raised, …).
    pub notes: Vec<String>,
}

impl ProduceRun {
    /// Record ids in log order (one per offset).
    pub fn record_ids(&self) -> Vec<u32> {
        self.log.iter().flat_map(|e| e.records.iter().copied()).collect()
    }
}
