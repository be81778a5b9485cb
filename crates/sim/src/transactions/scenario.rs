//! The inputs of one transactions simulation (model.md §13): [`TxnScenario`], read from JSON
//! with Kafka's property names where one exists, every value checked against its range and
//! every refusal naming the key at fault (`producers[1].transactions[0].end_ms`).
//!
//! Times are integer microseconds (`*_us`); JSON holds milliseconds with at most three
//! decimals, read exactly by [`crate::keys::parse_millis`].

use crate::clients::Client;
use crate::keys::{
    json_object, millis_value, named_enum, parse_json, shorten, shown, KeyKind, KeySpec, KeyValue,
    ScenarioError, US_PER_MS,
};
use crate::scenario::IsolationLevel;
use serde_json::{Map, Value};

const MS: u64 = US_PER_MS;

/// Most producers one scenario may hold.
pub const MAX_PRODUCERS: usize = 16;
/// Most transactions one producer may run.
pub const MAX_TRANSACTIONS: usize = 1_000;
/// Most plain records one non-transactional producer may write (`records_at_ms`).
pub const MAX_PLAIN_RECORDS: usize = 10_000;
/// Most readers, and most share readers, one scenario may hold.
pub const MAX_READERS: usize = 16;
/// Most data records all producers together may write.
pub const MAX_TXN_RECORDS: u64 = 100_000;
/// Most events (records written and handed to each reader, polls, auto-commit ticks) one run
/// may take; a scenario estimated above it is refused before it runs.
pub const MAX_TXN_EVENTS: u64 = 2_000_000;
/// The broker's `transaction.max.timeout.ms` default: 900000 ms (Kafka
/// `TransactionStateManagerConfig.TRANSACTIONS_MAX_TIMEOUT_MS_DEFAULT`).
pub const DEFAULT_MAX_TIMEOUT_US: u64 = 900_000 * MS;
/// The producer's `transaction.timeout.ms` default: 60000 ms (Java `ProducerConfig`).
pub const DEFAULT_TXN_TIMEOUT_US: u64 = 60_000 * MS;
/// The broker's `transaction.abort.timed.out.transaction.cleanup.interval.ms` default: 10000 ms.
pub const DEFAULT_CLEANUP_INTERVAL_US: u64 = 10_000 * MS;

/// A Kafka `int` property in milliseconds: at most 2147483647.
const INT_MAX_MS_US: u64 = i32::MAX as u64 * MS;
/// The longest instant or horizon: one day.
const DAY_US: u64 = 86_400_000 * MS;

named_enum! {
    /// How a transaction ends (model.md §13.1).
    TxnEnd {
        /// `commitTransaction()` at `end_ms`: a commit marker.
        Commit = "commit", "commitTransaction() at end_ms",
        /// `abortTransaction()` at `end_ms`: an abort marker.
        Abort = "abort", "abortTransaction() at end_ms",
        /// The producer process dies after its last record: no marker until the coordinator's
        /// timeout aborts the transaction.
        ProducerDies = "producer_dies", "the producer dies: aborted at the timeout",
        /// Kafka's *hanging* transaction (KIP-664, KIP-890): records on the partition that the
        /// coordinator does not know belong to an open transaction, so no marker ever comes.
        /// A 4.3.1 broker writes none with its defaults (model.md §13.2): refused unless
        /// `transaction.partition.verification.enable` is false and `transaction.version` is 1.
        Hangs = "hangs", "a hanging transaction: no marker ever",
    }
}

impl TxnEnd {
    /// Whether the client ends it itself at `end_ms` (commit, abort).
    pub fn has_end_ms(self) -> bool {
        matches!(self, TxnEnd::Commit | TxnEnd::Abort)
    }
}

/// One transaction of a transactional producer. JSON: `{"begin_ms": 1000, "records": 5,
/// "record_interval_ms": 10, "end": "commit", "end_ms": 1200}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TxnSpec {
    /// Its first record's instant, µs (the coordinator's start of the transaction).
    pub begin_us: u64,
    /// Data records, one every `record_interval_us` from `begin_us`.
    pub records: u32,
    /// Between two records, µs.
    pub record_interval_us: u64,
    /// How it ends.
    pub end: TxnEnd,
    /// When the client commits or aborts, µs (commit and abort only).
    pub end_us: Option<u64>,
}

impl TxnSpec {
    /// The instant of record `i`, µs.
    pub fn record_us(&self, i: u32) -> u64 {
        self.begin_us + i as u64 * self.record_interval_us
    }

    /// The instant of its last record, µs.
    pub fn last_record_us(&self) -> u64 {
        self.record_us(self.records.saturating_sub(1))
    }
}

/// One producer: transactional (`transactional.id` set, `transactions`) or plain
/// (`transactional.id` null, `records_at_ms`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TxnProducer {
    /// `transactional.id`; `None`: a plain, non-transactional producer.
    pub transactional_id: Option<String>,
    /// `transaction.timeout.ms`, µs (transactional only).
    pub transaction_timeout_us: u64,
    /// Its transactions, in time order (transactional only).
    pub transactions: Vec<TxnSpec>,
    /// The instants of its plain records, µs, ascending (plain only).
    pub records_at_us: Vec<u64>,
}

