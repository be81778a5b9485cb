//! Exactly-once pipelines (model.md §14): an input topic → a consume-transform-produce service
//! or a Kafka Streams application in a consumer group → an output topic → downstream readers.
//! Crashes, hangs, joins and rolling deploys of the service's instances show, per input record,
//! how many times each reader saw its output (once, twice, never), where the input's committed
//! offset was, when an input partition stalled, and the output log with its markers.
//!
//! Same promises as the other models: pure (no I/O, no clock, no RNG, no hash-map order
//! reaching the output), integer microseconds, bounded ([`MAX_PIPELINE_STEPS`]), every bad input
//! refused with the key at fault, never a panic. The output log is the transactions model's log
//! (§13: markers take offsets, the last stable offset, the coordinator's timeout scan), and the
//! readers are its readers, run over it unchanged.
//!
//! ```
//! use offset_window_sim::pipeline::{simulate_pipeline, PipelineScenario};
//!
//! let s = PipelineScenario::from_json(r#"{
//!   "input": {"partitions": 1, "records_per_partition": 10, "rate_per_s": 100},
//!   "service": {"kind": "kafka_streams", "processing.guarantee": "exactly_once_v2"},
//!   "readers": [{"name": "rc", "isolation.level": "read_committed"}],
//!   "horizon_ms": 5000
//! }"#).unwrap();
//! let run = simulate_pipeline(&s).unwrap();
//! assert_eq!(run.readers[0].seen.once, 10);
//! assert_eq!(run.input_committed[0].last, Some(10));
//! ```

mod engine;
pub mod scenario;

pub use scenario::{
    CommitRule, Event, EventKind, Guarantee, Input, PipelineScenario, Service, ServiceKind, EVENT_FIELDS,
    MAX_PIPELINE_STEPS, PIPELINE_KEYS, PIPELINE_KEY_HELP, SERVICE_FIELDS,
};

use crate::scenario::ScenarioError;
use crate::transactions::{ms, ms_opt, OffsetStep, RecordKind, Stall};
use serde::Serialize;

/// Runs `scenario` over [0, horizon].
///
/// Errors: the scenario's own [`PipelineScenario::validate`] error.
pub fn simulate_pipeline(scenario: &PipelineScenario) -> Result<PipelineRun, ScenarioError> {
    scenario.validate()?;
    Ok(engine::run(scenario))
}

/// An output record's state at the horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputState {
    /// Its transaction committed (or, at_least_once, a plain record: visible at once).
    Committed,
    /// Its transaction aborted (the client's abort, a restart's `initTransactions`, or the
    /// coordinator's timeout).
    Aborted,
    /// Its transaction has no marker by the horizon.
    Open,
}

/// One offset of the output topic's partition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutputEntry {
    /// Its offset.
    pub offset: u64,
    /// Data or a marker.
    pub kind: RecordKind,
    /// When it was written.
    #[serde(rename = "at_ms", serialize_with = "ms")]
    pub at_us: u64,
    /// The instance whose producer wrote it (for a timeout abort's marker: whose transaction
    /// it ends).
    pub instance: u32,
    /// Data: the input partition of the record it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_partition: Option<u32>,
    /// Data: the input offset of the record it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_offset: Option<u64>,
    /// Data: its state at the horizon.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<OutputState>,
}

/// One input partition's committed offset over time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputCommitted {
    /// The input partition.
    pub partition: u32,
    /// From `at_ms` on, `offset` (commits land when their transaction's marker does).
    pub steps: Vec<OffsetStep>,
    /// The committed offset at the horizon (`null`: nothing committed).
    pub last: Option<u64>,
}

/// Why an input partition is not being processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StallReason {
    /// Its owner is dead or frozen and the group has not yet reassigned it.
    OwnerDown,
    /// Revoked and not yet handed to its next owner (an eager rebalance's wait, a revocation).
    Rebalance,
    /// Its new owner's OffsetFetch (`requireStable`) answers UNSTABLE_OFFSET_COMMIT: an open
    /// transaction holds offsets for it.
    UnstableOffsetCommit,
}

