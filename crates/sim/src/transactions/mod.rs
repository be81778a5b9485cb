//! Transactions in the log (model.md §13): transactional and plain producers writing to
//! `orders-3`, the commit and abort markers that take offsets, the coordinator's timeout
//! abort, the last stable offset over time, and what `read_committed` and
//! `read_uncommitted` readers — per client, per commit style — and share readers are handed,
//! commit and lag.
//!
//! Same promises as the consumer model: pure (no I/O, no clock, no RNG, no hash-map order
//! reaching the output), integer microseconds, bounded ([`MAX_TXN_EVENTS`]), every bad input
//! refused with the key at fault. [`simulate_transactions`] runs a [`TxnScenario`] to its
//! horizon and returns a [`TxnRun`].
//!
//! ```
//! use offset_window_sim::transactions::{simulate_transactions, TxnScenario};
//!
//! let s = TxnScenario::from_json(r#"{
//!   "producers": [{"transactional.id": "tx-a", "transactions": [
//!     {"begin_ms": 1000, "records": 5, "record_interval_ms": 10, "end": "commit", "end_ms": 1200}]}],
//!   "readers": [
//!     {"name": "java", "isolation.level": "read_committed", "commit": "position"},
//!     {"name": "spring", "isolation.level": "read_committed", "commit": "last_record_plus_one"}]
//! }"#).unwrap();
//! let run = simulate_transactions(&s).unwrap();
//! assert_eq!(run.log_end_offset, 6); // five records and the commit marker at offset 5
//! assert_eq!(run.readers[0].lag, Some(0));
//! assert_eq!(run.readers[1].lag, Some(1)); // LAG 1 for ever
//! ```

pub(crate) mod engine;
pub mod scenario;

pub use scenario::{
    refused_client, CommitStyle, FieldHelp, TxnEnd, TxnProducer, TxnReader, TxnScenario, TxnShareReader,
    TxnSpec, MAX_TXN_EVENTS, PRODUCER_FIELDS, READER_FIELDS, SHARE_READER_FIELDS, TRANSACTION_FIELDS,
    TXN_KEYS, TXN_KEY_HELP,
};

use crate::keys::millis_value;
use crate::scenario::ScenarioError;
use serde::{Serialize, Serializer};

/// Runs `scenario` over [0, horizon].
///
/// Errors: the scenario's own [`TxnScenario::validate`] error.
pub fn simulate_transactions(scenario: &TxnScenario) -> Result<TxnRun, ScenarioError> {
    scenario.validate()?;
    Ok(engine::run(scenario))
}

/// The instant of the first coordinator scan that finds a transaction started at `start_us`
/// with `timeout_us` timed out (model.md §13.2): the first scan strictly after start + timeout.
pub fn timeout_abort_at_us(scenario: &TxnScenario, start_us: u64, timeout_us: u64) -> u64 {
    engine::first_scan_after(
        scenario.scan_phase_us,
        scenario.cleanup_interval_us,
        start_us.saturating_add(timeout_us),
    )
}

/// µs written as exact milliseconds (`1200.001`).
pub(crate) fn ms<S: Serializer>(us: &u64, s: S) -> Result<S::Ok, S::Error> {
    millis_value(*us).serialize(s)
}

pub(crate) fn ms_opt<S: Serializer>(us: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    us.map(millis_value).serialize(s)
}

/// What one offset of the log holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// A data record (transactional or plain).
    Data,
    /// A control record: the transaction's commit marker.
    CommitMarker,
    /// A control record: the transaction's abort marker (the client's or the coordinator's).
    AbortMarker,
}

/// A data record's state at the horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DataState {
    /// Its transaction committed.
    Committed,
    /// Its transaction aborted (by the client or the coordinator's timeout).
    Aborted,
    /// Its transaction has no marker yet.
    Open,
    /// Written by a plain producer.
    Plain,
}

/// One offset of `orders-3`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogRecord {
    /// Its offset.
    pub offset: u64,
    /// Data or a marker.
    pub kind: RecordKind,
    /// The producer's index in `producers` (from 0); a timeout abort's marker names the
    /// producer whose transaction it ends.
    pub producer: u32,
    /// The transaction's index in its producer's `transactions` (from 0); `null` for plain data.
    pub transaction: Option<u32>,
    /// When it was written.
    #[serde(rename = "at_ms", serialize_with = "ms")]
    pub at_us: u64,
    /// For data: its state at the horizon (absent for markers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<DataState>,
}

/// One step of an offset over time: from `at_ms` on, `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OffsetStep {
    /// From when.
    #[serde(rename = "at_ms", serialize_with = "ms")]
    pub at_us: u64,
    /// The value.
    pub offset: u64,
}

/// How a transaction ended by the horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnOutcome {
    /// The client committed it.
    Committed,
    /// The client aborted it.
    Aborted,
    /// The coordinator aborted it when its scan found it past `transaction.timeout.ms`.
    TimedOut,
    /// No marker by the horizon.
    Open,
    /// A hanging transaction: no marker will ever come.
    Hanging,
    /// Not written: it begins after the horizon, or its producer was fenced.
    NotWritten,
}