named_enum! {
    /// How a reader's application commits (model.md §13.4).
    CommitStyle {
        /// After every poll, a commit of the consumer's position (Java `commitSync()`,
        /// librdkafka `rd_kafka_commit(rk, NULL, 0)` of the offsets stored at hand-out).
        Position = "position", "commitSync() of the position after every poll",
        /// After every poll that handed records, a commit of the last handed record's offset + 1
        /// (Spring's container, an offset stored or marked after processing).
        LastRecordPlusOne = "last_record_plus_one", "the last record handed + 1",
        /// The client's own automatic commit (`enable.auto.commit`, sarama's AutoCommit of marks,
        /// franz-go's autocommit, KafkaJS's `autoCommit`, kafka-go's `ReadMessage`).
        AutoCommit = "auto_commit", "the client's own auto-commit",
    }
}

/// One consumer on a group of its own, reading `orders-3` from offset 0.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TxnReader {
    /// Its name in the output.
    pub name: String,
    /// The client whose fetch and commit rules it follows.
    pub client: Client,
    /// `isolation.level`.
    pub isolation: IsolationLevel,
    /// How it commits.
    pub commit: CommitStyle,
    /// Between two polls, µs (polls at 0, this, twice this, …).
    pub poll_interval_us: u64,
    /// `max.poll.records` (the Java clients and librdkafka's batch; the libraries' fetch,
    /// which they bound in bytes).
    pub max_poll_records: u32,
    /// `auto.commit.interval.ms`, µs, for `commit: auto_commit` under the clients with a
    /// timer, and KafkaJS's `autoCommitInterval`; `None`: the client's default (KafkaJS: none).
    pub auto_commit_interval_us: Option<u64>,
}

impl TxnReader {
    /// `auto.commit.interval.ms` as the client runs it: the value set, or its default (Java
    /// and librdkafka 5000 ms, sarama's `Consumer.Offsets.AutoCommit.Interval` 1000 ms,
    /// franz-go's `AutoCommitInterval` 5000 ms). KafkaJS reads `auto_commit_interval_us`
    /// itself (unset: no interval).
    pub fn effective_auto_commit_interval_us(&self) -> u64 {
        self.auto_commit_interval_us.unwrap_or(match self.client {
            Client::Sarama => 1_000 * MS,
            _ => 5_000 * MS,
        })
    }
}

/// One share consumer (KIP-932) alone in its share group.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TxnShareReader {
    /// Its name in the output.
    pub name: String,
    /// The group's `share.isolation.level` (default `read_uncommitted`).
    pub isolation: IsolationLevel,
    /// Between two polls, µs.
    pub poll_interval_us: u64,
    /// `max.poll.records`.
    pub max_poll_records: u32,
}

/// One transactions simulation's inputs (model.md §13). Read one with
/// [`TxnScenario::from_json`]; [`TxnScenario::validate`] checks one built in code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TxnScenario {
    /// The producers writing to `orders-3`, in tie order.
    pub producers: Vec<TxnProducer>,
    /// `transaction.abort.timed.out.transaction.cleanup.interval.ms`, µs.
    pub cleanup_interval_us: u64,
    /// The first scan's instant, µs (scans at phase + k · interval, k ≥ 0); below the interval.
    pub scan_phase_us: u64,
    /// The broker's `transaction.max.timeout.ms`, µs.
    pub max_timeout_us: u64,
    /// The broker's `transaction.partition.verification.enable`.
    pub partition_verification: bool,
    /// The cluster's finalized `transaction.version` (1 or 2; 2 on a new 4.3.1 cluster).
    pub transaction_version: u8,
    /// The readers.
    pub readers: Vec<TxnReader>,
    /// The share readers.
    pub share_readers: Vec<TxnShareReader>,
    /// Simulated time, µs.
    pub horizon_us: u64,
}

impl Default for TxnScenario {
    fn default() -> Self {
        TxnScenario {
            producers: Vec::new(),
            cleanup_interval_us: DEFAULT_CLEANUP_INTERVAL_US,
            scan_phase_us: 0,
            max_timeout_us: DEFAULT_MAX_TIMEOUT_US,
            partition_verification: true,
            transaction_version: 2,
            readers: Vec::new(),
            share_readers: Vec::new(),
            horizon_us: 120_000 * MS,
        }
    }
}

const PRODUCERS_RANGE: &str =
    "a list of 1 to 16 producers, each {\"transactional.id\": \"tx-a\", \"transaction.timeout.ms\": 60000, \
     \"transactions\": [{\"begin_ms\", \"records\", \"record_interval_ms\", \"end\", \"end_ms\"}, …]} or \
     {\"transactional.id\": null, \"records_at_ms\": [1500, …]}";
const READERS_RANGE: &str =
    "a list of at most 16 readers, each {\"name\", \"client\", \"isolation.level\", \"commit\", \
     \"poll_interval_ms\", \"max.poll.records\", \"auto.commit.interval.ms\"}";
const SHARE_READERS_RANGE: &str =
    "a list of at most 16 share readers, each {\"name\", \"share.isolation.level\", \"poll_interval_ms\", \"max.poll.records\"}";

/// Every top-level key of a transactions scenario, in the order `--help` lists them.
pub const TXN_KEYS: &[KeySpec] = &[
    KeySpec { name: "producers", kind: KeyKind::Structured(PRODUCERS_RANGE), unit: "" },
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
    KeySpec {
        name: "transaction.max.timeout.ms",
        kind: KeyKind::Millis { min_us: MS, max_us: INT_MAX_MS_US },
        unit: "ms",
    },
    KeySpec { name: "transaction.partition.verification.enable", kind: KeyKind::Flag, unit: "" },
    KeySpec { name: "transaction.version", kind: KeyKind::Count { min: 1, max: 2 }, unit: "" },
    KeySpec { name: "readers", kind: KeyKind::Structured(READERS_RANGE), unit: "" },
    KeySpec { name: "share_readers", kind: KeyKind::Structured(SHARE_READERS_RANGE), unit: "" },
    KeySpec { name: "horizon_ms", kind: KeyKind::Millis { min_us: MS, max_us: DAY_US }, unit: "ms" },
];