/// An interval in which an input partition is not processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct InputStall {
    /// Why.
    pub reason: StallReason,
    /// From when.
    #[serde(rename = "from_ms", serialize_with = "ms")]
    pub from_us: u64,
    /// Until when (`null`: still at the horizon).
    #[serde(rename = "to_ms", serialize_with = "ms_opt")]
    pub to_us: Option<u64>,
}

/// One input partition's stalls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartitionStalls {
    /// The input partition.
    pub partition: u32,
    /// Its stalls, in time order.
    pub stalls: Vec<InputStall>,
}

/// How many input records were seen (or written outside Kafka) once, twice, more, never.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SeenCounts {
    /// Exactly once.
    pub once: u64,
    /// Exactly twice.
    pub twice: u64,
    /// Three times or more.
    pub more: u64,
    /// Never (by the horizon).
    pub never: u64,
}

/// Per input partition, how many times each of its records counted (index = input offset).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ByInput {
    /// The input partition.
    pub partition: u32,
    /// `counts[k]`: how many times input offset k counted.
    pub counts: Vec<u32>,
}

/// What one downstream reader saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PipelineReader {
    /// Its name.
    pub name: String,
    /// Its client.
    pub client: &'static str,
    /// Its `isolation.level`.
    #[serde(rename = "isolation.level")]
    pub isolation: &'static str,
    /// Over input records: how many had their output handed once, twice, more, never.
    pub seen: SeenCounts,
    /// Per input record, how many times its output was handed.
    pub by_input: Vec<ByInput>,
    /// Its position in the output topic at the horizon.
    pub position: u64,
    /// The intervals it waited at the output's last stable offset (`read_committed`).
    pub stalled: Vec<Stall>,
}

/// Writes outside Kafka (`side_effect: true`), one per processing of a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SideEffects {
    /// Over input records: written once, twice, more, never.
    pub counts: SeenCounts,
    /// Per input record, how many writes.
    pub by_input: Vec<ByInput>,
}

/// A transaction the coordinator aborted for its timeout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PipelineTimedOutAbort {
    /// Whose transaction.
    pub instance: u32,
    /// Its start on the coordinator (its first output).
    #[serde(rename = "started_at_ms", serialize_with = "ms")]
    pub started_at_us: u64,
    /// The scan that aborted it.
    #[serde(rename = "aborted_at_ms", serialize_with = "ms")]
    pub aborted_at_us: u64,
    /// The abort marker's offset in the output topic.
    pub marker_offset: u64,
}

/// One rebalance of the service's group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rebalance {
    /// What started it.
    pub trigger: String,
    /// When it started.
    #[serde(rename = "started_at_ms", serialize_with = "ms")]
    pub started_at_us: u64,
    /// When the new assignment took effect (`null`: not by the horizon).
    #[serde(rename = "completed_at_ms", serialize_with = "ms_opt")]
    pub completed_at_us: Option<u64>,
    /// The input partitions of each instance after it (index = instance; empty when not in
    /// the group).
    pub assignment: Vec<Vec<u32>>,
}

/// Everything one pipeline simulation produces.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PipelineRun {
    /// The scenario, in canonical JSON.
    pub scenario: serde_json::Value,
    /// Each input partition's committed offset over time.
    pub input_committed: Vec<InputCommitted>,
    /// Each input partition's stalls.
    pub input_stalls: Vec<PartitionStalls>,
    /// The output topic's one partition, offset by offset.
    pub output_log: Vec<OutputEntry>,
    /// The output's last stable offset over time.
    pub output_last_stable_offset: Vec<OffsetStep>,
    /// Each reader, in the order given.
    pub readers: Vec<PipelineReader>,
    /// Writes outside Kafka (`null` unless `side_effect`).
    pub side_effects: Option<SideEffects>,
    /// Processings of each input record (every one, kept or not).
    pub processed: SeenCounts,
    /// The transactions the coordinator aborted for their timeout, in time order.
    pub timed_out_aborts: Vec<PipelineTimedOutAbort>,
    /// The group's rebalances (the first assignment at 0 ms is not one).
    pub rebalances: Vec<Rebalance>,
    /// Things the reader should know, in time order.
    pub notes: Vec<String>,
}

impl PipelineRun {
    /// A reader's run by name.
    pub fn reader(&self, name: &str) -> Option<&PipelineReader> {
        self.readers.iter().find(|r| r.name == name)
    }
}
