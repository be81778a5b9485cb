//! The inputs of one pipeline simulation (model.md §14): [`PipelineScenario`], read from JSON
//! with Kafka's property names where one exists, every value checked against its range and
//! every refusal naming the key at fault (`service.commit.interval.ms`, `events[1].instance`).
//!
//! Times are integer microseconds (`*_us`); JSON holds milliseconds with at most three
//! decimals, read exactly by [`crate::keys::parse_millis`].

use crate::keys::{
    json_object, millis_value, named_enum, parse_json, shorten, KeyKind, KeySpec, KeyValue, ScenarioError,
    US_PER_MS,
};
use crate::transactions::scenario::{
    err, field_spec, list, object, parse_reader, read_at, reader_json, unknown_field, FieldHelp, TxnReader,
    DEFAULT_CLEANUP_INTERVAL_US,
};
use serde_json::{Map, Value};

const MS: u64 = US_PER_MS;
/// The longest instant or horizon: one day.
const DAY_US: u64 = 86_400_000 * MS;
/// A Kafka `int` property in milliseconds: at most 2147483647.
const INT_MAX_MS_US: u64 = i32::MAX as u64 * MS;

/// Most input partitions.
pub const MAX_PARTITIONS: u32 = 64;
/// Most input records, all partitions together.
pub const MAX_INPUT_RECORDS: u64 = 100_000;
/// Most instances of the service.
pub const MAX_INSTANCES: u32 = 16;
/// Most events.
pub const MAX_EVENTS: usize = 64;
/// A deploy's `deploy_step_ms` when left out: the group model's (model.md §10.3).
pub const DEFAULT_DEPLOY_STEP_US: u64 = 30_000 * MS;
/// Most downstream readers.
pub const MAX_PIPELINE_READERS: usize = 16;
/// Most steps one run may take (records processed and handed, commits, polls); a scenario
/// estimated above it is refused before it runs, and the engine stops there in any case.
pub const MAX_PIPELINE_STEPS: u64 = 2_000_000;

named_enum! {
    /// What runs between the input and the output topic (model.md §14.1).
    ServiceKind {
        /// A Java KafkaConsumer + KafkaProducer loop (kafka-clients 4.3.1, classic protocol,
        /// RangeAssignor: eager rebalances).
        ConsumeTransformProduce = "consume_transform_produce", "consume-transform-produce loop",
        /// A Kafka Streams 4.3.1 application: source → map → sink, one stream thread per
        /// instance (StreamsPartitionAssignor: cooperative rebalances).
        KafkaStreams = "kafka_streams", "Kafka Streams application",
    }
}

named_enum! {
    /// When the service's loop commits (model.md §14.2).
    CommitRule {
        /// Kafka Streams' `StreamThread.maybeCommit`: once `lastCommit + commit.interval.ms <
        /// now` with work processed, checked after each record and while idle (`lastCommit`:
        /// the instant the last commit began).
        SinceLastCommit = "since_last_commit", "commit.interval.ms after the last commit began",
        /// A consume-transform-produce loop that commits its transaction once it is
        /// `commit.interval.ms` old (from the start of its first record), checked after each
        /// record and when a `poll(100 ms)` returns empty (the suite's `EosConformance` loop).
        TransactionAge = "transaction_age", "the open transaction is commit.interval.ms old",
        /// The same loop, committing once the open transaction holds `commit_records` records
        /// (checked after each record), or when a `poll(100 ms)` returns empty and it is
        /// `commit.interval.ms` old (the input's tail).
        TransactionRecords = "transaction_records", "the open transaction holds commit_records records",
    }
}

named_enum! {
    /// `processing.guarantee` (model.md §14.1).
    Guarantee {
        /// Transactions: outputs and input offsets committed together (KIP-447).
        ExactlyOnceV2 = "exactly_once_v2", "exactly_once_v2",
        /// No transaction: outputs sent as processed, offsets committed every interval.
        AtLeastOnce = "at_least_once", "at_least_once",
    }
}

named_enum! {
    /// What an event does to an instance (model.md §14.3).
    EventKind {
        /// kill -9: no LeaveGroup; the group waits out `session.timeout.ms`; the process may
        /// restart after `restart_after_ms`.
        Crash = "crash", "kill -9 (and restart)",
        /// The whole process freezes (kill -STOP, a long GC pause) for `duration_ms`: no
        /// heartbeats, no processing; it resumes where it stopped — a zombie if the group
        /// removed it meanwhile.
        Hang = "hang", "freeze for duration_ms",
        /// Scale-out: the instance is not running before and starts now, joining the group as a
        /// new member (its first event; it takes partitions from the others in the rebalance).
        Join = "join", "a new instance joins",
        /// A rolling deploy: instance k is told to close at `at_ms` + k · `deploy_step_ms`; it
        /// finishes the records in hand, closes gracefully (commit, then the consumer's close:
        /// LeaveGroup for the consume-transform-produce loop, none for Kafka Streams under the
        /// classic protocol) and starts again `restart_after_ms` after its close returned.
        Deploy = "deploy", "rolling deploy: each instance closed and restarted in turn",
    }
}

/// The input topic: `partitions` partitions, each with `records_per_partition` plain records,
/// record k of each partition appended at k · 1000 / `rate_per_s` ms (µs, rounded down).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Input {
    /// Partitions of the input topic.
    pub partitions: u32,
    /// Records in each partition.
    pub records_per_partition: u32,
    /// Records appended per second to each partition.
    pub rate_per_s: u32,
}

impl Input {
    /// The append instant of record `k` (of any partition), µs.
    pub fn append_us(&self, k: u64) -> u64 {
        k * 1_000_000 / self.rate_per_s as u64
    }
}