/// The one-line meaning of each key of [`TXN_KEYS`], in its order (`--help`).
pub const TXN_KEY_HELP: &[&str] = &[
    "the producers writing to orders-3, transactional or plain (fields below)",
    "the broker's scan for timed-out transactions runs this often",
    "the first scan's instant (scans at phase + k · interval); below the interval",
    "the broker's largest transaction.timeout.ms; a producer asking for more is refused",
    "the broker checks a transactional write's partition is in the transaction (KIP-890); off, with transaction.version 1, a transaction can hang",
    "the cluster's finalized transaction.version (2 on a new 4.3.1 cluster: the epoch is bumped per transaction)",
    "consumers, each on a group of its own, reading orders-3 from offset 0 (fields below)",
    "share consumers (KIP-932), each alone in its share group (fields below)",
    "simulated time",
];

/// One field of a list item (producer, transaction, reader, share reader): its spec, its
/// default in words, its meaning.
pub struct FieldHelp {
    /// Name, kind, range and unit.
    pub spec: KeySpec,
    /// The default in words (`"required"` when there is none).
    pub default: &'static str,
    /// What it means.
    pub help: &'static str,
}

const NAME_RANGE: &str = "a text of 1 to 64 characters";
const ID_RANGE: &str = "null or a text of 1 to 249 characters";

/// A producer's fields.
pub const PRODUCER_FIELDS: &[FieldHelp] = &[
    FieldHelp {
        spec: KeySpec { name: "transactional.id", kind: KeyKind::Structured(ID_RANGE), unit: "" },
        default: "null",
        help: "set: a transactional producer; null: plain records",
    },
    FieldHelp {
        spec: KeySpec {
            name: "transaction.timeout.ms",
            kind: KeyKind::Millis { min_us: MS, max_us: INT_MAX_MS_US },
            unit: "ms",
        },
        default: "60000",
        help:
            "the coordinator aborts a transaction open longer than this (at most transaction.max.timeout.ms)",
    },
    FieldHelp {
        spec: KeySpec {
            name: "transactions",
            kind: KeyKind::Structured("a list of 1 to 1000 transactions in time order"),
            unit: "",
        },
        default: "required (transactional)",
        help: "the transactions, one after another (fields below)",
    },
    FieldHelp {
        spec: KeySpec {
            name: "records_at_ms",
            kind: KeyKind::Structured("a list of 1 to 10000 instants in ms, ascending"),
            unit: "ms",
        },
        default: "required (plain)",
        help: "the instants of a plain producer's records",
    },
];

/// A transaction's fields.
pub const TRANSACTION_FIELDS: &[FieldHelp] = &[
    FieldHelp {
        spec: KeySpec { name: "begin_ms", kind: KeyKind::Millis { min_us: 0, max_us: DAY_US }, unit: "ms" },
        default: "required",
        help: "its first record (the coordinator's start of the transaction)",
    },
    FieldHelp {
        spec: KeySpec { name: "records", kind: KeyKind::Count { min: 1, max: 100_000 }, unit: "records" },
        default: "1",
        help: "data records",
    },
    FieldHelp {
        spec: KeySpec { name: "record_interval_ms", kind: KeyKind::Millis { min_us: 0, max_us: 3_600_000 * MS }, unit: "ms" },
        default: "0",
        help: "between two records",
    },
    FieldHelp {
        spec: KeySpec { name: "end", kind: KeyKind::Choice(TxnEnd::NAMES), unit: "" },
        default: "required",
        help: "commit or abort at end_ms; producer_dies (no marker until the timeout abort); hangs (no marker ever)",
    },
    FieldHelp {
        spec: KeySpec { name: "end_ms", kind: KeyKind::Millis { min_us: 0, max_us: DAY_US }, unit: "ms" },
        default: "required (commit, abort)",
        help: "commitTransaction / abortTransaction: the marker's instant, at or after the last record",
    },
];

/// A reader's fields.
pub const READER_FIELDS: &[FieldHelp] = &[
    FieldHelp {
        spec: KeySpec { name: "name", kind: KeyKind::Structured(NAME_RANGE), unit: "" },
        default: "reader-N",
        help: "its name in the output (unique)",
    },
    FieldHelp {
        spec: KeySpec { name: "client", kind: KeyKind::Choice(Client::NAMES), unit: "" },
        default: "\"java_classic\"",
        help: "whose fetch and commit rules it follows (java_consumer_protocol_pre_fix and librdkafka_before_1_9 are refused)",
    },
    FieldHelp {
        spec: KeySpec { name: "isolation.level", kind: KeyKind::Choice(IsolationLevel::NAMES), unit: "" },
        default: "\"read_uncommitted\"",
        help: "read_committed stops at the last stable offset and skips aborted records",
    },
    FieldHelp {
        spec: KeySpec { name: "commit", kind: KeyKind::Choice(CommitStyle::NAMES), unit: "" },
        default: "\"position\"",
        help: "position (commitSync() after every poll), last_record_plus_one, or the client's auto_commit",
    },
    FieldHelp {
        spec: KeySpec { name: "poll_interval_ms", kind: KeyKind::Millis { min_us: MS, max_us: 3_600_000 * MS }, unit: "ms" },
        default: "100",
        help: "polls at 0, this, twice this, …",
    },
    FieldHelp {
        spec: KeySpec { name: "max.poll.records", kind: KeyKind::Count { min: 1, max: 100_000 }, unit: "records" },
        default: "500",
        help: "records one poll (a library's one fetch) hands at most",
    },
    FieldHelp {
        spec: KeySpec {
            name: "auto.commit.interval.ms",
            kind: KeyKind::OptionalMillis { min_us: MS, max_us: 3_600_000 * MS },
            unit: "ms",
        },
        default: "null (the client's default: 5000, sarama 1000, KafkaJS none)",
        help: "auto_commit's interval (Java, librdkafka, sarama, franz-go; KafkaJS's autoCommitInterval)",
    },
];