/// One transaction and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TxnTrace {
    /// The producer's index (from 0).
    pub producer: u32,
    /// Its index in the producer's `transactions` (from 0).
    pub transaction: u32,
    /// What became of it.
    pub outcome: TxnOutcome,
    /// Its start on the coordinator: its first record.
    #[serde(rename = "started_at_ms", serialize_with = "ms")]
    pub started_at_us: u64,
    /// Its marker's instant (`null`: none by the horizon).
    #[serde(rename = "ended_at_ms", serialize_with = "ms_opt")]
    pub ended_at_us: Option<u64>,
    /// Its first record's offset.
    pub first_offset: Option<u64>,
    /// Its marker's offset.
    pub marker_offset: Option<u64>,
    /// Data records it wrote by the horizon.
    pub records_written: u32,
}

/// A transaction the coordinator aborted for its timeout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TimedOutAbort {
    /// The producer's index (from 0).
    pub producer: u32,
    /// The transaction's index (from 0).
    pub transaction: u32,
    /// Its start on the coordinator.
    #[serde(rename = "started_at_ms", serialize_with = "ms")]
    pub started_at_us: u64,
    /// The scan that aborted it; its abort marker is written at this instant.
    #[serde(rename = "aborted_at_ms", serialize_with = "ms")]
    pub aborted_at_us: u64,
    /// The abort marker's offset.
    pub marker_offset: u64,
}

/// One record handed to the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Handed {
    /// Its offset.
    pub offset: u64,
    /// The poll that handed it.
    #[serde(rename = "at_ms", serialize_with = "ms")]
    pub at_us: u64,
    /// A control record handed as if it were data (kafka-go only, model.md §13.3).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub control: bool,
}

/// An interval in which a `read_committed` reader has caught up with the last stable offset
/// while records lie past it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Stall {
    /// From when.
    #[serde(rename = "from_ms", serialize_with = "ms")]
    pub from_us: u64,
    /// Until when the last stable offset moved (`null`: still stalled at the horizon).
    #[serde(rename = "to_ms", serialize_with = "ms_opt")]
    pub to_us: Option<u64>,
}

/// What one reader did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReaderRun {
    /// Its name.
    pub name: String,
    /// Its client.
    pub client: &'static str,
    /// Its `isolation.level`.
    #[serde(rename = "isolation.level")]
    pub isolation: &'static str,
    /// Its commit style.
    pub commit: &'static str,
    /// Every record handed to the application, in order.
    pub handed: Vec<Handed>,
    /// Its position at the horizon: the offset its next fetch starts from.
    pub position: u64,
    /// Its group's committed offset at the horizon (`null`: nothing committed).
    pub committed: Option<u64>,
    /// The committed offset over time (commits land at once).
    pub committed_steps: Vec<OffsetStep>,
    /// The log end offset at the horizon − committed, as `kafka-consumer-groups.sh --describe`
    /// shows LAG (`null` with nothing committed).
    pub lag: Option<u64>,
    /// The intervals in which it is stalled at the last stable offset (`read_committed` only).
    pub stalled: Vec<Stall>,
}

/// What one share reader was handed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShareReaderRun {
    /// Its name.
    pub name: String,
    /// Its group's `share.isolation.level`.
    #[serde(rename = "share.isolation.level")]
    pub isolation: &'static str,
    /// Every record handed (and accepted), in order.
    pub handed: Vec<Handed>,
    /// The next offset it would be handed at the horizon.
    pub next_offset: u64,
    /// The intervals in which it is stalled at the last stable offset (`read_committed` only).
    pub stalled: Vec<Stall>,
}

/// Everything one transactions simulation produces.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TxnRun {
    /// The scenario, in canonical JSON.
    pub scenario: serde_json::Value,
    /// The partition log, offset by offset.
    pub log: Vec<LogRecord>,
    /// The log end offset (= the high watermark) at the horizon.
    pub log_end_offset: u64,
    /// The last stable offset over time, from 0 ms.
    pub last_stable_offset: Vec<OffsetStep>,
    /// The high watermark (log end offset) over time, from 0 ms.
    pub high_watermark: Vec<OffsetStep>,
    /// Every transaction, producer by producer.
    pub transactions: Vec<TxnTrace>,
    /// The transactions the coordinator aborted for their timeout, in time order.
    pub timed_out_aborts: Vec<TimedOutAbort>,
    /// Each reader, in the order given.
    pub readers: Vec<ReaderRun>,
    /// Each share reader, in the order given.
    pub share_readers: Vec<ShareReaderRun>,
    /// Things the reader should know (a producer fenced, a commit that failed).
    pub notes: Vec<String>,
}

impl TxnRun {
    /// The last stable offset at `at_us`.
    pub fn last_stable_offset_at(&self, at_us: u64) -> u64 {
        let i = self.last_stable_offset.partition_point(|s| s.at_us <= at_us);
        if i == 0 {
            0
        } else {
            self.last_stable_offset[i - 1].offset
        }
    }

    /// A reader's run by name.
    pub fn reader(&self, name: &str) -> Option<&ReaderRun> {
        self.readers.iter().find(|r| r.name == name)
    }
}