/// The service (model.md §14.1). Values left out of the JSON take the kind's and guarantee's
/// defaults ([`Service::defaults`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Service {
    /// What runs.
    pub kind: ServiceKind,
    /// `processing.guarantee`.
    pub guarantee: Guarantee,
    /// Instances (one consumer / one stream thread each).
    pub instances: u32,
    /// `commit.interval.ms`, µs.
    pub commit_interval_us: u64,
    /// The time one record's processing takes, µs.
    pub record_processing_us: u64,
    /// `max.poll.records`.
    pub max_poll_records: u32,
    /// `transaction.timeout.ms`, µs (exactly_once_v2).
    pub transaction_timeout_us: u64,
    /// `session.timeout.ms`, µs.
    pub session_timeout_us: u64,
    /// `heartbeat.interval.ms`, µs: a member's heartbeats, from its start; the coordinator's
    /// session counts from the last one.
    pub heartbeat_interval_us: u64,
    /// One write outside Kafka per processing of a record, never rolled back.
    pub side_effect: bool,
    /// Kafka Streams: the topology has a persistent state store, so the process id (and with it
    /// the EOS v2 `transactional.id`) survives a restart in the state directory.
    pub state_store: bool,
    /// consume_transform_produce: a restarted instance comes back with the same configured
    /// `transactional.id`.
    pub restart_keeps_transactional_id: bool,
    /// exactly_once_v2: from `sendOffsetsToTransaction` (the TxnOffsetCommit landing) to
    /// EndTxn reaching the coordinator, µs. A crash or hang inside leaves offsets pending.
    pub offsets_to_end_txn_us: u64,
    /// When the loop commits (*ours*; kafka_streams: always `since_last_commit`).
    pub commit_rule: CommitRule,
    /// `since_last_commit`: the first instances' commit timer is this far into its interval at
    /// 0 ms (their `lastCommit` is −phase; Kafka Streams' runs from its thread's start);
    /// `transaction_age`: their first transaction counts as this much older, µs.
    pub commit_phase_us: u64,
    /// `transaction_records`: records per transaction.
    pub commit_records: u32,
    /// exactly_once_v2: from the commit's start (`flush()`) to `sendOffsetsToTransaction`, µs.
    /// The instance blocks; a crash inside leaves its outputs open and no offsets pending.
    pub flush_us: u64,
}

/// One event. JSON: `{"at_ms": 5000, "instance": 1, "kind": "crash", "restart_after_ms": 2000}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// When, µs.
    pub at_us: u64,
    /// Which instance (from 0).
    pub instance: u32,
    /// What.
    pub kind: EventKind,
    /// crash: the restart's delay, µs (`None`: never restarts).
    pub restart_after_us: Option<u64>,
    /// hang: how long the process is frozen, µs.
    pub duration_us: u64,
    /// deploy: from one instance's turn to the next one's, µs (`instance` is unused: every
    /// instance in turn, from 0; `restart_after_us` counts from each close's return).
    pub deploy_step_us: u64,
}

impl Event {
    /// When the instance is back (`None`: a crash without restart; a deploy, whose restarts
    /// count from each close's return, known only as it runs).
    pub fn end_us(&self) -> Option<u64> {
        match self.kind {
            EventKind::Crash => self.restart_after_us.map(|d| self.at_us + d),
            EventKind::Hang => Some(self.at_us + self.duration_us),
            EventKind::Join => Some(self.at_us),
            EventKind::Deploy => None,
        }
    }

    /// deploy: the instant instance `k` is told to close (`at_ms` + k · `deploy_step_ms`).
    pub fn turn_us(&self, k: u32) -> u64 {
        self.at_us.saturating_add(k as u64 * self.deploy_step_us)
    }
}

/// One pipeline simulation's inputs (model.md §14).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PipelineScenario {
    /// The input topic.
    pub input: Input,
    /// The service.
    pub service: Service,
    /// `transaction.abort.timed.out.transaction.cleanup.interval.ms`, µs.
    pub cleanup_interval_us: u64,
    /// The first timeout scan's instant, µs; below the interval.
    pub scan_phase_us: u64,
    /// The events, in the order given.
    pub events: Vec<Event>,
    /// The downstream readers of the output topic.
    pub readers: Vec<TxnReader>,
    /// Simulated time, µs.
    pub horizon_us: u64,
}

const INPUT_RANGE: &str =
    "an object {\"partitions\": 1–64, \"records_per_partition\": 1–100000 (at most 100000 \
                           in all), \"rate_per_s\": 1–1000000}";
const SERVICE_RANGE: &str = "an object of the service's fields (below)";
const EVENTS_RANGE: &str = "a list of at most 64 events, each {\"at_ms\", \"instance\", \"kind\": \"crash\" \
                            (\"restart_after_ms\"), \"hang\" (\"duration_ms\") or \"join\"}, or {\"at_ms\", \
                            \"kind\": \"deploy\", \"restart_after_ms\", \"deploy_step_ms\"}";
const READERS_RANGE: &str = "a list of at most 16 readers of the output topic, each {\"name\", \
                             \"isolation.level\", …} as a transactions reader (model.md §13.1)";