/// A share reader's fields.
pub const SHARE_READER_FIELDS: &[FieldHelp] = &[
    FieldHelp {
        spec: KeySpec { name: "name", kind: KeyKind::Structured(NAME_RANGE), unit: "" },
        default: "share-N",
        help: "its name in the output (unique among share readers)",
    },
    FieldHelp {
        spec: KeySpec {
            name: "share.isolation.level",
            kind: KeyKind::Choice(IsolationLevel::NAMES),
            unit: "",
        },
        default: "\"read_uncommitted\"",
        help: "the share group's isolation level",
    },
    FieldHelp {
        spec: KeySpec {
            name: "poll_interval_ms",
            kind: KeyKind::Millis { min_us: MS, max_us: 3_600_000 * MS },
            unit: "ms",
        },
        default: "100",
        help: "polls at 0, this, twice this, …",
    },
    FieldHelp {
        spec: KeySpec {
            name: "max.poll.records",
            kind: KeyKind::Count { min: 1, max: 100_000 },
            unit: "records",
        },
        default: "500",
        help: "records one poll hands at most",
    },
];

pub(crate) fn err(key: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError::at(key, message)
}

/// Reads `value` against `spec`, the error naming `path` (a list item's field).
pub(crate) fn read_at<T: KeyValue>(path: &str, spec: &KeySpec, value: &Value) -> Result<T, ScenarioError> {
    T::read(spec, value).map_err(|e| err(path, e.message))
}

/// The key spec of field `name` of a list item's field table.
pub(crate) fn field_spec(fields: &'static [FieldHelp], name: &str) -> &'static KeySpec {
    &fields.iter().find(|f| f.spec.name == name).expect("a field of the table").spec
}

/// A field `path` that `fields` (the table of `what`) does not have, refused with the fields it has.
pub(crate) fn unknown_field(path: &str, fields: &[FieldHelp], what: &str) -> ScenarioError {
    let names: Vec<_> = fields.iter().map(|f| f.spec.name).collect();
    err(path, format!("unknown field of {what}; its fields are {}", names.join(", ")))
}

pub(crate) fn object<'a>(
    path: &str,
    value: &'a Value,
    example: &str,
) -> Result<&'a Map<String, Value>, ScenarioError> {
    value
        .as_object()
        .ok_or_else(|| err(path, format!("must be an object such as {example} (got {})", shown(value))))
}

pub(crate) fn list<'a>(
    path: &str,
    value: &'a Value,
    min: usize,
    max: usize,
    what: &str,
) -> Result<&'a Vec<Value>, ScenarioError> {
    match value {
        Value::Array(items) if (min..=max).contains(&items.len()) => Ok(items),
        Value::Array(items) => {
            Err(err(path, format!("must be a list of {min} to {max} {what} (got {} items)", items.len())))
        }
        other => Err(err(path, format!("must be a list of {min} to {max} {what} (got {})", shown(other)))),
    }
}

pub(crate) fn text(path: &str, value: &Value, max: usize) -> Result<String, ScenarioError> {
    match value {
        Value::String(s) if !s.is_empty() && s.chars().count() <= max => Ok(s.clone()),
        other => Err(err(path, format!("must be a text of 1 to {max} characters (got {})", shown(other)))),
    }
}

fn parse_transaction(path: &str, value: &Value) -> Result<TxnSpec, ScenarioError> {
    let map = object(path, value, r#"{"begin_ms": 1000, "records": 5, "end": "commit", "end_ms": 1200}"#)?;
    let f = |name| field_spec(TRANSACTION_FIELDS, name);
    let mut begin_us = None;
    let mut records = 1u32;
    let mut record_interval_us = 0u64;
    let mut end = None;
    let mut end_us = None;
    for (key, v) in map {
        let here = format!("{path}.{}", shorten(key));
        match key.as_str() {
            "begin_ms" => begin_us = Some(read_at::<u64>(&here, f("begin_ms"), v)?),
            "records" => records = read_at::<u32>(&here, f("records"), v)?,
            "record_interval_ms" => record_interval_us = read_at::<u64>(&here, f("record_interval_ms"), v)?,
            "end" => end = Some(read_at::<TxnEnd>(&here, f("end"), v)?),
            "end_ms" => end_us = Some(read_at::<u64>(&here, f("end_ms"), v)?),
            _ => return Err(unknown_field(&here, TRANSACTION_FIELDS, "a transaction")),
        }
    }
    let begin_us =
        begin_us.ok_or_else(|| err(&format!("{path}.begin_ms"), "a transaction needs begin_ms"))?;
    let end = end.ok_or_else(|| {
        err(
            &format!("{path}.end"),
            "a transaction needs end: one of \"commit\", \"abort\", \"producer_dies\", \"hangs\"",
        )
    })?;
    let txn = TxnSpec { begin_us, records, record_interval_us, end, end_us };
    if txn.last_record_us() > DAY_US {
        return Err(err(
            &format!("{path}.records"),
            format!(
                "the last record would come at {} ms, after 86400000 ms (begin_ms + (records − 1) · record_interval_ms)",
                crate::keys::format_millis(txn.last_record_us())
            ),
        ));
    }
    match (end.has_end_ms(), end_us) {
        (true, None) => {
            return Err(err(
                &format!("{path}.end_ms"),
                format!("a transaction that ends with {} needs end_ms", end.name()),
            ))
        }
        (false, Some(_)) => {
            return Err(err(
                &format!("{path}.end_ms"),
                format!(
                    "a transaction that ends with {} has no end_ms (nothing ends it from the client)",
                    end.name()
                ),
            ))
        }
        (true, Some(e)) if e < txn.last_record_us() => {
            return Err(err(
                &format!("{path}.end_ms"),
                format!(
                    "must be at or after the transaction's last record, {} ms (got {})",
                    crate::keys::format_millis(txn.last_record_us()),
                    crate::keys::format_millis(e)
                ),
            ))
        }
        _ => {}
    }
    Ok(txn)
}

fn parse_producer(path: &str, value: &Value) -> Result<TxnProducer, ScenarioError> {
    let map = object(path, value, r#"{"transactional.id": "tx-a", "transactions": [...]}"#)?;
    let mut p = TxnProducer {
        transactional_id: None,
        transaction_timeout_us: DEFAULT_TXN_TIMEOUT_US,
        transactions: Vec::new(),
        records_at_us: Vec::new(),
    };
    let (mut has_timeout, mut has_txns, mut has_records) = (false, false, false);
    for (key, v) in map {
        let here = format!("{path}.{}", shorten(key));
        match key.as_str() {
            "transactional.id" => {
                p.transactional_id = match v {
                    Value::Null => None,
                    _ => Some(text(&here, v, 249)?),
                }
            }
            "transaction.timeout.ms" => {
                has_timeout = true;
                p.transaction_timeout_us =
                    read_at::<u64>(&here, field_spec(PRODUCER_FIELDS, "transaction.timeout.ms"), v)?;
            }
            "transactions" => {
                has_txns = true;
                let items = list(&here, v, 1, MAX_TRANSACTIONS, "transactions")?;
                for (j, item) in items.iter().enumerate() {
                    p.transactions.push(parse_transaction(&format!("{path}.transactions[{j}]"), item)?);
                }
            }
            "records_at_ms" => {
                has_records = true;
                let items = list(&here, v, 1, MAX_PLAIN_RECORDS, "instants")?;
                let spec =
                    KeySpec { name: "", kind: KeyKind::Millis { min_us: 0, max_us: DAY_US }, unit: "ms" };
                for (j, item) in items.iter().enumerate() {
                    let at = read_at::<u64>(&format!("{here}[{j}]"), &spec, item)?;
                    if p.records_at_us.last().is_some_and(|&prev| at < prev) {
                        return Err(err(&format!("{here}[{j}]"), "the instants must be in ascending order"));
                    }
                    p.records_at_us.push(at);
                }
            }
            _ => return Err(unknown_field(&here, PRODUCER_FIELDS, "a producer")),
        }
    }
    if p.transactional_id.is_some() {
        if has_records {
            return Err(err(
                &format!("{path}.records_at_ms"),
                "a transactional producer writes its records in transactions; records_at_ms is for a producer with \
                 transactional.id null",
            ));
        }
        if !has_txns {
            return Err(err(
                &format!("{path}.transactions"),
                "a transactional producer needs transactions (1 to 1000)",
            ));
        }
    } else {
        for (here, set) in [("transactions", has_txns), ("transaction.timeout.ms", has_timeout)] {
            if set {
                return Err(err(
                    &format!("{path}.{here}"),
                    "a producer with transactional.id null writes plain records (records_at_ms); give it a \
                     transactional.id to run transactions",
                ));
            }
        }
        if !has_records {
            return Err(err(
                &format!("{path}.records_at_ms"),
                "a plain producer (transactional.id null) needs records_at_ms",
            ));
        }
    }
    Ok(p)
}

fn parse_isolation(path: &str, spec: &KeySpec, v: &Value) -> Result<IsolationLevel, ScenarioError> {
    read_at::<IsolationLevel>(path, spec, v)
}

pub(crate) fn parse_reader(path: &str, index: usize, value: &Value) -> Result<TxnReader, ScenarioError> {
    let map = object(
        path,
        value,
        r#"{"name": "java", "client": "java_classic", "isolation.level": "read_committed"}"#,
    )?;
    let f = |name| field_spec(READER_FIELDS, name);
    let mut r = TxnReader {
        name: format!("reader-{}", index + 1),
        client: Client::JavaClassic,
        isolation: IsolationLevel::ReadUncommitted,
        commit: CommitStyle::Position,
        poll_interval_us: 100 * MS,
        max_poll_records: 500,
        auto_commit_interval_us: None,
    };
    for (key, v) in map {
        let here = format!("{path}.{}", shorten(key));
        match key.as_str() {
            "name" => r.name = text(&here, v, 64)?,
            "client" => r.client = read_at::<Client>(&here, f("client"), v)?,
            "isolation.level" => r.isolation = parse_isolation(&here, f("isolation.level"), v)?,
            "commit" => r.commit = read_at::<CommitStyle>(&here, f("commit"), v)?,
            "poll_interval_ms" => r.poll_interval_us = read_at::<u64>(&here, f("poll_interval_ms"), v)?,
            "max.poll.records" => r.max_poll_records = read_at::<u32>(&here, f("max.poll.records"), v)?,
            "auto.commit.interval.ms" => {
                r.auto_commit_interval_us = read_at::<Option<u64>>(&here, f("auto.commit.interval.ms"), v)?
            }
            _ => return Err(unknown_field(&here, READER_FIELDS, "a reader")),
        }
    }
    if let Some(why) = refused_client(r.client, r.commit) {
        let at = if matches!(
            r.client,
            Client::JavaConsumerProtocolPreFix
                | Client::JavaConsumerProtocol4_2_0
                | Client::LibrdkafkaBefore1_9
                | Client::LibrdkafkaConsumerProtocol
        ) {
            "client"
        } else {
            "commit"
        };
        return Err(err(&format!("{path}.{at}"), why));
    }
    if r.auto_commit_interval_us.is_some() && !reads_auto_commit_interval(r.client, r.commit) {
        return Err(err(
            &format!("{path}.auto.commit.interval.ms"),
            format!(
                "is not read by a {} reader committing by {}: only auto_commit under java_classic, \
                 java_consumer_protocol, librdkafka, sarama, franz_go and kafkajs (its autoCommitInterval) reads it",
                r.client.name(),
                r.commit.name()
            ),
        ));
    }
    Ok(r)
}

/// Whether the reader reads `auto.commit.interval.ms`: `auto_commit` under the clients with a
/// commit timer, and KafkaJS's `autoCommitInterval`.
fn reads_auto_commit_interval(client: Client, commit: CommitStyle) -> bool {
    commit == CommitStyle::AutoCommit
        && matches!(
            client,
            Client::JavaClassic
                | Client::JavaConsumerProtocol
                | Client::Librdkafka
                | Client::Sarama
                | Client::FranzGo
                | Client::Kafkajs
        )
}

/// Whether the reader commits on a background timer of its own (librdkafka, sarama, franz-go).
/// A reader's canonical JSON, which [`parse_reader`] reads back to an equal reader.
pub(crate) fn reader_json(r: &TxnReader) -> Value {
    let ms = millis_value;
    let mut m = Map::new();
    m.insert("name".into(), r.name.clone().into());
    m.insert("client".into(), r.client.name().into());
    m.insert("isolation.level".into(), r.isolation.name().into());
    m.insert("commit".into(), r.commit.name().into());
    m.insert("poll_interval_ms".into(), ms(r.poll_interval_us));
    m.insert("max.poll.records".into(), r.max_poll_records.into());
    if let Some(a) = r.auto_commit_interval_us {
        m.insert("auto.commit.interval.ms".into(), ms(a));
    }
    Value::Object(m)
}

pub(crate) fn has_commit_timer(client: Client, commit: CommitStyle) -> bool {
    commit == CommitStyle::AutoCommit
        && matches!(client, Client::Librdkafka | Client::Sarama | Client::FranzGo)
}

/// Why the model refuses `client` committing by `commit` (model.md §13.4), or `None` when it
/// states what that client does from its source.
pub fn refused_client(client: Client, commit: CommitStyle) -> Option<String> {
    match (client, commit) {
        (Client::JavaConsumerProtocolPreFix, _) => Some(
            "java_consumer_protocol_pre_fix (kafka-clients 3.9.2) is refused: the model's transaction rules were read in \
             kafka-clients 4.3.1's fetch path (CompletedFetch, FetchCollector), not 3.9.2's; use java_consumer_protocol"
                .to_string(),
        ),
        (Client::JavaConsumerProtocol4_2_0, _) => Some(
            "java_consumer_protocol_4_2_0 is refused: it differs from java_consumer_protocol in a group's \
             reconciliation only (model.md §10.6), which a transactions reader has none of; use java_consumer_protocol"
                .to_string(),
        ),
        (Client::LibrdkafkaConsumerProtocol, _) => Some(
            "librdkafka_consumer_protocol is refused: it differs from librdkafka in a group's \
             reconciliation only (model.md §10.6), which a transactions reader has none of; use librdkafka"
                .to_string(),
        ),
        (Client::LibrdkafkaBefore1_9, _) => Some(
            "librdkafka_before_1_9 is refused: the model's transaction rules were read in librdkafka 2.x \
             (rdkafka_queue.c, rdkafka_op.c), not in a release before 1.9; use librdkafka"
                .to_string(),
        ),
        (Client::Sarama | Client::FranzGo | Client::KafkaGo | Client::Kafkajs, CommitStyle::Position) => Some(format!(
            "commit \"position\" is refused for {}: the client gives the application no consumer position to commit \
             (its commits carry the offsets of messages handed, + 1); use last_record_plus_one or auto_commit",
            client.name()
        )),
        _ => None,
    }
}

fn parse_share_reader(path: &str, index: usize, value: &Value) -> Result<TxnShareReader, ScenarioError> {
    let map = object(path, value, r#"{"name": "share", "share.isolation.level": "read_committed"}"#)?;
    let f = |name| field_spec(SHARE_READER_FIELDS, name);
    let mut r = TxnShareReader {
        name: format!("share-{}", index + 1),
        isolation: IsolationLevel::ReadUncommitted,
        poll_interval_us: 100 * MS,
        max_poll_records: 500,
    };
    for (key, v) in map {
        let here = format!("{path}.{}", shorten(key));
        match key.as_str() {
            "name" => r.name = text(&here, v, 64)?,
            "share.isolation.level" => r.isolation = parse_isolation(&here, f("share.isolation.level"), v)?,
            "poll_interval_ms" => r.poll_interval_us = read_at::<u64>(&here, f("poll_interval_ms"), v)?,
            "max.poll.records" => r.max_poll_records = read_at::<u32>(&here, f("max.poll.records"), v)?,
            _ => return Err(unknown_field(&here, SHARE_READER_FIELDS, "a share reader")),
        }
    }
    Ok(r)
}

fn key_spec(name: &str) -> &'static KeySpec {
    TXN_KEYS.iter().find(|k| k.name == name).expect("a key of the table")
}

impl TxnScenario {
    /// Reads a transactions scenario from JSON text. Errors name the key (or the list item's
    /// field) and its allowed range.
    pub fn from_json(text: &str) -> Result<TxnScenario, ScenarioError> {
        TxnScenario::from_value(&parse_json(text)?)
    }

    /// As [`TxnScenario::from_json`], from a parsed JSON value.
    pub fn from_value(value: &Value) -> Result<TxnScenario, ScenarioError> {
        let map = json_object(value, "a transactions scenario", r#"{"producers": [...], "readers": [...]}"#)?;
        let mut s = TxnScenario::default();
        let mut has_producers = false;
        for (key, v) in map {
            match key.as_str() {
                "producers" => {
                    has_producers = true;
                    let items = list("producers", v, 1, MAX_PRODUCERS, "producers")?;
                    for (i, item) in items.iter().enumerate() {
                        s.producers.push(parse_producer(&format!("producers[{i}]"), item)?);
                    }
                }
                "transaction.abort.timed.out.transaction.cleanup.interval.ms" => {
                    s.cleanup_interval_us = u64::read(key_spec(key), v)?
                }
                "coordinator_scan_phase_ms" => s.scan_phase_us = u64::read(key_spec(key), v)?,
                "transaction.max.timeout.ms" => s.max_timeout_us = u64::read(key_spec(key), v)?,
                "transaction.partition.verification.enable" => {
                    s.partition_verification = bool::read(key_spec(key), v)?
                }
                "transaction.version" => s.transaction_version = u32::read(key_spec(key), v)? as u8,
                "readers" => {
                    let items = list("readers", v, 0, MAX_READERS, "readers")?;
                    for (i, item) in items.iter().enumerate() {
                        s.readers.push(parse_reader(&format!("readers[{i}]"), i, item)?);
                    }
                }
                "share_readers" => {
                    let items = list("share_readers", v, 0, MAX_READERS, "share readers")?;
                    for (i, item) in items.iter().enumerate() {
                        s.share_readers.push(parse_share_reader(&format!("share_readers[{i}]"), i, item)?);
                    }
                }
                "horizon_ms" => s.horizon_us = u64::read(key_spec(key), v)?,
                _ => return Err(crate::keys::unknown_key(key, TXN_KEYS)),
            }
        }
        if !has_producers {
            return Err(err("producers", format!("is required: {PRODUCERS_RANGE}")));
        }
        s.check_combinations()?;
        Ok(s)
    }

    /// Checks a scenario built in code: every range (by reading its JSON form back) and every
    /// combination [`TxnScenario::from_value`] checks.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let back = TxnScenario::from_value(&self.to_json_value())?;
        if &back != self {
            return Err(ScenarioError::whole("the scenario does not read back from its JSON form"));
        }
        Ok(())
    }

    /// What the scenario needs beyond each value's range: the scan phase below the interval,
    /// each timeout at most the broker's largest, transactions of one producer one after
    /// another, nothing after a producer died, `hangs` only where a 4.3.1 broker lets a
    /// transaction hang, unique names, and the event bound.
    fn check_combinations(&self) -> Result<(), ScenarioError> {
        if self.scan_phase_us >= self.cleanup_interval_us {
            return Err(err(
                "coordinator_scan_phase_ms",
                format!(
                    "must be below transaction.abort.timed.out.transaction.cleanup.interval.ms ({} ms) (got {})",
                    crate::keys::format_millis(self.cleanup_interval_us),
                    crate::keys::format_millis(self.scan_phase_us)
                ),
            ));
        }
        let mut records = 0u64;
        for (i, p) in self.producers.iter().enumerate() {
            if p.transactional_id.is_some() && p.transaction_timeout_us > self.max_timeout_us {
                return Err(err(
                    &format!("producers[{i}].transaction.timeout.ms"),
                    format!(
                        "must be at most transaction.max.timeout.ms, {} ms: the broker answers InitProducerId with \
                         INVALID_TRANSACTION_TIMEOUT (got {})",
                        crate::keys::format_millis(self.max_timeout_us),
                        crate::keys::format_millis(p.transaction_timeout_us)
                    ),
                ));
            }
            if let Some(id) = &p.transactional_id {
                if let Some(j) =
                    self.producers[..i].iter().position(|q| q.transactional_id.as_ref() == Some(id))
                {
                    return Err(err(
                        &format!("producers[{i}].transactional.id"),
                        format!(
                            "repeats producers[{j}]'s: a second producer with one transactional.id fences the first \
                             (initTransactions), which the model does not run"
                        ),
                    ));
                }
            }
            records += p.records_at_us.len() as u64;
            for (j, t) in p.transactions.iter().enumerate() {
                records += t.records as u64;
                let here = format!("producers[{i}].transactions[{j}]");
                if t.end == TxnEnd::Hangs && (self.partition_verification || self.transaction_version >= 2) {
                    return Err(err(
                        &format!("{here}.end"),
                        "a hanging transaction cannot happen on Apache Kafka 4.3.1 as configured: the leader appends a \
                         transactional record only once the coordinator has the partition in the transaction \
                         (ReplicaManager.maybeSendPartitionsToTransactionCoordinator verifies whenever \
                         transaction.partition.verification.enable is true, its default, or transaction.version is \
                         2, a new cluster's), so no late write can open a transaction the coordinator never ends. Set \
                         transaction.partition.verification.enable to false and transaction.version to 1 to model it \
                         (model.md §13.2)",
                    ));
                }
                if j > 0 {
                    let prev = &p.transactions[j - 1];
                    if !prev.end.has_end_ms() {
                        return Err(err(
                            &here,
                            format!(
                                "follows a transaction that ends with {}: that producer writes nothing more (a new \
                                 producer with the same transactional.id would fence and abort it, which the model \
                                 does not run)",
                                prev.end.name()
                            ),
                        ));
                    }
                    let prev_end = prev.end_us.unwrap_or(prev.begin_us);
                    if t.begin_us < prev_end {
                        return Err(err(
                            &format!("{here}.begin_ms"),
                            format!(
                                "must be at or after the previous transaction's end_ms, {} ms: one producer runs one \
                                 transaction at a time (got {})",
                                crate::keys::format_millis(prev_end),
                                crate::keys::format_millis(t.begin_us)
                            ),
                        ));
                    }
                }
            }
        }
        if records > MAX_TXN_RECORDS {
            return Err(err("producers", format!("write {records} records, more than {MAX_TXN_RECORDS}")));
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
        let mut share_names: Vec<&str> = Vec::new();
        for (i, r) in self.share_readers.iter().enumerate() {
            if share_names.contains(&r.name.as_str()) {
                return Err(err(
                    &format!("share_readers[{i}].name"),
                    format!("repeats another share reader's name {:?}", r.name),
                ));
            }
            share_names.push(&r.name);
        }
        let events = self.estimated_events();
        if events > MAX_TXN_EVENTS {
            return Err(err(
                "horizon_ms",
                format!(
                    "the scenario needs about {events} events (records written and handed, polls, auto-commit \
                     ticks), more than \
                     {MAX_TXN_EVENTS}: shorten horizon_ms or lengthen poll_interval_ms"
                ),
            ));
        }
        Ok(())
    }

    /// Records written and handed to every reader, polls and auto-commit ticks over the horizon:
    /// what time and memory grow with.
    pub fn estimated_events(&self) -> u64 {
        let ticks = |every_us: u64| self.horizon_us / every_us + 1;
        let records: u64 = self
            .producers
            .iter()
            .map(|p| {
                p.records_at_us.len() as u64
                    + p.transactions.iter().map(|t| t.records as u64 + 1).sum::<u64>()
            })
            .sum();
        let readers: u64 = self
            .readers
            .iter()
            .map(|r| {
                ticks(r.poll_interval_us)
                    + if has_commit_timer(r.client, r.commit) {
                        ticks(r.effective_auto_commit_interval_us())
                    } else {
                        0
                    }
            })
            .sum();
        let shares: u64 = self.share_readers.iter().map(|r| ticks(r.poll_interval_us)).sum();
        records * (1 + self.readers.len() as u64 + self.share_readers.len() as u64) + readers + shares
    }

    /// The canonical JSON form, which [`TxnScenario::from_value`] reads back to an equal scenario.
    pub fn to_json_value(&self) -> Value {
        let ms = millis_value;
        let producers: Vec<Value> = self
            .producers
            .iter()
            .map(|p| {
                let mut m = Map::new();
                match &p.transactional_id {
                    Some(id) => {
                        m.insert("transactional.id".into(), id.clone().into());
                        m.insert("transaction.timeout.ms".into(), ms(p.transaction_timeout_us));
                        let txns: Vec<Value> = p
                            .transactions
                            .iter()
                            .map(|t| {
                                let mut tm = Map::new();
                                tm.insert("begin_ms".into(), ms(t.begin_us));
                                tm.insert("records".into(), t.records.into());
                                tm.insert("record_interval_ms".into(), ms(t.record_interval_us));
                                tm.insert("end".into(), t.end.name().into());
                                if let Some(e) = t.end_us {
                                    tm.insert("end_ms".into(), ms(e));
                                }
                                Value::Object(tm)
                            })
                            .collect();
                        m.insert("transactions".into(), Value::Array(txns));
                    }
                    None => {
                        m.insert("transactional.id".into(), Value::Null);
                        m.insert(
                            "records_at_ms".into(),
                            Value::Array(p.records_at_us.iter().map(|&u| ms(u)).collect()),
                        );
                    }
                }
                Value::Object(m)
            })
            .collect();
        let readers: Vec<Value> = self.readers.iter().map(reader_json).collect();
        let shares: Vec<Value> = self
            .share_readers
            .iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("name".into(), r.name.clone().into());
                m.insert("share.isolation.level".into(), r.isolation.name().into());
                m.insert("poll_interval_ms".into(), ms(r.poll_interval_us));
                m.insert("max.poll.records".into(), r.max_poll_records.into());
                Value::Object(m)
            })
            .collect();
        let mut m = Map::new();
        m.insert("producers".into(), Value::Array(producers));
        m.insert(
            "transaction.abort.timed.out.transaction.cleanup.interval.ms".into(),
            ms(self.cleanup_interval_us),
        );
        m.insert("coordinator_scan_phase_ms".into(), ms(self.scan_phase_us));
        m.insert("transaction.max.timeout.ms".into(), ms(self.max_timeout_us));
        m.insert("transaction.partition.verification.enable".into(), self.partition_verification.into());
        m.insert("transaction.version".into(), self.transaction_version.into());
        m.insert("readers".into(), Value::Array(readers));
        m.insert("share_readers".into(), Value::Array(shares));
        m.insert("horizon_ms".into(), ms(self.horizon_us));
        Value::Object(m)
    }
}