/// Every top-level key of a pipeline scenario, in the order `--help` lists them.
pub const PIPELINE_KEYS: &[KeySpec] = &[
    KeySpec { name: "input", kind: KeyKind::Structured(INPUT_RANGE), unit: "" },
    KeySpec { name: "service", kind: KeyKind::Structured(SERVICE_RANGE), unit: "" },
    KeySpec {
        name: "transaction.abort.timed.out.transaction.cleanup.interval.ms",
        kind: KeyKind::Millis { min_us: MS, max_us: INT_MAX_MS_US },
        unit: "ms",
    },
    KeySpec {
        name: "coordinator_scan_phase_ms",
        kind: KeyKind::Millis { min_us: 0, max_us: INT_MAX_MS_US },
        unit: "ms",
    },
    KeySpec { name: "events", kind: KeyKind::Structured(EVENTS_RANGE), unit: "" },
    KeySpec { name: "readers", kind: KeyKind::Structured(READERS_RANGE), unit: "" },
    KeySpec { name: "horizon_ms", kind: KeyKind::Millis { min_us: MS, max_us: DAY_US }, unit: "ms" },
];

/// The one-line meaning of each key of [`PIPELINE_KEYS`], in its order (`--help`).
pub const PIPELINE_KEY_HELP: &[&str] = &[
    "the input topic: partitions, records in each, appended at rate_per_s from 0 ms",
    "the service between the input and the output topic (fields below)",
    "the broker's scan for timed-out transactions runs this often",
    "the first scan's instant (scans at phase + k · interval); below the interval",
    "crashes, hangs, joins and rolling deploys of the service's instances (fields below)",
    "consumers of the output topic, each in a group of its own (a transactions reader's fields)",
    "simulated time",
];

/// The service's fields.
pub const SERVICE_FIELDS: &[FieldHelp] = &[
    FieldHelp {
        spec: KeySpec { name: "kind", kind: KeyKind::Choice(ServiceKind::NAMES), unit: "" },
        default: "\"consume_transform_produce\"",
        help: "a Java consume-transform-produce loop (eager RangeAssignor) or a Kafka Streams application (cooperative)",
    },
    FieldHelp {
        spec: KeySpec { name: "processing.guarantee", kind: KeyKind::Choice(Guarantee::NAMES), unit: "" },
        default: "exactly_once_v2 (kafka_streams: at_least_once, StreamsConfig's)",
        help: "exactly_once_v2: one transaction per commit; at_least_once: plain sends and commitSync",
    },
    FieldHelp {
        spec: KeySpec { name: "instances", kind: KeyKind::Count { min: 1, max: 16 }, unit: "" },
        default: "1",
        help: "instances in the group (one consumer / one stream thread each), numbered from 0",
    },
    FieldHelp {
        spec: KeySpec { name: "commit.interval.ms", kind: KeyKind::Millis { min_us: MS, max_us: DAY_US }, unit: "ms" },
        default: "100 (kafka_streams at_least_once: 30000)",
        help: "a commit once processed work is more than this old since the last commit (checked after each record and when idle)",
    },
    FieldHelp {
        spec: KeySpec { name: "record_processing_ms", kind: KeyKind::Millis { min_us: 0, max_us: 60_000 * MS }, unit: "ms" },
        default: "1",
        help: "one record's processing; its output is sent when it ends",
    },
    FieldHelp {
        spec: KeySpec { name: "max.poll.records", kind: KeyKind::Count { min: 1, max: 100_000 }, unit: "records" },
        default: "500 (kafka_streams: 1000)",
        help: "records one poll hands at most",
    },
    FieldHelp {
        spec: KeySpec { name: "transaction.timeout.ms", kind: KeyKind::Millis { min_us: MS, max_us: 900_000 * MS }, unit: "ms" },
        default: "60000 (kafka_streams: 10000)",
        help: "exactly_once_v2: the coordinator aborts a transaction open longer (at most the broker's 900000)",
    },
    FieldHelp {
        spec: KeySpec { name: "session.timeout.ms", kind: KeyKind::Millis { min_us: 6_000 * MS, max_us: 1_800_000 * MS }, unit: "ms" },
        default: "45000",
        help: "a member without heartbeats this long is removed (the broker's 6000–1800000 bounds)",
    },
    FieldHelp {
        spec: KeySpec { name: "heartbeat.interval.ms", kind: KeyKind::Millis { min_us: MS, max_us: 1_800_000 * MS }, unit: "ms" },
        default: "3000",
        help: "a member's heartbeats, from its start (below session.timeout.ms); a dead member's session counts from its last",
    },
    FieldHelp {
        spec: KeySpec { name: "side_effect", kind: KeyKind::Flag, unit: "" },
        default: "false",
        help: "one write outside Kafka per processing of a record, never rolled back (counted)",
    },
    FieldHelp {
        spec: KeySpec { name: "state_store", kind: KeyKind::Flag, unit: "" },
        default: "false",
        help: "kafka_streams: a persistent store, so the process id and transactional.id survive a restart",
    },
    FieldHelp {
        spec: KeySpec { name: "restart_keeps_transactional.id", kind: KeyKind::Flag, unit: "" },
        default: "true",
        help: "consume_transform_produce: a restarted instance has the same transactional.id",
    },
    FieldHelp {
        spec: KeySpec { name: "offsets_to_end_txn_ms", kind: KeyKind::Millis { min_us: 0, max_us: 60_000 * MS }, unit: "ms" },
        default: "0",
        help: "exactly_once_v2: sendOffsetsToTransaction to EndTxn; a crash inside leaves offsets pending (UNSTABLE_OFFSET_COMMIT)",
    },
    FieldHelp {
        spec: KeySpec { name: "commit_rule", kind: KeyKind::Choice(CommitRule::NAMES), unit: "" },
        default: "\"since_last_commit\"",
        help: "consume_transform_produce: since_last_commit (Streams' rule), transaction_age (commit once the open transaction is commit.interval.ms old) or transaction_records (once it holds commit_records records); both checked after each record and each empty poll(100 ms)",
    },
    FieldHelp {
        spec: KeySpec { name: "commit_records", kind: KeyKind::Count { min: 1, max: 100_000 }, unit: "records" },
        default: "1",
        help: "transaction_records: records per transaction (an empty poll commits fewer once the transaction is commit.interval.ms old)",
    },
    FieldHelp {
        spec: KeySpec { name: "commit_phase_ms", kind: KeyKind::Millis { min_us: 0, max_us: DAY_US }, unit: "ms" },
        default: "0",
        help: "the first instances' commit timer is this far into its interval at 0 ms (since_last_commit; transaction_age: their first transaction counts as this much older); below commit.interval.ms",
    },
    FieldHelp {
        spec: KeySpec { name: "flush_ms", kind: KeyKind::Millis { min_us: 0, max_us: 60_000 * MS }, unit: "ms" },
        default: "0",
        help: "exactly_once_v2: the commit's flush() before sendOffsetsToTransaction; a crash inside leaves no offsets pending",
    },
];

/// An event's fields.
pub const EVENT_FIELDS: &[FieldHelp] = &[
    FieldHelp {
        spec: KeySpec { name: "at_ms", kind: KeyKind::Millis { min_us: 0, max_us: DAY_US }, unit: "ms" },
        default: "required",
        help: "when",
    },
    FieldHelp {
        spec: KeySpec { name: "instance", kind: KeyKind::Count { min: 0, max: 15 }, unit: "" },
        default: "required (not for deploy)",
        help: "which instance, from 0",
    },
    FieldHelp {
        spec: KeySpec { name: "kind", kind: KeyKind::Choice(EventKind::NAMES), unit: "" },
        default: "required",
        help: "crash (kill -9), hang (the process frozen), join (scale-out: a new instance starts, its first event) or deploy (every instance closed gracefully and restarted in turn, its last event)",
    },
    FieldHelp {
        spec: KeySpec {
            name: "restart_after_ms",
            kind: KeyKind::OptionalMillis { min_us: 0, max_us: DAY_US },
            unit: "ms",
        },
        default: "null (never); required (deploy)",
        help: "crash: the process starts again this long after; deploy: each instance starts again this long after its close() returned",
    },
    FieldHelp {
        spec: KeySpec {
            name: "duration_ms",
            kind: KeyKind::Millis { min_us: MS, max_us: DAY_US },
            unit: "ms",
        },
        default: "required (hang)",
        help: "hang: how long the process is frozen",
    },
    FieldHelp {
        spec: KeySpec {
            name: "deploy_step_ms",
            kind: KeyKind::Millis { min_us: 0, max_us: DAY_US },
            unit: "ms",
        },
        default: "30000 (deploy)",
        help: "deploy: instance k is told to close at at_ms + k · deploy_step_ms",
    },
];

fn key_spec(name: &str) -> &'static KeySpec {
    PIPELINE_KEYS.iter().find(|k| k.name == name).expect("a key of the table")
}

fn parse_input(value: &Value) -> Result<Input, ScenarioError> {
    let map = object("input", value, r#"{"partitions": 2, "records_per_partition": 200, "rate_per_s": 50}"#)?;
    let mut input = Input { partitions: 1, records_per_partition: 100, rate_per_s: 50 };
    let count = |name: &'static str, min: u64, max: u64| KeySpec {
        name,
        kind: KeyKind::Count { min, max },
        unit: "",
    };
    for (key, v) in map {
        let here = format!("input.{}", shorten(key));
        match key.as_str() {
            "partitions" => {
                input.partitions = read_at(&here, &count("partitions", 1, MAX_PARTITIONS as u64), v)?
            }
            "records_per_partition" => {
                input.records_per_partition =
                    read_at(&here, &count("records_per_partition", 1, MAX_INPUT_RECORDS), v)?
            }
            "rate_per_s" => input.rate_per_s = read_at(&here, &count("rate_per_s", 1, 1_000_000), v)?,
            _ => return Err(err(
                &here,
                "unknown field of the input; its fields are partitions, records_per_partition, rate_per_s",
            )),
        }
    }
    let total = input.partitions as u64 * input.records_per_partition as u64;
    if total > MAX_INPUT_RECORDS {
        return Err(err(
            "input.records_per_partition",
            format!("gives {total} input records in all, more than {MAX_INPUT_RECORDS} (partitions · records_per_partition)"),
        ));
    }
    Ok(input)
}

fn parse_service(value: &Value) -> Result<Service, ScenarioError> {
    let map =
        object("service", value, r#"{"kind": "kafka_streams", "processing.guarantee": "exactly_once_v2"}"#)?;
    let f = |name| field_spec(SERVICE_FIELDS, name);
    let at = |key: &str| format!("service.{}", shorten(key));
    let kind = match map.get("kind") {
        Some(v) => read_at::<ServiceKind>(&at("kind"), f("kind"), v)?,
        None => ServiceKind::ConsumeTransformProduce,
    };
    let guarantee = match map.get("processing.guarantee") {
        Some(v) => read_at::<Guarantee>(&at("processing.guarantee"), f("processing.guarantee"), v)?,
        None if kind == ServiceKind::KafkaStreams => Guarantee::AtLeastOnce,
        None => Guarantee::ExactlyOnceV2,
    };
    let mut s = Service::defaults(kind, guarantee);
    for (key, v) in map {
        let here = at(key);
        match key.as_str() {
            "kind" | "processing.guarantee" => {}
            "instances" => s.instances = read_at(&here, f("instances"), v)?,
            "commit.interval.ms" => s.commit_interval_us = read_at(&here, f("commit.interval.ms"), v)?,
            "record_processing_ms" => s.record_processing_us = read_at(&here, f("record_processing_ms"), v)?,
            "max.poll.records" => s.max_poll_records = read_at(&here, f("max.poll.records"), v)?,
            "transaction.timeout.ms" => {
                s.transaction_timeout_us = read_at(&here, f("transaction.timeout.ms"), v)?
            }
            "session.timeout.ms" => s.session_timeout_us = read_at(&here, f("session.timeout.ms"), v)?,
            "heartbeat.interval.ms" => {
                s.heartbeat_interval_us = read_at(&here, f("heartbeat.interval.ms"), v)?
            }
            "side_effect" => s.side_effect = read_at(&here, f("side_effect"), v)?,
            "state_store" => s.state_store = read_at(&here, f("state_store"), v)?,
            "restart_keeps_transactional.id" => {
                s.restart_keeps_transactional_id = read_at(&here, f("restart_keeps_transactional.id"), v)?
            }
            "offsets_to_end_txn_ms" => {
                s.offsets_to_end_txn_us = read_at(&here, f("offsets_to_end_txn_ms"), v)?
            }
            "commit_rule" => s.commit_rule = read_at(&here, f("commit_rule"), v)?,
            "commit_phase_ms" => s.commit_phase_us = read_at(&here, f("commit_phase_ms"), v)?,
            "commit_records" => s.commit_records = read_at(&here, f("commit_records"), v)?,
            "flush_ms" => s.flush_us = read_at(&here, f("flush_ms"), v)?,
            _ => return Err(unknown_field(&here, SERVICE_FIELDS, "the service")),
        }
    }
    if s.state_store && kind != ServiceKind::KafkaStreams {
        return Err(err("service.state_store", "is a kafka_streams field: a consume_transform_produce service has restart_keeps_transactional.id"));
    }
    if map.contains_key("restart_keeps_transactional.id") && kind != ServiceKind::ConsumeTransformProduce {
        return Err(err(
            "service.restart_keeps_transactional.id",
            "is a consume_transform_produce field: Kafka Streams derives its transactional.id from its process id (state_store)",
        ));
    }
    if guarantee == Guarantee::AtLeastOnce {
        for key in ["transaction.timeout.ms", "offsets_to_end_txn_ms", "flush_ms"] {
            if map.contains_key(key) {
                return Err(err(&at(key), "is an exactly_once_v2 field: at_least_once runs no transaction"));
            }
        }
    }
    if s.commit_rule != CommitRule::SinceLastCommit && kind != ServiceKind::ConsumeTransformProduce {
        return Err(err(
            "service.commit_rule",
            "transaction_age and transaction_records are consume_transform_produce rules: Kafka Streams commits by its own (since_last_commit)",
        ));
    }
    if map.contains_key("commit_phase_ms") && s.commit_rule == CommitRule::TransactionRecords {
        return Err(err(
            "service.commit_phase_ms",
            "has no meaning under transaction_records: it counts records",
        ));
    }
    if map.contains_key("commit_records") && s.commit_rule != CommitRule::TransactionRecords {
        return Err(err("service.commit_records", "is a transaction_records field"));
    }
    if s.commit_phase_us >= s.commit_interval_us {
        return Err(err(
            "service.commit_phase_ms",
            format!(
                "must be below commit.interval.ms ({} ms) (got {})",
                crate::keys::format_millis(s.commit_interval_us),
                crate::keys::format_millis(s.commit_phase_us)
            ),
        ));
    }
    if guarantee == Guarantee::ExactlyOnceV2 && s.commit_interval_us >= s.transaction_timeout_us {
        return Err(err(
            "service.commit.interval.ms",
            format!(
                "must be below transaction.timeout.ms ({} ms) under exactly_once_v2: every transaction would outlive \
                 its timeout (Kafka Streams refuses it too, StreamsConfig.verifyEOSTransactionTimeoutCompatibility) \
                 (got {})",
                crate::keys::format_millis(s.transaction_timeout_us),
                crate::keys::format_millis(s.commit_interval_us)
            ),
        ));
    }
    Ok(s)
}

impl Service {
    /// The kind's and guarantee's defaults (model.md §14.1): StreamsConfig's for kafka_streams
    /// (`commit.interval.ms` 100 under EOS, 30000 otherwise; `transaction.timeout.ms` 10000;
    /// `max.poll.records` 1000), kafka-clients' for the loop (`transaction.timeout.ms` 60000,
    /// `max.poll.records` 500) with a 100 ms commit interval of ours.
    pub fn defaults(kind: ServiceKind, guarantee: Guarantee) -> Service {
        let streams = kind == ServiceKind::KafkaStreams;
        Service {
            kind,
            guarantee,
            instances: 1,
            commit_interval_us: if streams && guarantee == Guarantee::AtLeastOnce {
                30_000 * MS
            } else {
                100 * MS
            },
            record_processing_us: MS,
            max_poll_records: if streams { 1_000 } else { 500 },
            transaction_timeout_us: if streams { 10_000 * MS } else { 60_000 * MS },
            session_timeout_us: 45_000 * MS,
            heartbeat_interval_us: 3_000 * MS,
            side_effect: false,
            state_store: false,
            restart_keeps_transactional_id: true,
            offsets_to_end_txn_us: 0,
            commit_rule: CommitRule::SinceLastCommit,
            commit_phase_us: 0,
            commit_records: 1,
            flush_us: 0,
        }
    }

    /// Whether a restarted instance's producer has its previous `transactional.id` (so its
    /// `initTransactions` aborts its own open transaction at once).
    pub fn restart_keeps_id(&self) -> bool {
        match self.kind {
            ServiceKind::KafkaStreams => self.state_store,
            ServiceKind::ConsumeTransformProduce => self.restart_keeps_transactional_id,
        }
    }

    /// Whether it runs transactions.
    pub fn eos(&self) -> bool {
        self.guarantee == Guarantee::ExactlyOnceV2
    }

    fn to_json(&self) -> Value {
        let ms = millis_value;
        let mut m = Map::new();
        m.insert("kind".into(), self.kind.name().into());
        m.insert("processing.guarantee".into(), self.guarantee.name().into());
        m.insert("instances".into(), self.instances.into());
        m.insert("commit.interval.ms".into(), ms(self.commit_interval_us));
        m.insert("record_processing_ms".into(), ms(self.record_processing_us));
        m.insert("max.poll.records".into(), self.max_poll_records.into());
        if self.eos() {
            m.insert("transaction.timeout.ms".into(), ms(self.transaction_timeout_us));
            m.insert("offsets_to_end_txn_ms".into(), ms(self.offsets_to_end_txn_us));
            m.insert("flush_ms".into(), ms(self.flush_us));
        }
        if self.kind == ServiceKind::ConsumeTransformProduce {
            m.insert("commit_rule".into(), self.commit_rule.name().into());
        }
        if self.commit_rule == CommitRule::TransactionRecords {
            m.insert("commit_records".into(), self.commit_records.into());
        } else {
            m.insert("commit_phase_ms".into(), ms(self.commit_phase_us));
        }
        m.insert("session.timeout.ms".into(), ms(self.session_timeout_us));
        m.insert("heartbeat.interval.ms".into(), ms(self.heartbeat_interval_us));
        m.insert("side_effect".into(), self.side_effect.into());
        match self.kind {
            ServiceKind::KafkaStreams => m.insert("state_store".into(), self.state_store.into()),
            ServiceKind::ConsumeTransformProduce => {
                m.insert("restart_keeps_transactional.id".into(), self.restart_keeps_transactional_id.into())
            }
        };
        Value::Object(m)
    }
}

fn parse_event(path: &str, value: &Value) -> Result<Event, ScenarioError> {
    let map =
        object(path, value, r#"{"at_ms": 5000, "instance": 0, "kind": "crash", "restart_after_ms": 2000}"#)?;
    let f = |name| field_spec(EVENT_FIELDS, name);
    if let Some(kind) = map.get("kind").and_then(Value::as_str) {
        if kind == "rebalance" {
            return Err(err(
                &format!("{path}.kind"),
                "\"rebalance\" is not modelled in the pipeline (model.md §14.7): a crash with a restart shows a \
                 member leaving and joining, a join a new member, a deploy members leaving on purpose; use one of \
                 \"crash\", \"hang\", \"join\", \"deploy\"",
            ));
        }
    }
    let (mut at_us, mut instance, mut kind, mut restart, mut duration) = (None, None, None, None, None);
    let mut step = None;
    for (key, v) in map {
        let here = format!("{path}.{}", shorten(key));
        match key.as_str() {
            "at_ms" => at_us = Some(read_at::<u64>(&here, f("at_ms"), v)?),
            "instance" => instance = Some(read_at::<u32>(&here, f("instance"), v)?),
            "kind" => kind = Some(read_at::<EventKind>(&here, f("kind"), v)?),
            "restart_after_ms" => restart = Some(read_at::<Option<u64>>(&here, f("restart_after_ms"), v)?),
            "duration_ms" => duration = Some(read_at::<u64>(&here, f("duration_ms"), v)?),
            "deploy_step_ms" => step = Some(read_at::<u64>(&here, f("deploy_step_ms"), v)?),
            "shutdown_mode" => {
                return Err(err(
                    &here,
                    "is not a pipeline field: a deploy's instance always finishes the records in hand, then closes \
                     (the group model's wakeup mode)",
                ))
            }
            _ => return Err(unknown_field(&here, EVENT_FIELDS, "an event")),
        }
    }
    let need = |what: &str| err(&format!("{path}.{what}"), format!("an event needs {what}"));
    let kind = kind.ok_or_else(|| need("kind"))?;
    if kind == EventKind::Deploy {
        let at = |what: &str| format!("{path}.{what}");
        if instance.is_some() {
            return Err(err(
                &at("instance"),
                "is not a deploy's field: a deploy closes every instance in turn, instance k at at_ms + k · deploy_step_ms",
            ));
        }
        if duration.is_some() {
            return Err(err(
                &at("duration_ms"),
                "is a hang's field; a deploy takes restart_after_ms and deploy_step_ms",
            ));
        }
        let Some(restart) = restart else { return Err(need("restart_after_ms")) };
        let Some(restart) = restart else {
            return Err(err(
                &at("restart_after_ms"),
                "must be a number of ms from 0 to 86400000 for a deploy: every instance starts again (got null)",
            ));
        };
        return Ok(Event {
            at_us: at_us.ok_or_else(|| need("at_ms"))?,
            instance: 0,
            kind,
            restart_after_us: Some(restart),
            duration_us: 0,
            deploy_step_us: step.unwrap_or(DEFAULT_DEPLOY_STEP_US),
        });
    }
    if step.is_some() {
        return Err(err(&format!("{path}.deploy_step_ms"), "is a deploy's field"));
    }
    let e = Event {
        at_us: at_us.ok_or_else(|| need("at_ms"))?,
        instance: instance.ok_or_else(|| need("instance"))?,
        kind,
        restart_after_us: restart.flatten(),
        duration_us: duration.unwrap_or(0),
        deploy_step_us: 0,
    };
    match kind {
        EventKind::Crash if duration.is_some() => {
            Err(err(&format!("{path}.duration_ms"), "is a hang's field; a crash takes restart_after_ms"))
        }
        EventKind::Hang if restart.is_some() => {
            Err(err(&format!("{path}.restart_after_ms"), "is a crash's field; a hang takes duration_ms"))
        }
        EventKind::Hang if duration.is_none() => Err(need("duration_ms")),
        EventKind::Join if duration.is_some() || restart.is_some() => Err(err(
            &format!("{path}.{}", if duration.is_some() { "duration_ms" } else { "restart_after_ms" }),
            "is not a join's field: a join takes at_ms and instance",
        )),
        _ => Ok(e),
    }
}

impl PipelineScenario {
    /// Reads a pipeline scenario from JSON text. Errors name the key and its allowed range.
    pub fn from_json(text: &str) -> Result<PipelineScenario, ScenarioError> {
        PipelineScenario::from_value(&parse_json(text)?)
    }

    /// As [`PipelineScenario::from_json`], from a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<PipelineScenario, ScenarioError> {
        let map = json_object(value, "a pipeline scenario", r#"{"input": {...}, "service": {...}}"#)?;
        let mut s = PipelineScenario {
            input: Input { partitions: 1, records_per_partition: 100, rate_per_s: 50 },
            service: Service::defaults(ServiceKind::ConsumeTransformProduce, Guarantee::ExactlyOnceV2),
            cleanup_interval_us: DEFAULT_CLEANUP_INTERVAL_US,
            scan_phase_us: 0,
            events: Vec::new(),
            readers: Vec::new(),
            horizon_us: 60_000 * MS,
        };
        for (key, v) in map {
            match key.as_str() {
                "input" => s.input = parse_input(v)?,
                "service" => s.service = parse_service(v)?,
                "transaction.abort.timed.out.transaction.cleanup.interval.ms" => {
                    s.cleanup_interval_us = u64::read(key_spec(key), v)?
                }
                "coordinator_scan_phase_ms" => s.scan_phase_us = u64::read(key_spec(key), v)?,
                "events" => {
                    for (i, item) in list("events", v, 0, MAX_EVENTS, "events")?.iter().enumerate() {
                        s.events.push(parse_event(&format!("events[{i}]"), item)?);
                    }
                }
                "readers" => {
                    for (i, item) in
                        list("readers", v, 0, MAX_PIPELINE_READERS, "readers")?.iter().enumerate()
                    {
                        s.readers.push(parse_reader(&format!("readers[{i}]"), i, item)?);
                    }
                }
                "horizon_ms" => s.horizon_us = u64::read(key_spec(key), v)?,
                _ => return Err(crate::keys::unknown_key(key, PIPELINE_KEYS)),
            }
        }
        s.check_combinations()?;
        Ok(s)
    }

    /// Checks a scenario built in code: every range (by reading its JSON form back) and every
    /// combination [`PipelineScenario::from_value`] checks.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let back = PipelineScenario::from_value(&self.to_json_value())?;
        if &back != self {
            return Err(ScenarioError::whole("the scenario does not read back from its JSON form"));
        }
        Ok(())
    }

    fn check_combinations(&self) -> Result<(), ScenarioError> {
        let fmt = crate::keys::format_millis;
        if self.service.heartbeat_interval_us >= self.service.session_timeout_us {
            // The Java consumer refuses it (ConsumerConfig: "heartbeat.interval.ms must be lower
            // than session.timeout.ms"... as GroupRebalanceConfig checks).
            return Err(err(
                "service.heartbeat.interval.ms",
                format!(
                    "must be below service.session.timeout.ms ({} ms) (got {})",
                    fmt(self.service.session_timeout_us),
                    fmt(self.service.heartbeat_interval_us)
                ),
            ));
        }
        if self.scan_phase_us >= self.cleanup_interval_us {
            return Err(err(
                "coordinator_scan_phase_ms",
                format!(
                    "must be below transaction.abort.timed.out.transaction.cleanup.interval.ms ({} ms) (got {})",
                    fmt(self.cleanup_interval_us),
                    fmt(self.scan_phase_us)
                ),
            ));
        }
        // Per instance: its events one after another, nothing after a crash without restart; a
        // join first (the instance does not run before it); a deploy's turn last (its restart
        // counts from its close's return, known only as the run goes).
        let mut back_at: Vec<Option<u64>> = vec![Some(0); self.service.instances as usize];
        let mut deployed: Vec<Option<usize>> = vec![None; self.service.instances as usize];
        let joins = self.joining();
        // (instant, event index, instance): a deploy stands for one item per instance.
        let mut order: Vec<(u64, usize, u32)> = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            if e.kind == EventKind::Deploy {
                order.extend((0..self.service.instances).map(|k| (e.turn_us(k), i, k)));
            } else {
                order.push((e.at_us, i, e.instance));
            }
        }
        order.sort_by_key(|&(at, i, k)| (at, i, k));
        for (at_us, i, instance) in order {
            let e = &self.events[i];
            let deploy = e.kind == EventKind::Deploy;
            let at_key = format!("events[{i}].{}", if deploy { "deploy_step_ms" } else { "at_ms" });
            let at_key = if deploy && instance == 0 { format!("events[{i}].at_ms") } else { at_key };
            let whose = if deploy {
                format!("instance {instance}'s turn at {} ms", fmt(at_us))
            } else {
                String::new()
            };
            if instance >= self.service.instances {
                return Err(err(
                    &format!("events[{i}].instance"),
                    format!(
                        "must be below service.instances, {} (instances are numbered from 0) (got {})",
                        self.service.instances, instance
                    ),
                ));
            }
            if let Some(d) = deployed[instance as usize] {
                return Err(err(
                    &at_key,
                    format!(
                        "instance {instance} is closed and restarted by the deploy of events[{d}] before: nothing \
                         may follow its turn (its restart counts from its close's return){}",
                        if deploy { format!(" ({whose})") } else { String::new() }
                    ),
                ));
            }
            if let Some(j) = joins[instance as usize] {
                if e.kind == EventKind::Join && j != i {
                    return Err(err(
                        &format!("events[{i}].kind"),
                        format!("instance {} joins once (events[{j}] already joins it)", instance),
                    ));
                }
                if e.kind != EventKind::Join && at_us <= self.events[j].at_us {
                    return Err(err(
                        &at_key,
                        format!(
                            "instance {} joins at {} ms (events[{j}]): nothing can happen to it before (got {})",
                            instance,
                            fmt(self.events[j].at_us),
                            if deploy { whose.clone() } else { fmt(at_us) }
                        ),
                    ));
                }
            }
            match back_at[instance as usize] {
                None => {
                    return Err(err(
                        &at_key,
                        format!(
                            "instance {} crashed earlier and never restarts: nothing can happen to it{}",
                            instance,
                            if deploy { format!(" ({whose})") } else { String::new() }
                        ),
                    ))
                }
                Some(back) if at_us <= back && back > 0 => {
                    return Err(err(
                        &at_key,
                        format!(
                            "instance {} is down or frozen until {} ms: an event must come after (got {})",
                            instance,
                            fmt(back),
                            if deploy { whose } else { fmt(at_us) }
                        ),
                    ))
                }
                _ => {}
            }
            if deploy {
                deployed[instance as usize] = Some(i);
            } else {
                back_at[instance as usize] = e.end_us();
            }
        }
        let mut names: Vec<&str> = Vec::new();
        for (i, r) in self.readers.iter().enumerate() {
            if names.contains(&r.name.as_str()) {
                return Err(err(
                    &format!("readers[{i}].name"),
                    format!("repeats another reader's name {:?}", r.name),
                ));
            }
            names.push(&r.name);
        }
        let steps = self.estimated_steps();
        if steps > MAX_PIPELINE_STEPS {
            return Err(err(
                "horizon_ms",
                format!(
                    "the scenario needs about {steps} steps (records processed and handed, commits, polls), more than \
                     {MAX_PIPELINE_STEPS}: fewer records, readers or events, or a shorter horizon_ms"
                ),
            ));
        }
        Ok(())
    }

    /// Per instance, the index of its `join` event (the instance runs from that instant, not 0).
    pub fn joining(&self) -> Vec<Option<usize>> {
        let mut out = vec![None; self.service.instances as usize];
        for (k, e) in self.events.iter().enumerate() {
            if e.kind == EventKind::Join {
                if let Some(slot) = out.get_mut(e.instance as usize) {
                    slot.get_or_insert(k);
                }
            }
        }
        out
    }

    /// Records processed (each record once, and once more per event), their outputs and commits
    /// handed to each reader, and the readers' polls: what time and memory grow with.
    pub fn estimated_steps(&self) -> u64 {
        let records = self.input.partitions as u64 * self.input.records_per_partition as u64;
        let events: u64 = self
            .events
            .iter()
            .map(|e| if e.kind == EventKind::Deploy { self.service.instances as u64 } else { 1 })
            .sum();
        let processings = records * (1 + events);
        let polls: u64 = self.readers.iter().map(|r| self.horizon_us / r.poll_interval_us + 1).sum();
        processings * 2 * (1 + self.readers.len() as u64) + polls
    }

    /// The canonical JSON form, which [`PipelineScenario::from_value`] reads back equal.
    pub fn to_json_value(&self) -> Value {
        let ms = millis_value;
        let mut input = Map::new();
        input.insert("partitions".into(), self.input.partitions.into());
        input.insert("records_per_partition".into(), self.input.records_per_partition.into());
        input.insert("rate_per_s".into(), self.input.rate_per_s.into());
        let events: Vec<Value> = self
            .events
            .iter()
            .map(|e| {
                let mut m = Map::new();
                m.insert("at_ms".into(), ms(e.at_us));
                if e.kind != EventKind::Deploy {
                    m.insert("instance".into(), e.instance.into());
                }
                m.insert("kind".into(), e.kind.name().into());
                match e.kind {
                    EventKind::Crash => {
                        m.insert("restart_after_ms".into(), e.restart_after_us.map_or(Value::Null, ms))
                    }
                    EventKind::Hang => m.insert("duration_ms".into(), ms(e.duration_us)),
                    EventKind::Join => None,
                    EventKind::Deploy => {
                        m.insert("restart_after_ms".into(), e.restart_after_us.map_or(Value::Null, ms));
                        m.insert("deploy_step_ms".into(), ms(e.deploy_step_us))
                    }
                };
                Value::Object(m)
            })
            .collect();
        let mut m = Map::new();
        m.insert("input".into(), Value::Object(input));
        m.insert("service".into(), self.service.to_json());
        m.insert(
            "transaction.abort.timed.out.transaction.cleanup.interval.ms".into(),
            ms(self.cleanup_interval_us),
        );
        m.insert("coordinator_scan_phase_ms".into(), ms(self.scan_phase_us));
        m.insert("events".into(), Value::Array(events));
        m.insert("readers".into(), Value::Array(self.readers.iter().map(reader_json).collect()));
        m.insert("horizon_ms".into(), ms(self.horizon_us));
        Value::Object(m)
    }
}
